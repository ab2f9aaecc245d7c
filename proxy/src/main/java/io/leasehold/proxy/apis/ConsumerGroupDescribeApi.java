package io.leasehold.proxy.apis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** ConsumerGroupDescribe (KIP-848) split by group owner, like DescribeGroups. */
public final class ConsumerGroupDescribeApi extends MultiGroupApi<ConsumerGroupDescribeRequestData,
        ConsumerGroupDescribeResponseData, String, DescribedGroup> {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.CONSUMER_GROUP_DESCRIBE;
    }

    @Override
    String groupId(String group) {
        return group;
    }

    @Override
    public List<String> topics(ConsumerGroupDescribeRequestData request) {
        return request.groupIds();
    }

    @Override
    public ConsumerGroupDescribeRequestData subRequest(ConsumerGroupDescribeRequestData request,
                                                      LinkedHashMap<String, List<String>> groups) {
        return new ConsumerGroupDescribeRequestData().setGroupIds(new ArrayList<>(groups.keySet()))
                .setIncludeAuthorizedOperations(request.includeAuthorizedOperations());
    }

    @Override
    public void forEachResult(ConsumerGroupDescribeResponseData response, ResultSink<DescribedGroup> sink) {
        response.groups().forEach(g -> sink.accept(g.groupId(), Uuid.ZERO_UUID, 0, g));
    }

    @Override
    public short errorCode(DescribedGroup result) {
        return result.errorCode();
    }

    @Override
    public DescribedGroup errorResult(int partition, Errors error) {
        return new DescribedGroup().setErrorCode(error.code()).setErrorMessage(error.message());
    }

    @Override
    public ConsumerGroupDescribeResponseData assemble(ConsumerGroupDescribeRequestData request,
                                                      LinkedHashMap<String, List<DescribedGroup>> results,
                                                      int throttleTimeMs) {
        List<DescribedGroup> groups = new ArrayList<>();
        results.forEach((group, answers) -> answers.forEach(a -> groups.add(a.setGroupId(group))));
        return new ConsumerGroupDescribeResponseData().setGroups(groups).setThrottleTimeMs(throttleTimeMs);
    }

    @Override
    public int throttleTimeMs(ConsumerGroupDescribeResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public boolean idempotent() {
        return true;
    }
}
