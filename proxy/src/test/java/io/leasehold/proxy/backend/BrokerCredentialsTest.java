package io.leasehold.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.proxy.files.MountedFileWatcher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerCredentialsTest {
    @TempDir
    Path dir;

    @Test
    void aMissingOrEmptyPasswordFileIsRefusedSayingWhichFileAndWhy() throws Exception {
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> BrokerCredentials.load("svc", missing))
                .hasMessageStartingWith("backends.sasl.passwordFile: cannot read " + missing);
        Path empty = Files.writeString(dir.resolve("empty"), "\n");
        assertThatThrownBy(() -> BrokerCredentials.load("svc", empty))
                .hasMessage("backends.sasl.passwordFile: " + empty + " is empty");
    }

    @Test
    void theTrailingNewlineIsDroppedAndAChangedFileIsUsedFromTheNextLoginOn() throws Exception {
        Path file = Files.writeString(dir.resolve("password"), "first-secret\n");
        BrokerCredentials credentials = BrokerCredentials.load("svc", file);
        assertThat(new String(credentials.current().password())).isEqualTo("first-secret");
        assertThat(credentials.current().toString()).as("never printed").doesNotContain("first-secret");

        try (MountedFileWatcher watcher = new MountedFileWatcher(Duration.ofHours(1))) {
            credentials.reloadWith(watcher);
            Files.writeString(file, "");
            watcher.checkNow();
            assertThat(new String(credentials.current().password())).as("an emptied file keeps the old one")
                    .isEqualTo("first-secret");
            Files.writeString(file, "second-secret");
            watcher.checkNow();
            assertThat(credentials.current()).extracting(BrokerCredentials.Login::username).isEqualTo("svc");
            assertThat(new String(credentials.current().password())).isEqualTo("second-secret");
        }
    }
}
