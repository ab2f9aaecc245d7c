package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(EtcdExtension.class)
class FetchAndIdempotenceTest {

    private BrokerCluster cluster;
    private ReferenceBroker first;
    private ReferenceBroker second;

    @BeforeEach
    void startBrokers(EtcdServer etcd) throws Exception {
        cluster = new BrokerCluster(etcd);
        first = cluster.start(1);
        second = cluster.start(2);
    }

    @AfterEach
    void stopBrokers() {
        cluster.close();
    }

    @Test
    void waitingFetchOnOneBrokerWakesWithDataCommittedThroughAnother() throws Exception {
        cluster.createTopic("waiting", 1);
        try (WireClient fetcher = new WireClient(second.port()); WireClient producer = new WireClient(first.port())) {
            FetchRequestData fetch = new FetchRequestData().setMaxWaitMs(10_000).setMinBytes(1).setMaxBytes(1 << 20)
                    .setReplicaId(-1).setSessionEpoch(-1);
            fetch.topics().add(new FetchRequestData.FetchTopic().setTopic("waiting").setPartitions(List.of(
                    new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20))));
            CompletableFuture<FetchResponseData> answer = CompletableFuture.supplyAsync(() -> {
                try {
                    return fetcher.send(ApiKeys.FETCH, 12, fetch, FetchResponseData.class);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(300);
            assertThat(answer).isNotDone();

            assertThat(Produces.produce(producer, "waiting", 0, "late").errorCode()).isEqualTo(Errors.NONE.code());

            FetchResponseData response = answer.get(8, TimeUnit.SECONDS);
            FetchResponseData.PartitionData partition = response.responses().get(0).partitions().get(0);
            assertThat(partition.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(partition.highWatermark()).isEqualTo(1);
            assertThat(((MemoryRecords) partition.records()).records()).extracting(r -> StandardCharsets.UTF_8
                    .decode(r.value()).toString()).containsExactly("late");
        }
    }

    @Test
    void batchRetriedAtTheNextOwnerIsAnsweredWithItsOriginalOffsetAndNotWrittenTwice(EtcdServer etcd) throws Exception {
        cluster.createTopic("exactly-once-ish", 1);
        try (WireClient toFirst = new WireClient(first.port()); WireClient toSecond = new WireClient(second.port());
             Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
            InitProducerIdResponseData producerId = toFirst.send(ApiKeys.INIT_PRODUCER_ID, 4,
                    new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000).setProducerId(-1).setProducerEpoch((short) -1),
                    InitProducerIdResponseData.class);
            assertThat(producerId.errorCode()).isEqualTo(Errors.NONE.code());
            long pid = producerId.producerId();

            assertThat(produce(toFirst, pid, 0, "a", "b").baseOffset()).isZero();
            assertThat(produce(toFirst, pid, 0, "a", "b").baseOffset()).as("same broker, retried").isZero();

            // Ownership moves, as if broker 1 committed but its answer was lost before it died.
            client.getKVClient().delete(ByteSequence.from(cluster.prefix() + "/partition-leases/exactly-once-ish/0",
                    StandardCharsets.UTF_8)).get();
            ProduceResponseData.PartitionProduceResponse retried = awaitAccepted(toSecond, pid, 0, "a", "b");
            assertThat(retried.baseOffset()).as("other broker, retried").isZero();
            assertThat(produce(toSecond, pid, 2, "c").baseOffset()).isEqualTo(2);
            assertThat(produce(toSecond, pid, 5, "gap").errorCode()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code());

            ListOffsetsRequestData latest = new ListOffsetsRequestData().setReplicaId(-1);
            latest.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName("exactly-once-ish").setPartitions(List.of(
                    new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1))));
            ListOffsetsResponseData offsets = toFirst.send(ApiKeys.LIST_OFFSETS, 5, latest, ListOffsetsResponseData.class);
            assertThat(offsets.topics().get(0).partitions().get(0).offset()).isEqualTo(3);
        }
    }

    @Test
    void acksZeroProduceIsWrittenAndAnsweredWithNothing() throws Exception {
        cluster.createTopic("fire-and-forget", 1);
        try (WireClient client = new WireClient(first.port())) {
            ProduceRequestData request = Produces.request("fire-and-forget", Map.of(0, Produces.records("x", "y")))
                    .setAcks((short) 0);
            client.sendOneWay(ApiKeys.PRODUCE, 9, request);

            // The next answer on the connection belongs to the next request (the client checks correlation ids).
            ListOffsetsRequestData latest = new ListOffsetsRequestData().setReplicaId(-1);
            latest.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName("fire-and-forget").setPartitions(List.of(
                    new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1))));
            ListOffsetsResponseData offsets = client.send(ApiKeys.LIST_OFFSETS, 5, latest, ListOffsetsResponseData.class);
            assertThat(offsets.topics().get(0).partitions().get(0).offset()).isEqualTo(2);
        }
    }

    @Test
    void laterBatchReachingAnOwnerThatDoesNotKnowTheProducerWaitsForItsPredecessorAndIsStoredOnce() throws Exception {
        cluster.createTopic("overtaken", 1);
        try (WireClient producer = new WireClient(second.port())) {
            long pid = producer.send(ApiKeys.INIT_PRODUCER_ID, 4, new InitProducerIdRequestData().setTransactionalId(null)
                    .setTransactionTimeoutMs(60_000).setProducerId(-1).setProducerEpoch((short) -1),
                    InitProducerIdResponseData.class).producerId();

            // Sequence 1 overtakes sequence 0, which is still on its way from an owner that lost its
            // etcd session (the client drains new batches to the new leader while older ones are in flight).
            ProduceResponseData.PartitionProduceResponse overtaking = produce(producer, "overtaken", pid, (short) 0, 1, "b");
            ProduceResponseData.PartitionProduceResponse predecessor = produce(producer, "overtaken", pid, (short) 0, 0, "a");
            if (predecessor.errorCode() == Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code()) {
                // What kafka-clients does when the batch after its last acknowledged one is out of order:
                // bump the epoch locally and resend every unacknowledged batch from sequence 0.
                produce(producer, "overtaken", pid, (short) 1, 0, "a");
                produce(producer, "overtaken", pid, (short) 1, 1, "b");
            } else {
                produce(producer, "overtaken", pid, (short) 0, 1, "b");
            }

            assertThat(storedValues(producer, "overtaken")).as("each record stored once, in order").containsExactly("a", "b");
            assertThat(overtaking.errorCode()).as("a gap at a producer's start is refused")
                    .isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code());
            assertThat(predecessor.errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    private static List<String> storedValues(WireClient client, String topic) throws Exception {
        FetchRequestData fetch = new FetchRequestData().setMaxWaitMs(0).setMinBytes(0).setMaxBytes(1 << 20)
                .setReplicaId(-1).setSessionEpoch(-1);
        fetch.topics().add(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20))));
        FetchResponseData response = client.send(ApiKeys.FETCH, 12, fetch, FetchResponseData.class);
        List<String> values = new ArrayList<>();
        ((MemoryRecords) response.responses().get(0).partitions().get(0).records()).records()
                .forEach(record -> values.add(StandardCharsets.UTF_8.decode(record.value()).toString()));
        return values;
    }

    private static ProduceResponseData.PartitionProduceResponse awaitAccepted(WireClient client, long pid, int sequence,
                                                                             String... values) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            ProduceResponseData.PartitionProduceResponse response = produce(client, pid, sequence, values);
            if (response.errorCode() != Errors.NOT_LEADER_OR_FOLLOWER.code() || System.nanoTime() > deadline) {
                return response;
            }
            Thread.sleep(50);
        }
    }

    private static ProduceResponseData.PartitionProduceResponse produce(WireClient client, long pid, int sequence,
                                                                       String... values) throws Exception {
        return produce(client, "exactly-once-ish", pid, (short) 0, sequence, values);
    }

    private static ProduceResponseData.PartitionProduceResponse produce(WireClient client, String topic, long pid,
                                                                       short epoch, int sequence, String... values)
            throws Exception {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
        }
        MemoryRecords batch = MemoryRecords.withIdempotentRecords(Compression.NONE, pid, epoch, sequence, records);
        ProduceRequestData request = Produces.request(topic, Map.of(0, batch));
        ProduceResponseData response = client.send(ApiKeys.PRODUCE, 9, request, ProduceResponseData.class);
        return response.responses().iterator().next().partitionResponses().get(0);
    }
}
