package io.leasehold.broker.storage;

import io.leasehold.broker.topic.TopicMeta;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Layout of the shared data directory, which stands in for object storage:
 * {@code {data-dir}/{topic}-{topic id}/{partition}/{base offset}-{writer tag}.log}. The writer
 * tag carries the ownership epoch, so two owners of a partition never write the same file.
 */
public final class SegmentFiles {

    private final Path dataDir;

    public SegmentFiles(Path dataDir) {
        this.dataDir = dataDir;
    }

    public Path partitionDir(TopicMeta topic, int partition) {
        return dataDir.resolve(topic.directoryName()).resolve(Integer.toString(partition));
    }

    public static String segmentFileName(long baseOffset, String writerTag) {
        return String.format("%020d-%s.log", baseOffset, writerTag);
    }

    /** Removes a deleted topic's files; the topic is already gone from etcd, so nobody reads them. */
    public void deleteTopicFiles(TopicMeta topic) {
        Path root = dataDir.resolve(topic.directoryName());
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete files of deleted topic " + topic.name() + " in " + root, e);
        }
    }
}
