package io.leasehold.proxy.kafscale;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.testing.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25 item 2 in front of reference brokers with {@code --layout kafscale} (KafScale v1.6's
 * narrow API table): every version of every API the proxy advertises is served, and kafka-clients'
 * {@code Admin} deletes topics, adds partitions and describes configs through the proxy.
 */
class VersionMatrixKafscaleLayoutTest {
    private static final String TOPIC = "matrix";
    private static final String GROUP = "matrix-group";
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(15);

    @TempDir
    static Path dir;
    private static LocalCluster cluster;
    private static ConfiguredProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.builder("matrix-kafscale").brokers(2)
                .extraBrokerArguments(List.of("--layout", "kafscale")).start();
        cluster.createTopic(TOPIC, 1);
        proxy = ConfiguredProxy.builder(cluster, dir, "matrix-kafscale-proxy").start();
    }

    /** Stops the proxy first: its log, written with paranoid leak detection, must show no leaked buffer. */
    @AfterAll
    static void stop() throws Exception {
        try {
            if (proxy != null) {
                assertThat(proxy.stop()).as("the proxy's log").doesNotContain("LEAK:");
            }
        } finally {
            if (proxy != null) {
                proxy.close();
            }
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    @Test
    void everyAdvertisedVersionOfEveryApiIsServed() throws Exception {
        Uuid topicId;
        try (Admin admin = admin(cluster.bootstrapServers())) {
            topicId = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).topicId();
        }
        List<VersionMatrix.Row> rows = new VersionMatrix("127.0.0.1", proxy.port(), ANSWER_WITHIN)
                .probe(new SampleRequests(TOPIC, topicId, GROUP, "kafscale"));
        String table = VersionMatrix.markdown("KafScale-layout brokers", rows);
        Files.writeString(Path.of("target", "version-matrix-kafscale-layout.md"), table);
        System.out.println(table);

        assertThat(rows).extracting(VersionMatrix.Row::api).as("KafScale's admin APIs are advertised")
                .contains(ApiKeys.DELETE_TOPICS, ApiKeys.CREATE_PARTITIONS, ApiKeys.DESCRIBE_CONFIGS,
                        ApiKeys.ALTER_CONFIGS, ApiKeys.DELETE_GROUPS);
        assertThat(rows).flatExtracting(VersionMatrix.Row::unserved).as(table).isEmpty();
    }

    @Test
    void adminDeletesTopicsAddsPartitionsAndDescribesAlteredConfigsThroughTheProxy() throws Exception {
        try (Admin admin = admin(proxy.address());
             WireConnection wire = new WireConnection("127.0.0.1", proxy.port(), ANSWER_WITHIN)) {
            admin.createTopics(List.of(new NewTopic("admin-grown", 2, (short) 1), new NewTopic("admin-doomed", 1,
                    (short) 1))).all().get();

            admin.createPartitions(Map.of("admin-grown", NewPartitions.increaseTo(4))).all().get();
            admin.deleteTopics(List.of("admin-doomed")).all().get();
            // Admin 4.4 has only incrementalAlterConfigs, which KafScale lacks; AlterConfigs v1 is what it has.
            AlterConfigsResponseData altered = (AlterConfigsResponseData) wire.send(ApiKeys.ALTER_CONFIGS, (short) 1,
                    new AlterConfigsRequestData().setResources(new AlterConfigsRequestData.AlterConfigsResourceCollection(
                            List.of(new AlterConfigsRequestData.AlterConfigsResource()
                                    .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("admin-grown")
                                    .setConfigs(new AlterConfigsRequestData.AlterableConfigCollection(List.of(
                                            new AlterConfigsRequestData.AlterableConfig().setName("cleanup.policy")
                                                    .setValue("compact")).iterator()))).iterator()))).data();

            assertThat(altered.responses()).extracting(AlterConfigsResponseData.AlterConfigsResourceResponse::errorCode)
                    .containsExactly(Errors.NONE.code());
            assertThat(admin.describeTopics(List.of("admin-grown")).allTopicNames().get().get("admin-grown")
                    .partitions()).hasSize(4);
            assertThat(admin.listTopics().names().get()).contains("admin-grown").doesNotContain("admin-doomed");
            ConfigResource grown = new ConfigResource(ConfigResource.Type.TOPIC, "admin-grown");
            assertThat(admin.describeConfigs(List.of(grown)).all().get().get(grown).get("cleanup.policy").value())
                    .isEqualTo("compact");
        }
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
    }
}
