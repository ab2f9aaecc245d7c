package io.leasehold.proxy.apis;

import io.leasehold.proxy.exchange.OutgoingRequest;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListGroups over the whole cluster: each broker lists only the groups it coordinates, so the
 * request (filters included) goes to every live broker and the lists are merged. A group listed
 * by two brokers (a former coordinator that still remembers it) appears once, as its lease owner
 * describes it. If any broker fails to answer, the whole answer is COORDINATOR_NOT_AVAILABLE,
 * which clients retry: a list missing one broker's groups would look complete but be wrong.
 */
public final class ListGroupsMerger {
    private final OwnerLookup router;
    private final Supplier<VersionBridge> bridges;

    public ListGroupsMerger(OwnerLookup router, Supplier<VersionBridge> bridges) {
        this.router = router;
        this.bridges = bridges;
    }

    /**
     * Asks every live broker, in the version the {@link VersionBridge} picks, and answers in the
     * client's with the merged list as {@code visible} leaves it.
     */
    public CompletableFuture<ByteBuf> forward(RequestFrame frame, ClientContext client,
                                       UnaryOperator<ListGroupsResponseData> visible) throws MalformedRequestException {
        OutgoingRequest outgoing;
        try {
            outgoing = OutgoingRequest.prepare(client.alloc(), frame, null, bridges.get());
        } catch (UnsupportedVersionException e) {
            return VersionBridge.refuse(client.alloc(), frame, e);
        }
        RoutingSnapshot snapshot = router.snapshot();
        List<BrokerAddress> brokers = router.liveBrokers(snapshot);
        List<CompletableFuture<ListGroupsResponseData>> answers = new ArrayList<>();
        for (BrokerAddress broker : brokers) {
            answers.add(client.backends().sendRead(broker, outgoing.retained()).thenApply(response -> {
                try {
                    return KafkaMessages.<ListGroupsResponseData>decodeResponse(response, ApiKeys.LIST_GROUPS,
                            outgoing.version());
                } finally {
                    response.release();
                }
            }));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).handle((ignored, error) -> {
            try {
                ListGroupsResponseData merged = error != null
                        ? new ListGroupsResponseData().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
                        : visible.apply(merge(snapshot, brokers, answers.stream().map(CompletableFuture::join).toList()));
                return KafkaMessages.encodeResponse(client.alloc(), ApiKeys.LIST_GROUPS, frame.version(),
                        frame.correlationId(), merged);
            } finally {
                outgoing.release();
                frame.release();
            }
        });
    }

    private static ListGroupsResponseData merge(RoutingSnapshot snapshot, List<BrokerAddress> brokers,
                                                List<ListGroupsResponseData> answers) {
        Map<String, ListedGroup> groups = new LinkedHashMap<>();
        int throttle = 0;
        short errorCode = Errors.NONE.code();
        for (int i = 0; i < answers.size(); i++) {
            ListGroupsResponseData answer = answers.get(i);
            throttle = Math.max(throttle, answer.throttleTimeMs());
            if (answer.errorCode() != Errors.NONE.code()) {
                errorCode = answer.errorCode();
                continue;
            }
            int brokerId = brokers.get(i).id();
            for (ListedGroup group : answer.groups()) {
                Ownership owner = snapshot.groupOwner(group.groupId());
                boolean fromOwner = owner != null && owner.brokerId() == brokerId;
                if (fromOwner || !groups.containsKey(group.groupId())) {
                    groups.put(group.groupId(), group.duplicate());
                }
            }
        }
        ListGroupsResponseData merged = new ListGroupsResponseData().setThrottleTimeMs(throttle).setErrorCode(errorCode);
        if (errorCode == Errors.NONE.code()) {
            merged.setGroups(new ArrayList<>(groups.values()));
        }
        return merged;
    }
}
