package io.leasehold.broker.fetch;

import io.leasehold.broker.topic.TopicMeta;
import io.leasehold.broker.topic.TopicStore;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** Resolves the topics named in one request, each once, concurrently. */
final class TopicLookup {

    private TopicLookup() {
    }

    static CompletableFuture<Map<String, Optional<TopicMeta>>> resolve(TopicStore topics, Collection<String> names) {
        Map<String, CompletableFuture<Optional<TopicMeta>>> lookups = new HashMap<>();
        for (String name : new LinkedHashSet<>(names)) {
            lookups.put(name, topics.find(name));
        }
        return CompletableFuture.allOf(lookups.values().toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            Map<String, Optional<TopicMeta>> resolved = new HashMap<>();
            lookups.forEach((name, lookup) -> resolved.put(name, lookup.join()));
            return resolved;
        });
    }
}
