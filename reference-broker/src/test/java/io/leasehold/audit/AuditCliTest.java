package io.leasehold.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditCliTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final AuditCli cli = new AuditCli(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

    private String errors() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void unknownFlagPrintsUsageAndExitsTwo() {
        assertThat(cli.run("--journal", "j", "--bootstrap", "b", "--verbose")).isEqualTo(AuditCli.USAGE);
        assertThat(errors()).contains("unknown flag '--verbose'").contains("usage: leasehold-audit");
    }

    @Test
    void missingBootstrapIsAUsageError() {
        assertThat(cli.run("--journal", "j")).isEqualTo(AuditCli.USAGE);
        assertThat(errors()).contains("--bootstrap is required");
    }

    @Test
    void badTimeoutNamesTheFlag() {
        assertThat(cli.run("--journal", "j", "--bootstrap", "b", "--timeout", "soon")).isEqualTo(AuditCli.USAGE);
        assertThat(errors()).contains("--timeout: 'soon' is not a duration");
    }

    @Test
    void unreadableJournalIsAUsageError() {
        assertThat(cli.run("--journal", dir.resolve("absent.jsonl").toString(), "--bootstrap", "127.0.0.1:1"))
                .isEqualTo(AuditCli.USAGE);
        assertThat(errors()).contains("cannot read journal").contains("absent.jsonl");
    }

    @Test
    void emptyJournalIsAUsageErrorNotACleanVerdict() throws Exception {
        Path empty = Files.createFile(dir.resolve("empty.jsonl"));
        assertThat(cli.run("--journal", empty.toString(), "--bootstrap", "127.0.0.1:1")).isEqualTo(AuditCli.USAGE);
        assertThat(errors()).contains("contain no sends");
    }

    @Test
    void durationsAcceptTheProjectUnits() {
        assertThat(AuditArguments.duration("250ms", "--timeout")).isEqualTo(Duration.ofMillis(250));
        assertThat(AuditArguments.duration("5s", "--timeout")).isEqualTo(Duration.ofSeconds(5));
        assertThat(AuditArguments.duration("2m", "--timeout")).isEqualTo(Duration.ofMinutes(2));
        assertThat(AuditArguments.duration("1h", "--timeout")).isEqualTo(Duration.ofHours(1));
    }
}
