package io.leasehold.proxy.apis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** DescribeGroups split by group owner. */
public final class DescribeGroupsApi extends MultiGroupApi<DescribeGroupsRequestData, DescribeGroupsResponseData,
        String,
        DescribedGroup> {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_GROUPS;
    }

    @Override
    String groupId(String group) {
        return group;
    }

    @Override
    public List<String> topics(DescribeGroupsRequestData request) {
        return request.groups();
    }

    @Override
    public DescribeGroupsRequestData subRequest(DescribeGroupsRequestData request,
                                                LinkedHashMap<String, List<String>> groups) {
        return new DescribeGroupsRequestData().setGroups(new ArrayList<>(groups.keySet()))
                .setIncludeAuthorizedOperations(request.includeAuthorizedOperations());
    }

    @Override
    public void forEachResult(DescribeGroupsResponseData response, ResultSink<DescribedGroup> sink) {
        response.groups().forEach(g -> sink.accept(g.groupId(), org.apache.kafka.common.Uuid.ZERO_UUID, 0, g));
    }

    @Override
    public short errorCode(DescribedGroup result) {
        return result.errorCode();
    }

    @Override
    public DescribedGroup errorResult(int partition, Errors error) {
        return new DescribedGroup().setErrorCode(error.code()).setGroupState("").setProtocolType("")
                .setProtocolData("");
    }

    @Override
    public DescribeGroupsResponseData assemble(DescribeGroupsRequestData request,
                                               LinkedHashMap<String, List<DescribedGroup>> results, int throttleTimeMs) {
        List<DescribedGroup> groups = new ArrayList<>();
        results.forEach((group, answers) -> answers.forEach(a -> groups.add(a.setGroupId(group))));
        return new DescribeGroupsResponseData().setGroups(groups).setThrottleTimeMs(throttleTimeMs);
    }

    @Override
    public int throttleTimeMs(DescribeGroupsResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public boolean idempotent() {
        return true;
    }
}
