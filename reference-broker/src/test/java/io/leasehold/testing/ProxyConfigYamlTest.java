package io.leasehold.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProxyConfigYamlTest {

    @Test
    void rendersEveryContractKeyWithTheGivenAddresses() {
        String yaml = new ProxyConfigYaml("127.0.0.1", 19000, 19001, List.of("http://127.0.0.1:2379"), "/kafscale",
                List.of("127.0.0.1:1", "127.0.0.1:2")).render();

        assertThat(yaml)
                .contains("listener: { host: 127.0.0.1, port: 19000, advertisedHost: 127.0.0.1, advertisedPort: 19000 }")
                .contains("endpoints: [\"http://127.0.0.1:2379\"], prefix: \"/kafscale\"")
                .contains("bootstrap: [\"127.0.0.1:1\", \"127.0.0.1:2\"]")
                .contains("admin:    { host: 127.0.0.1, port: 19001 }")
                .contains("limits:").contains("routing:").contains("shutdown:");
    }
}
