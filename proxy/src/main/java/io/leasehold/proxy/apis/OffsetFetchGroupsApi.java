package io.leasehold.proxy.apis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** OffsetFetch v8+ (several groups per request) split by group owner. */
public final class OffsetFetchGroupsApi extends MultiGroupApi<OffsetFetchRequestData, OffsetFetchResponseData,
        OffsetFetchRequestGroup, OffsetFetchResponseGroup> {
    /** First version that carries a list of groups. */
    public static final short FIRST_MULTI_GROUP_VERSION = 8;

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_FETCH;
    }

    @Override
    String groupId(OffsetFetchRequestGroup group) {
        return group.groupId();
    }

    @Override
    public List<OffsetFetchRequestGroup> topics(OffsetFetchRequestData request) {
        return request.groups();
    }

    @Override
    public OffsetFetchRequestData subRequest(OffsetFetchRequestData request,
                                             LinkedHashMap<OffsetFetchRequestGroup, List<OffsetFetchRequestGroup>> groups) {
        return new OffsetFetchRequestData().setGroups(new ArrayList<>(groups.keySet()))
                .setRequireStable(request.requireStable());
    }

    @Override
    public void forEachResult(OffsetFetchResponseData response, ResultSink<OffsetFetchResponseGroup> sink) {
        response.groups().forEach(g -> sink.accept(g.groupId(), Uuid.ZERO_UUID, 0, g));
    }

    @Override
    public short errorCode(OffsetFetchResponseGroup result) {
        return result.errorCode();
    }

    @Override
    public short topLevelError(OffsetFetchResponseData response) {
        return response.errorCode();
    }

    @Override
    public OffsetFetchResponseGroup errorResult(int partition, Errors error) {
        return new OffsetFetchResponseGroup().setErrorCode(error.code());
    }

    @Override
    public OffsetFetchResponseData assemble(OffsetFetchRequestData request,
            LinkedHashMap<OffsetFetchRequestGroup, List<OffsetFetchResponseGroup>> results, int throttleTimeMs) {
        List<OffsetFetchResponseGroup> groups = new ArrayList<>();
        results.forEach((group, answers) -> answers.forEach(a -> groups.add(a.setGroupId(group.groupId()))));
        return new OffsetFetchResponseData().setGroups(groups).setThrottleTimeMs(throttleTimeMs);
    }

    @Override
    public int throttleTimeMs(OffsetFetchResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public boolean idempotent() {
        return true;
    }
}
