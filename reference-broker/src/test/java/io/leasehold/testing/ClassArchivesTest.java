package io.leasehold.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassArchivesTest {

    private static final Duration START = Duration.ofSeconds(30);

    @TempDir
    Path archives;
    @TempDir
    Path logs;

    private List<String> fixtureCommand(String... args) {
        return new JavaCommand(JavaCommand.currentJavaHome(), System.getProperty("java.class.path"),
                JavaCommand.DEFAULT_JVM_OPTIONS, new ClassArchives(archives))
                .command(ReadyLineFixtureMain.class.getName(), List.of(args));
    }

    private static String option(List<String> command, String prefix) {
        return command.stream().filter(argument -> argument.startsWith(prefix)).findFirst().orElse(null);
    }

    @Test
    void theFirstStartWritesTheArchiveWhenClosedEvenPausedAndTheNextStartMapsIt() {
        List<String> first = fixtureCommand();
        assertThat(option(first, "-XX:ArchiveClassesAtExit=")).isNotNull();
        assertThat(option(first, "-XX:SharedArchiveFile=")).isNull();
        try (ManagedProcess writer = ManagedProcess.start("writer", first, logs, Map.of())) {
            writer.awaitReady(START);
            // While the writer runs, another start neither waits for it nor writes a second archive.
            List<String> meanwhile = fixtureCommand();
            assertThat(option(meanwhile, "-XX:ArchiveClassesAtExit=")).isNull();
            assertThat(option(meanwhile, "-XX:SharedArchiveFile=")).isNull();
            writer.pause();
        }

        List<String> next = new ArrayList<>(fixtureCommand());
        assertThat(option(next, "-XX:SharedArchiveFile=")).isNotNull();
        assertThat(option(next, "-XX:ArchiveClassesAtExit=")).isNull();
        // -Xshare:on makes a JVM that cannot map the archive refuse to start instead of going without.
        next.add(next.indexOf("-cp"), "-Xshare:on");
        try (ManagedProcess reader = ManagedProcess.start("reader", next, logs, Map.of())) {
            assertThat(reader.awaitReady(START)).isEqualTo("127.0.0.1:4242");
        }
    }

    @Test
    void anArchiveWriterKeepsItsExitCode() {
        List<String> failing = fixtureCommand("fail");
        assertThat(option(failing, "-XX:ArchiveClassesAtExit=")).isNotNull();
        try (ManagedProcess writer = ManagedProcess.start("failing-writer", failing, logs, Map.of())) {
            assertThat(writer.waitFor(START)).isTrue();
            assertThat(writer.exitCode()).contains(3);
        }
    }

    @Test
    void classDirectoriesBecomeJarsNamedAfterTheirContent(@TempDir Path classes) throws Exception {
        Files.createDirectories(classes.resolve("io/example"));
        Path file = Files.writeString(classes.resolve("io/example/Resource.txt"), "first");
        ClasspathJars jars = new ClasspathJars(archives);
        String classpath = classes + File.pathSeparator + "/no/such.jar";

        String once = jars.replaceDirectories(classpath);
        String again = jars.replaceDirectories(classpath);
        Files.writeString(file, "second, longer");
        Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 2_000));
        String changed = jars.replaceDirectories(classpath);

        assertThat(once).isEqualTo(again).endsWith(File.pathSeparator + "/no/such.jar").doesNotContain(classes.toString());
        assertThat(changed).isNotEqualTo(once);
        try (JarFile jar = new JarFile(once.split(File.pathSeparator)[0])) {
            assertThat(jar.getEntry("io/example/")).isNotNull();
            assertThat(new String(jar.getInputStream(jar.getEntry("io/example/Resource.txt")).readAllBytes()))
                    .isEqualTo("first");
        }
    }
}
