package io.leasehold.proxy.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The watcher reloads only on a content change and reports each unusable or unreadable change once. */
class MountedFileWatcherTest {

    @Test
    void reloadsOnlyChangedContentAndReportsEachBadChangeOnce(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("watched.txt"), "one");
        List<String> applied = new ArrayList<>();
        List<Boolean> outcomes = new ArrayList<>();
        try (MountedFileWatcher watcher = new MountedFileWatcher(Duration.ofHours(1))) {
            watcher.watch("test file", FileContents.read(List.of(file)), contents -> {
                if (contents.text(0).startsWith("bad")) {
                    throw new IllegalArgumentException("starts with bad");
                }
                applied.add(contents.text(0));
                return contents.text(0);
            }, outcomes::add);

            watcher.checkNow();
            assertThat(applied).as("the loaded content is not reloaded").isEmpty();

            Files.writeString(file, "two");
            watcher.checkNow();
            watcher.checkNow();
            assertThat(applied).containsExactly("two");

            Files.writeString(file, "bad three");
            watcher.checkNow();
            watcher.checkNow();
            Files.delete(file);
            watcher.checkNow();
            watcher.checkNow();
            assertThat(applied).as("bad and unreadable content is not applied").containsExactly("two");
            assertThat(outcomes).as("each change counted once").containsExactly(true, false, false);

            Files.writeString(file, "four");
            watcher.checkNow();
            assertThat(applied).containsExactly("two", "four");
            assertThat(outcomes).containsExactly(true, false, false, true);
        }
    }
}
