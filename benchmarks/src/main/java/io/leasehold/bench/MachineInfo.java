package io.leasehold.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Describes the machine a run was measured on, for the report. */
final class MachineInfo {

    private MachineInfo() {
    }

    static String describe() {
        return String.format(Locale.ROOT, "%s, %d cores visible to the JVM, %s RAM, Linux %s, Java %s (%s)",
                cpuModel(), Runtime.getRuntime().availableProcessors(), memory(), System.getProperty("os.version"),
                System.getProperty("java.version"), System.getProperty("java.vm.name"));
    }

    /** The 1, 5 and 15 minute load averages: how busy the machine was around the run. */
    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String cpuModel() {
        return firstValue(Path.of("/proc/cpuinfo"), "model name").orElse("unknown CPU");
    }

    private static String memory() {
        return firstValue(Path.of("/proc/meminfo"), "MemTotal")
                .map(v -> Math.round(Long.parseLong(v.replace("kB", "").trim()) / 1024.0 / 1024.0) + " GiB")
                .orElse("unknown");
    }

    private static Optional<String> firstValue(Path file, String key) {
        try {
            List<String> lines = Files.readAllLines(file);
            return lines.stream().filter(l -> l.startsWith(key)).map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
