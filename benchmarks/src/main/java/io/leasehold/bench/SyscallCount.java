package io.leasehold.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Counts the system calls of one process (all its threads) with {@code perf stat} on the
 * kernel's syscall tracepoints, from {@link #start} until {@link #stopPerMegabyte}: how many
 * reads, writes and event-loop waits a proxy makes per MB it moves, which CPU time alone does not
 * tell apart from its Java code.
 */
final class SyscallCount {

    private static final List<String> EVENTS = List.of("raw_syscalls:sys_enter", "syscalls:sys_enter_read",
            "syscalls:sys_enter_readv", "syscalls:sys_enter_recvfrom", "syscalls:sys_enter_write",
            "syscalls:sys_enter_writev", "syscalls:sys_enter_sendto", "syscalls:sys_enter_epoll_wait",
            "syscalls:sys_enter_epoll_pwait", "syscalls:sys_enter_futex", "syscalls:sys_enter_timerfd_settime",
            "context-switches");

    private final Process perf;
    private final Path output;

    private SyscallCount(Process perf, Path output) {
        this.perf = perf;
        this.output = output;
    }

    static SyscallCount start(long pid) {
        try {
            Path output = Files.createTempFile("perf-stat-", ".csv");
            Process perf = new ProcessBuilder("perf", "stat", "-x", ",", "-o", output.toString(), "-e",
                    String.join(",", EVENTS), "-p", Long.toString(pid)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            // perf needs a moment to attach to every thread before the load starts.
            Thread.sleep(300);
            return new SyscallCount(perf, output);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start perf stat", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted starting perf stat", e);
        }
    }

    /** Stops counting and describes the counts per MB of {@code payloadBytes}. */
    String stopPerMegabyte(long payloadBytes) {
        try {
            new ProcessBuilder("kill", "-INT", Long.toString(perf.pid())).start().waitFor();
            perf.waitFor(10, TimeUnit.SECONDS);
            double megabytes = payloadBytes / 1e6;
            StringBuilder counts = new StringBuilder("per MB:");
            for (String line : Files.readAllLines(output)) {
                String[] fields = line.split(",");
                if (fields.length < 3 || line.startsWith("#")) {
                    continue;
                }
                String name = fields[2].replace("syscalls:sys_enter_", "").replace("raw_syscalls:sys_enter", "all");
                try {
                    counts.append(String.format(Locale.ROOT, " %s %.0f", name, Double.parseDouble(fields[0]) / megabytes));
                } catch (NumberFormatException e) {
                    counts.append(' ').append(name).append(" ?");
                }
            }
            Files.deleteIfExists(output);
            return counts.toString();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read perf stat output", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted stopping perf stat", e);
        }
    }
}
