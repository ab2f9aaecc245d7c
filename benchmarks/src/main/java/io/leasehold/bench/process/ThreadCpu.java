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
 * whether a JVM's CPU went to its own work, the JIT compiler or the garbage collector.
 *
 * <p>A thread that ended between two readings took its CPU time with it, so the group it belonged
 * to has no known figure for that interval: its difference is NaN. HotSpot ends idle compiler
 * threads when it runs more than one of a kind ({@code -XX:CICompilerCount} above 2 with the
 * default {@code -XX:+UseDynamicNumberOfCompilerThreads}); summing by group would count their
 * work as never done.
 */
public final class ThreadCpu {

    private static final double TICKS_PER_SECOND = 100.0;

    /** One thread's group and the CPU seconds it has used since it started. */
    record Task(String group, double seconds) {
    }

    private final Map<Long, Task> tasksById;

    private ThreadCpu(Map<Long, Task> tasksById) {
        this.tasksById = tasksById;
    }

    /** A reading of the given threads, by thread id; for tests, which cannot start and end JVM threads at will. */
    static ThreadCpu of(Map<Long, Task> tasksById) {
        return new ThreadCpu(Map.copyOf(tasksById));
    }

    /** Reads every live thread of {@code pid} now. */
    public static ThreadCpu read(long pid) {
        Map<Long, Task> tasks = new HashMap<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : dir) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    double seconds = (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
                    tasks.put(Long.parseLong(task.getFileName().toString()), new Task(group(name), seconds));
                } catch (IOException e) {
                    // The thread ended while the directory was listed: the next difference sees it gone.
                }
            }
        } catch (IOException e) {
            return new ThreadCpu(Map.of());
        }
        return new ThreadCpu(tasks);
    }

    /**
     * CPU seconds per group spent since {@code earlier}: threads started since count in full; a
     * group one of whose threads has ended since is NaN.
     */
    public Map<String, Double> since(ThreadCpu earlier) {
        Map<String, Double> delta = new HashMap<>();
        tasksById.forEach((id, task) -> {
            Task before = earlier.tasksById.get(id);
            delta.merge(task.group(), task.seconds() - (before == null ? 0.0 : before.seconds()), Double::sum);
        });
        earlier.tasksById.forEach((id, task) -> {
            if (!tasksById.containsKey(id)) {
                delta.put(task.group(), Double.NaN);
            }
        });
        return delta;
    }

    /** The {@code limit} groups with the most CPU, largest first, on one line: {@code [eventloop- 3.10, GC Thread# 0.42]}. */
    public static String top(Map<String, Double> seconds, int limit) {
        return seconds.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(limit)
                .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue()))
                .collect(Collectors.joining(", ", "[", "]"));
    }

    /**
     * A Markdown table of the groups with the most CPU, largest first; groups without a figure
     * (see {@link #since}) are named below it and left out of the shares.
     */
    public static String table(Map<String, Double> seconds, int limit) {
        double total = seconds.values().stream().filter(v -> !Double.isNaN(v)).mapToDouble(Double::doubleValue).sum();
        StringBuilder out = new StringBuilder("| thread group | CPU s | share |\n|---|---|---|\n");
        List<Map.Entry<String, Double>> top = seconds.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(limit).toList();
        for (Map.Entry<String, Double> entry : top) {
            out.append("| `").append(entry.getKey()).append("` | ")
                    .append(String.format(Locale.ROOT, "%.1f", entry.getValue())).append(" | ")
                    .append(String.format(Locale.ROOT, "%.1f %%", total == 0 ? 0 : 100 * entry.getValue() / total))
                    .append(" |\n");
        }
        List<String> unknown = seconds.entrySet().stream().filter(e -> Double.isNaN(e.getValue()))
                .map(Map.Entry::getKey).sorted().toList();
        if (!unknown.isEmpty()) {
            out.append("\nNot counted, a thread of theirs ended during the run: `")
                    .append(String.join("`, `", unknown)).append("`\n");
        }
        return out.toString();
    }

    /** Drops the trailing number: "GC Thread#3" → "GC Thread#"; names are already cut to 15 characters by Linux. */
    private static String group(String threadName) {
        return threadName.replaceAll("[0-9]+$", "");
    }
}
