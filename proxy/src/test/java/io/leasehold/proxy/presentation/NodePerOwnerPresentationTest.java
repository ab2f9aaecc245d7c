package io.leasehold.proxy.presentation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.testing.FixedRoutes;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.junit.jupiter.api.Test;

/**
 * The node-per-owner presentation of one routing snapshot: nodes, leaders, coordinators and
 * DescribeCluster, each computed from the same routing choice the proxy makes for requests.
 */
class NodePerOwnerPresentationTest {
    private static final int BASE = 30_000;
    private static final NodeAddresses PORTS = new NodeAddresses("proxy.example", 9092, null, BASE, 0, 8);

    private static BrokerAddress broker(int id) {
        return new BrokerAddress(id, "10.0.0." + id, 9092, null);
    }

    private static RoutingSnapshot.Builder threeBrokers() {
        return RoutingSnapshot.builder().broker(broker(0)).broker(broker(1)).broker(broker(2));
    }

    private static MetadataResponseData backendAnswer(String topic, int partitions) {
        MetadataResponseData answer = new MetadataResponseData();
        answer.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(0).setHost("10.0.0.0")
                .setPort(9092));
        MetadataResponseData.MetadataResponseTopic shown = new MetadataResponseData.MetadataResponseTopic().setName(topic);
        for (int p = 0; p < partitions; p++) {
            shown.partitions().add(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(p)
                    .setLeaderId(0).setReplicaNodes(List.of(0, 1, 2)).setIsrNodes(List.of(0, 1, 2)));
        }
        answer.topics().add(shown);
        return answer;
    }

    private static Map<Integer, Integer> leaders(MetadataResponseData response, String topic) {
        Map<Integer, Integer> leaders = new TreeMap<>();
        response.topics().find(topic).partitions().forEach(p -> leaders.put(p.partitionIndex(), p.leaderId()));
        return leaders;
    }

    @Test
    void everyLiveBrokerIsANodeAtItsOwnPortAndEveryOwnedPartitionIsLedByItsOwnersNode() {
        RoutingSnapshot snapshot = threeBrokers()
                .partition("orders", 0, new Ownership(2, 10))
                .partition("orders", 1, new Ownership(0, 11))
                .partition("orders", 2, new Ownership(1, 12)).build();
        ClusterPresentation presentation = ClusterPresentation.nodePerOwner(
                new OwnerLookup(new FixedRoutes(snapshot), List.of()), PORTS);

        MetadataResponseData backend = backendAnswer("orders", 3);
        MetadataResponseData shown = presentation.present(backend);

        assertThat(shown.brokers()).extracting(b -> b.nodeId(), b -> b.host(), b -> b.port()).containsExactly(
                tuple(0, "proxy.example", BASE), tuple(1, "proxy.example", BASE + 1),
                tuple(2, "proxy.example", BASE + 2));
        assertThat(leaders(shown, "orders")).containsExactly(Map.entry(0, 2), Map.entry(1, 0), Map.entry(2, 1));
        MetadataResponseData.MetadataResponsePartition first = shown.topics().find("orders").partitions().get(0);
        assertThat(first.replicaNodes()).containsExactly(2);
        assertThat(first.isrNodes()).containsExactly(2);
        assertThat(shown.controllerId()).isZero();
        assertThat(backend.brokers().find(0).host()).as("the cached backend answer is not touched").isEqualTo("10.0.0.0");
    }

    @Test
    void anUnownedPartitionIsLedByTheNodeOfTheBrokerTheRouterWouldSendItTo() {
        RoutingSnapshot snapshot = threeBrokers().build();
        OwnerLookup router = new OwnerLookup(new FixedRoutes(snapshot), List.of());
        MetadataResponseData shown = ClusterPresentation.nodePerOwner(router, PORTS).present(backendAnswer("t", 12));

        Map<Integer, Integer> leaders = leaders(shown, "t");
        for (int p = 0; p < 12; p++) {
            assertThat(leaders.get(p)).as("partition %d", p).isEqualTo(router.partition(snapshot, "t", p, 0).broker().id());
        }
        assertThat(leaders.values()).as("unowned partitions spread over the nodes").containsOnly(0, 1, 2)
                .contains(0, 1, 2);
    }

    @Test
    void aBrokerOutsideTheNodeRangeHasNoNodeAndItsPartitionsAreShownOnAFallbackNode() {
        RoutingSnapshot snapshot = threeBrokers().broker(broker(40))
                .partition("orders", 0, new Ownership(40, 10))
                .partition("orders", 1, new Ownership(1, 11)).build();
        ClusterPresentation presentation = ClusterPresentation.nodePerOwner(
                new OwnerLookup(new FixedRoutes(snapshot), List.of()), PORTS);

        MetadataResponseData shown = presentation.present(backendAnswer("orders", 2));

        assertThat(shown.brokers()).extracting(b -> b.nodeId()).containsExactly(0, 1, 2);
        int fallback = OwnerLookup.fallback(List.of(0, 1, 2), OwnerLookup.partitionHash("orders", 0), 0);
        assertThat(leaders(shown, "orders")).containsExactly(Map.entry(0, fallback), Map.entry(1, 1));
    }

    @Test
    void aBrokerThatLeftDisappearsAndItsPartitionsMoveWithTheirNewOwner() {
        OwnerLookup before = new OwnerLookup(new FixedRoutes(threeBrokers()
                .partition("orders", 0, new Ownership(2, 10)).build()), List.of());
        OwnerLookup after = new OwnerLookup(new FixedRoutes(RoutingSnapshot.builder().broker(broker(0)).broker(broker(1))
                .partition("orders", 0, new Ownership(1, 20)).build()), List.of());

        assertThat(leaders(ClusterPresentation.nodePerOwner(before, PORTS).present(backendAnswer("orders", 1)), "orders"))
                .containsExactly(Map.entry(0, 2));
        MetadataResponseData shown = ClusterPresentation.nodePerOwner(after, PORTS).present(backendAnswer("orders", 1));
        assertThat(shown.brokers()).extracting(b -> b.nodeId()).containsExactly(0, 1);
        assertThat(leaders(shown, "orders")).containsExactly(Map.entry(0, 1));
    }

    @Test
    void withNoRegisteredBrokerTheFirstNodeOfTheRangeStandsIn() {
        OwnerLookup router = new OwnerLookup(new FixedRoutes(RoutingSnapshot.builder().build()),
                List.of(new BrokerAddress(-1, "bootstrap-broker", 9092, null)));
        MetadataResponseData shown = ClusterPresentation.nodePerOwner(router,
                new NodeAddresses("proxy.example", 9092, null, BASE, 5, 3)).present(backendAnswer("orders", 2));

        assertThat(shown.brokers()).extracting(b -> b.nodeId(), b -> b.port()).containsExactly(tuple(5, BASE));
        assertThat(leaders(shown, "orders").values()).containsOnly(5);
    }

    @Test
    void aHostPatternGivesEachNodeItsOwnHostName() {
        OwnerLookup router = new OwnerLookup(new FixedRoutes(threeBrokers().build()), List.of());
        MetadataResponseData shown = ClusterPresentation.nodePerOwner(router,
                new NodeAddresses("kafka.example", 9092, "broker-{id}.kafka.example", 0, 0, 16))
                .present(backendAnswer("orders", 1));

        assertThat(shown.brokers()).extracting(b -> b.host(), b -> b.port()).containsExactly(
                tuple("broker-0.kafka.example", 9092), tuple("broker-1.kafka.example", 9092),
                tuple("broker-2.kafka.example", 9092));
    }

    @Test
    void findCoordinatorAnswersTheGroupOwnersNodeOrTheFallbackForAnUnownedGroup() {
        RoutingSnapshot snapshot = threeBrokers().group("owned", new Ownership(2, 7)).build();
        OwnerLookup router = new OwnerLookup(new FixedRoutes(snapshot), List.of());
        FindCoordinatorResponder responder = new FindCoordinatorResponder(ClusterPresentation.nodePerOwner(router, PORTS));

        FindCoordinatorResponseData single = responder.answer(new FindCoordinatorRequestData().setKey("owned"), (short) 3);
        assertThat(single.nodeId()).isEqualTo(2);
        assertThat(single.port()).isEqualTo(BASE + 2);

        FindCoordinatorResponseData batched = responder.answer(
                new FindCoordinatorRequestData().setCoordinatorKeys(List.of("owned", "free")), (short) 4);
        int free = router.group(snapshot, "free", 0).broker().id();
        assertThat(batched.coordinators()).extracting(c -> c.key(), c -> c.nodeId(), c -> c.port()).containsExactly(
                tuple("owned", 2, BASE + 2), tuple("free", free, BASE + free));
    }

    @Test
    void describeClusterShowsTheSameNodesAndControllerAsMetadata() {
        RoutingSnapshot snapshot = RoutingSnapshot.builder().broker(broker(3)).broker(broker(1)).build();
        ClusterPresentation presentation = ClusterPresentation.nodePerOwner(
                new OwnerLookup(new FixedRoutes(snapshot), List.of()), PORTS);
        DescribeClusterResponseData cluster = new DescribeClusterResponseData().setControllerId(9);
        cluster.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker().setBrokerId(9).setHost("10.0.0.9"));

        presentation.rewrite(cluster);
        MetadataResponseData metadata = presentation.present(backendAnswer("orders", 1));

        assertThat(cluster.brokers()).extracting(b -> b.brokerId(), b -> b.host(), b -> b.port())
                .containsExactlyElementsOf(metadata.brokers().stream()
                        .map(b -> tuple(b.nodeId(), b.host(), b.port())).toList());
        assertThat(cluster.controllerId()).isEqualTo(metadata.controllerId()).isEqualTo(1);
    }
}
