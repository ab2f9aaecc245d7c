package io.leasehold.bench.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time and resident memory of a process, read from Linux {@code /proc}: {@code stat} fields
 * 14 and 15 (user and system time in clock ticks) and {@code status} lines VmRSS and VmHWM.
 */
public final class ProcessStats {

    /** USER_HZ on Linux; {@code getconf CLK_TCK} is 100 on every mainstream kernel build. */
    private static final double TICKS_PER_SECOND = 100.0;

    private final long pid;

    public ProcessStats(long pid) {
        this.pid = pid;
    }

    /** A reading of one process at one moment. */
    public record Sample(double cpuSeconds, double systemSeconds, long rssBytes, long peakRssBytes) {

        /** CPU seconds spent between {@code earlier} and this sample. */
        public double cpuSecondsSince(Sample earlier) {
            return cpuSeconds - earlier.cpuSeconds;
        }
    }

    /** Reads the current CPU time and memory of the process. */
    public Sample sample() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name (field 2) is in parentheses and may contain spaces: count fields after it.
            String[] afterName = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long userTicks = Long.parseLong(afterName[11]);
            long systemTicks = Long.parseLong(afterName[12]);
            long rss = 0;
            long peak = 0;
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = kibibytes(line);
                } else if (line.startsWith("VmHWM:")) {
                    peak = kibibytes(line);
                }
            }
            return new Sample((userTicks + systemTicks) / TICKS_PER_SECOND, systemTicks / TICKS_PER_SECOND, rss, peak);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc for process " + pid, e);
        }
    }

    private static long kibibytes(String statusLine) {
        String[] parts = statusLine.trim().split("\\s+");
        return Long.parseLong(parts[1]) * 1024;
    }
}
