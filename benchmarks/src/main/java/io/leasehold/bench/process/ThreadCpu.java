package io.leasehold.bench.process;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * CPU seconds of a process's threads, grouped by thread name with the numbering stripped
 * ("GC Thread#0" and "GC Thread#1" are one group), read from {@code /proc/<pid>/task}. Tells
 * whether a JVM's CPU went to its own work, the JIT compiler or the garbage collector. Threads
 * that ended between two readings are missing from the difference.
 */
public final class ThreadCpu {

    private static final double TICKS_PER_SECOND = 100.0;

    private final Map<String, Double> secondsByGroup;

    private ThreadCpu(Map<String, Double> secondsByGroup) {
        this.secondsByGroup = secondsByGroup;
    }

    /** Reads every live thread of {@code pid} now. */
    public static ThreadCpu read(long pid) {
        Map<String, Double> groups = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    double seconds = (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
                    groups.merge(group(name), seconds, Double::sum);
                } catch (IOException e) {
                    // The thread ended while the directory was listed; it has no CPU time to add.
                }
            }
        } catch (IOException e) {
            return new ThreadCpu(Map.of());
        }
        return new ThreadCpu(groups);
    }

    /** CPU seconds per group spent since {@code earlier}. */
    public Map<String, Double> since(ThreadCpu earlier) {
        Map<String, Double> delta = new HashMap<>();
        secondsByGroup.forEach((group, seconds) ->
                delta.put(group, seconds - earlier.secondsByGroup.getOrDefault(group, 0.0)));
        return delta;
    }

    /** The {@code limit} groups with the most CPU, largest first, on one line: {@code [eventloop- 3.10, GC Thread# 0.42]}. */
    public static String top(Map<String, Double> seconds, int limit) {
        return seconds.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(limit)
                .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue()))
                .collect(Collectors.joining(", ", "[", "]"));
    }

    /** A Markdown table of the groups with the most CPU, largest first. */
    public static String table(Map<String, Double> seconds, int limit) {
        double total = seconds.values().stream().mapToDouble(Double::doubleValue).sum();
        StringBuilder out = new StringBuilder("| thread group | CPU s | share |\n|---|---|---|\n");
        List<Map.Entry<String, Double>> top = seconds.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(limit).toList();
        for (Map.Entry<String, Double> entry : top) {
            out.append("| `").append(entry.getKey()).append("` | ")
                    .append(String.format(Locale.ROOT, "%.1f", entry.getValue())).append(" | ")
                    .append(String.format(Locale.ROOT, "%.1f %%", total == 0 ? 0 : 100 * entry.getValue() / total))
                    .append(" |\n");
        }
        return out.toString();
    }

    /** Drops the trailing number: "GC Thread#3" → "GC Thread#"; names are already cut to 15 characters by Linux. */
    private static String group(String threadName) {
        return threadName.replaceAll("[0-9]+$", "");
    }
}
