package io.leasehold.proxy.apis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/** DeleteGroups split by group owner. */
public final class DeleteGroupsApi extends MultiGroupApi<DeleteGroupsRequestData, DeleteGroupsResponseData, String,
        DeletableGroupResult> {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DELETE_GROUPS;
    }

    @Override
    String groupId(String group) {
        return group;
    }

    @Override
    public List<String> topics(DeleteGroupsRequestData request) {
        return request.groupsNames();
    }

    @Override
    public DeleteGroupsRequestData subRequest(DeleteGroupsRequestData request,
                                              LinkedHashMap<String, List<String>> groups) {
        return new DeleteGroupsRequestData().setGroupsNames(new ArrayList<>(groups.keySet()));
    }

    @Override
    public void forEachResult(DeleteGroupsResponseData response, ResultSink<DeletableGroupResult> sink) {
        response.results().forEach(g -> sink.accept(g.groupId(), Uuid.ZERO_UUID, 0, g));
    }

    @Override
    public short errorCode(DeletableGroupResult result) {
        return result.errorCode();
    }

    @Override
    public DeletableGroupResult errorResult(int partition, Errors error) {
        return new DeletableGroupResult().setErrorCode(error.code());
    }

    @Override
    public DeleteGroupsResponseData assemble(DeleteGroupsRequestData request,
                                             LinkedHashMap<String, List<DeletableGroupResult>> results,
                                             int throttleTimeMs) {
        DeleteGroupsResponseData.DeletableGroupResultCollection collection =
                new DeleteGroupsResponseData.DeletableGroupResultCollection();
        results.forEach((group, answers) -> answers.forEach(a -> collection.add(
                new DeletableGroupResult().setGroupId(group).setErrorCode(a.errorCode())
                        .setErrorMessage(a.errorMessage()))));
        return new DeleteGroupsResponseData().setResults(collection).setThrottleTimeMs(throttleTimeMs);
    }

    @Override
    public int throttleTimeMs(DeleteGroupsResponseData response) {
        return response.throttleTimeMs();
    }

    @Override
    public boolean idempotent() {
        return false;
    }
}
