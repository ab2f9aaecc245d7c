package io.leasehold.bench.process;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the command line of a child JVM that runs a main class from this benchmark's own class
 * path (which holds the Kafka broker, the proxy and the reference broker).
 */
public final class JavaCommand {

    private final String javaBinary;
    private final String classPath;

    public JavaCommand(String javaBinary, String classPath) {
        this.javaBinary = javaBinary;
        this.classPath = classPath;
    }

    /** The JVM running this code and its class path. */
    public static JavaCommand ofCurrentJvm() {
        return new JavaCommand(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                System.getProperty("java.class.path"));
    }

    /** {@code java <jvmOptions> -cp <classpath> <mainClass> <args>}. */
    public List<String> command(List<String> jvmOptions, String mainClass, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(javaBinary);
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(args);
        return command;
    }
}
