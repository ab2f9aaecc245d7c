package io.leasehold.proxy.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/configuration.md stays true: every key documented, its examples accepted by the loader. */
class ConfigurationDocTest {

    private final String doc = read();

    @Test
    void documentsEveryKeyWithItsEnvironmentVariable() {
        ConfigKeys.SECTIONS.forEach((section, names) -> names.forEach(name -> {
            ConfigKey key = new ConfigKey(section, name);
            assertThat(doc).as(key.path()).contains("| `" + key.path() + "` |").contains("`" + key.envName() + "`");
        }));
    }

    @Test
    void fullExampleIsAValidConfigWithTheDocumentedDefaults() throws ConfigException {
        List<String> examples = yamlBlocks();
        assertThat(examples).hasSizeGreaterThanOrEqualTo(2);

        ProxyConfig full = new ConfigLoader(Map.of()).parse(examples.get(0), "full example");
        ProxyConfig minimal = new ConfigLoader(Map.of()).parse(examples.get(1), "minimal example");

        assertThat(full.limits()).isEqualTo(minimal.limits());
        assertThat(full.routing()).isEqualTo(minimal.routing());
        assertThat(full.shutdown()).isEqualTo(minimal.shutdown());
        assertThat(full.admin()).isEqualTo(minimal.admin());
        assertThat(full.etcd().tlsKeyFile()).isEqualTo(Path.of("/etc/leasehold/etcd-tls/tls.key"));
        assertThat(full.listener().tlsClientAuth()).isEqualTo(ProxyConfig.ClientAuth.REQUIRED);
        assertThat(minimal.listener().tls()).as("plaintext unless configured").isFalse();
        assertThat(full.sasl().mechanisms()).containsExactly("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN");
        assertThat(minimal.saslRequired()).as("no SASL unless configured").isFalse();
        assertThat(full.authorization().aclsFile()).isEqualTo(Path.of("/etc/leasehold/acls/acls.yaml"));
        assertThat(minimal.authorizes()).as("no authorization unless configured").isFalse();
        assertThat(minimal.shutdown().drainTimeout()).isEqualTo(Duration.ofSeconds(20));
    }

    private List<String> yamlBlocks() {
        List<String> blocks = new ArrayList<>();
        Matcher matcher = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL).matcher(doc);
        while (matcher.find()) {
            blocks.add(matcher.group(1));
        }
        return blocks;
    }

    private static String read() {
        try {
            return Files.readString(Path.of("").toAbsolutePath().getParent().resolve("docs/configuration.md"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
