package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;

/** The end of a fault test's proxies: each still running drains on SIGTERM with exit code 0, and none logged a leak. */
final class ProxyExits {
    private ProxyExits() {
    }

    static void assertCleanExits(LocalCluster cluster) throws IOException {
        for (ProxyProcess proxy : cluster.proxies()) {
            if (proxy.isAlive()) {
                assertThat(proxy.terminate(Duration.ofSeconds(30))).as("exit code of " + proxy).isZero();
            }
            assertThat(Files.readString(proxy.process().stderrLog())).as("leaks in " + proxy).doesNotContain("LEAK:");
        }
    }
}
