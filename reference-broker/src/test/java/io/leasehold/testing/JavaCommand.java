package io.leasehold.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a JVM child process: a {@code java} binary (this JVM's unless another
 * runtime is named), heap and GC options, a classpath and a main class named as a string, so
 * callers need no compile-time dependency on what they launch.
 *
 * @param javaHome   the runtime whose {@code bin/java} runs the process
 * @param classpath  for tests normally {@code System.getProperty("java.class.path")}
 * @param jvmOptions e.g. {@code -Xmx256m}
 * @param archives   the class-data archives the process shares with the others of this build,
 *                   or null to start it as given (benchmarks, whose start-up is measured)
 */
public record JavaCommand(Path javaHome, String classpath, List<String> jvmOptions, ClassArchives archives) {

    /**
     * Small heaps, the serial collector and the C1 compiler only: several of these JVMs share two
     * cores in tests, and they live seconds to a minute, too short for the C2 compiler to pay back
     * the CPU it takes from the others (a reference broker used about a third less CPU until READY).
     */
    public static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-Xshare:auto",
            "-XX:TieredStopAtLevel=1");

    /** Copies the options. */
    public JavaCommand {
        jvmOptions = List.copyOf(jvmOptions);
        if (javaHome == null) {
            throw new IllegalArgumentException("a Java runtime is required to launch a JVM");
        }
        if (classpath == null || classpath.isBlank()) {
            throw new IllegalArgumentException("a classpath is required to launch a JVM");
        }
    }

    /** Starts as given, without class-data archives. */
    public JavaCommand(Path javaHome, String classpath, List<String> jvmOptions) {
        this(javaHome, classpath, jvmOptions, null);
    }

    /** Runs on this JVM's own runtime, without class-data archives. */
    public JavaCommand(String classpath, List<String> jvmOptions) {
        this(currentJavaHome(), classpath, jvmOptions);
    }

    /** The runtime this JVM runs on. */
    public static Path currentJavaHome() {
        return Path.of(System.getProperty("java.home"));
    }

    /** The classpath of this JVM with the default options, sharing the build's class-data archives. */
    public static JavaCommand ofCurrentClasspath() {
        return ofCurrentClasspath(DEFAULT_JVM_OPTIONS);
    }

    /** The classpath of this JVM with {@code jvmOptions}, sharing the build's class-data archives. */
    public static JavaCommand ofCurrentClasspath(List<String> jvmOptions) {
        return new JavaCommand(currentJavaHome(), System.getProperty("java.class.path"), jvmOptions,
                ClassArchives.inBuildDirectory());
    }

    /** The full command: java, options, classpath, main class, arguments. */
    public List<String> command(String mainClass, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin").resolve("java").toString());
        command.addAll(jvmOptions);
        String path = classpath;
        if (archives != null) {
            ClassArchives.SharedLaunch shared = archives.prepare(javaHome, classpath, mainClass);
            command.addAll(shared.jvmOptions());
            path = shared.classpath();
        }
        // jetcd's Vert.x would otherwise leave a vertx-cache-* directory in /tmp for every JVM
        // that tests kill; nothing here reads files from the classpath through Vert.x.
        command.add("-Dvertx.disableFileCPResolving=true");
        command.add("-cp");
        command.add(path);
        command.add(mainClass);
        command.addAll(arguments);
        return command;
    }
}
