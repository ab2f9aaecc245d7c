package io.leasehold.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalFileTest {

    @TempDir
    Path dir;

    @Test
    void journalWrittenToAFileReadsBackTheSameEntries() throws Exception {
        Path file = dir.resolve("journal.jsonl");
        ProduceJournal written;
        try (JournalFile sink = JournalFile.append(file)) {
            written = new ProduceJournal(sink);
            written.sent(new RecordIdentity("p0", 0), "t", 1);
            written.acked(new RecordIdentity("p0", 0), "t", 1, 17);
            written.sent(new RecordIdentity("p1", 0), "t", -1);
            written.failed(new RecordIdentity("p1", 0), "t", -1, "NetworkException: gone");
            written.sent(new RecordIdentity("p1", 1), "t", 0);
        }

        ProduceJournal read = new ProduceJournal();
        JournalFile.readInto(file, read);

        assertThat(read.entries()).isEqualTo(written.entries());
        assertThat(read.count(SendOutcome.SENT)).isEqualTo(1);
    }

    @Test
    void malformedLineIsAnErrorNamingFileAndLine() throws Exception {
        Path file = dir.resolve("bad.jsonl");
        Files.writeString(file, """
                {"event":"SENT","producer":"p0","seq":0,"topic":"t","partition":0,"offset":-1,"error":null}
                {"event":"ACKED","producer":"p0","seq":0,"topic":"t","partition":0,"offset":-1,"error":null}
                """);

        assertThatThrownBy(() -> JournalFile.readInto(file, new ProduceJournal()))
                .isInstanceOf(JournalFormatException.class)
                .hasMessageContaining(file + ":2:")
                .hasMessageContaining("needs a partition and an offset");
    }

    @Test
    void missingFieldIsAnError() throws Exception {
        Path file = dir.resolve("short.jsonl");
        Files.writeString(file, "{\"event\":\"SENT\",\"producer\":\"p0\",\"seq\":0,\"topic\":\"t\"}\n");

        assertThatThrownBy(() -> JournalFile.readInto(file, new ProduceJournal()))
                .isInstanceOf(JournalFormatException.class)
                .hasMessageContaining(file + ":1:")
                .hasMessageContaining("partition");
    }
}
