package io.leasehold.proxy.authorization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.testing.LocalCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metadata access through a real proxy process in front of a real etcd and reference broker,
 * asked with raw requests in old versions: a client that has not authenticated (User:ANONYMOUS)
 * may describe the {@code orders} topics and create nothing. The proxy runs with the leak
 * detector at paranoid and fails the class on any leak report when it stops.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MetadataAccessEndToEndTest {
    private static final String ACLS = """
            acls:
              - {principal: "User:ANONYMOUS", resourceType: TOPIC, patternType: PREFIXED, name: orders,
                 operations: [DESCRIBE], permission: ALLOW}
            """;

    private LocalCluster cluster;
    private ConfiguredProxy proxy;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        Path acls = Files.writeString(dir.resolve("acls.yaml"), ACLS);
        cluster = LocalCluster.builder("metadata-acls").brokers(1).start();
        cluster.createTopic("orders-a", 1);
        cluster.createTopic("secret-x", 1);
        proxy = ConfiguredProxy.builder(cluster, dir, "metadata-acls-proxy")
                .section("authorization: { aclsFile: %s }".formatted(acls)).start();
    }

    @AfterAll
    void stop() throws IOException {
        ConfiguredProxy.stopAll(cluster, proxy);
    }

    /** Sends {@code body} as Metadata {@code version} on a fresh connection and decodes the answer. */
    private MetadataResponseData ask(short version, MetadataRequestData body) throws IOException {
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.METADATA, version, "raw",
                body);
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            socket.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(request.readableBytes());
            request.readBytes(out, request.readableBytes());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            return KafkaMessages.decodeResponse(Unpooled.wrappedBuffer(answer), ApiKeys.METADATA, version);
        } finally {
            request.release();
        }
    }

    @Test
    void metadataV0AllTopicsNamesOnlyDescribableTopics() throws Exception {
        MetadataResponseData answer = ask((short) 0, new MetadataRequestData().setTopics(List.of()));

        assertThat(answer.topics()).extracting(MetadataResponseTopic::name).containsExactly("orders-a");
    }

    @Test
    void threeMetadataV3RequestsWithoutCreateAreAllAnsweredAndHoldNoMemory() throws Exception {
        for (int i = 0; i < 3; i++) {
            MetadataResponseData answer = ask((short) 3, new MetadataRequestData().setTopics(List.of(
                    new MetadataRequestTopic().setName("orders-new"), new MetadataRequestTopic().setName("orders-a"))));

            assertThat(answer.topics().find("orders-new").errorCode()).as("request %d: may describe, not create", i)
                    .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            assertThat(answer.topics().find("orders-a").errorCode()).isEqualTo(Errors.NONE.code());
        }
        MetadataResponseData after = ask((short) 12, new MetadataRequestData().setAllowAutoTopicCreation(false)
                .setTopics(List.of(new MetadataRequestTopic().setName("orders-new"))));
        assertThat(after.topics().find("orders-new").errorCode()).as("nothing was created")
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                proxy.metrics().value("leasehold_memory_budget_used_bytes", "")).isZero());
    }
}
