package io.leasehold.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * A produce journal stored as JSON lines, one {@link JournalEvent} per line, so a workload in
 * one process and the auditor in another (the CLI) share it. Appending is a {@link JournalSink}.
 */
public final class JournalFile implements JournalSink, Closeable {

    private final ObjectMapper json;
    private final Path path;
    private final BufferedWriter writer;

    private JournalFile(ObjectMapper json, Path path, BufferedWriter writer) {
        this.json = json;
        this.path = path;
        this.writer = writer;
    }

    /** Opens {@code path} for appending (created if missing). */
    public static JournalFile append(Path path) {
        try {
            return new JournalFile(mapper(), path, Files.newBufferedWriter(path, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open journal " + path + " for writing", e);
        }
    }

    /**
     * Reads a journal file into {@code journal}. A malformed line is an error naming the file and
     * line number; nothing is skipped silently.
     */
    public static void readInto(Path path, ProduceJournal journal) throws IOException, JournalFormatException {
        ObjectMapper json = mapper();
        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.isEmpty()) {
                continue;
            }
            try {
                journal.record(json.readValue(line, JournalEvent.class));
            } catch (JsonProcessingException | IllegalArgumentException | NullPointerException e) {
                String reason = e instanceof JsonProcessingException processing ? processing.getOriginalMessage() : e.getMessage();
                throw new JournalFormatException(path + ":" + (i + 1) + ": not a journal event (" + reason + "): " + line, e);
            }
        }
    }

    @Override
    public synchronized void append(JournalEvent event) {
        try {
            writer.write(json.writeValueAsString(event));
            writer.newLine();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to journal " + path, e);
        }
    }

    /** Writes buffered lines to the file. */
    public synchronized void flush() {
        try {
            writer.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot flush journal " + path, e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            writer.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close journal " + path, e);
        }
    }

    private static ObjectMapper mapper() {
        return new ObjectMapper().enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES);
    }
}
