package io.leasehold.proxy.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.proxy.config.HostPort;
import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.testing.JavaCommand;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Helm chart, checked offline with the real helm binary: strict lint, rendering with
 * default and non-default values, every document validated against the Kubernetes schemas,
 * the rendered proxy config accepted by the proxy's own ConfigLoader, and the properties an
 * operator relies on (no capacity loss during rollouts, restricted pods, secrets as files).
 */
class HelmChartTest {

    private static final Map<String, RenderedChart> RENDERED = new ConcurrentHashMap<>();
    private static ChartTools tools;

    @BeforeAll
    static void installHelm() {
        tools = ChartTools.install();
    }

    static Stream<String> ciValuesFiles() throws IOException {
        try (Stream<Path> files = Files.list(ChartTools.repoRoot().resolve("helm/leasehold-proxy/ci"))) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".yaml")).sorted().toList().stream();
        }
    }

    /** The values file operators use to replace KafScale's own proxy (docs/kafscale.md); it lives beside values.yaml. */
    static final String KAFSCALE_VALUES = "values-kafscale.yaml";

    /** Default values first, then each ci/ values file, then the KafScale drop-in values. */
    static Stream<String> valueSets() throws IOException {
        return Stream.concat(Stream.concat(Stream.of("defaults"), ciValuesFiles()), Stream.of(KAFSCALE_VALUES));
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void chartPassesStrictLint(String valueSet) {
        CommandResult lint = tools.helm(withValues(valueSet, "lint", "--strict", tools.chart().toString()));

        assertThat(lint.succeeded()).as(lint.describe()).isTrue();
        assertThat(lint.stdout()).contains("0 chart(s) failed");
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void everyRenderedDocumentIsValidKubernetes(String valueSet) {
        RenderedChart chart = render(valueSet);

        CommandResult validation = tools.validate(chart.manifests());

        assertThat(validation.succeeded()).as(validation.describe()).isTrue();
        assertThat(validation.stderr()).contains(chart.documents().size() + " of " + chart.documents().size()
                + " documents valid");
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void renderedConfigIsAcceptedByTheProxyAndMatchesThePod(String valueSet) throws Exception {
        RenderedChart chart = render(valueSet);

        ProxyConfig config = chart.proxyConfig();

        assertThat(containerPort(chart, "kafka")).isEqualTo(config.listener().port());
        assertThat(containerPort(chart, "admin")).isEqualTo(config.admin().port());
        JsonNode service = chart.named("Service", fullname(valueSet)).orElseThrow();
        assertThat(service.path("spec").path("ports").get(0).path("targetPort").asText()).isEqualTo("kafka");
        JsonNode configMount = mount(chart.proxyContainer(), "config");
        assertThat(chart.proxyContainer().path("args").toString())
                .isEqualTo("[\"--config\",\"" + configMount.path("mountPath").asText() + "\"]");
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void proxyCommandLineValidatesTheRenderedConfig(String valueSet, @TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("proxy.yaml"), render(valueSet).configText());

        CommandResult accepted = validateWithProxyMain(file);

        assertThat(accepted.succeeded()).as(accepted.describe()).isTrue();
        assertThat(accepted.stdout()).contains("OK " + file);
    }

    @Test
    void proxyCommandLineRejectsABrokenRenderedConfigNamingTheKey(@TempDir Path dir) throws Exception {
        String broken = render("defaults").configText().replace("maxConnections: 10000", "maxConnections: lots");
        Path file = Files.writeString(dir.resolve("proxy.yaml"), broken);

        CommandResult rejected = validateWithProxyMain(file);

        assertThat(rejected.exitCode()).isEqualTo(1);
        assertThat(rejected.stderr()).contains(file + ": limits.maxConnections: expected an integer");
    }

    /** Runs {@code io.leasehold.proxy.Main --validate-config} as its own JVM, as the image would. */
    private static CommandResult validateWithProxyMain(Path file) {
        return tools.run(JavaCommand.ofCurrentClasspath().command("io.leasehold.proxy.Main",
                List.of("--validate-config", file.toString())), null);
    }

    @Test
    void defaultsAdvertiseTheClusterServiceAddress() throws Exception {
        ProxyConfig config = render("defaults").proxyConfig();

        assertThat(config.listener().advertisedHost()).isEqualTo("lh-leasehold-proxy.kafka.svc.cluster.local");
        assertThat(config.listener().advertisedPort()).isEqualTo(9092);
        assertThat(config.etcd().prefix()).isEqualTo("/kafscale");
        assertThat(config.etcd().usernameFile()).isNull();
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void rollingUpdateNeverDropsBelowTheDesiredCount(String valueSet) {
        JsonNode deployment = render(valueSet).only("Deployment");
        JsonNode strategy = deployment.path("spec").path("strategy");

        assertThat(strategy.path("type").asText()).isEqualTo("RollingUpdate");
        assertThat(strategy.path("rollingUpdate").path("maxUnavailable").asInt(-1)).isZero();
        String surge = strategy.path("rollingUpdate").path("maxSurge").asText();
        assertThat(surge).matches("[1-9][0-9]*%?");
    }

    @Test
    void defaultsRunThreeSpreadReplicasProtectedByABudget() {
        RenderedChart chart = render("defaults");
        JsonNode pod = chart.podSpec();

        assertThat(chart.only("Deployment").path("spec").path("replicas").asInt()).isEqualTo(3);
        assertThat(chart.only("PodDisruptionBudget").path("spec").path("maxUnavailable").asInt()).isEqualTo(1);
        assertThat(chart.all("HorizontalPodAutoscaler")).isEmpty();
        JsonNode antiAffinity = pod.path("affinity").path("podAntiAffinity");
        assertThat(antiAffinity.has("requiredDuringSchedulingIgnoredDuringExecution")).as("soft, never required").isFalse();
        assertThat(antiAffinity.path("preferredDuringSchedulingIgnoredDuringExecution").get(0)
                .path("podAffinityTerm").path("topologyKey").asText()).isEqualTo("kubernetes.io/hostname");
        assertThat(pod.path("topologySpreadConstraints")).extracting(c -> c.path("topologyKey").asText())
                .containsExactly("topology.kubernetes.io/zone", "kubernetes.io/hostname");
        assertThat(pod.path("topologySpreadConstraints")).allSatisfy(c ->
                assertThat(c.path("whenUnsatisfiable").asText()).isEqualTo("ScheduleAnyway"));
        assertThat(chart.only("PodDisruptionBudget").path("spec").path("selector"))
                .isEqualTo(chart.only("Deployment").path("spec").path("selector"));
    }

    @Test
    void autoscalingReplacesTheFixedReplicaCount() {
        RenderedChart chart = render("external-secure-values.yaml");

        assertThat(chart.only("Deployment").path("spec").has("replicas")).isFalse();
        JsonNode hpa = chart.only("HorizontalPodAutoscaler").path("spec");
        assertThat(hpa.path("minReplicas").asInt()).isEqualTo(3);
        assertThat(hpa.path("maxReplicas").asInt()).isEqualTo(12);
        assertThat(hpa.path("scaleTargetRef").path("name").asText()).isEqualTo("lh-leasehold-proxy");
        assertThat(hpa.path("metrics")).extracting(m -> m.path("resource").path("name").asText())
                .containsExactly("cpu", "memory");
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void podsAreRestrictedCompatible(String valueSet) {
        RenderedChart chart = render(valueSet);
        JsonNode pod = chart.podSpec();
        JsonNode container = chart.proxyContainer();

        assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
        assertThat(pod.path("securityContext").path("runAsUser").asInt(1)).as("absent (platform-assigned) or not root")
                .isPositive();
        assertThat(pod.path("securityContext").path("seccompProfile").path("type").asText()).isEqualTo("RuntimeDefault");
        assertThat(pod.path("automountServiceAccountToken").asBoolean(true)).isFalse();
        assertThat(pod.path("hostNetwork").asBoolean(false)).isFalse();
        JsonNode security = container.path("securityContext");
        assertThat(security.path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
        assertThat(security.path("readOnlyRootFilesystem").asBoolean()).isTrue();
        assertThat(security.path("capabilities").path("drop").toString()).isEqualTo("[\"ALL\"]");
        assertThat(security.path("capabilities").has("add")).isFalse();
        assertThat(pod.path("volumes")).noneSatisfy(v -> assertThat(v.has("hostPath")).isTrue());
        assertThat(mount(container, "tmp").path("mountPath").asText()).as("writable /tmp on a read-only root")
                .isEqualTo("/tmp");
        assertThat(container.path("resources").path("limits").path("memory").asText()).isNotEmpty();
    }

    @Test
    void openshiftValuesLeaveUserAndGroupsToTheRestrictedV2PolicyAndKeepTheRestrictions() {
        RenderedChart chart = render("openshift-restricted-values.yaml");
        JsonNode podSecurity = chart.podSpec().path("securityContext");

        assertThat(podSecurity.has("runAsUser")).as("restricted-v2 refuses a fixed user").isFalse();
        assertThat(podSecurity.has("runAsGroup")).isFalse();
        assertThat(podSecurity.has("fsGroup")).isFalse();
        assertThat(podSecurity.path("runAsNonRoot").asBoolean()).isTrue();
        assertThat(podSecurity.path("seccompProfile").path("type").asText()).isEqualTo("RuntimeDefault");
        assertThat(chart.proxyContainer().path("securityContext").path("readOnlyRootFilesystem").asBoolean()).isTrue();
    }

    @Test
    void extraEnvVolumesMountsInitContainersSidecarsRegistryAndPriorityReachThePod() throws Exception {
        RenderedChart chart = render("openshift-restricted-values.yaml");
        JsonNode pod = chart.podSpec();
        JsonNode proxy = chart.proxyContainer();

        assertThat(proxy.path("image").asText()).isEqualTo("mirror.example.com:5000/leasehold/leasehold-proxy:0.1.0");
        assertThat(pod.path("priorityClassName").asText()).isEqualTo("kafka-critical");
        assertThat(chart.proxyConfig().limits().maxConnections()).as("extraEnv overrides the config").isEqualTo(5000);
        assertThat(volume(chart, "trust-bundle").path("configMap").path("name").asText()).isEqualTo("trusted-ca-bundle");
        assertThat(mount(proxy, "trust-bundle").path("mountPath").asText()).isEqualTo("/etc/pki/leasehold");
        assertThat(mount(proxy, "config").path("mountPath").asText()).as("the chart's own mounts stay")
                .isEqualTo("/etc/leasehold/proxy.yaml");
        assertThat(pod.path("initContainers").findValuesAsText("name")).containsExactly("wait-for-etcd");
        List<String> containers = new ArrayList<>();
        pod.path("containers").forEach(container -> containers.add(container.path("name").asText()));
        assertThat(containers).containsExactly("proxy", "log-shipper");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "image.registry=mirror.example.com:5000,image.digest=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef | mirror.example.com:5000/ghcr.io/leasehold/leasehold-proxy@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "image.registry=registry.example.com/mirrors,image.repository=leasehold/proxy | registry.example.com/mirrors/leasehold/proxy:0.1.0",
    })
    void theRegistryPrefixesTheRepositoryWithATagOrADigest(String setting, String image) {
        assertThat(rendered(tools.template("--set", setting)).proxyContainer().path("image").asText()).isEqualTo(image);
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void probesUseTheAdminEndpoints(String valueSet) {
        JsonNode container = render(valueSet).proxyContainer();

        assertThat(container.path("livenessProbe").path("httpGet").path("path").asText()).isEqualTo("/healthz");
        assertThat(container.path("startupProbe").path("httpGet").path("path").asText()).isEqualTo("/healthz");
        assertThat(container.path("readinessProbe").path("httpGet").path("path").asText()).isEqualTo("/readyz");
        for (String probe : List.of("livenessProbe", "startupProbe", "readinessProbe")) {
            assertThat(container.path(probe).path("httpGet").path("port").asText()).as(probe).isEqualTo("admin");
        }
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void podsOutliveThePreStopPauseAndTheDrain(String valueSet) throws Exception {
        RenderedChart chart = render(valueSet);
        Duration drain = chart.proxyConfig().shutdown().drainTimeout();
        JsonNode preStop = chart.proxyContainer().path("lifecycle").path("preStop").path("exec").path("command");
        assertThat(preStop.get(0).asText()).isEqualTo("sleep");
        long pauseSeconds = preStop.get(1).asLong();

        long grace = chart.podSpec().path("terminationGracePeriodSeconds").asLong();

        assertThat(pauseSeconds).isPositive();
        assertThat(grace).isGreaterThan(pauseSeconds + drain.toSeconds());
    }

    @Test
    void aConfigChangeChangesTheChecksumThatRollsThePods() {
        String defaults = checksum(render("defaults"));

        assertThat(checksum(tools.template())).as("a second helm run of the same values").isEqualTo(defaults);
        assertThat(checksum(tools.template("--set", "config.routing.metadataMaxAge=5s"))).isNotEqualTo(defaults);
        assertThat(checksum(tools.template("--set", "config.etcd.endpoints[0]=http://other-etcd:2379")))
                .isNotEqualTo(defaults);
        assertThat(defaults).matches("[0-9a-f]{64}");
    }

    @Test
    void etcdSecretsAreMountedFilesNeverEnvironmentValues() throws Exception {
        RenderedChart chart = render("external-secure-values.yaml");
        ProxyConfig.Etcd etcd = chart.proxyConfig().etcd();
        JsonNode container = chart.proxyContainer();

        Map<Path, String> secretFiles = new HashMap<>();
        for (JsonNode volume : chart.podSpec().path("volumes")) {
            if (volume.has("secret")) {
                Path dir = Path.of(mount(container, volume.path("name").asText()).path("mountPath").asText());
                for (JsonNode item : volume.path("secret").path("items")) {
                    secretFiles.put(dir.resolve(item.path("path").asText()), volume.path("secret").path("secretName").asText());
                }
            }
        }

        assertThat(secretFiles).containsEntry(etcd.usernameFile(), "etcd-proxy-user")
                .containsEntry(etcd.passwordFile(), "etcd-proxy-user")
                .containsEntry(etcd.tlsCaFile(), "etcd-client-tls")
                .containsEntry(etcd.tlsCertFile(), "etcd-client-tls")
                .containsEntry(etcd.tlsKeyFile(), "etcd-client-tls");
        assertThat(container.path("env")).noneSatisfy(v -> assertThat(v.has("valueFrom")).isTrue());
        assertThat(chart.manifests()).doesNotContain("kind: Secret\n");
        assertThat(etcd.endpoints()).allMatch(e -> e.startsWith("https://"));
    }

    @Test
    void backendTlsSecretIsMountedAsADirectoryWhereTheConfigPoints() throws Exception {
        RenderedChart chart = render("external-secure-values.yaml");
        ProxyConfig.BackendTls tls = chart.proxyConfig().backends().tls();
        JsonNode volume = volume(chart, "backend-tls");
        JsonNode mount = mount(chart.proxyContainer(), "backend-tls");

        assertThat(volume.path("secret").path("secretName").asText()).isEqualTo("kafka-proxy-backend-tls");
        assertThat(mount.has("subPath")).as("a directory mount, so a rotated Secret reaches the pod").isFalse();
        Path dir = Path.of(mount.path("mountPath").asText());
        assertThat(List.of(tls.caFile(), tls.certFile(), tls.keyFile())).allMatch(file -> file.getParent().equals(dir));
        assertThat(tls.verifyHostname()).isTrue();
        assertThat(render("defaults").proxyConfig().backends().tls()).as("plaintext unless enabled").isNull();
    }

    @Test
    void backendSaslPasswordSecretIsMountedAsADirectoryWhereTheConfigPoints() throws Exception {
        RenderedChart chart = render("external-secure-values.yaml");
        ProxyConfig.BackendSasl sasl = chart.proxyConfig().backends().sasl();
        JsonNode volume = volume(chart, "backend-sasl");
        JsonNode mount = mount(chart.proxyContainer(), "backend-sasl");

        assertThat(sasl).isEqualTo(new ProxyConfig.BackendSasl("SCRAM-SHA-512", "leasehold-proxy",
                Path.of(mount.path("mountPath").asText(), "password")));
        assertThat(volume.path("secret").path("secretName").asText()).isEqualTo("kafka-proxy-backend-sasl");
        assertThat(volume.path("secret").path("items").get(0).path("key").asText()).isEqualTo("password");
        assertThat(mount.has("subPath")).as("a directory mount, so a rotated Secret reaches the pod").isFalse();
        assertThat(render("defaults").proxyConfig().backends().sasl()).as("no SASL unless a mechanism is set").isNull();
    }

    @Test
    void listenerTlsSecretsAreMountedWhereTheConfigPointsAndClientsAreToldToUseSsl() throws Exception {
        RenderedChart chart = render("external-secure-values.yaml");
        ProxyConfig.Listener listener = chart.proxyConfig().listener();
        JsonNode container = chart.proxyContainer();
        JsonNode volume = null;
        for (JsonNode candidate : chart.podSpec().path("volumes")) {
            if ("listener-tls".equals(candidate.path("name").asText())) {
                volume = candidate;
            }
        }
        assertThat(volume).as("listener-tls volume").isNotNull();
        Path dir = Path.of(mount(container, "listener-tls").path("mountPath").asText());
        Map<Path, String> secretFiles = new HashMap<>();
        for (JsonNode source : volume.path("projected").path("sources")) {
            for (JsonNode item : source.path("secret").path("items")) {
                secretFiles.put(dir.resolve(item.path("path").asText()), source.path("secret").path("name").asText());
            }
        }

        assertThat(listener.tls()).isTrue();
        assertThat(listener.tlsClientAuth()).isEqualTo(ProxyConfig.ClientAuth.REQUIRED);
        assertThat(secretFiles).containsOnly(Map.entry(listener.tlsCertFile(), "kafka-proxy-tls"),
                Map.entry(listener.tlsKeyFile(), "kafka-proxy-tls"), Map.entry(listener.tlsCaFile(), "kafka-client-ca"));
        assertThat(mount(container, "listener-tls").path("readOnly").asBoolean()).isTrue();
        CommandResult install = tools.helm(withValues("external-secure-values.yaml", "install", ChartTools.RELEASE,
                tools.chart().toString(), "--namespace", ChartTools.NAMESPACE, "--dry-run=client"));
        assertThat(install.stdout()).contains("clients must set\nsecurity.protocol=SSL")
                .contains("Client certificates are required, verified with the CA in Secret kafka-client-ca");

        RenderedChart defaults = render("defaults");
        assertThat(defaults.proxyConfig().listener().tls()).as("plaintext unless a Secret is given").isFalse();
        assertThat(defaults.podSpec().path("volumes")).noneSatisfy(v ->
                assertThat(v.path("name").asText()).isEqualTo("listener-tls"));
        ProxyConfig.Listener sameSecret = rendered(tools.template("--set", "listenerTls.existingSecret=proxy-tls",
                "--set", "listenerTls.clientAuth=requested")).proxyConfig().listener();
        assertThat(sameSecret.tlsClientAuth()).isEqualTo(ProxyConfig.ClientAuth.REQUESTED);
        assertThat(sameSecret.tlsCaFile()).isEqualTo(dir.resolve("ca.crt"));
        assertThat(sameSecret.tlsPrincipal()).as("Kafka's DEFAULT rule unless set")
                .isEqualTo(ProxyConfig.CertificatePrincipals.DEFAULT);
        ProxyConfig.CertificatePrincipals mapped = rendered(tools.template("--set", "listenerTls.existingSecret=t",
                "--set", "listenerTls.clientAuth=required", "--set", "listenerTls.principalFrom=dns-san",
                "--set", "listenerTls.principalMappingRules=RULE:^([^.]+)[.].*$/$1/U")).proxyConfig().listener()
                .tlsPrincipal();
        assertThat(mapped.from()).isEqualTo(ProxyConfig.PrincipalSource.DNS_SAN);
        assertThat(mapped.mappingRules().getName("writer.clients.example")).isEqualTo("WRITER");
    }

    @Test
    void usersSecretIsMountedAsADirectoryWhereTheSaslConfigPointsAndClientsAreToldToUseSasl() throws Exception {
        RenderedChart chart = render("external-secure-values.yaml");
        ProxyConfig config = chart.proxyConfig();
        JsonNode mount = mount(chart.proxyContainer(), "listener-sasl");
        JsonNode volume = null;
        for (JsonNode candidate : chart.podSpec().path("volumes")) {
            if ("listener-sasl".equals(candidate.path("name").asText())) {
                volume = candidate;
            }
        }
        assertThat(volume).as("listener-sasl volume").isNotNull();
        JsonNode item = volume.path("secret").path("items").get(0);

        assertThat(config.sasl().mechanisms()).containsExactly("SCRAM-SHA-512", "SCRAM-SHA-256");
        assertThat(volume.path("secret").path("secretName").asText()).isEqualTo("kafka-proxy-users");
        assertThat(item.path("key").asText()).isEqualTo("users.yaml");
        assertThat(Path.of(mount.path("mountPath").asText()).resolve(item.path("path").asText()))
                .isEqualTo(config.sasl().usersFile());
        assertThat(mount.has("subPath")).as("a subPath mount would never see Secret updates").isFalse();
        CommandResult install = tools.helm(withValues("external-secure-values.yaml", "install", ChartTools.RELEASE,
                tools.chart().toString(), "--namespace", ChartTools.NAMESPACE, "--dry-run=client"));
        assertThat(install.stdout()).contains("Clients must authenticate with SASL (SCRAM-SHA-512, SCRAM-SHA-256)")
                .contains("security.protocol=SASL_SSL");

        assertThat(render("defaults").proxyConfig().saslRequired()).as("no SASL unless mechanisms are set").isFalse();
    }

    @Test
    void aclsFileIsMountedAsADirectoryFromASecretOrConfigMapWhereTheAuthorizationConfigPoints() throws Exception {
        for (String source : List.of("secret", "configMap")) {
            RenderedChart chart = source.equals("secret") ? render("external-secure-values.yaml")
                    : rendered(tools.template("--set", "authorization.aclsConfigMap=kafka-proxy-acls",
                            "--set", "authorization.aclsKey=rules.yaml"));
            ProxyConfig config = chart.proxyConfig();
            JsonNode mount = mount(chart.proxyContainer(), "acls");
            JsonNode volume = null;
            for (JsonNode candidate : chart.podSpec().path("volumes")) {
                if ("acls".equals(candidate.path("name").asText())) {
                    volume = candidate;
                }
            }
            assertThat(volume).as("acls volume from a " + source).isNotNull();
            JsonNode item = volume.path(source).path("items").get(0);

            assertThat(volume.path(source).path(source.equals("secret") ? "secretName" : "name").asText())
                    .isEqualTo("kafka-proxy-acls");
            assertThat(item.path("key").asText()).isEqualTo(source.equals("secret") ? "acls.yaml" : "rules.yaml");
            assertThat(Path.of(mount.path("mountPath").asText()).resolve(item.path("path").asText()))
                    .isEqualTo(config.authorization().aclsFile());
            assertThat(mount.has("subPath")).as("a subPath mount would never see updates").isFalse();
        }
        assertThat(render("defaults").proxyConfig().authorizes()).as("no authorization unless set").isFalse();
    }

    @Test
    void quotasFileIsMountedAsADirectoryFromAConfigMapWhereTheQuotasConfigPoints() throws Exception {
        RenderedChart chart = rendered(tools.template("--set", "quotas.configMap=tenant-quotas",
                "--set", "quotas.key=tenants.yaml", "--set", "quotas.windowCount=30", "--set", "quotas.windowSize=2s"));
        JsonNode mount = mount(chart.proxyContainer(), "quotas");
        JsonNode volume = null;
        for (JsonNode candidate : chart.podSpec().path("volumes")) {
            if ("quotas".equals(candidate.path("name").asText())) {
                volume = candidate;
            }
        }
        assertThat(volume).as("quotas volume").isNotNull();
        JsonNode item = volume.path("configMap").path("items").get(0);

        assertThat(volume.path("configMap").path("name").asText()).isEqualTo("tenant-quotas");
        assertThat(item.path("key").asText()).isEqualTo("tenants.yaml");
        assertThat(Path.of(mount.path("mountPath").asText()).resolve(item.path("path").asText()))
                .isEqualTo(chart.proxyConfig().quotas().file());
        assertThat(mount.has("subPath")).as("a subPath mount would never see updates").isFalse();
        assertThat(chart.proxyConfig().quotas().windowCount()).as("quotas.windowCount").isEqualTo(30);
        assertThat(chart.proxyConfig().quotas().windowSize()).as("quotas.windowSize").isEqualTo(Duration.ofSeconds(2));
        assertThat(render("defaults").proxyConfig().quotas().enabled()).as("no quotas unless set").isFalse();
    }

    @Test
    void auditLogGoesToStandardOutputWhenEnabled() throws Exception {
        ProxyConfig config = rendered(tools.template("--set", "audit.enabled=true", "--set", "audit.allowedReads=true"))
                .proxyConfig();

        assertThat(config.audit()).isEqualTo(new ProxyConfig.Audit("-", true));
        assertThat(render("defaults").proxyConfig().audit().enabled()).as("no audit log unless enabled").isFalse();
    }

    @Test
    void auditFileIsWrittenToAnEmptyDirOfItsSizeOrToTheClaimNamed() throws Exception {
        RenderedChart onEmptyDir = rendered(tools.template("--set", "audit.enabled=true",
                "--set", "audit.file=audit.jsonl", "--set", "audit.sizeLimit=2Gi"));
        RenderedChart onClaim = rendered(tools.template("--set", "audit.enabled=true",
                "--set", "audit.file=audit.jsonl", "--set", "audit.existingClaim=audit-logs"));

        for (RenderedChart chart : List.of(onEmptyDir, onClaim)) {
            Path dir = Path.of(mount(chart.proxyContainer(), "audit").path("mountPath").asText());
            assertThat(Path.of(chart.proxyConfig().audit().file())).isEqualTo(dir.resolve("audit.jsonl"));
        }
        assertThat(volume(onEmptyDir, "audit").path("emptyDir").path("sizeLimit").asText()).isEqualTo("2Gi");
        assertThat(volume(onClaim, "audit").path("persistentVolumeClaim").path("claimName").asText())
                .isEqualTo("audit-logs");
        assertThat(render("defaults").podSpec().path("volumes")).as("no audit volume unless a file is set")
                .noneSatisfy(v -> assertThat(v.path("name").asText()).isEqualTo("audit"));
    }

    @Test
    void loadBalancerCarriesSourceRangesAnnotationsAndAdvertisesItsName() throws Exception {
        RenderedChart chart = render("external-secure-values.yaml");
        JsonNode service = chart.named("Service", "lh-leasehold-proxy").orElseThrow();

        assertThat(service.path("spec").path("type").asText()).isEqualTo("LoadBalancer");
        assertThat(service.path("spec").path("loadBalancerSourceRanges").toString())
                .isEqualTo("[\"10.0.0.0/8\",\"192.168.0.0/16\"]");
        assertThat(service.path("spec").path("externalTrafficPolicy").asText()).isEqualTo("Local");
        assertThat(service.path("metadata").path("annotations").path("service.beta.kubernetes.io/aws-load-balancer-type")
                .asText()).isEqualTo("nlb");
        assertThat(chart.proxyConfig().listener().advertisedHost()).isEqualTo("kafka.example.com");
        assertThat(chart.proxyConfig().listener().advertisedPort()).isEqualTo(9093);
        assertThat(chart.proxyConfig().limits().maxConnections()).as("LEASEHOLD_* override from extraEnv")
                .isEqualTo(20000);
        JsonNode admin = chart.named("Service", "lh-leasehold-proxy-admin").orElseThrow();
        assertThat(admin.path("spec").path("type").asText()).as("admin never exposed by the LoadBalancer")
                .isEqualTo("ClusterIP");
        JsonNode monitor = chart.only("ServiceMonitor").path("spec");
        assertThat(monitor.path("endpoints").get(0).path("port").asText()).isEqualTo("admin");
        assertThat(monitor.path("selector").path("matchLabels").path("app.kubernetes.io/component").asText())
                .isEqualTo(admin.path("metadata").path("labels").path("app.kubernetes.io/component").asText());
    }

    @Test
    void nodePortAdvertisesTheNodePort() throws Exception {
        RenderedChart chart = render("nodeport-values.yaml");
        JsonNode service = chart.named("Service", "kafka-proxy").orElseThrow();

        assertThat(service.path("spec").path("ports").get(0).path("nodePort").asInt()).isEqualTo(30092);
        assertThat(chart.proxyConfig().listener().advertisedPort()).isEqualTo(30092);
        assertThat(chart.proxyConfig().backends().bootstrap().get(0).host()).isEqualTo("fd00::10");
        assertThat(chart.all("PodDisruptionBudget")).isEmpty();
        assertThat(chart.podSpec().path("serviceAccountName").asText()).isEqualTo("kafka-workloads");
    }

    @Test
    void nodePerOwnerExposesEveryNodePortOnThePodAndTheServiceAsTheConfigSays() throws Exception {
        RenderedChart chart = render("node-per-owner-values.yaml");
        JsonNode servicePorts = chart.named("Service", "lh-leasehold-proxy").orElseThrow().path("spec").path("ports");

        assertThat(chart.proxyConfig().presentation()).isEqualTo(new ProxyConfig.Presentation(
                ProxyConfig.PresentationMode.NODE_PER_OWNER, 9100, null, 0, 4));
        assertThat(servicePorts).hasSize(5);
        for (int id = 0; id < 4; id++) {
            assertThat(containerPort(chart, "node-" + id)).isEqualTo(9100 + id);
            JsonNode port = servicePorts.get(id + 1);
            assertThat(port.path("name").asText()).isEqualTo("node-" + id);
            assertThat(port.path("port").asInt()).isEqualTo(9100 + id);
            assertThat(port.path("targetPort").asText()).isEqualTo("node-" + id);
        }
        RenderedChart defaults = render("defaults");
        assertThat(defaults.proxyConfig().presentation()).isEqualTo(ProxyConfig.Presentation.SINGLE_NODE);
        assertThat(defaults.named("Service", "lh-leasehold-proxy").orElseThrow().path("spec").path("ports")).hasSize(1);
    }

    @Test
    void aNodePortServiceExposesTheNodePortsUnderTheirOwnNumbers() throws Exception {
        CommandResult result = tools.template("--set", "presentation.mode=node-per-owner,presentation.nodePortBase=31000,"
                + "presentation.nodeCount=2,service.type=NodePort,service.nodePort=30092,"
                + "config.listener.advertisedHost=nodes.example");

        assertThat(result.succeeded()).as(result.describe()).isTrue();
        assertThat(result.stdout()).contains("name: node-1\n      port: 31001\n      targetPort: node-1\n      protocol: TCP\n"
                + "      nodePort: 31001");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "service.type=Ingress                              | /service/type",
            "replicaCount=0                                    | /replicaCount",
            "config.listener.port=9000                         | additional properties 'port' not allowed",
            "config.etcd.endpoints=null                        | missing property 'endpoints'",
            "config.etcd.endpoints={}                          | /config/etcd/endpoints",
            "config.etcd.endpoints[0]=127.0.0.1:2379           | /config/etcd/endpoints/0",
            "config.backends.bootstrap[0]=broker-without-port  | /config/backends/bootstrap/0",
            "config.shutdown.drainTimeout=20                   | /config/shutdown/drainTimeout",
            "config.limits.maxConnections=-5                   | /config/limits/maxConnections",
            "ports.admin=70000                                 | /ports/admin",
            "config.admin.routes=public                        | /config/admin/routes",
            "ports.admin=9092                                  | ports.kafka and ports.admin must differ",
            "rollingUpdate.maxSurge=0                          | /rollingUpdate/maxSurge",
            "service.type=LoadBalancer                         | /config/listener/advertisedHost",
            "etcdCredentials.tls.existingSecret=etcd-tls       | does not match pattern '^https://'",
            "etcdCredentials.auth.existingSecret=etcd-user     | does not match pattern '^https://'",
            "config.etcd.endpoints={http://a:2379,https://b:2379} | at '/config/etcd/endpoints/0': 'http://a:2379' does not match pattern '^https://'",
            "backendTls.enabled=true,backendTls.clientCertificate=true | at '/backendTls/existingSecret': minLength: got 0, want 1",
            "backendTls.existingSecret=broker-ca               | at '/backendTls/existingSecret': maxLength: got 9, want 0",
            "backendSasl.mechanism=PLAIN,backendSasl.username=svc | at '/backendSasl/existingSecret': minLength: got 0, want 1",
            "backendSasl.mechanism=GSSAPI                      | /backendSasl/mechanism",
            "backendSasl.existingSecret=pw                     | at '/backendSasl/existingSecret': maxLength: got 2, want 0",
            "listenerTls.clientAuth=required                   | at '/listenerTls/existingSecret': minLength: got 0, want 1",
            "listenerTls.clientAuth=always                     | /listenerTls/clientAuth",
            "listenerTls.existingSecret=t,listenerTls.clientCaSecret=ca | at '/listenerTls/clientAuth': value must be one of",
            "listenerTls.existingSecret=t,listenerTls.principalFrom=uri-san | at '/listenerTls/clientAuth': value must be one of",
            "listenerSasl.mechanisms[0]=PLAIN                  | at '/listenerSasl/usersSecret': minLength: got 0, want 1",
            "listenerSasl.mechanisms[0]=GSSAPI,listenerSasl.usersSecret=u | /listenerSasl/mechanisms/0",
            "listenerSasl.usersSecret=users                    | at '/listenerSasl/mechanisms': minItems",
            "listenerSasl.mechanisms[0]=OAUTHBEARER            | at '/listenerSasl/oauthbearer/jwksSecret': minLength: got 0, want 1",
            "authorization.aclsSecret=a,authorization.aclsConfigMap=b | at '/authorization': 'not' failed",
            "terminationGracePeriodSeconds=30                  | must exceed preStopSleepSeconds (10) + config.shutdown.drainTimeout",
            "service.loadBalancerSourceRanges[0]=everyone      | /service/loadBalancerSourceRanges/0",
            "imageTag=latest                                   | additional properties 'imageTag' not allowed",
            "image.tag=0.1.0-SNAPSHOT                          | /image/tag",
            "metrics.prometheusRule.for.Bogus=1m               | at '/metrics/prometheusRule/for': additional properties 'Bogus' not allowed",
            "metrics.prometheusRule.for.LeaseholdBadFrames=soon | /metrics/prometheusRule/for/LeaseholdBadFrames",
            "dashboard.label=not a label                       | /dashboard/label",
            "networkPolicy.extraKafkaPorts[0]=70000            | /networkPolicy/extraKafkaPorts/0",
            "networkPolicy.clients[0].ipBlock.cidr=everyone    | /networkPolicy/clients/0/ipBlock/cidr",
            "networkPolicy.monitoring[0].podSelectors.a=b      | at '/networkPolicy/monitoring/0': additional properties 'podSelectors' not allowed",
            "image.digest=sha256:abc                           | /image/digest",
            "image.digest=latest                               | /image/digest",
            "service.type=NodePort,config.listener.advertisedHost=nodes.example | at '/service/nodePort': got null, want integer",
            "podSecurityContext.runAsNonRoot=false              | /podSecurityContext/runAsNonRoot",
            "podSecurityContext.runAsUser=0                    | /podSecurityContext/runAsUser",
            "containerSecurityContext.privileged=true          | /containerSecurityContext/privileged",
            "containerSecurityContext.allowPrivilegeEscalation=true | /containerSecurityContext/allowPrivilegeEscalation",
            "sidecars[0].name=proxy,sidecars[0].image=busybox  | /sidecars/0/name",
            "initContainers[0].name=wait                       | /initContainers/0",
            "extraVolumeMounts[0].name=x,extraVolumeMounts[0].mountPath=relative | /extraVolumeMounts/0/mountPath",
            "image.registry=https://mirror.example.com         | /image/registry",
            "presentation.mode=every-broker                    | /presentation/mode",
            "presentation.nodeCount=500                        | /presentation/nodeCount",
            "presentation.nodeHostPattern=broker.example       | /presentation/nodeHostPattern",
            "presentation.mode=node-per-owner,presentation.nodePortBase=0 | node-per-owner needs presentation.nodePortBase or presentation.nodeHostPattern",
            "presentation.mode=node-per-owner,presentation.nodePortBase=65530 | presentation node ports 65530..65545 go past 65535",
            "presentation.mode=node-per-owner,presentation.nodePortBase=9090 | presentation node ports 9090..9105 include ports.admin (9094)",
            "presentation.mode=node-per-owner,service.type=NodePort,service.nodePort=30092,config.listener.advertisedHost=n.example | must lie in 30000..32767 for a NodePort Service",
    })
    void badValuesAreRejectedBeforeAnythingIsInstalled(String setting, String expectedError) {
        CommandResult result = tools.template("--set", setting);

        assertThat(result.succeeded()).as(result.describe()).isFalse();
        assertThat(result.stderr()).contains(expectedError);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "defaults                    | lh-leasehold-proxy.kafka.svc.cluster.local:9092 | kubectl run kcat",
            "external-secure-values.yaml | kafka.example.com:9093                          | Only these source ranges may connect: 10.0.0.0/8, 192.168.0.0/16",
            "nodeport-values.yaml        | nodes.kafka.internal:30092                      | the node port is",
            "values-kafscale.yaml        | kafka.example.com:9092                          | /readyz",
    })
    void installNotesTellClientsTheAdvertisedBootstrapAddress(String valueSet, String bootstrap, String howTo) {
        CommandResult install = tools.helm(withValues(valueSet, "install", ChartTools.RELEASE, tools.chart().toString(),
                "--namespace", ChartTools.NAMESPACE, "--dry-run=client"));

        assertThat(install.succeeded()).as(install.describe()).isTrue();
        String notes = install.stdout().substring(install.stdout().indexOf("NOTES:"));
        assertThat(notes).contains("Kafka clients bootstrap to:\n\n  " + bootstrap + "\n").contains(howTo)
                .contains("/readyz");
    }

    @Test
    void chartAlertsAreTheOnesTheOperationsGuideExplains() throws Exception {
        JsonNode documented = tools.documents(tools.documentedAlertRules()).get(0).path("groups").get(0).path("rules");
        RenderedChart chart = render("external-secure-values.yaml");

        JsonNode rendered = chart.only("PrometheusRule").path("spec").path("groups").get(0).path("rules");

        assertThat(rendered).hasSameSizeAs(documented).hasSizeGreaterThan(5);
        for (int i = 0; i < documented.size(); i++) {
            JsonNode doc = documented.get(i);
            JsonNode rule = rendered.get(i);
            assertThat(rule.path("alert")).isEqualTo(doc.path("alert"));
            assertThat(rule.path("for")).isEqualTo(doc.path("for"));
            assertThat(rule.path("labels")).isEqualTo(doc.path("labels"));
            assertThat(rule.path("annotations")).as(doc.path("alert").asText()).isEqualTo(doc.path("annotations"));
            String docExpr = doc.path("expr").asText().replace("deployment=~\".*leasehold-proxy.*\"",
                    "namespace=\"kafka\", deployment=\"lh-leasehold-proxy\"");
            assertThat(rule.path("expr").asText().strip()).as(doc.path("alert").asText()).isEqualTo(docExpr.strip());
        }
        assertThat(render("defaults").all("PrometheusRule")).isEmpty();
    }

    @Test
    void everyAlertHasASummaryADescriptionAndARunbookLinkToItsOwnSectionOfTheOperationsGuide() throws Exception {
        String guide = Files.readString(tools.repo().resolve("docs/operations.md"));
        String base = "https://wiki.example.com/leasehold/operations";
        JsonNode rules = rendered(tools.template("--set", "metrics.prometheusRule.enabled=true",
                "--set", "metrics.prometheusRule.runbookBaseUrl=" + base))
                .only("PrometheusRule").path("spec").path("groups").get(0).path("rules");

        assertThat(rules).hasSizeGreaterThan(5);
        for (JsonNode rule : rules) {
            String alert = rule.path("alert").asText();
            JsonNode annotations = rule.path("annotations");
            assertThat(annotations.path("summary").asText()).as(alert).isNotBlank();
            assertThat(annotations.path("description").asText()).as(alert).isNotBlank();
            assertThat(annotations.path("runbook_url").asText()).as(alert).isEqualTo(base + "#" + alert.toLowerCase());
            assertThat(guide).as("docs/operations.md has a section for " + alert).contains("\n### " + alert + "\n");
        }
    }

    @Test
    void validatorRejectsWrongTypesAndUnknownFields() {
        String broken = render("defaults").manifests()
                .replace("readinessProbe:", "readinesProbe:")
                .replace("replicas: 3", "replicas: three");

        CommandResult validation = tools.validate(broken);

        assertThat(validation.succeeded()).isFalse();
        assertThat(validation.stderr())
                .contains("Deployment/lh-leasehold-proxy (apps/v1): data/spec/replicas must be integer")
                .contains("spec.template.spec.containers[0].readinesProbe: unknown field");
    }

    @Test
    void kafscaleValuesPointTheProxyAtKafscalesEtcdPrefixAndBrokers() throws Exception {
        ProxyConfig config = render(KAFSCALE_VALUES).proxyConfig();

        assertThat(config.etcd().prefix()).isEqualTo("/kafscale");
        assertThat(config.backends().bootstrap()).extracting(HostPort::host)
                .allMatch(host -> host.contains("demo-broker-headless"));
        assertThat(config.listener().advertisedHost()).isEqualTo("kafka.example.com");
        assertThat(config.listener().advertisedPort()).isEqualTo(9092);
    }

    @Test
    void defaultImageIsTheReleaseTagOfThisVersionNeverAMutableSnapshot() throws Exception {
        JsonNode chartYaml = tools.readYaml(tools.chart().resolve("Chart.yaml"));
        String releaseVersion = projectVersion().replaceFirst("-SNAPSHOT$", "");
        String dockerfile = Files.readString(tools.repo().resolve("Dockerfile"));

        assertThat(chartYaml.path("appVersion").asText()).isEqualTo(releaseVersion).doesNotContain("SNAPSHOT");
        assertThat(chartYaml.path("version").asText()).doesNotContain("SNAPSHOT");
        assertThat(render("defaults").proxyContainer().path("image").asText())
                .isEqualTo("ghcr.io/leasehold/leasehold-proxy:" + releaseVersion);
        assertThat(dockerfile).contains("leasehold-proxy:" + releaseVersion + " .").contains("USER 10001:10001");
        assertThat(render("defaults").podSpec().path("securityContext").path("runAsUser").asInt()).isEqualTo(10001);
    }

    @Test
    void aDigestPinsTheImageWhateverTheTag() {
        String digest = "sha256:" + "0123456789abcdef".repeat(4);

        String pinned = rendered(tools.template("--set", "image.digest=" + digest, "--set", "image.tag=0.2.0"))
                .proxyContainer().path("image").asText();
        String tagged = rendered(tools.template("--set", "image.tag=0.2.0")).proxyContainer().path("image").asText();

        assertThat(pinned).isEqualTo("ghcr.io/leasehold/leasehold-proxy@" + digest);
        assertThat(tagged).isEqualTo("ghcr.io/leasehold/leasehold-proxy:0.2.0");
    }

    @Test
    void chartReadmeDocumentsEveryValue() throws Exception {
        String readme = Files.readString(tools.chart().resolve("README.md"));
        List<String> paths = new ArrayList<>();
        leafPaths("", tools.readYaml(tools.chart().resolve("values.yaml")), paths);

        assertThat(paths).hasSizeGreaterThan(40);
        assertThat(paths).allSatisfy(path -> assertThat(readme).as("README documents " + path).contains("`" + path + "`"));
    }

    private static void leafPaths(String prefix, JsonNode node, List<String> paths) {
        if (node.isObject() && !node.isEmpty()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                leafPaths(prefix.isEmpty() ? field.getKey() : prefix + "." + field.getKey(), field.getValue(), paths);
            }
        } else {
            paths.add(prefix);
        }
    }

    private static String projectVersion() throws IOException {
        String pom = Files.readString(tools.repo().resolve("pom.xml"));
        int artifact = pom.indexOf("<artifactId>leasehold-parent</artifactId>");
        int start = pom.indexOf("<version>", artifact) + "<version>".length();
        return pom.substring(start, pom.indexOf("</version>", start)).strip();
    }

    @Test
    void routesIsOffByDefaultAndTheAdminHostIsAValue() throws Exception {
        ProxyConfig.Admin defaults = render("defaults").proxyConfig().admin();
        assertThat(defaults.routes()).isEqualTo(ProxyConfig.RoutesAccess.OFF);
        assertThat(defaults.host()).as("the kubelet probes reach the Pod IP").isEqualTo("0.0.0.0");

        ProxyConfig.Admin chosen = rendered(tools.template("--set", "config.admin.host=127.0.0.1",
                "--set", "config.admin.routes=open")).proxyConfig().admin();
        assertThat(chosen.host()).isEqualTo("127.0.0.1");
        assertThat(chosen.routes()).isEqualTo(ProxyConfig.RoutesAccess.OPEN);
    }

    @Test
    void networkPolicyAdmitsOnlyTheListedTrafficInAndOut() {
        RenderedChart chart = render("locked-down-values.yaml");
        JsonNode values = tools.readYaml(tools.chart().resolve("ci/locked-down-values.yaml")).path("networkPolicy");
        JsonNode spec = chart.only("NetworkPolicy").path("spec");
        JsonNode ingress = spec.path("ingress");
        JsonNode egress = spec.path("egress");

        assertThat(spec.path("podSelector")).isEqualTo(chart.only("Deployment").path("spec").path("selector"));
        assertThat(spec.path("policyTypes").toString()).isEqualTo("[\"Ingress\",\"Egress\"]");
        assertThat(ingress).hasSize(2);
        assertThat(ports(ingress.get(0))).containsExactly("TCP/" + containerPort(chart, "kafka"), "TCP/9100", "TCP/9101");
        assertThat(ingress.get(0).path("from")).isEqualTo(values.path("clients"));
        assertThat(ports(ingress.get(1))).containsExactly("TCP/" + containerPort(chart, "admin"));
        assertThat(ingress.get(1).path("from")).isEqualTo(values.path("monitoring"));
        assertThat(egress).hasSize(3);
        assertThat(ports(egress.get(0))).containsExactly("TCP/2379");
        assertThat(egress.get(0).path("to")).isEqualTo(values.path("etcd"));
        assertThat(ports(egress.get(1))).containsExactly("TCP/9092", "TCP/9093");
        assertThat(egress.get(1).path("to")).isEqualTo(values.path("brokers"));
        assertThat(ports(egress.get(2))).containsExactly("UDP/53", "TCP/53");
        assertThat(egress.get(2).path("to")).isEqualTo(values.path("dns"));

        assertThat(render("defaults").all("NetworkPolicy")).as("off by default").isEmpty();
    }

    @Test
    void networkPolicyWithoutPeersOpensTheKafkaPortClosesTheAdminPortAndLimitsEgressByPort() {
        JsonNode spec = rendered(tools.template("--set", "networkPolicy.enabled=true")).only("NetworkPolicy").path("spec");

        assertThat(spec.path("ingress")).hasSize(1);
        assertThat(ports(spec.path("ingress").get(0))).containsExactly("TCP/9092");
        assertThat(spec.path("ingress").get(0).has("from")).as("every client source").isFalse();
        assertThat(spec.path("egress")).extracting(HelmChartTest::ports).containsExactly(List.of("TCP/2379"),
                List.of("TCP/9092"), List.of("UDP/53", "TCP/53"));
        assertThat(spec.path("egress")).noneSatisfy(rule -> assertThat(rule.has("to")).isTrue());
    }

    @Test
    void networkPolicyAdmitsClientsOnEveryNodePortOfTheNodePerOwnerPresentation() {
        RenderedChart chart = rendered(tools.template("-f", tools.chart().resolve("ci/node-per-owner-values.yaml").toString(),
                "--set", "networkPolicy.enabled=true"));
        List<String> nodePorts = new ArrayList<>();
        chart.named("Service", "lh-leasehold-proxy").orElseThrow().path("spec").path("ports").forEach(p -> {
            if (p.path("name").asText().startsWith("node-")) {
                nodePorts.add("TCP/" + p.path("port").asText());
            }
        });

        assertThat(nodePorts).isNotEmpty();
        assertThat(ports(chart.only("NetworkPolicy").path("spec").path("ingress").get(0)))
                .containsAll(nodePorts).contains("TCP/" + containerPort(chart, "kafka"));
    }

    private static List<String> ports(JsonNode rule) {
        List<String> ports = new ArrayList<>();
        rule.path("ports").forEach(p -> ports.add(p.path("protocol").asText() + "/" + p.path("port").asText()));
        return ports;
    }

    @Test
    void dashboardConfigMapCarriesTheChartsDashboardForTheSidecar() throws Exception {
        String dashboard = Files.readString(tools.chart().resolve("files/grafana-dashboard.json"));
        JsonNode chosen = render("locked-down-values.yaml").named("ConfigMap", "lh-leasehold-proxy-dashboard").orElseThrow();
        JsonNode usual = rendered(tools.template("--set", "dashboard.enabled=true"))
                .named("ConfigMap", "lh-leasehold-proxy-dashboard").orElseThrow();

        assertThat(chosen.path("metadata").path("labels").path("grafana.example.com/dashboard").asText()).isEqualTo("leasehold");
        assertThat(chosen.path("metadata").path("annotations").path("grafana_folder").asText()).isEqualTo("Kafka");
        assertThat(usual.path("metadata").path("labels").path("grafana_dashboard").asText()).isEqualTo("1");
        assertThat(usual.path("data").path("leasehold-proxy.json").asText()).isEqualTo(dashboard.strip());
        assertThat(render("defaults").named("ConfigMap", "lh-leasehold-proxy-dashboard")).as("off by default").isEmpty();
    }

    @Test
    void dashboardHasAStableUidASchemaVersionAndEveryPanelQueriesTheChosenPrometheus() {
        GrafanaDashboard dashboard = GrafanaDashboard.ofChart(tools.chart());
        JsonNode json = dashboard.json();
        JsonNode datasource = dashboard.variable("datasource");

        assertThat(json.path("uid").asText()).isEqualTo("leasehold-proxy");
        assertThat(json.path("schemaVersion").asInt()).isGreaterThanOrEqualTo(36);
        assertThat(datasource.path("type").asText()).isEqualTo("datasource");
        assertThat(datasource.path("query").asText()).isEqualTo("prometheus");
        assertThat(dashboard.variable("job").path("datasource").path("uid").asText()).isEqualTo("${datasource}");
        assertThat(dashboard.panels()).hasSizeGreaterThan(15).allSatisfy(panel -> {
            assertThat(panel.path("datasource").path("uid").asText()).as(panel.path("title").asText()).isEqualTo("${datasource}");
            assertThat(panel.path("targets")).as(panel.path("title").asText()).isNotEmpty().allSatisfy(target ->
                    assertThat(target.path("datasource").path("uid").asText()).isEqualTo("${datasource}"));
        });
        List<Integer> ids = new ArrayList<>();
        json.path("panels").forEach(p -> ids.add(p.path("id").asInt()));
        assertThat(ids).doesNotHaveDuplicates().doesNotContain(0);
        assertThat(dashboard.queries()).allSatisfy(q -> assertThat(q.expr()).as(q.panel()).contains("job=~\"$job\""));
    }

    @Test
    void alertForDurationsAreReplacedOnlyForTheAlertsNamed() {
        JsonNode documented = tools.documents(tools.documentedAlertRules()).get(0).path("groups").get(0).path("rules");
        JsonNode rendered = render("locked-down-values.yaml").only("PrometheusRule").path("spec").path("groups").get(0)
                .path("rules");

        assertThat(rendered).hasSameSizeAs(documented);
        for (int i = 0; i < documented.size(); i++) {
            String alert = documented.get(i).path("alert").asText();
            assertThat(rendered.get(i).path("for").asText()).as(alert)
                    .isEqualTo("LeaseholdRequestErrors".equals(alert) ? "10m" : documented.get(i).path("for").asText());
        }
    }

    @Test
    void externalSecretChangesRollThePodsThroughAPodAnnotationOrAReloader() {
        RenderedChart chart = render("locked-down-values.yaml");
        JsonNode before = render("defaults").only("Deployment").path("spec").path("template");
        JsonNode bumped = rendered(tools.template("--set-string", "podAnnotations.leasehold/secrets-revision=2"))
                .only("Deployment").path("spec").path("template");

        assertThat(chart.only("Deployment").path("metadata").path("annotations").path("reloader.stakater.com/auto").asText())
                .isEqualTo("true");
        assertThat(bumped).as("a changed pod template is what rolls the pods").isNotEqualTo(before);
        assertThat(bumped.path("metadata").path("annotations").path("leasehold/secrets-revision").asText()).isEqualTo("2");
        assertThat(chart.proxyContainer().path("image").asText())
                .isEqualTo("ghcr.io/leasehold/leasehold-proxy@sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945");
        assertThat(chart.manifests()).as("the chart makes no Secret of its own to checksum").doesNotContain("kind: Secret\n");
    }

    @Test
    void jwksSecretIsMountedAsADirectoryWhereTheOAuthBearerConfigPointsWithoutAUsersFile() throws Exception {
        RenderedChart chart = rendered(tools.template("--set", "listenerSasl.mechanisms[0]=OAUTHBEARER",
                "--set", "listenerSasl.oauthbearer.jwksSecret=idp-jwks", "--set",
                "listenerSasl.oauthbearer.issuer=https://idp.example.com", "--set",
                "listenerSasl.oauthbearer.audience[0]=kafka"));
        ProxyConfig config = chart.proxyConfig();
        JsonNode mount = mount(chart.proxyContainer(), "listener-jwks");
        JsonNode volume = null;
        for (JsonNode candidate : chart.podSpec().path("volumes")) {
            if ("listener-jwks".equals(candidate.path("name").asText())) {
                volume = candidate;
            }
            assertThat(candidate.path("name").asText()).as("no users file without PLAIN or SCRAM")
                    .isNotEqualTo("listener-sasl");
        }
        assertThat(volume).as("listener-jwks volume").isNotNull();
        JsonNode item = volume.path("secret").path("items").get(0);

        assertThat(config.sasl().usersFile()).isNull();
        assertThat(config.sasl().oauthbearer().issuer()).isEqualTo("https://idp.example.com");
        assertThat(config.sasl().oauthbearer().audience()).containsExactly("kafka");
        assertThat(volume.path("secret").path("secretName").asText()).isEqualTo("idp-jwks");
        assertThat(Path.of(mount.path("mountPath").asText()).resolve(item.path("path").asText()))
                .isEqualTo(config.sasl().oauthbearer().jwksFile());
        assertThat(mount.has("subPath")).as("a subPath mount would never see Secret updates").isFalse();
    }

    /**
     * The value set's rendering, made once per value set: the tests only read it, and helm
     * renders the same input the same way (aConfigChangeChangesTheChecksumThatRollsThePods renders twice to check).
     */
    private static RenderedChart render(String valueSet) {
        return RENDERED.computeIfAbsent(valueSet, set -> rendered(tools.template(withValues(set))));
    }

    private static RenderedChart rendered(CommandResult result) {
        assertThat(result.succeeded()).as(result.describe()).isTrue();
        return new RenderedChart(result.stdout(), tools.documents(result.stdout()));
    }

    private static String checksum(CommandResult result) {
        return checksum(rendered(result));
    }

    private static String checksum(RenderedChart chart) {
        return chart.only("Deployment").path("spec").path("template").path("metadata").path("annotations")
                .path("checksum/config").asText();
    }

    private static String[] withValues(String valueSet, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        if (!"defaults".equals(valueSet)) {
            all.add("--values");
            all.add((KAFSCALE_VALUES.equals(valueSet) ? tools.chart() : tools.chart().resolve("ci")).resolve(valueSet).toString());
        }
        return all.toArray(String[]::new);
    }

    private static String fullname(String valueSet) {
        return "nodeport-values.yaml".equals(valueSet) ? "kafka-proxy" : "lh-leasehold-proxy";
    }

    private static int containerPort(RenderedChart chart, String name) {
        for (JsonNode port : chart.proxyContainer().path("ports")) {
            if (name.equals(port.path("name").asText())) {
                return port.path("containerPort").asInt();
            }
        }
        throw new AssertionError("no container port " + name);
    }

    private static JsonNode volume(RenderedChart chart, String name) {
        for (JsonNode volume : chart.podSpec().path("volumes")) {
            if (name.equals(volume.path("name").asText())) {
                return volume;
            }
        }
        throw new AssertionError("no volume " + name);
    }

    private static JsonNode mount(JsonNode container, String volume) {
        for (JsonNode mount : container.path("volumeMounts")) {
            if (volume.equals(mount.path("name").asText())) {
                return mount;
            }
        }
        throw new AssertionError("no volume mount for " + volume);
    }
}
