package io.leasehold.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Class-data sharing for the JVMs tests start (brokers, proxies, command-line runs): the first
 * start of a main class on a class path writes a dynamic archive of the classes it loaded when it
 * exits ({@code -XX:ArchiveClassesAtExit}), and later starts map it ({@code -XX:SharedArchiveFile})
 * instead of loading, parsing and verifying those classes again. A reference broker used 2.3–2.8 CPU
 * seconds until READY without it and 1.0–1.1 with it; the suite starts well over a hundred such
 * JVMs on two cores.
 *
 * <p>All state is on disk under one directory, so every test JVM of a build shares the archives.
 * JDK 17 archives only classes from jars, so class directories on the class path are replaced by
 * jars of their content ({@link ClasspathJars}). An archive is written by one JVM at a time: the
 * first start claims the key; a start while the writer still runs goes without. An archive that
 * cannot be used (class path changed, truncated file) only makes the JVM load classes as usual:
 * {@code -Xshare:auto}. The JVM's own warnings go to stderr, so a child's stdout carries only what
 * the child prints.
 */
public final class ClassArchives {

    /** How long a claim may wait for its JVM to start before another start may claim the key. */
    private static final Duration CLAIM_START = Duration.ofSeconds(30);
    private static final String WRITE_OPTION = "-XX:ArchiveClassesAtExit=";
    private static final List<String> QUIET_JVM_WARNINGS = List.of("-Xlog:disable", "-Xlog:all=warning:stderr");

    private final Path directory;
    private final ClasspathJars jars;

    /** Archives and class-directory jars under {@code directory}, created when first needed. */
    public ClassArchives(Path directory) {
        this.directory = directory.toAbsolutePath();
        this.jars = new ClasspathJars(this.directory);
    }

    /** Under the build directory of the module whose tests run ({@code target/leasehold-cds}). */
    public static ClassArchives inBuildDirectory() {
        return new ClassArchives(Path.of("target", "leasehold-cds"));
    }

    /** The class path and JVM options a start of {@code mainClass} uses. */
    public record SharedLaunch(String classpath, List<String> jvmOptions) {
    }

    /**
     * How to start {@code mainClass} on {@code javaHome} with {@code classpath}: with the archive
     * when it exists, writing it when this start is the first, or without it while another start
     * writes it.
     */
    public SharedLaunch prepare(Path javaHome, String classpath, String mainClass) {
        String jarsOnly = jars.replaceDirectories(classpath);
        String key = ClasspathJars.hexDigest(javaHome + "\n" + jarsOnly + "\n" + mainClass, 12);
        Path archive = directory.resolve(key + ".jsa");
        Path writing = directory.resolve(key + ".jsa.writing");
        Path claim = directory.resolve(key + ".claim");
        try {
            Files.createDirectories(directory);
            if (!Files.exists(archive) && Files.exists(claim) && !writerRuns(writing)) {
                finishOrRelease(claim, writing, archive);
            }
            if (Files.exists(archive)) {
                return launch(jarsOnly, "-XX:SharedArchiveFile=" + archive);
            }
            if (claim(claim)) {
                return launch(jarsOnly, WRITE_OPTION + writing);
            }
            return launch(jarsOnly, null);
        } catch (IOException e) {
            throw new UncheckedIOException("class-data archive " + archive + " could not be prepared", e);
        }
    }

    /** Whether the JVM {@code command} starts writes an archive when it exits. */
    static boolean writesArchive(List<String> command) {
        return command.stream().anyMatch(argument -> argument.startsWith(WRITE_OPTION));
    }

    private static SharedLaunch launch(String classpath, String archiveOption) {
        List<String> options = new ArrayList<>(QUIET_JVM_WARNINGS);
        if (archiveOption != null) {
            options.add("-Xshare:auto");
            options.add(archiveOption);
        }
        return new SharedLaunch(classpath, List.copyOf(options));
    }

    private static boolean claim(Path claim) throws IOException {
        try {
            Files.createFile(claim);
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        }
    }

    /**
     * The claimed writer is gone: its archive, written whole as it exited, becomes the one every
     * start maps; without one (killed, or never started) the claim is released once old enough.
     */
    private static void finishOrRelease(Path claim, Path writing, Path archive) throws IOException {
        if (Files.exists(writing)) {
            try {
                Files.move(writing, archive, StandardCopyOption.ATOMIC_MOVE);
            } catch (NoSuchFileException e) {
                // Another test JVM moved it first.
            }
        } else if (Files.getLastModifiedTime(claim).toInstant().plus(CLAIM_START).isBefore(Instant.now())) {
            Files.deleteIfExists(claim);
        }
    }

    /** Whether a live process was started to write {@code writing} (it writes when it exits). */
    private static boolean writerRuns(Path writing) {
        String option = WRITE_OPTION + writing;
        return ProcessHandle.allProcesses().anyMatch(process -> process.info().arguments()
                .map(arguments -> List.of(arguments).contains(option)).orElse(false));
    }
}
