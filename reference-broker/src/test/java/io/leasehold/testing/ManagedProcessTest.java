package io.leasehold.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManagedProcessTest {

    private static final Duration START = Duration.ofSeconds(30);

    @TempDir
    Path logs;

    private ManagedProcess fixture(String... args) {
        // Without class-data archives: a JVM writing one is not killed by close() (see ClassArchivesTest).
        return ManagedProcess.start("fixture", new JavaCommand(System.getProperty("java.class.path"),
                JavaCommand.DEFAULT_JVM_OPTIONS).command(ReadyLineFixtureMain.class.getName(), List.of(args)), logs, Map.of());
    }

    /** The state letter of /proc/PID/stat: R, S, T (stopped), ... */
    private static char state(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    @Test
    void readyLineGivesTheAddressAndStdoutIsLogged() throws Exception {
        try (ManagedProcess process = fixture()) {
            assertThat(process.awaitReady(START)).isEqualTo("127.0.0.1:4242");
            assertThat(Files.readString(process.stdoutLog())).contains("starting").contains("READY 127.0.0.1:4242");
        }
    }

    @Test
    void pauseStopsTheProcessUntilResumed() throws Exception {
        try (ManagedProcess process = fixture()) {
            process.awaitReady(START);

            process.pause();
            await().atMost(Duration.ofSeconds(5)).until(() -> state(process.pid()) == 'T');
            process.resume();
            await().atMost(Duration.ofSeconds(5)).until(() -> state(process.pid()) != 'T');

            assertThat(process.isAlive()).isTrue();
        }
    }

    @Test
    void terminateSendsSigtermAndReportsTheExitCode() {
        try (ManagedProcess process = fixture()) {
            process.awaitReady(START);

            assertThat(process.terminate(Duration.ofSeconds(10))).isEqualTo(128 + 15);
            assertThat(process.isAlive()).isFalse();
        }
    }

    @Test
    void closeKillsEvenAPausedProcess() {
        ManagedProcess process = fixture();
        process.awaitReady(START);
        process.pause();

        process.close();

        assertThat(process.isAlive()).isFalse();
        assertThat(process.exitCode()).contains(128 + 9);
    }

    @Test
    void exitBeforeReadyFailsWithTheStderrTail() {
        try (ManagedProcess process = fixture("fail")) {
            assertThatThrownBy(() -> process.awaitReady(START))
                    .hasMessageContaining("exit code 3")
                    .hasMessageContaining("refusing to start because it was asked to fail");
        }
    }

    @Test
    void signallingAnExitedProcessIsAnError() {
        try (ManagedProcess process = fixture("fail")) {
            process.waitFor(START);
            assertThatThrownBy(process::pause).hasMessageContaining("it has exited with 3");
        }
    }
}
