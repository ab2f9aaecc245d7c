package io.leasehold.proxy.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects the scenario rows of one fault-suite run and renders them as a markdown table,
 * printed at the end of the suite and written to {@code target/fault-report.md}.
 */
final class FaultReport {

    private final List<ScenarioResult> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    synchronized void add(ScenarioResult row) {
        rows.add(row);
    }

    /** A line printed under the table (e.g. a scenario that failed before producing a row). */
    synchronized void note(String line) {
        notes.add(line);
    }

    synchronized String markdown() {
        StringBuilder out = new StringBuilder();
        out.append(ScenarioResult.markdownHeader()).append('\n');
        rows.forEach(row -> out.append(row.markdownRow()).append('\n'));
        notes.forEach(note -> out.append('\n').append(note).append('\n'));
        return out.toString();
    }

    /** Prints the table and writes it to {@code file}. */
    void publish(Path file) {
        String table = markdown();
        System.out.println("Fault suite results" + System.lineSeparator() + table);
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, "# Fault suite results\n\n" + table, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the fault report to " + file, e);
        }
    }
}
