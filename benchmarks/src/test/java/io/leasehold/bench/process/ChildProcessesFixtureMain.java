package io.leasehold.bench.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A child JVM for {@link ChildProcessStopperTest} standing in for the benchmark driver: it stops
 * its children at exit the way {@code BenchMain} does, starts a {@code sleep 300} and a shell
 * with a {@code sleep 300} of its own, prints {@code READY} once all three run, and then either
 * waits to be signalled or, with arguments {@code exit-when FILE}, ends normally with them still
 * running once FILE exists. With argument {@code ignore-sigterm} the shell and its sleep ignore
 * SIGTERM.
 */
public final class ChildProcessesFixtureMain {

    private static final int DESCENDANTS = 3;

    private ChildProcessesFixtureMain() {
    }

    /** Entry point of the child process. */
    public static void main(String[] args) throws IOException, InterruptedException {
        List<String> modes = List.of(args);
        ChildProcessStopper.stopChildrenWhenThisJvmExits();
        String shell = (modes.contains("ignore-sigterm") ? "trap '' TERM; " : "") + "sleep 300 & wait";
        start("sleep", "300");
        start("sh", "-c", shell);
        // The shell forks its sleep after it starts; READY promises all three are running.
        while (ProcessHandle.current().descendants().count() < DESCENDANTS) {
            Thread.sleep(10);
        }
        System.out.println("READY 127.0.0.1:0");
        System.out.flush();
        int exitWhen = modes.indexOf("exit-when");
        if (exitWhen < 0) {
            Thread.sleep(300_000);
            return;
        }
        Path file = Path.of(modes.get(exitWhen + 1));
        while (!Files.exists(file)) {
            Thread.sleep(10);
        }
        System.exit(0);
    }

    private static void start(String... command) throws IOException {
        new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
