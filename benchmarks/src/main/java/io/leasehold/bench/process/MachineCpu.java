package io.leasehold.bench.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of the whole machine from the first line of Linux {@code /proc/stat}, in
 * core-seconds: busy (everything but idle and iowait) and total. The difference of two readings
 * says how busy all cores together were in between, whoever used them.
 */
public record MachineCpu(double busySeconds, double totalSeconds) {

    private static final double TICKS_PER_SECOND = 100.0;

    /** Reads the machine's CPU counters now. */
    public static MachineCpu read() {
        try {
            String first = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] fields = first.trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal (guest time is already in user)
            long total = 0;
            for (int i = 1; i <= 8 && i < fields.length; i++) {
                total += Long.parseLong(fields[i]);
            }
            long idle = Long.parseLong(fields[4]) + Long.parseLong(fields[5]);
            return new MachineCpu((total - idle) / TICKS_PER_SECOND, total / TICKS_PER_SECOND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/stat", e);
        }
    }

    /** What was spent between {@code earlier} and this reading. */
    public MachineCpu since(MachineCpu earlier) {
        return new MachineCpu(busySeconds - earlier.busySeconds, totalSeconds - earlier.totalSeconds);
    }

    /** Share of all cores' time that was busy, 0..1. */
    public double busyFraction() {
        return totalSeconds <= 0 ? 0 : busySeconds / totalSeconds;
    }
}
