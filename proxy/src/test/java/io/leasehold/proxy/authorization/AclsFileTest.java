package io.leasehold.proxy.authorization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.files.MountedFileWatcher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The watched ACL file: changes swap the rules in, a bad change keeps the old ones and is counted. */
class AclsFileTest {
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private static final String ALICE_WRITES = """
            acls:
              - {principal: "User:alice", resourceType: TOPIC, name: orders, operations: [WRITE], permission: ALLOW}
            """;
    private static final String ALICE_READS = """
            acls:
              - {principal: "User:alice", resourceType: TOPIC, name: orders, operations: [READ], permission: ALLOW}
            """;

    @Test
    void aChangedFileReplacesTheRulesAndABadChangeKeepsThePreviousOnes(@TempDir Path dir) throws Exception {
        Path path = Files.writeString(dir.resolve("acls.yaml"), ALICE_WRITES);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AclsFile file = AclsFile.load(path);
        try (MountedFileWatcher watcher = new MountedFileWatcher(Duration.ofMillis(20))) {
            file.reloadWith(watcher, new AuthorizationMetrics(registry));
            assertThat(file.current().allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "orders")).isTrue();

            replace(path, "acls:\n  - {principal: alice}\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> reloads(registry, "failure") == 1);
            assertThat(file.current().allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "orders"))
                    .as("the last good rules stay in force").isTrue();

            replace(path, ALICE_READS);
            await().atMost(Duration.ofSeconds(10)).until(() -> reloads(registry, "success") == 1);
            assertThat(file.current().allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "orders")).isFalse();
            assertThat(file.current().allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "orders")).isTrue();
            assertThat(reloads(registry, "failure")).as("a bad file is counted once, not on every check").isEqualTo(1);
        }
    }

    /**
     * Swaps the file's content in one step, as a Kubernetes volume update does: the watcher's
     * thread never reads it half-written (which would count as one more bad change).
     */
    private static void replace(Path path, String content) throws IOException {
        Path next = Files.writeString(path.resolveSibling(path.getFileName() + ".next"), content);
        Files.move(next, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void aBadFileAtStartIsAnErrorNamingTheFile(@TempDir Path dir) throws Exception {
        Path path = Files.writeString(dir.resolve("acls.yaml"), "acls:\n  - {principal: alice}\n");

        assertThatThrownBy(() -> AclsFile.load(path)).isInstanceOf(AclsFileException.class)
                .hasMessageContaining(path + ": acls[0] (line 2).principal: \"alice\" is not \"User:NAME\"");
        assertThatThrownBy(() -> AclsFile.load(dir.resolve("missing.yaml"))).isInstanceOf(AclsFileException.class)
                .hasMessageContaining("missing.yaml: cannot read the ACL file");
    }

    private static double reloads(SimpleMeterRegistry registry, String outcome) {
        var counter = registry.find("leasehold.authorization.reloads").tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }
}
