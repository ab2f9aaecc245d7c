package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BrokerOptionsTest {

    private static final String[] REQUIRED = {"--id", "3", "--host", "127.0.0.1", "--port", "19092",
            "--etcd", "http://127.0.0.1:2379,http://127.0.0.1:2380", "--data-dir", "/tmp/segments"};

    @Test
    void requiredFlagsWithDefaultsForTheRest() throws Exception {
        BrokerOptions options = BrokerOptions.parse(REQUIRED);
        assertThat(options.id()).isEqualTo(3);
        assertThat(options.port()).isEqualTo(19092);
        assertThat(options.etcdEndpoints()).containsExactly("http://127.0.0.1:2379", "http://127.0.0.1:2380");
        assertThat(options.dataDir()).isEqualTo(Path.of("/tmp/segments"));
        assertThat(options.prefix()).isEqualTo("/kafscale");
        assertThat(options.leaseTtl()).isEqualTo(Duration.ofSeconds(10));
        assertThat(options.ownership()).isEqualTo(BrokerOptions.OwnershipMode.LEASE);
        assertThat(options.layout()).isEqualTo(BrokerOptions.Layout.DEFAULT);
    }

    @Test
    void optionalFlagsOverrideDefaults() throws Exception {
        BrokerOptions options = BrokerOptions.parse(concat(REQUIRED,
                "--prefix", "/other", "--lease-ttl", "2500ms", "--ownership", "none", "--layout", "kafscale"));
        assertThat(options.prefix()).isEqualTo("/other");
        assertThat(options.leaseTtl()).isEqualTo(Duration.ofMillis(2500));
        assertThat(options.ownership()).isEqualTo(BrokerOptions.OwnershipMode.NONE);
        assertThat(options.layout()).isEqualTo(BrokerOptions.Layout.KAFSCALE);
    }

    @Test
    void tlsFlagsMakeATlsListenerAndComeInWorkingCombinations() throws Exception {
        assertThat(BrokerOptions.parse(REQUIRED).tls()).as("plaintext unless asked").isNull();
        assertThat(BrokerOptions.parse(concat(REQUIRED, "--tls-cert", "/c.crt", "--tls-key", "/c.key", "--tls-ca",
                "/ca.crt")).tls()).isEqualTo(new BrokerOptions.Tls(Path.of("/c.crt"), Path.of("/c.key"),
                Path.of("/ca.crt")));
        assertThatThrownBy(() -> BrokerOptions.parse(concat(REQUIRED, "--tls-cert", "/c.crt")))
                .hasMessage("--tls-cert and --tls-key must be given together");
        assertThatThrownBy(() -> BrokerOptions.parse(concat(REQUIRED, "--tls-ca", "/ca.crt")))
                .hasMessageContaining("--tls-ca needs --tls-cert and --tls-key");
    }

    @Test
    void httpsEtcdEndpointsAreRefusedRatherThanSpokenToInPlaintext() {
        String[] https = REQUIRED.clone();
        https[7] = "https://127.0.0.1:2379";
        assertThatThrownBy(() -> BrokerOptions.parse(https)).hasMessageContaining(
                "--etcd endpoint 'https://127.0.0.1:2379': the reference broker has no etcd TLS settings");
    }

    @Test
    void everyBadFlagIsNamedInTheError() {
        assertThatThrownBy(() -> BrokerOptions.parse("--id", "1"))
                .hasMessage("missing required flag(s): --host, --port, --etcd, --data-dir");
        assertThatThrownBy(() -> BrokerOptions.parse(concat(REQUIRED, "--ownership", "maybe")))
                .hasMessageContaining("--ownership must be 'lease' or 'none', got 'maybe'");
        assertThatThrownBy(() -> BrokerOptions.parse(concat(REQUIRED, "--layout", "kafka")))
                .hasMessageContaining("--layout must be 'default' or 'kafscale', got 'kafka'");
        assertThatThrownBy(() -> BrokerOptions.parse(concat(REQUIRED, "--lease-ttl", "10")))
                .hasMessageContaining("--lease-ttl needs a unit");
        assertThatThrownBy(() -> BrokerOptions.parse(concat(REQUIRED, "--lease-ttl", "200ms")))
                .hasMessageContaining("at least 1s");
        assertThatThrownBy(() -> BrokerOptions.parse(concat(REQUIRED, "--verbose", "yes")))
                .hasMessage("unknown flag '--verbose'");
        assertThatThrownBy(() -> BrokerOptions.parse(concat(REQUIRED, "--port")))
                .hasMessage("flag --port needs a value");
        assertThatThrownBy(() -> BrokerOptions.parse(concat(REQUIRED, "--id", "4")))
                .hasMessage("flag --id given twice");
        assertThatThrownBy(() -> BrokerOptions.parse("--id", "1", "--host", "h", "--port", "70000", "--etcd",
                "http://e:1", "--data-dir", "d")).hasMessage("--port must be 0..65535, got 70000");
        assertThatThrownBy(() -> BrokerOptions.parse("--id", "1", "--host", "h", "--port", "1", "--etcd",
                "etcd:2379", "--data-dir", "d")).hasMessageContaining("is not an http(s)://host:port URL");
        assertThatThrownBy(() -> BrokerOptions.parse(concat(REQUIRED, "--prefix", "kafscale")))
                .hasMessageContaining("--prefix must be empty or start with '/'");
    }

    private static String[] concat(String[] first, String... more) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }
}
