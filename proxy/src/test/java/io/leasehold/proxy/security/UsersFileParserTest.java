package io.leasehold.proxy.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.files.MountedFileWatcher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import org.junit.jupiter.api.io.TempDir;

/** The users file: both entry forms, every problem named with its entry, no secret in a message. */
class UsersFileParserTest {

    private final UsersFileParser parser = new UsersFileParser();

    @Test
    void passwordUsersGetScramCredentialsForBothMechanismsAndScramUsersKeepTheirs() throws Exception {
        UserDirectory users = parser.parse("""
                users:
                  - name: alice
                    password: "pa:ss word"
                  - name: bob
                    scramSha512: {salt: c2FsdA==, storedKey: c3RvcmVk, serverKey: c2VydmVy, iterations: 8192}
                """, "users.yaml");

        UserCredentials alice = users.find("alice").orElseThrow();
        assertThat(alice.password()).isEqualTo("pa:ss word");
        assertThat(alice.scram()).containsOnlyKeys(ScramMechanism.values());
        assertThat(alice.scram().get(ScramMechanism.SCRAM_SHA_512).iterations())
                .isEqualTo(UsersFileParser.PASSWORD_ITERATIONS);
        UserCredentials bob = users.find("bob").orElseThrow();
        assertThat(bob.password()).isNull();
        assertThat(bob.scram()).containsOnlyKeys(ScramMechanism.SCRAM_SHA_512);
        assertThat(bob.scram().get(ScramMechanism.SCRAM_SHA_512).salt()).asString().isEqualTo("salt");
        assertThat(bob.toString()).doesNotContain("c3RvcmVk");
        assertThat(users.find("carol")).isEmpty();
    }

    @Test
    void theUsersAddCommandPrintsAnEntryThisParserAcceptsWithoutThePassword() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = new CommandLine(new UsersCommand(new ByteArrayInputStream("c4rol's pass\n".getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err)).execute("add", "carol");
        String entry = out.toString(StandardCharsets.UTF_8);

        UserDirectory users = parser.parse("users:\n" + entry.indent(2), "users.yaml");

        assertThat(exit).isZero();
        assertThat(entry).doesNotContain("c4rol");
        UserCredentials carol = users.find("carol").orElseThrow();
        assertThat(carol.password()).isNull();
        assertThat(carol.scram()).containsOnlyKeys(ScramMechanism.values());
        for (ScramMechanism mechanism : ScramMechanism.values()) {
            ScramCredential credential = carol.scram().get(mechanism);
            ScramFormatter formatter = new ScramFormatter(mechanism);
            byte[] salted = formatter.saltedPassword("c4rol's pass", credential.salt(), credential.iterations());
            assertThat(formatter.storedKey(formatter.clientKey(salted))).as(mechanism.mechanismName())
                    .isEqualTo(credential.storedKey());
        }
    }

    @Test
    void everyProblemIsNamedWithItsEntryAndNoValueIsRepeated() {
        assertThatThrownBy(() -> parser.parse("""
                users:
                  - name: alice
                    password: "hunter2"
                    role: admin
                  - name: alice
                    password: "other"
                  - name: bob
                    scramSha256: {salt: "!!notbase64", storedKey: c3RvcmVk, serverKey: c2VydmVy, iterations: 100}
                  - password: "nameless-secret"
                  - name: carol
                """, "users.yaml"))
                .isInstanceOf(UsersFileException.class)
                .hasMessageContaining("users.yaml: users[0].role: unknown key")
                .hasMessageContaining("users.yaml: users[1]: user 'alice' is listed twice")
                .hasMessageContaining("users.yaml: users[2] (bob).scramSha256.salt: not valid base64")
                .hasMessageContaining("users.yaml: users[2] (bob).scramSha256.iterations: expected a whole number from "
                        + "4096 to 16384 (SCRAM-SHA-256)")
                .hasMessageContaining("users.yaml: users[3].name: expected a non-empty user name")
                .hasMessageContaining("users.yaml: users[4] (carol): needs a password or SCRAM credentials")
                .message().doesNotContain("hunter2").doesNotContain("nameless-secret").doesNotContain("notbase64");
    }

    @Test
    void invalidYamlIsReportedWithoutQuotingTheFile() {
        assertThatThrownBy(() -> parser.parse("users: [ {name: alice, password: \"unterminated", "users.yaml"))
                .hasMessageStartingWith("users.yaml: not valid YAML at line")
                .message().doesNotContain("unterminated");
    }

    @Test
    void aChangedFileIsReloadedAndABrokenChangeKeepsThePreviousUsers(@TempDir Path dir) throws Exception {
        Path path = Files.writeString(dir.resolve("users.yaml"), "users: [{name: alice, password: one}]\n");
        UsersFile file = UsersFile.load(path);
        MountedFileWatcher watcher = new MountedFileWatcher(Duration.ofHours(1));
        file.reloadWith(watcher);
        assertThat(file.current().find("alice").orElseThrow().password()).isEqualTo("one");

        Files.writeString(path, "users: [{name: alice, password: two}, {name: bob, password: three}]\n");
        assertThat(file.current().find("alice").orElseThrow().password())
                .as("asking for the users reads no file").isEqualTo("one");
        watcher.checkNow();
        assertThat(file.current().find("alice").orElseThrow().password()).isEqualTo("two");
        assertThat(file.current().find("bob")).isPresent();

        Files.writeString(path, "users: [{name: alice}]\n");
        watcher.checkNow();
        assertThat(file.current().find("alice").orElseThrow().password()).as("previous users stay").isEqualTo("two");

        Files.delete(path);
        watcher.checkNow();
        assertThat(file.current().find("bob")).as("a vanished file keeps the users too").isPresent();
        assertThatThrownBy(() -> UsersFile.load(path)).isInstanceOf(UsersFileException.class)
                .hasMessageContaining("cannot read the users file");
        watcher.close();
    }

    @Test
    void theWatcherThreadPicksUpAChangedFile(@TempDir Path dir) throws Exception {
        Path path = Files.writeString(dir.resolve("users.yaml"), "users: [{name: alice, password: one}]\n");
        UsersFile file = UsersFile.load(path);
        try (MountedFileWatcher watcher = new MountedFileWatcher(Duration.ofMillis(50))) {
            file.reloadWith(watcher);
            Files.writeString(path, "users: [{name: alice, password: two}]\n");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> file.current().find("alice").orElseThrow().password().equals("two"));
        }
    }
}
