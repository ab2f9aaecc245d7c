package io.leasehold.proxy.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class AuditFileWriterTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Counter linesWritten = registry.counter("written");
    private final Counter dropped = registry.counter("dropped");

    private static AuditEvent denial(String topic) {
        return new AuditEvent(Instant.parse("2026-12-04T17:30:01.250Z"), "User:bob", "/127.0.0.1:53122", "admin-1",
                "DeleteTopics", "DELETE", "TOPIC", topic, AuditEvent.Decision.DENY);
    }

    @Test
    void writesOneJsonObjectPerLineWithEveryField() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AuditFileWriter writer = new AuditFileWriter(out, 16, linesWritten, dropped);
        writer.record(denial("orders"));
        writer.record(denial("payments"));
        writer.close();

        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(2);
        JsonNode first = new ObjectMapper().readTree(lines.get(0));
        assertThat(first.get("time").asText()).isEqualTo("2026-12-04T17:30:01.250Z");
        assertThat(first.get("principal").asText()).isEqualTo("User:bob");
        assertThat(first.get("clientAddress").asText()).isEqualTo("/127.0.0.1:53122");
        assertThat(first.get("clientId").asText()).isEqualTo("admin-1");
        assertThat(first.get("api").asText()).isEqualTo("DeleteTopics");
        assertThat(first.get("operation").asText()).isEqualTo("DELETE");
        assertThat(first.get("resourceType").asText()).isEqualTo("TOPIC");
        assertThat(first.get("resourceName").asText()).isEqualTo("orders");
        assertThat(first.get("decision").asText()).isEqualTo("DENY");
        assertThat(new ObjectMapper().readTree(lines.get(1)).get("resourceName").asText()).isEqualTo("payments");
        assertThat(dropped.count()).isZero();
        assertThat(linesWritten.count()).isEqualTo(2);
    }

    /**
     * The destination stalls on the first line: recording goes on returning at once, the queue
     * fills, and what does not fit is dropped and counted; what was queued is written once the
     * destination moves again.
     */
    @Test
    @Timeout(60) // only a guard: a blocking record() would hang here rather than fail
    void aStalledDestinationNeverBlocksRecordingAndDropsAreCounted() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch unstall = new CountDownLatch(1);
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        OutputStream stalling = new OutputStream() {
            @Override
            public void write(int b) {
                written.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                writing.countDown();
                try {
                    unstall.await();
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
                written.write(b, off, len);
            }
        };
        AuditFileWriter writer = new AuditFileWriter(stalling, 4, linesWritten, dropped);
        writer.record(denial("t-0"));
        writing.await();

        for (int i = 1; i <= 10; i++) {
            writer.record(denial("t-" + i));
        }

        assertThat(dropped.count()).as("beyond the 4 queued behind the stalled line").isEqualTo(6);
        unstall.countDown();
        writer.close();
        assertThat(written.toString(StandardCharsets.UTF_8).lines()).hasSize(5);
        assertThat(linesWritten.count()).isEqualTo(5);
    }
}
