package io.leasehold.proxy.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.testing.TestCertificates;
import io.leasehold.routing.testing.LoopbackPorts;
import io.leasehold.testing.ManagedProcess;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy's command line as an operator meets it: bin/leasehold-proxy running the real
 * {@code io.leasehold.proxy.Main} (from a jar whose manifest names this test's class path, so no
 * shaded jar is needed): help, version, usage errors, the commands, and a proxy started with keys
 * in the forms cert-manager and openssl write, logging timestamped lines at the configured levels
 * and exporting which build runs.
 */
class ProxyCommandLineTest {
    private static final Pattern VERSION_LINE =
            Pattern.compile("leasehold-proxy (\\d+\\.\\d+\\.\\d+(?:-SNAPSHOT)?) \\(commit ([0-9a-f]{12}|unknown)\\)");
    private static final Pattern TIMESTAMP = Pattern.compile("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z ");
    /** Small and quick to start: these JVMs share two cores with the rest of the build. */
    private static final String JAVA_OPTS = "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    @TempDir
    static Path dir;
    private static Path jar;
    private static TestCertificates certs;

    @BeforeAll
    static void writeTheJarAndCertificates() throws Exception {
        jar = classPathJar(dir.resolve("leasehold-proxy-test-all.jar"));
        certs = TestCertificates.generate(dir.resolve("certs"));
        certs.issueEc("ec-client", "/CN=leasehold-proxy", "extendedKeyUsage=clientAuth\n");
    }

    @Test
    void helpListsEveryOptionAndCommandAndExitsZero() throws Exception {
        CommandResult help = run("", "--help");
        CommandResult users = run("", "users", "--help");

        assertThat(help.exitCode()).as(help.describe()).isZero();
        assertThat(help.stdout()).contains("Usage: leasehold-proxy").contains("--config=FILE").contains("--help")
                .contains("--version").contains("validate-config").contains("users").contains("LEASEHOLD_LOG_LEVEL");
        assertThat(users.exitCode()).as(users.describe()).isZero();
        assertThat(users.stdout()).contains("add").contains("standard input");
    }

    @Test
    void versionSaysTheVersionAndTheCommitItWasBuiltFrom() throws Exception {
        CommandResult version = run("", "--version");

        assertThat(version.exitCode()).as(version.describe()).isZero();
        Matcher line = VERSION_LINE.matcher(version.stdout().strip());
        assertThat(line.matches()).as(version.describe()).isTrue();
        assertThat(line.group(2)).isEqualTo(headCommit());
    }

    @Test
    void nothingToDoOrAnUnknownOptionIsAUsageErrorWithStatus2() throws Exception {
        CommandResult nothing = run("");
        CommandResult unknown = run("", "--confg", "proxy.yaml");
        CommandResult usersAlone = run("", "users");

        assertThat(nothing.exitCode()).as(nothing.describe()).isEqualTo(2);
        assertThat(nothing.stderr()).contains("Missing --config FILE").contains("Usage: leasehold-proxy");
        assertThat(unknown.exitCode()).as(unknown.describe()).isEqualTo(2);
        assertThat(unknown.stderr()).contains("Unknown options: '--confg'").contains("Possible solutions: --config");
        assertThat(usersAlone.exitCode()).as(usersAlone.describe()).isEqualTo(2);
    }

    @Test
    void validateConfigPrintsOkOrEveryProblemAndTheFlagFormStillWorks() throws Exception {
        Path good = Files.writeString(dir.resolve("good.yaml"), config(0, "", "", ""));
        Path bad = Files.writeString(dir.resolve("bad.yaml"), config(0, "", "", """
                logging: { level: loud, levels: { io.netty: debug, "not a logger": info } }
                """));

        CommandResult ok = run("", "validate-config", good.toString());
        CommandResult flag = run("", "--validate-config", good.toString());
        CommandResult refused = run("", "validate-config", bad.toString());

        assertThat(ok.exitCode()).as(ok.describe()).isZero();
        assertThat(ok.stdout()).isEqualTo("OK " + good + "\n");
        assertThat(flag.exitCode()).as(flag.describe()).isZero();
        assertThat(refused.exitCode()).as(refused.describe()).isEqualTo(1);
        assertThat(refused.stderr()).contains(bad + ": logging.level: expected one of trace, debug, info, warn, "
                + "error, off, got \"loud\"").contains(bad + ": logging.levels.not a logger: expected a logger name");
    }

    @Test
    void usersAddPrintsAnEntryWithoutThePassword() throws Exception {
        CommandResult added = run("s3cret-password\n", "users", "add", "alice");
        CommandResult badName = run("s3cret-password\n", "users", "add", "alice smith");

        assertThat(added.exitCode()).as(added.describe()).isZero();
        assertThat(added.stdout()).startsWith("- name: alice\n").contains("scramSha256:").contains("scramSha512:")
                .doesNotContain("s3cret-password");
        assertThat(badName.exitCode()).as(badName.describe()).isEqualTo(2);
    }

    @Test
    void startsWithTraditionalKeysLogsTimestampedLinesAtTheConfiguredLevelsAndExportsItsBuild() throws Exception {
        Path listenerKey = certs.traditionalKey(TestCertificates.SERVER);
        Path backendKey = certs.traditionalKey("ec-client");
        int adminPort = LoopbackPorts.take();
        Path config = Files.writeString(dir.resolve("tls.yaml"), config(adminPort,
                ", tlsCertFile: %s, tlsKeyFile: %s".formatted(certs.cert(TestCertificates.SERVER), listenerKey),
                ", tls: { enabled: true, caFile: %s, certFile: %s, keyFile: %s }".formatted(certs.caCert(),
                        certs.cert("ec-client"), backendKey), """
                logging:
                  levels: { io.leasehold.proxy.Main: info, io.grpc: debug }
                """));
        String version = run("", "--version").stdout().strip();

        try (ManagedProcess proxy = ManagedProcess.start("tls-proxy", List.of(launcher().toString(), "--config",
                config.toString()), dir.resolve("logs"), Map.of("LEASEHOLD_PROXY_JAR", jar.toString(),
                "JAVA_OPTS", JAVA_OPTS, "LEASEHOLD_LOG_LEVEL", "warn"))) {
            String address = proxy.awaitReady(Duration.ofSeconds(120));
            handshake(Integer.parseInt(address.substring(address.lastIndexOf(':') + 1)));
            String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + adminPort + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            List<String> lines = Files.readAllLines(proxy.stderrLog()).stream()
                    .filter(line -> !line.startsWith("$ ")).toList();
            Matcher build = VERSION_LINE.matcher(version);
            assertThat(build.matches()).as(version).isTrue();

            assertThat(metrics).contains("leasehold_build_info{commit=\"" + build.group(2) + "\",version=\""
                    + build.group(1) + "\"} 1\n");
            assertThat(lines.get(0)).as("first line").matches(TIMESTAMP.pattern()
                    + "\\[main] INFO io\\.leasehold\\.proxy\\.Main - " + Pattern.quote(version) + " starting with .*");
            List<String> logLines = lines.stream().filter(line -> line.matches("^\\S+ \\[[^]]+] [A-Z]+ .*")).toList();
            assertThat(logLines).as("log lines").isNotEmpty()
                    .allSatisfy(line -> assertThat(line).containsPattern(TIMESTAMP));
            assertThat(logLines).as("gRPC's java.util.logging at debug, in the same output")
                    .anyMatch(line -> line.contains(" DEBUG io.grpc."));
            assertThat(logLines).as("LEASEHOLD_LOG_LEVEL=warn for the rest")
                    .noneMatch(line -> line.contains(" INFO io.leasehold.proxy.LeaseholdProxy"));
        }
    }

    @Test
    void anEncryptedKeyStopsTheStartWithAClearMessage() throws Exception {
        Path encrypted = certs.encryptedKey(TestCertificates.SERVER, true);
        Path config = Files.writeString(dir.resolve("encrypted.yaml"), config(0,
                ", tlsCertFile: %s, tlsKeyFile: %s".formatted(certs.cert(TestCertificates.SERVER), encrypted), "", ""));

        CommandResult refused = run("", "--config", config.toString());

        assertThat(refused.exitCode()).as(refused.describe()).isEqualTo(1);
        assertThat(refused.stderr()).contains(config + ": listener.tlsKeyFile: " + encrypted
                + " holds an encrypted key; the proxy reads unencrypted keys");
    }

    /**
     * A config that starts without etcd and without brokers; {@code listenerTls} and
     * {@code backendsTls} add to those sections (", key: value"), {@code more} adds sections.
     */
    private static String config(int adminPort, String listenerTls, String backendsTls, String more) {
        return """
                listener: { host: 127.0.0.1, port: 0, advertisedHost: 127.0.0.1, advertisedPort: 0%s }
                etcd: { endpoints: ["http://127.0.0.1:1"], connectTimeout: 200ms }
                backends: { bootstrap: ["127.0.0.1:1"]%s }
                admin: { host: 127.0.0.1, port: %d }
                routing: { initialLoadTimeout: 1s, startWithoutEtcd: true }
                """.formatted(listenerTls, backendsTls, adminPort) + more;
    }

    /** A TLS handshake with the listener, trusting only the test CA: the traditional key really serves. */
    private static void handshake(int port) throws Exception {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (InputStream ca = Files.newInputStream(certs.caCert())) {
            trusted.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(ca));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.startHandshake();
            assertThat(socket.getSession().getPeerPrincipal().getName()).isEqualTo("CN=127.0.0.1");
        }
    }

    private static CommandResult run(String input, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(launcher().toString()));
        command.addAll(Arrays.asList(args));
        Path stderr = Files.createTempFile(dir, "stderr", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(stderr.toFile());
        builder.environment().remove("JAVA_OPTS_APPEND");
        builder.environment().remove("LEASEHOLD_LOG_LEVEL");
        builder.environment().putAll(Map.of("LEASEHOLD_PROXY_JAR", jar.toString(), "JAVA_OPTS", JAVA_OPTS));
        Process process = builder.start();
        try (OutputStream stdin = process.getOutputStream()) {
            stdin.write(input.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = process.waitFor();
        return new CommandResult(exit, out, Files.readString(stderr));
    }

    private static Path launcher() {
        return ChartTools.repoRoot().resolve("bin/leasehold-proxy");
    }

    /** The commit git reports for the checkout, or "unknown" where the sources are no checkout. */
    private static String headCommit() throws IOException, InterruptedException {
        Process git = new ProcessBuilder("git", "rev-parse", "--short=12", "HEAD")
                .directory(ChartTools.repoRoot().toFile()).redirectErrorStream(true).start();
        String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        return git.waitFor() == 0 ? out : "unknown";
    }

    /** A jar holding only a manifest: the proxy's main class, and this JVM's class path as its Class-Path. */
    private static Path classPathJar(Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "io.leasehold.proxy.Main");
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH,
                Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                        .map(entry -> Path.of(entry).toUri().toString()).collect(Collectors.joining(" ")));
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.flush();
        }
        return jar;
    }
}
