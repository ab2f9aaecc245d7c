package io.leasehold.routing.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.routing.snapshot.BrokerAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MetadataSnapshotBrokersTest {

    /** A snapshot in the shape KafScale's operator writes (Go field names, extra fields, static leaders). */
    static final String KAFSCALE_SNAPSHOT = """
            {"Brokers":[{"NodeID":0,"Host":"demo-broker-0.demo-broker-headless.ns.svc.cluster.local","Port":9092,"Rack":null,"UnknownTags":{}},
                        {"NodeID":1,"Host":"demo-broker-1.demo-broker-headless.ns.svc.cluster.local","Port":9092,"Rack":"zone-b","UnknownTags":{}}],
             "ControllerID":0,
             "Topics":[{"ErrorCode":0,"Topic":"orders","TopicID":[12,34,0,0,0,0,0,0,0,0,0,0,0,0,0,1],"IsInternal":false,
                        "Partitions":[{"ErrorCode":0,"Partition":0,"Leader":0,"LeaderEpoch":-1,"Replicas":[0,1],"ISR":[0,1],
                                       "OfflineReplicas":null,"UnknownTags":{}}],
                        "AuthorizedOperations":-2147483648,"UnknownTags":{}}],
             "ClusterName":"demo","ClusterID":"0d6f","SomeFutureField":{"x":[1,2]}}
            """;

    @Test
    void readsTheBrokersOfAKafScaleSnapshotIgnoringEverythingElse() {
        assertThat(MetadataSnapshotBrokers.parse(KAFSCALE_SNAPSHOT)).containsExactly(
                new BrokerAddress(0, "demo-broker-0.demo-broker-headless.ns.svc.cluster.local", 9092, null),
                new BrokerAddress(1, "demo-broker-1.demo-broker-headless.ns.svc.cluster.local", 9092, "zone-b"));
    }

    @Test
    void aSnapshotWithoutBrokersListsNone() {
        assertThat(MetadataSnapshotBrokers.parse("{\"Brokers\":null,\"Topics\":[]}")).isEmpty();
        assertThat(MetadataSnapshotBrokers.parse("{\"ClusterName\":\"demo\"}")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "not json", "[]", "{\"Brokers\":{}}", "{\"Brokers\":[1]}",
        "{\"Brokers\":[{\"Host\":\"h\",\"Port\":9}]}", "{\"Brokers\":[{\"NodeID\":-1,\"Host\":\"h\",\"Port\":9}]}",
        "{\"Brokers\":[{\"NodeID\":\"0\",\"Host\":\"h\",\"Port\":9}]}", "{\"Brokers\":[{\"NodeID\":0,\"Port\":9}]}",
        "{\"Brokers\":[{\"NodeID\":0,\"Host\":\"\",\"Port\":9}]}", "{\"Brokers\":[{\"NodeID\":0,\"Host\":\"h\",\"Port\":0}]}",
        "{\"Brokers\":[{\"NodeID\":0,\"Host\":\"h\",\"Port\":9,\"Rack\":7}]}",
        "{\"Brokers\":[{\"NodeID\":0,\"Host\":\"h\",\"Port\":9},{\"NodeID\":0,\"Host\":\"g\",\"Port\":9}]}"})
    void rejectsAMalformedSnapshotSayingWhatIsWrong(String json) {
        assertThatThrownBy(() -> MetadataSnapshotBrokers.parse(json))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("metadata snapshot");
    }

    @Test
    void theErrorNamesTheBrokerEntryAndField() {
        assertThatThrownBy(() -> MetadataSnapshotBrokers.parse(
                "{\"Brokers\":[{\"NodeID\":0,\"Host\":\"h\",\"Port\":9},{\"NodeID\":1,\"Host\":\"h\",\"Port\":\"x\"}]}"))
                .hasMessage("metadata snapshot Brokers[1] \"Port\" is not an integer 1..65535");
    }
}
