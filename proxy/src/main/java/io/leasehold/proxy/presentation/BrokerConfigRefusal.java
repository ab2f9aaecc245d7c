package io.leasehold.proxy.presentation;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Describe/AlterConfigs for one broker (resource type BROKER or BROKER_LOGGER with a broker id)
 * are answered by the proxy with INVALID_REQUEST. Clients see the whole tier as broker
 * {@link ProxyIdentity#DEFAULT_NODE_ID}; no single backend speaks for it, and forwarding to any
 * one broker would show or change that broker's own settings under the proxy's name. Requests
 * for topics and for the cluster-wide broker defaults (BROKER with an empty name) are forwarded.
 * A request that mixes both is refused whole, with a message saying to send them apart (the
 * Java admin client never mixes them).
 */
public final class BrokerConfigRefusal {
    static final String MESSAGE = "broker-scoped configs are not available through the Leasehold proxy: "
            + "clients see the proxy tier as one broker that no single backend speaks for; "
            + "use the cluster-wide default (empty broker name) or ask a backend broker directly";
    private static final String MIXED = "this request also names a single broker's configs, which the Leasehold "
            + "proxy refuses; send broker-scoped and other resources in separate requests";

    private BrokerConfigRefusal() {
    }

    /** The proxy's own answer to {@code body}, or null if it goes to a broker unchanged. */
    public static ApiMessage answer(ApiMessage body) {
        if (body instanceof DescribeConfigsRequestData describe) {
            return describe(describe);
        }
        if (body instanceof AlterConfigsRequestData alter) {
            return alter(alter);
        }
        if (body instanceof IncrementalAlterConfigsRequestData alter) {
            return incrementalAlter(alter);
        }
        return null;
    }

    private static DescribeConfigsResponseData describe(DescribeConfigsRequestData request) {
        List<Boolean> single = request.resources().stream().map(r -> namesOneBroker(r.resourceType(), r.resourceName()))
                .toList();
        if (!single.contains(true)) {
            return null;
        }
        List<DescribeConfigsResponseData.DescribeConfigsResult> results = new ArrayList<>();
        for (int i = 0; i < single.size(); i++) {
            DescribeConfigsRequestData.DescribeConfigsResource r = request.resources().get(i);
            results.add(new DescribeConfigsResponseData.DescribeConfigsResult()
                    .setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(single.get(i) ? MESSAGE : MIXED)
                    .setResourceType(r.resourceType()).setResourceName(r.resourceName()));
        }
        return new DescribeConfigsResponseData().setResults(results);
    }

    private static AlterConfigsResponseData alter(AlterConfigsRequestData request) {
        if (request.resources().stream().noneMatch(r -> namesOneBroker(r.resourceType(), r.resourceName()))) {
            return null;
        }
        AlterConfigsResponseData response = new AlterConfigsResponseData();
        request.resources().forEach(r -> response.responses().add(new AlterConfigsResponseData.AlterConfigsResourceResponse()
                .setErrorCode(Errors.INVALID_REQUEST.code())
                .setErrorMessage(namesOneBroker(r.resourceType(), r.resourceName()) ? MESSAGE : MIXED)
                .setResourceType(r.resourceType()).setResourceName(r.resourceName())));
        return response;
    }

    private static IncrementalAlterConfigsResponseData incrementalAlter(IncrementalAlterConfigsRequestData request) {
        if (request.resources().stream().noneMatch(r -> namesOneBroker(r.resourceType(), r.resourceName()))) {
            return null;
        }
        IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData();
        request.resources().forEach(r -> response.responses().add(
                new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                        .setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage(namesOneBroker(r.resourceType(), r.resourceName()) ? MESSAGE : MIXED)
                        .setResourceType(r.resourceType()).setResourceName(r.resourceName())));
        return response;
    }

    private static boolean namesOneBroker(byte type, String name) {
        return (type == ConfigResource.Type.BROKER.id() || type == ConfigResource.Type.BROKER_LOGGER.id())
                && name != null && !name.isEmpty();
    }
}
