package io.leasehold.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.bench.profile.HotMethods;
import io.leasehold.testing.JavaCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.EventType;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The flight recording {@code scripts/bench-proxy-cpu --fresh SECONDS --profile} makes of a proxy, made of a real JVM. */
class FlightRecordingTest {

    @TempDir
    Path dir;

    private Process jvm;

    @AfterEach
    void stopTheJvm() throws InterruptedException {
        if (jvm != null) {
            jvm.destroyForcibly().waitFor();
        }
    }

    @Test
    void aFreshRunsRecordingIsWrittenBeforeTheProxyIsStoppedAndSamplesEvery2Ms() throws IOException {
        Path busy = dir.resolve("Busy.java");
        Files.writeString(busy, "public class Busy { public static void main(String[] a) { long x = 0;"
                + " while (x != -1) { x += System.nanoTime() % 7; } } }");
        Path recording = dir.resolve("cpu.jfr");
        List<String> command = new ArrayList<>(List.of(JavaCommand.currentJavaHome().resolve("bin").resolve("java").toString()));
        command.addAll(ProxyCpuComparison.flightRecording(recording, Duration.ofSeconds(2)));
        command.add(busy.toString());
        jvm = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("jvm.log").toFile()).start();

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> readable(recording));
        // Killed, not asked to exit: only a recording written before the stop can be read.
        jvm.destroyForcibly();

        Map<String, String> sampling = new HashMap<>();
        try (RecordingFile file = new RecordingFile(recording)) {
            long executionSample = file.readEventTypes().stream().filter(t -> t.getName().equals("jdk.ExecutionSample"))
                    .mapToLong(EventType::getId).findFirst().orElseThrow();
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (event.getEventType().getName().equals("jdk.ActiveSetting") && event.getLong("id") == executionSample) {
                    sampling.put(event.getString("name"), event.getString("value"));
                }
            }
        }
        assertThat(sampling).containsEntry("enabled", "true").containsEntry("period", "2 ms");
        assertThat(HotMethods.read(recording).samples()).as("samples of the busy thread").isPositive();
    }

    /** True once the whole recording can be read: JFR writes it when the recording stops. */
    private static boolean readable(Path recording) {
        if (!Files.exists(recording)) {
            return false;
        }
        try {
            HotMethods.read(recording);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
