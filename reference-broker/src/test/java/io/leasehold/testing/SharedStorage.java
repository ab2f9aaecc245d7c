package io.leasehold.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reads what the reference brokers left in the shared storage directory, laid out as
 * {@code {data-dir}/{topic}-{topic id}/{partition}/{base offset}-{writer tag}.log}. The writer
 * tag names the ownership that wrote a segment, so the tags of a partition say how many
 * ownerships (brokers, or one broker's successive claims) wrote it.
 */
public final class SharedStorage {

    private final Path dataDir;

    /** Reads {@code dataDir}, e.g. {@link LocalCluster#storageDir()}. */
    public SharedStorage(Path dataDir) {
        this.dataDir = dataDir;
    }

    /** Distinct writer tags of the partition's segment files; empty if nothing was written. */
    public Set<String> writerTags(String topic, int partition) {
        try (Stream<Path> topics = Files.list(dataDir)) {
            Path partitionDir = topics.filter(dir -> dir.getFileName().toString().startsWith(topic + "-"))
                    .map(dir -> dir.resolve(Integer.toString(partition))).filter(Files::isDirectory).findFirst().orElse(null);
            if (partitionDir == null) {
                return Set.of();
            }
            try (Stream<Path> segments = Files.list(partitionDir)) {
                return segments.map(file -> file.getFileName().toString()).filter(name -> name.endsWith(".log"))
                        .map(name -> name.substring(name.indexOf('-') + 1, name.length() - ".log".length()))
                        .collect(Collectors.toCollection(TreeSet::new));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not list segments of " + topic + "-" + partition + " under " + dataDir, e);
        }
    }
}
