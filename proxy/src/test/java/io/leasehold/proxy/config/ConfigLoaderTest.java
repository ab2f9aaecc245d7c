package io.leasehold.proxy.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class ConfigLoaderTest {

    private static final String MINIMAL = """
            listener: { advertisedHost: kafka.example.com }
            etcd: { endpoints: ["http://127.0.0.1:2379"] }
            backends: { bootstrap: ["127.0.0.1:19092"] }
            """;

    private final ConfigLoader loader = new ConfigLoader(Map.of());

    @Test
    void minimalConfigGetsDocumentedDefaults() throws ConfigException {
        ProxyConfig config = loader.parse(MINIMAL, "config.yaml");

        assertThat(config.listener()).isEqualTo(new ProxyConfig.Listener("0.0.0.0", 9092, "kafka.example.com", 9092));
        assertThat(config.etcd()).isEqualTo(new ProxyConfig.Etcd(List.of("http://127.0.0.1:2379"), "/kafscale",
                Duration.ofSeconds(5)));
        assertThat(config.backends()).isEqualTo(new ProxyConfig.Backends(List.of(new HostPort("127.0.0.1", 19092)),
                Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(3), 64 << 20));
        assertThat(config.admin()).isEqualTo(new ProxyConfig.Admin("0.0.0.0", 9094, ProxyConfig.RoutesAccess.OPEN));
        assertThat(config.limits()).isEqualTo(new ProxyConfig.Limits(8 << 20, 10_000, Duration.ofMinutes(10), 64,
                Duration.ofSeconds(10), 100, Duration.ofSeconds(30), Duration.ofSeconds(30), null, 2000, 500, 100_000,
                20_000, 10_000, Duration.ofMinutes(15)));
        assertThat(config.routing()).isEqualTo(new ProxyConfig.Routing(Duration.ofSeconds(2), Duration.ofMillis(20),
                Duration.ofMillis(500), null, Duration.ofSeconds(60), false));
        assertThat(config.shutdown()).isEqualTo(new ProxyConfig.Shutdown(Duration.ofSeconds(20)));
    }

    @Test
    void everyKeyOfTheContractIsRead() throws ConfigException {
        ProxyConfig config = loader.parse("""
                listener: { host: 127.0.0.1, port: 19000, advertisedHost: proxy.local, advertisedPort: 29000 }
                etcd:     { endpoints: ["https://10.0.0.1:2379", "https://10.0.0.2:2379"], prefix: /other, connectTimeout: 250ms }
                backends: { bootstrap: ["b1:19092", "[::1]:19093"], connectTimeout: 1s, requestTimeout: 1m,
                            controlRequestTimeout: 2s, maxResponseBytes: 2097152,
                            dns: { minTtl: 5s, maxTtl: 2m, negativeTtl: 10s } }
                admin:    { host: 127.0.0.1, port: 19001, routes: "off" }
                limits:   { maxFrameBytes: 1048576, maxConnections: 50, idleTimeout: 1h, maxInFlightPerConnection: 5,
                            tlsHandshakeTimeout: 3s, maxConnectionsPerIp: 7, firstRequestTimeout: 4s,
                            frameCompletionTimeout: 6s, memoryBudget: 384Mi, acceptsPerSecond: 40,
                            tlsHandshakesPerSecond: 30, maxPartitionsPerRequest: 900, maxTopicsPerMetadataRequest: 80,
                            requestsPerSecondPerConnection: 300, requestDeadline: 90s }
                routing:  { metadataMaxAge: 3s, retryInitialBackoff: 10ms, retryMaxBackoff: 2s, staleRoutesUnreadyAfter: 45s,
                            initialLoadTimeout: 15s, startWithoutEtcd: true }
                shutdown: { drainTimeout: 7s }
                """, "full.yaml");

        assertThat(config).isEqualTo(new ProxyConfig(
                new ProxyConfig.Listener("127.0.0.1", 19000, "proxy.local", 29000),
                new ProxyConfig.Etcd(List.of("https://10.0.0.1:2379", "https://10.0.0.2:2379"), "/other",
                        Duration.ofMillis(250)),
                new ProxyConfig.Backends(List.of(new HostPort("b1", 19092), new HostPort("::1", 19093)),
                        Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofSeconds(2), 2_097_152, null,
                        new ProxyConfig.BackendDns(Duration.ofSeconds(5), Duration.ofMinutes(2), Duration.ofSeconds(10))),
                new ProxyConfig.Admin("127.0.0.1", 19001, ProxyConfig.RoutesAccess.OFF),
                new ProxyConfig.Limits(1_048_576, 50, Duration.ofHours(1), 5, Duration.ofSeconds(3), 7,
                        Duration.ofSeconds(4), Duration.ofSeconds(6), 384L << 20, 40, 30, 900, 80, 300,
                        Duration.ofSeconds(90)),
                new ProxyConfig.Routing(Duration.ofSeconds(3), Duration.ofMillis(10), Duration.ofSeconds(2),
                        Duration.ofSeconds(45), Duration.ofSeconds(15), true),
                new ProxyConfig.Shutdown(Duration.ofSeconds(7))));
    }

    @Test
    void memoryBudgetTakesBytesOrBinarySuffixesAndRefusesAnythingElse() throws ConfigException {
        assertThat(loader.parse(MINIMAL + "limits: { memoryBudget: 268435456 }\n", "config.yaml").limits().memoryBudget())
                .isEqualTo(256L << 20);
        assertThat(loader.parse(MINIMAL + "limits: { memoryBudget: 2Gi }\n", "config.yaml").limits().memoryBudget())
                .isEqualTo(2L << 30);

        assertThat(parseFailure(MINIMAL + "limits: { memoryBudget: 512MB }\n").problems()).containsExactly(
                "config.yaml: limits.memoryBudget: expected a positive byte size like 268435456, 512Mi or 1Gi, got \"512MB\"");
        assertThat(parseFailure(MINIMAL + "limits: { memoryBudget: 0Mi }\n").problems()).containsExactly(
                "config.yaml: limits.memoryBudget: expected a positive byte size like 268435456, 512Mi or 1Gi "
                        + "(zero is not allowed), got \"0Mi\"");
    }

    @Test
    void auditFileIsStandardOutputOrAnAbsolutePathAndOffByDefault() throws ConfigException {
        assertThat(loader.parse(MINIMAL, "config.yaml").audit()).isEqualTo(ProxyConfig.Audit.OFF);
        assertThat(loader.parse(MINIMAL + "audit: { file: \"-\" }\n", "config.yaml").audit())
                .isEqualTo(new ProxyConfig.Audit("-", false));
        assertThat(loader.parse(MINIMAL + "audit: { file: /var/log/audit.jsonl, allowedReads: true }\n", "config.yaml")
                .audit()).isEqualTo(new ProxyConfig.Audit("/var/log/audit.jsonl", true));

        assertThat(parseFailure(MINIMAL + "audit: { file: audit.jsonl }\n").problems()).containsExactly(
                "config.yaml: audit.file: expected an absolute file path, got \"audit.jsonl\"");
    }

    @Test
    void quotasFileIsAnAbsolutePathAndOffByDefaultWithAProxyIdWithoutSlash() throws ConfigException {
        assertThat(loader.parse(MINIMAL, "config.yaml").quotas()).isEqualTo(ProxyConfig.Quotas.OFF);
        assertThat(loader.parse(MINIMAL + "quotas: { file: /etc/leasehold/quotas.yaml, proxyId: proxy-0 }\n",
                "config.yaml").quotas()).isEqualTo(new ProxyConfig.Quotas(Path.of("/etc/leasehold/quotas.yaml"),
                        "proxy-0"));
        assertThat(new ConfigLoader(Map.of("LEASEHOLD_QUOTAS_FILE", "/q.yaml")).parse(MINIMAL, "config.yaml")
                .quotas()).isEqualTo(new ProxyConfig.Quotas(Path.of("/q.yaml"), null));

        assertThat(parseFailure(MINIMAL + "quotas: { file: quotas.yaml, proxyId: a/b }\n").problems()).containsExactly(
                "config.yaml: quotas.file: expected an absolute file path, got \"quotas.yaml\"",
                "config.yaml: quotas.proxyId: expected a name without '/', got \"a/b\"");
    }

    @Test
    void quotaWindowIsKafkasElevenSecondsUnlessSetAndRefusesFewerThanTwoSamples() throws ConfigException {
        ProxyConfig.Quotas defaults = loader.parse(MINIMAL + "quotas: { file: /q.yaml }\n", "config.yaml").quotas();
        assertThat(defaults.windowCount()).isEqualTo(11);
        assertThat(defaults.windowSize()).isEqualTo(Duration.ofSeconds(1));
        assertThat(loader.parse(MINIMAL + "quotas: { file: /q.yaml, windowCount: 6, windowSize: 500ms }\n",
                "config.yaml").quotas()).isEqualTo(new ProxyConfig.Quotas(Path.of("/q.yaml"), null, 6,
                        Duration.ofMillis(500)));
        assertThat(new ConfigLoader(Map.of("LEASEHOLD_QUOTAS_WINDOW_COUNT", "30", "LEASEHOLD_QUOTAS_WINDOW_SIZE", "2s"))
                .parse(MINIMAL + "quotas: { file: /q.yaml }\n", "config.yaml").quotas())
                .isEqualTo(new ProxyConfig.Quotas(Path.of("/q.yaml"), null, 30, Duration.ofSeconds(2)));

        assertThat(parseFailure(MINIMAL + "quotas: { file: /q.yaml, windowCount: 1, windowSize: 0s }\n").problems())
                .containsExactly("config.yaml: quotas.windowCount: expected an integer 2..1000, got 1",
                        "config.yaml: quotas.windowSize: expected a positive duration like 250ms, 5s, 10m or 1h (zero is not allowed), got \"0s\"");
    }

    @Test
    void logLevelsComeFromTheFileOrTheEnvironmentAndDefaultToInfo() throws ConfigException {
        String file = MINIMAL + "logging: { level: debug, levels: { io.netty: warn, io.grpc.internal: \"off\" } }\n";

        ProxyConfig.Logging fromFile = loader.parse(file, "config.yaml").logging();
        ProxyConfig.Logging fromEnvironment = new ConfigLoader(Map.of("LEASEHOLD_LOG_LEVEL", "error",
                "LEASEHOLD_LOGGING_LEVELS", "io.etcd=trace, io.grpc=debug")).parse(file, "config.yaml").logging();

        assertThat(loader.parse(MINIMAL, "config.yaml").logging()).isEqualTo(ProxyConfig.Logging.DEFAULT);
        assertThat(fromFile).isEqualTo(new ProxyConfig.Logging(ProxyConfig.LogLevel.DEBUG,
                Map.of("io.netty", ProxyConfig.LogLevel.WARN, "io.grpc.internal", ProxyConfig.LogLevel.OFF)));
        assertThat(fromEnvironment).isEqualTo(new ProxyConfig.Logging(ProxyConfig.LogLevel.ERROR,
                Map.of("io.etcd", ProxyConfig.LogLevel.TRACE, "io.grpc", ProxyConfig.LogLevel.DEBUG)));
    }

    @Test
    void everyUnusableLogLevelIsNamed() {
        ConfigException inFile = parseFailure(MINIMAL
                + "logging: { level: verbose, levels: { io.netty: loud, \"no such logger\": info, io.grpc: [debug] } }\n");
        ConfigException inEnvironment = catchThrowableOfType(ConfigException.class, () -> new ConfigLoader(Map.of(
                "LEASEHOLD_LOG_LEVEL", "INFO", "LEASEHOLD_LOGGING_LEVELS", "io.netty:debug")).parse(MINIMAL, "config.yaml"));

        assertThat(inFile.problems()).containsExactly(
                "config.yaml: logging.level: expected one of trace, debug, info, warn, error, off, got \"verbose\"",
                "config.yaml: logging.levels.io.netty: expected one of trace, debug, info, warn, error, off, got \"loud\"",
                "config.yaml: logging.levels.no such logger: expected a logger name (a package or class, e.g. io.netty), "
                        + "got \"no such logger\"",
                "config.yaml: logging.levels.io.grpc: expected one of trace, debug, info, warn, error, off, got a list");
        assertThat(inEnvironment.problems()).containsExactly(
                "config.yaml: logging.level (from environment variable LEASEHOLD_LOG_LEVEL): expected one of trace, "
                        + "debug, info, warn, error, off, got \"INFO\"",
                "config.yaml: logging.levels (from environment variable LEASEHOLD_LOGGING_LEVELS): expected name=level "
                        + "pairs separated by commas, e.g. io.netty=debug,io.grpc=warn, got \"io.netty:debug\"");
    }

    @Test
    void unknownRoutesAccessIsReportedWithTheChoices() {
        ConfigException error = parseFailure(MINIMAL + "admin: { routes: public }\n");

        assertThat(error.problems()).containsExactly(
                "config.yaml: admin.routes: expected one of open, off, got \"public\"");
    }

    @Test
    void startWithoutEtcdTakesOnlyABooleanFromTheFileOrTrueOrFalseFromTheEnvironment() throws ConfigException {
        ConfigException error = parseFailure(MINIMAL + "routing: { startWithoutEtcd: \"yes\" }\n");
        assertThat(error.problems()).containsExactly(
                "config.yaml: routing.startWithoutEtcd: expected true or false, got \"yes\"");

        ConfigException fromEnv = catchThrowableOfType(ConfigException.class, () -> new ConfigLoader(
                Map.of("LEASEHOLD_ROUTING_START_WITHOUT_ETCD", "1")).parse(MINIMAL, "config.yaml"));
        assertThat(fromEnv.problems()).containsExactly("config.yaml: routing.startWithoutEtcd (from environment "
                + "variable LEASEHOLD_ROUTING_START_WITHOUT_ETCD): expected true or false, got \"1\"");
        assertThat(new ConfigLoader(Map.of("LEASEHOLD_ROUTING_START_WITHOUT_ETCD", "true")).parse(MINIMAL, "config.yaml")
                .routing().startWithoutEtcd()).isTrue();
    }

    @Test
    void nonNumericPortIsReportedWithFileKeyPathAndValue() {
        ConfigException error = parseFailure(MINIMAL + "admin: { port: abc }\n");

        assertThat(error.problems()).containsExactly(
                "config.yaml: admin.port: expected an integer 0..65535 (0 picks a free port), got \"abc\"");
    }

    @Test
    void collectsEveryProblemInsteadOfStoppingAtTheFirst() {
        ConfigException error = parseFailure("""
                listener: { port: 70000, advertisedHost: "has space", colour: blue }
                etcd: { endpoints: [], connectTimeout: 5 }
                backends: { bootstrap: ["no-port", "host:0"], requestTimeout: 3 days }
                limits: { maxFrameBytes: -1, idleTimeout: 0s }
                extra: {}
                """);

        assertThat(error.problems()).containsExactlyInAnyOrder(
                "config.yaml: listener.colour: unknown key (known keys in listener: host, port, advertisedHost, advertisedPort, "
                        + "tlsCertFile, tlsKeyFile, tlsCaFile, tlsClientAuth, sasl, tlsPrincipal)",
                "config.yaml: extra: unknown section (known sections: listener, etcd, backends, admin, limits, routing, shutdown, presentation, authorization, audit, quotas, logging)",
                "config.yaml: listener.port: expected an integer 0..65535 (0 picks a free port), got 70000",
                "config.yaml: listener.advertisedHost: expected a host name or IP address (no scheme, port or spaces), got \"has space\"",
                "config.yaml: etcd.endpoints: expected a non-empty list of etcd URLs like http://127.0.0.1:2379, got an empty list",
                "config.yaml: etcd.connectTimeout: expected a positive duration like 250ms, 5s, 10m or 1h, got 5",
                "config.yaml: backends.bootstrap[0]: expected host:port (or [ipv6]:port) with port 1..65535, got \"no-port\"",
                "config.yaml: backends.bootstrap[1]: expected host:port (or [ipv6]:port) with port 1..65535, got \"host:0\"",
                "config.yaml: backends.requestTimeout: expected a positive duration like 250ms, 5s, 10m or 1h, got \"3 days\"",
                "config.yaml: limits.maxFrameBytes: expected an integer 1..2147483647, got -1",
                "config.yaml: limits.idleTimeout: expected a positive duration like 250ms, 5s, 10m or 1h (zero is not allowed), got \"0s\"");
        assertThat(error.getMessage()).contains("listener.port").contains("limits.idleTimeout");
    }

    @Test
    void missingRequiredKeysAreNamedWithTheirEnvironmentOverride() {
        ConfigException error = parseFailure("listener: { port: 9092 }\n");

        assertThat(error.problems()).hasSize(3);
        assertThat(error.problems()).anySatisfy(p -> assertThat(p)
                .startsWith("config.yaml: listener.advertisedHost: required key is missing")
                .contains("LEASEHOLD_LISTENER_ADVERTISED_HOST"));
        assertThat(error.problems()).anySatisfy(p -> assertThat(p)
                .startsWith("config.yaml: etcd.endpoints: required key is missing").contains("LEASEHOLD_ETCD_ENDPOINTS"));
        assertThat(error.problems()).anySatisfy(p -> assertThat(p)
                .startsWith("config.yaml: backends.bootstrap: required key is missing")
                .contains("LEASEHOLD_BACKENDS_BOOTSTRAP"));
    }

    @Test
    void emptyDocumentOnlyLacksTheRequiredKeys() {
        assertThat(parseFailure("").problems()).hasSize(3).allMatch(p -> p.contains("required key is missing"));
    }

    @Test
    void wrongTypesAreRejected() {
        ConfigException error = parseFailure("""
                listener: { advertisedHost: [a, b], port: "9092" }
                etcd: { endpoints: "http://127.0.0.1:2379" }
                backends: { bootstrap: [19092] }
                admin: 5
                """);

        assertThat(error.problems()).containsExactlyInAnyOrder(
                "config.yaml: listener.advertisedHost: expected a host name or IP address, got a list",
                "config.yaml: listener.port: expected an integer 0..65535 (0 picks a free port), got \"9092\"",
                "config.yaml: etcd.endpoints: expected a non-empty list of etcd URLs like http://127.0.0.1:2379, got \"http://127.0.0.1:2379\"",
                "config.yaml: backends.bootstrap[0]: expected a string, got 19092",
                "config.yaml: admin: expected a mapping of keys (host, port, routes), got 5");
    }

    @Test
    void malformedEtcdEndpointsAreRejectedOneByOne() {
        ConfigException error = parseFailure("""
                listener: { advertisedHost: kafka }
                etcd: { endpoints: ["127.0.0.1:2379", "ftp://h:1", "http://h:2379/v3", "http://ok:2379"] }
                backends: { bootstrap: ["b:1"] }
                """);

        assertThat(error.problems()).hasSize(3)
                .allMatch(p -> p.contains("expected an etcd URL like http://127.0.0.1:2379"));
        assertThat(error.problems().get(0)).startsWith("config.yaml: etcd.endpoints[0]:").endsWith("got \"127.0.0.1:2379\"");
        assertThat(error.problems().get(2)).startsWith("config.yaml: etcd.endpoints[2]:");
    }

    @Test
    void crossKeyRulesAreChecked() {
        ConfigException error = parseFailure(MINIMAL + """
                admin: { port: 9092 }
                routing: { retryInitialBackoff: 2s, retryMaxBackoff: 1s }
                """);

        assertThat(error.problems()).containsExactlyInAnyOrder(
                "config.yaml: admin.port: must differ from listener.port (both are 9092)",
                "config.yaml: routing.retryInitialBackoff: must not exceed routing.retryMaxBackoff (2000ms > 1000ms)");
    }

    @Test
    void aRetryBackoffCeilingTooSmallToSpaceRetriesOutIsRefused() {
        ConfigException error = parseFailure(MINIMAL + """
                routing: { retryInitialBackoff: 1ms, retryMaxBackoff: 5ms }
                """);

        assertThat(error.problems()).singleElement().asString()
                .startsWith("config.yaml: routing.retryMaxBackoff: must be at least 10ms (was 5ms)");
    }

    @Test
    void etcdPrefixMustBeAnAbsoluteKeyPrefix() {
        ConfigException error = parseFailure(MINIMAL.replace("etcd: {", "etcd: { prefix: kafscale/,"));

        assertThat(error.problems()).containsExactly("config.yaml: etcd.prefix: expected a key prefix starting with "
                + "'/' and not ending with '/', e.g. /kafscale, got \"kafscale/\"");
    }

    @Test
    void etcdCredentialsAndTlsAreAbsoluteFilePaths() throws ConfigException {
        ProxyConfig config = loader.parse("""
                listener: { advertisedHost: kafka }
                etcd:
                  endpoints: ["https://etcd:2379"]
                  usernameFile: /etc/leasehold/etcd/username
                  passwordFile: /etc/leasehold/etcd/password
                  tlsCaFile: /etc/leasehold/etcd/ca.crt
                  tlsCertFile: /etc/leasehold/etcd/tls.crt
                  tlsKeyFile: /etc/leasehold/etcd/tls.key
                backends: { bootstrap: ["b:1"] }
                """, "config.yaml");

        assertThat(config.etcd().usernameFile()).isEqualTo(Path.of("/etc/leasehold/etcd/username"));
        assertThat(config.etcd().tlsKeyFile()).isEqualTo(Path.of("/etc/leasehold/etcd/tls.key"));
        assertThat(loader.parse(MINIMAL, "config.yaml").etcd().tlsCaFile()).isNull();
    }

    @Test
    void etcdSecretFilesMustComeInWorkingCombinations() {
        ConfigException error = parseFailure("""
                listener: { advertisedHost: kafka }
                etcd:
                  endpoints: ["http://etcd:2379"]
                  usernameFile: relative/username
                  tlsCertFile: /tls.crt
                backends: { bootstrap: ["b:1"] }
                """);

        assertThat(error.problems()).containsExactlyInAnyOrder(
                "config.yaml: etcd.usernameFile: expected an absolute file path, got \"relative/username\"",
                "config.yaml: etcd.tlsKeyFile: etcd.tlsCertFile and etcd.tlsKeyFile (client certificate) must be set together",
                "config.yaml: etcd.endpoints: TLS files are set, so every endpoint must use https://");
        assertThat(parseFailure(MINIMAL.replace("etcd: {", "etcd: { passwordFile: /p,")).problems()).containsExactly(
                "config.yaml: etcd.usernameFile: etcd.usernameFile and etcd.passwordFile must be set together");
    }

    @Test
    void etcdEndpointsMustShareOneSchemeAndCarryCredentialsOnlyOverHttps() {
        assertThat(parseFailure(MINIMAL.replace("[\"http://127.0.0.1:2379\"]",
                "[\"http://a:2379\", \"https://b:2379\"]")).problems()).containsExactly(
                "config.yaml: etcd.endpoints: mixes http:// and https:// endpoints: use https:// for all of them "
                        + "(or http:// for all, without TLS)");
        assertThat(parseFailure(MINIMAL.replace("etcd: {", "etcd: { usernameFile: /u, passwordFile: /p,"))
                .problems()).containsExactly("config.yaml: etcd.endpoints: etcd.usernameFile and etcd.passwordFile "
                + "are set, so every endpoint must use https://: over http:// the password would cross the network "
                + "in clear text");
    }

    @Test
    void backendTlsIsOffByDefaultAndReadWhenEnabled() throws ConfigException {
        assertThat(loader.parse(MINIMAL, "config.yaml").backends().tls()).isNull();
        ProxyConfig config = loader.parse(MINIMAL.replace("backends: { bootstrap: [\"127.0.0.1:19092\"] }", """
                backends:
                  bootstrap: ["127.0.0.1:19092"]
                  tls:
                    enabled: true
                    caFile: /etc/leasehold/backend-tls/ca.crt
                    certFile: /etc/leasehold/backend-tls/tls.crt
                    keyFile: /etc/leasehold/backend-tls/tls.key
                    verifyHostname: false
                    protocols: [TLSv1.3]
                """), "config.yaml");

        assertThat(config.backends().tls()).isEqualTo(new ProxyConfig.BackendTls(
                Path.of("/etc/leasehold/backend-tls/ca.crt"), Path.of("/etc/leasehold/backend-tls/tls.crt"),
                Path.of("/etc/leasehold/backend-tls/tls.key"), false, List.of("TLSv1.3")));
        ProxyConfig fromEnvironment = new ConfigLoader(Map.of("LEASEHOLD_BACKENDS_TLS_ENABLED", "true"))
                .parse(MINIMAL, "config.yaml");
        assertThat(fromEnvironment.backends().tls()).as("system trust store, hostname verified")
                .isEqualTo(new ProxyConfig.BackendTls(null, null, null, true, List.of("TLSv1.3", "TLSv1.2")));
    }

    @Test
    void backendTlsKeysMustComeInWorkingCombinations() {
        ConfigException error = minimalFailureWith(Map.of("LEASEHOLD_BACKENDS_TLS_CERT_FILE", "/tls.crt",
                "LEASEHOLD_BACKENDS_TLS_VERIFY_HOSTNAME", "maybe", "LEASEHOLD_BACKENDS_TLS_PROTOCOLS", "SSLv3"));

        assertThat(error.problems()).containsExactlyInAnyOrder(
                "config.yaml: backends.tls.verifyHostname (from environment variable "
                        + "LEASEHOLD_BACKENDS_TLS_VERIFY_HOSTNAME): expected true or false, got \"maybe\"",
                "config.yaml: backends.tls.protocols[0] (from environment variable LEASEHOLD_BACKENDS_TLS_PROTOCOLS): "
                        + "expected one of TLSv1.3, TLSv1.2, got \"SSLv3\"",
                "config.yaml: backends.tls.keyFile: backends.tls.certFile and backends.tls.keyFile (the proxy's "
                        + "client certificate) must be set together",
                "config.yaml: backends.tls.enabled: is false, but other backends.tls keys are set: set "
                        + "backends.tls.enabled: true to use TLS towards the brokers");
    }

    @Test
    void backendSaslIsOffByDefaultAndReadFromItsThreeKeys() throws ConfigException {
        assertThat(loader.parse(MINIMAL, "config.yaml").backends().sasl()).isNull();
        ProxyConfig config = loader.parse(MINIMAL.replace("backends: { bootstrap: [\"127.0.0.1:19092\"] }", """
                backends:
                  bootstrap: ["127.0.0.1:19092"]
                  sasl: { mechanism: SCRAM-SHA-256, username: leasehold-proxy,
                          passwordFile: /etc/leasehold/backend-sasl/password }
                """), "config.yaml");

        assertThat(config.backends().sasl()).isEqualTo(new ProxyConfig.BackendSasl("SCRAM-SHA-256",
                "leasehold-proxy", Path.of("/etc/leasehold/backend-sasl/password")));
    }

    @Test
    void backendSaslNeedsAKnownMechanismAUserAndAPasswordFile() {
        ConfigException error = minimalFailureWith(Map.of("LEASEHOLD_BACKENDS_SASL_MECHANISM", "GSSAPI",
                "LEASEHOLD_BACKENDS_SASL_PASSWORD_FILE", "password.txt"));

        assertThat(error.problems()).containsExactlyInAnyOrder(
                "config.yaml: backends.sasl.mechanism: is GSSAPI, not a mechanism the proxy can log in to brokers "
                        + "with: one of SCRAM-SHA-512, SCRAM-SHA-256, PLAIN",
                "config.yaml: backends.sasl.username: is required with backends.sasl: the user the proxy logs in to "
                        + "the brokers as",
                "config.yaml: backends.sasl.passwordFile (from environment variable "
                        + "LEASEHOLD_BACKENDS_SASL_PASSWORD_FILE): expected an absolute file path, got \"password.txt\"");
        assertThat(minimalFailureWith(Map.of("LEASEHOLD_BACKENDS_SASL_USERNAME", "svc")).problems())
                .containsExactlyInAnyOrder(
                        "config.yaml: backends.sasl.mechanism: is required with the other backends.sasl keys: one of "
                                + "SCRAM-SHA-512, SCRAM-SHA-256, PLAIN",
                        "config.yaml: backends.sasl.passwordFile: is required with backends.sasl: the mounted file "
                                + "holding that user's password");
    }

    @Test
    void brokerDnsCacheBoundsMustBeWholeSecondsWithTheMaximumNotBelowTheMinimum() {
        ConfigException error = minimalFailureWith(Map.of("LEASEHOLD_BACKENDS_DNS_MIN_TTL", "10s",
                "LEASEHOLD_BACKENDS_DNS_MAX_TTL", "5s", "LEASEHOLD_BACKENDS_DNS_NEGATIVE_TTL", "1500ms"));

        assertThat(error.problems()).containsExactlyInAnyOrder(
                "config.yaml: backends.dns.negativeTtl: is 1500ms; the DNS cache counts whole seconds, like 1s or 30s",
                "config.yaml: backends.dns.maxTtl: is 5s, below backends.dns.minTtl (10s): the longest a broker "
                        + "address is cached cannot be shorter than the shortest");
    }

    @Test
    void listenerTlsFilesAndClientAuthAreReadIntoTheListener() throws ConfigException {
        ProxyConfig config = loader.parse("""
                listener:
                  advertisedHost: kafka
                  tlsCertFile: /etc/leasehold/listener-tls/tls.crt
                  tlsKeyFile: /etc/leasehold/listener-tls/tls.key
                  tlsCaFile: /etc/leasehold/listener-tls/ca.crt
                  tlsClientAuth: required
                etcd: { endpoints: ["http://etcd:2379"] }
                backends: { bootstrap: ["b:1"] }
                """, "config.yaml");

        assertThat(config.listener()).isEqualTo(new ProxyConfig.Listener("0.0.0.0", 9092, "kafka", 9092,
                Path.of("/etc/leasehold/listener-tls/tls.crt"), Path.of("/etc/leasehold/listener-tls/tls.key"),
                Path.of("/etc/leasehold/listener-tls/ca.crt"), ProxyConfig.ClientAuth.REQUIRED));
        assertThat(config.listener().tls()).isTrue();
        ProxyConfig serverOnly = loader.parse(MINIMAL.replace("listener: {",
                "listener: { tlsCertFile: /tls.crt, tlsKeyFile: /tls.key,"), "config.yaml");
        assertThat(serverOnly.listener()).isEqualTo(new ProxyConfig.Listener("0.0.0.0", 9092, "kafka.example.com",
                9092, Path.of("/tls.crt"), Path.of("/tls.key"), null, ProxyConfig.ClientAuth.NONE));
        assertThat(loader.parse(MINIMAL, "config.yaml").listener().tls()).as("plaintext by default").isFalse();
    }

    @Test
    void listenerTlsKeysComeFromTheEnvironmentToo() throws ConfigException {
        ConfigLoader withEnv = new ConfigLoader(Map.of(
                "LEASEHOLD_LISTENER_TLS_CERT_FILE", "/run/tls/tls.crt",
                "LEASEHOLD_LISTENER_TLS_KEY_FILE", "/run/tls/tls.key",
                "LEASEHOLD_LISTENER_TLS_CA_FILE", "/run/tls/ca.crt",
                "LEASEHOLD_LISTENER_TLS_CLIENT_AUTH", "requested"));

        assertThat(withEnv.parse(MINIMAL, "config.yaml").listener()).isEqualTo(new ProxyConfig.Listener("0.0.0.0",
                9092, "kafka.example.com", 9092, Path.of("/run/tls/tls.crt"), Path.of("/run/tls/tls.key"),
                Path.of("/run/tls/ca.crt"), ProxyConfig.ClientAuth.REQUESTED));
        ConfigException error = catchThrowableOfType(ConfigException.class, () -> new ConfigLoader(
                Map.of("LEASEHOLD_LISTENER_TLS_CLIENT_AUTH", "Required")).parse(MINIMAL, "config.yaml"));
        assertThat(error.problems()).containsExactly("config.yaml: listener.tlsClientAuth (from environment variable "
                + "LEASEHOLD_LISTENER_TLS_CLIENT_AUTH): expected one of none, requested, required, got \"Required\"");
    }

    @Test
    void certificatePrincipalRulesAndSourceAreReadWithKafkasRuleParser() throws Exception {
        String mutualTls = "listener: { tlsCertFile: /tls.crt, tlsKeyFile: /tls.key, tlsCaFile: /ca.crt, "
                + "tlsClientAuth: required,";
        ProxyConfig.CertificatePrincipals principals = loader.parse(MINIMAL.replace("listener: {", mutualTls
                + " tlsPrincipal: {from: dns-san, mappingRules: \"RULE:^([^.]+)\\\\..*$/$1/U,DEFAULT\"},"),
                "config.yaml").listener().tlsPrincipal();

        assertThat(principals.from()).isEqualTo(ProxyConfig.PrincipalSource.DNS_SAN);
        assertThat(principals.mappingRules().getName("writer.clients.example")).isEqualTo("WRITER");
        assertThat(loader.parse(MINIMAL.replace("listener: {", mutualTls), "config.yaml").listener().tlsPrincipal())
                .as("Kafka's default: the subject's distinguished name")
                .isEqualTo(ProxyConfig.CertificatePrincipals.DEFAULT);
    }

    @Test
    void certificatePrincipalRuleThatDoesNotParseIsRefusedWithKeyAndReason() {
        String mutualTls = "listener: { tlsCertFile: /tls.crt, tlsKeyFile: /tls.key, tlsCaFile: /ca.crt, "
                + "tlsClientAuth: required,";
        assertThat(parseFailure(MINIMAL.replace("listener: {", mutualTls
                + " tlsPrincipal: {mappingRules: \"RULE:^CN=(.*)$/$1/X\"},")).problems()).singleElement().asString()
                .startsWith("config.yaml: listener.tlsPrincipal.mappingRules: expected mapping rules like ")
                .endsWith("; Invalid rule: `RULE:^CN=(.*)$/$1/X`, unmatched substring: `X`, got \"RULE:^CN=(.*)$/$1/X\"");
        assertThat(parseFailure(MINIMAL.replace("listener: {", mutualTls
                + " tlsPrincipal: {mappingRules: \"RULE:^CN=(.*$/$1/\"},")).problems()).singleElement().asString()
                .contains("; not a regular expression: Unclosed group near index 8 of ^CN=(.*$");
        assertThat(parseFailure(MINIMAL.replace("listener: {", mutualTls + " tlsPrincipal: {from: issuer},"))
                .problems()).containsExactly("config.yaml: listener.tlsPrincipal.from: expected one of subject, dns-san, uri-san, "
                        + "email-san, got \"issuer\"");
        assertThat(parseFailure(MINIMAL.replace("listener: {",
                "listener: { tlsCertFile: /tls.crt, tlsKeyFile: /tls.key, tlsPrincipal: {mappingRules: DEFAULT},"))
                .problems()).as("rules where no client certificate is verified would name nobody")
                .containsExactly("config.yaml: listener.tlsPrincipal.mappingRules: names principals from client "
                        + "certificates: set listener.tlsClientAuth to required (or requested) and listener.tlsCaFile too");
    }

    @Test
    void listenerTlsKeysMustComeInWorkingCombinations() {
        ConfigException halfAndBadValues = parseFailure("""
                listener: { advertisedHost: kafka, tlsCertFile: /tls.crt, tlsCaFile: tls/ca.crt, tlsClientAuth: yes }
                etcd: { endpoints: ["http://etcd:2379"] }
                backends: { bootstrap: ["b:1"] }
                """);
        assertThat(halfAndBadValues.problems()).containsExactlyInAnyOrder(
                "config.yaml: listener.tlsCaFile: expected an absolute file path, got \"tls/ca.crt\"",
                "config.yaml: listener.tlsClientAuth: expected one of none, requested, required, got true",
                "config.yaml: listener.tlsKeyFile: listener.tlsCertFile and listener.tlsKeyFile (the server "
                        + "certificate) must be set together");

        String tls = "listener: { tlsCertFile: /tls.crt, tlsKeyFile: /tls.key,";
        assertThat(parseFailure(MINIMAL.replace("listener: {", tls + " tlsClientAuth: required,")).problems())
                .containsExactly("config.yaml: listener.tlsClientAuth: required needs listener.tlsCaFile, the CA "
                        + "that signs client certificates");
        assertThat(parseFailure(MINIMAL.replace("listener: {", tls + " tlsCaFile: /ca.crt,")).problems())
                .as("a CA without client authentication would suggest a protection that is not there")
                .containsExactly("config.yaml: listener.tlsCaFile: is only used to verify client certificates: set "
                        + "listener.tlsClientAuth to requested or required");
        assertThat(parseFailure(MINIMAL.replace("listener: {",
                "listener: { tlsCaFile: /ca.crt, tlsClientAuth: requested,")).problems())
                .as("client authentication without server TLS would leave the listener plaintext")
                .containsExactlyInAnyOrder(
                        "config.yaml: listener.tlsCaFile: only applies to a TLS listener: set listener.tlsCertFile "
                                + "and listener.tlsKeyFile too",
                        "config.yaml: listener.tlsClientAuth: only applies to a TLS listener: set "
                                + "listener.tlsCertFile and listener.tlsKeyFile too");
    }

    @Test
    void advertisedPortDefaultsToListenerPortAndZeroMeansBoundPort() throws ConfigException {
        ProxyConfig ephemeral = loader.parse(MINIMAL.replace("listener: {", "listener: { port: 0,"), "config.yaml");
        assertThat(ephemeral.listener().port()).isZero();
        assertThat(ephemeral.listener().advertisedPort()).isZero();

        ConfigException error = parseFailure(MINIMAL.replace("listener: {", "listener: { advertisedPort: 0,"));
        assertThat(error.problems()).containsExactly("config.yaml: listener.advertisedPort: 0 (advertise the bound "
                + "port) is only allowed with listener.port: 0");
    }

    @Test
    void environmentOverridesFileValuesAndSuppliesRequiredKeys() throws ConfigException {
        ConfigLoader withEnv = new ConfigLoader(Map.of(
                "LEASEHOLD_LISTENER_ADVERTISED_HOST", "proxy.prod",
                "LEASEHOLD_LISTENER_PORT", "19092",
                "LEASEHOLD_ETCD_ENDPOINTS", "http://e1:2379, http://e2:2379",
                "LEASEHOLD_BACKENDS_BOOTSTRAP", "b1:9092,b2:9092",
                "LEASEHOLD_LIMITS_MAX_IN_FLIGHT_PER_CONNECTION", "8",
                "LEASEHOLD_ROUTING_STALE_ROUTES_UNREADY_AFTER", "1m",
                "LEASEHOLD_PROXY_SERVICE_HOST", "10.0.0.1"));

        ProxyConfig config = withEnv.parse("listener: { advertisedHost: from-file, port: 1 }\n", "config.yaml");

        assertThat(config.listener()).isEqualTo(new ProxyConfig.Listener("0.0.0.0", 19092, "proxy.prod", 19092));
        assertThat(config.etcd().endpoints()).containsExactly("http://e1:2379", "http://e2:2379");
        assertThat(config.backends().bootstrap()).containsExactly(new HostPort("b1", 9092), new HostPort("b2", 9092));
        assertThat(config.limits().maxInFlightPerConnection()).isEqualTo(8);
        assertThat(config.routing().staleRoutesUnreadyAfter()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void badEnvironmentValueNamesTheVariable() {
        ConfigException error = minimalFailureWith(Map.of("LEASEHOLD_ADMIN_PORT", "http",
                "LEASEHOLD_ETCD_ENDPOINTS", " , "));

        assertThat(error.problems()).containsExactlyInAnyOrder(
                "config.yaml: admin.port (from environment variable LEASEHOLD_ADMIN_PORT): expected an integer "
                        + "0..65535 (0 picks a free port), got \"http\"",
                "config.yaml: etcd.endpoints (from environment variable LEASEHOLD_ETCD_ENDPOINTS): expected a "
                        + "non-empty list of etcd URLs like http://127.0.0.1:2379, got \" , \"");
    }

    @Test
    void duplicateKeysAreRejected() {
        ConfigException error = parseFailure(MINIMAL + "admin:\n  port: 1\n  port: 2\n");

        assertThat(error.problems()).singleElement().asString()
                .startsWith("config.yaml: not valid YAML at line").contains("Duplicate field 'port'");
    }

    @Test
    void yamlSyntaxErrorsGiveTheLine() {
        ConfigException error = parseFailure("listener:\n  port: [1, 2\nadmin: {}\n");

        assertThat(error.problems()).singleElement().asString().startsWith("config.yaml: not valid YAML at line");
    }

    @Test
    void topLevelMustBeAMapping() {
        assertThat(parseFailure("- listener\n").problems()).containsExactly("config.yaml: expected a mapping of sections "
                + "(listener, etcd, backends, admin, limits, routing, shutdown, presentation, authorization, audit, quotas, logging) at the top level, got a list");
    }

    @Test
    void loadsAFileAndNamesItInErrors(@TempDir Path dir) throws Exception {
        Path good = Files.writeString(dir.resolve("proxy.yaml"), MINIMAL);
        assertThat(loader.load(good).listener().advertisedHost()).isEqualTo("kafka.example.com");

        Path bad = Files.writeString(dir.resolve("bad.yaml"), MINIMAL + "shutdown: { drainTimeout: soon }\n");
        assertThatThrownBy(() -> loader.load(bad)).isInstanceOf(ConfigException.class)
                .hasMessage(bad + ": shutdown.drainTimeout: expected a positive duration like 250ms, 5s, 10m or 1h, "
                        + "got \"soon\"");

        Path missing = dir.resolve("missing.yaml");
        assertThatThrownBy(() -> loader.load(missing)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(missing + ": cannot read the config file");
    }

    /** The error of the minimal config under {@code environment} overrides. */
    private static ConfigException minimalFailureWith(Map<String, String> environment) {
        ConfigLoader withEnvironment = new ConfigLoader(environment);
        return catchThrowableOfType(ConfigException.class, () -> withEnvironment.parse(MINIMAL, "config.yaml"));
    }

    private ConfigException parseFailure(String yaml) {
        ConfigException error = catchThrowableOfType(ConfigException.class, () -> loader.parse(yaml, "config.yaml"));
        assertThat(error).as("expected the config to be rejected").isNotNull();
        return error;
    }
}
