package io.leasehold.proxy.deploy;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bin/leasehold-proxy, run for real in the container image's layout (bin/ and lib/ under one
 * directory) with a stand-in jar whose main prints what the JVM received.
 */
class LauncherScriptTest {

    @TempDir
    Path home;

    @BeforeEach
    void layOutLikeTheImage() throws IOException {
        Files.createDirectories(home.resolve("bin"));
        Files.copy(ChartTools.repoRoot().resolve("bin/leasehold-proxy"), home.resolve("bin/leasehold-proxy"),
                StandardCopyOption.COPY_ATTRIBUTES);
    }

    @Test
    void runsTheJarFromLibWithContainerAwareDefaultsAndPassesEveryArgument() throws Exception {
        writeEchoJar(home.resolve("lib/leasehold-proxy-1.0-all.jar"));

        CommandResult result = launch(Map.of(), "--validate-config", "/etc/leasehold/proxy.yaml");

        assertThat(result.succeeded()).as(result.describe()).isTrue();
        assertThat(result.stdout()).contains("args=[--validate-config, /etc/leasehold/proxy.yaml]")
                .contains("-XX:MaxRAMPercentage=40").contains("-XX:+ExitOnOutOfMemoryError");
    }

    @Test
    void directMemoryIsAQuarterOfTheMemoryLimit() throws Exception {
        writeEchoJar(home.resolve("lib/leasehold-proxy-1.0-all.jar"));

        CommandResult result = launch(Map.of("LEASEHOLD_MEMORY_LIMIT_BYTES", String.valueOf(1L << 30)), "--config",
                "x.yaml");

        assertThat(result.succeeded()).as(result.describe()).isTrue();
        assertThat(result.stdout()).contains("-XX:MaxDirectMemorySize=" + (256L << 20))
                .contains("-XX:MaxRAMPercentage=40");
    }

    @Test
    void aMemoryLimitThatIsNotANumberIsRefusedByName() throws Exception {
        writeEchoJar(home.resolve("lib/leasehold-proxy-1.0-all.jar"));

        CommandResult result = launch(Map.of("LEASEHOLD_MEMORY_LIMIT_BYTES", "1Gi"), "--config", "x.yaml");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.stderr()).contains("LEASEHOLD_MEMORY_LIMIT_BYTES must be a number of bytes, got '1Gi'");
    }

    @Test
    void javaOptsReplaceTheDefaults() throws Exception {
        writeEchoJar(home.resolve("lib/leasehold-proxy-1.0-all.jar"));

        CommandResult result = launch(Map.of("JAVA_OPTS", "-Xmx64m -Dleasehold.test=yes"), "--config", "x.yaml");

        assertThat(result.stdout()).contains("-Xmx64m").contains("-Dleasehold.test=yes")
                .doesNotContain("MaxRAMPercentage").contains("-Dvertx.disableFileCPResolving=true");
    }

    @Test
    void javaOptsAppendAddsFlagsAndKeepsTheMemoryDefaults() throws Exception {
        writeEchoJar(home.resolve("lib/leasehold-proxy-1.0-all.jar"));

        CommandResult result = launch(Map.of("JAVA_OPTS_APPEND", "-Dleasehold.extra=yes -Xss2m",
                "LEASEHOLD_MEMORY_LIMIT_BYTES", String.valueOf(1L << 30)), "--config", "x.yaml");

        assertThat(result.succeeded()).as(result.describe()).isTrue();
        assertThat(result.stdout()).contains("-Dleasehold.extra=yes").contains("-Xss2m")
                .contains("-XX:MaxRAMPercentage=40").contains("-XX:MaxDirectMemorySize=" + (256L << 20));
    }

    @Test
    void noClassDataArchiveFlagWithoutAnArchiveBesideTheJar() throws Exception {
        writeEchoJar(home.resolve("lib/leasehold-proxy-1.0-all.jar"));

        CommandResult result = launch(Map.of(), "--config", "x.yaml");

        assertThat(result.succeeded()).as(result.describe()).isTrue();
        assertThat(result.stdout()).doesNotContain("SharedArchiveFile").doesNotContain("-Xshare");
    }

    @Test
    void anArchiveBesideTheJarIsUsedAndOneTheJvmCannotMapIsNotFatal() throws Exception {
        writeEchoJar(home.resolve("lib/leasehold-proxy-1.0-all.jar"));
        // Not an archive at all: stands in for one written by another JDK build or for another jar.
        Path archive = Files.writeString(home.resolve("lib/leasehold-proxy-1.0-all.jsa"), "not a CDS archive");

        CommandResult result = launch(Map.of(), "--config", "x.yaml");

        assertThat(result.succeeded()).as(result.describe()).isTrue();
        assertThat(result.stdout()).contains("-XX:SharedArchiveFile=" + archive).contains("-Xshare:auto")
                .contains("args=[--config, x.yaml]");
    }

    @Test
    void missingJarFailsWithTheBuildCommand() throws Exception {
        CommandResult result = launch(Map.of(), "--config", "x.yaml");

        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.stderr()).contains("no leasehold-proxy-*-all.jar found")
                .contains("mvn -B -ntp -pl proxy -am package -DskipTests");
    }

    private CommandResult launch(Map<String, String> environment, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/leasehold-proxy").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove("JAVA_OPTS");
        builder.environment().remove("JAVA_OPTS_APPEND");
        builder.environment().remove("LEASEHOLD_PROXY_JAR");
        builder.environment().remove("LEASEHOLD_MEMORY_LIMIT_BYTES");
        builder.environment().putAll(environment);
        Process process = builder.start();
        process.getOutputStream().close();
        // Outputs are a few lines, so reading one stream to the end cannot block the other.
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        return new CommandResult(process.waitFor(), out, err);
    }

    /** A jar whose main class is {@link EchoMain}, the way the shaded jar names io.leasehold.proxy.Main. */
    private static void writeEchoJar(Path jar) throws IOException {
        Files.createDirectories(jar.getParent());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, EchoMain.class.getName());
        String entry = EchoMain.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.putNextEntry(new JarEntry(entry));
            try (InputStream in = EchoMain.class.getClassLoader().getResourceAsStream(entry)) {
                in.transferTo(out);
            }
            out.closeEntry();
        }
    }

    /** Prints its arguments and JVM flags, standing in for the proxy's Main. */
    public static final class EchoMain {
        public static void main(String[] args) {
            System.out.println("args=" + List.of(args));
            System.out.println("jvm=" + ManagementFactory.getRuntimeMXBean().getInputArguments());
        }
    }
}
