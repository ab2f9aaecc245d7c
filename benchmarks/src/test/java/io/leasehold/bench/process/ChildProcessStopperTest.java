package io.leasehold.bench.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.ManagedProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A driver JVM ({@link ChildProcessesFixtureMain}) that was stopped leaves none of the processes
 * it started, nor theirs, running.
 */
class ChildProcessStopperTest {

    private static final Duration START = Duration.ofSeconds(30);
    /** The grace period, plus room for a loaded machine. */
    private static final Duration EXIT = ChildProcessStopper.GRACE.plusSeconds(10);
    private static final Duration GONE = Duration.ofSeconds(5);

    @TempDir
    Path logs;

    private final List<ProcessHandle> started = new ArrayList<>();
    private ManagedProcess driver;

    /** Kills whatever a failed test left behind, driver and children alike. */
    @AfterEach
    void killLeftovers() {
        started.forEach(ProcessHandle::destroyForcibly);
        if (driver != null) {
            driver.close();
        }
    }

    /** Starts the fixture, waits for its three children, and remembers them for the assertions and the clean-up. */
    private void startDriver(String... args) {
        // A process inherits an ignored SIGINT (a shell ignores it for background jobs, e.g. a CI
        // runner's), and a JVM that starts with SIGINT ignored never handles it. Ctrl-C reaches a
        // driver started from a terminal, so the driver starts with the default action, as there.
        List<String> command = new ArrayList<>(List.of("env", "--default-signal=INT"));
        command.addAll(JavaCommand.ofCurrentClasspath()
                .command(ChildProcessesFixtureMain.class.getName(), List.of(args)));
        driver = ManagedProcess.start("driver", command, logs, Map.of());
        driver.awaitReady(START);
        ProcessHandle.of(driver.pid()).orElseThrow().descendants().forEach(started::add);
        assertThat(started).hasSize(3).allMatch(ProcessHandle::isAlive);
    }

    private void assertAllStartedAreGone() {
        await().atMost(GONE).untilAsserted(() -> assertThat(started).as("processes the driver started").noneMatch(ProcessHandle::isAlive));
    }

    @Test
    void sigtermToTheDriverStopsEveryProcessItStartedAndTheirChildren() {
        startDriver();

        assertThat(driver.terminate(EXIT)).isEqualTo(128 + 15);

        assertAllStartedAreGone();
    }

    @Test
    void sigintToTheDriverStopsThemToo() throws Exception {
        startDriver();

        signal("INT", driver.pid());

        assertThat(driver.waitFor(EXIT)).as("driver exited").isTrue();
        assertThat(driver.exitCode()).contains(128 + 2);
        assertAllStartedAreGone();
    }

    @Test
    void processesThatIgnoreSigtermAreKilledAfterTheGracePeriod() {
        startDriver("ignore-sigterm");

        assertThat(driver.terminate(EXIT)).isEqualTo(128 + 15);

        assertAllStartedAreGone();
    }

    @Test
    void aNormalExitStopsWhatIsStillRunningAndKeepsItsExitCode() throws IOException {
        Path exitNow = logs.resolve("exit-now");
        startDriver("exit-when", exitNow.toString());

        Files.createFile(exitNow);

        assertThat(driver.waitFor(EXIT)).as("driver exited").isTrue();
        assertThat(driver.exitCode()).contains(0);
        assertAllStartedAreGone();
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).as("kill -" + signal + " " + pid).isTrue();
    }
}
