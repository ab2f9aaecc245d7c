package io.leasehold.proxy.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.logging.WarningRateLimiter;
import io.leasehold.proxy.request.ClientContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * The warning about acks=0 records no owner took: topic names, which the client chose, cannot
 * forge log lines, and a request or a client with many such partitions yields few lines.
 */
class UndeliveredProduceLogTest {
    private final List<String> lines = new ArrayList<>();
    private final AtomicLong now = new AtomicLong(1_000);
    private final UndeliveredProduceLog log = new UndeliveredProduceLog(new RecordingLogger(lines),
            new WarningRateLimiter(1000, now::get));
    private final ClientContext client = new ClientContext(null, null, null, null, null, "/10.0.0.7:40000", null);

    private static ProduceResponseData undelivered(String topic, int partitions) {
        ProduceResponseData.TopicProduceResponse response = new ProduceResponseData.TopicProduceResponse().setName(topic);
        for (int i = 0; i < partitions; i++) {
            response.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse().setIndex(i)
                    .setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()));
        }
        ProduceResponseData answer = new ProduceResponseData();
        answer.responses().add(response);
        return answer;
    }

    @Test
    void aTopicNameWithANewlineCannotForgeALogLine() {
        log.undelivered(client, undelivered("orders\n2026-12-01 12:00:00 [main] ERROR forged", 1));

        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).doesNotContain("\n").contains("orders\\x0a2026-12-01");
    }

    @Test
    void oneRequestWithManyUndeliveredPartitionsIsOneBoundedLine() {
        log.undelivered(client, undelivered("t", 5000));

        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).contains("5000 partition(s)").contains("and 4990 more").doesNotContain("t-10 ");
    }

    @Test
    void repeatedFailuresFromOneClientAreRateLimitedAndCounted() {
        for (int i = 0; i < 100; i++) {
            log.undelivered(client, undelivered("t", 1));
            log.failed(client, new IllegalStateException("no owner for t\r\nforged"));
        }
        now.addAndGet(1_000_000_000L);
        log.undelivered(client, undelivered("t", 1));

        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).contains("199 similar lines suppressed");
        assertThat(String.join("", lines)).doesNotContain("\r").doesNotContain("\n");
    }

    /** Keeps WARN lines as formatted text. */
    private static final class RecordingLogger extends LegacyAbstractLogger {
        private final List<String> lines;

        RecordingLogger(List<String> lines) {
            this.lines = lines;
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String format, Object[] args,
                                                   Throwable throwable) {
            lines.add(MessageFormatter.basicArrayFormat(format, args));
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }
    }
}
