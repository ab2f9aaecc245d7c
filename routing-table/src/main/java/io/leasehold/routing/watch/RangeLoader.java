package io.leasehold.routing.watch;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.leasehold.routing.etcd.EtcdBytes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Reads every key under several prefixes as of one etcd revision, in pages (so a large table
 * never exceeds the client's message size limit). The first page fixes revision R; every later
 * page is pinned to R, so the result is one consistent cut a watch can continue from at R+1.
 */
final class RangeLoader {

    static final int PAGE_SIZE = 10_000;

    private final KV kv;
    private final Duration requestTimeout;

    RangeLoader(KV kv, Duration requestTimeout) {
        this.kv = kv;
        this.requestTimeout = requestTimeout;
    }

    /**
     * Hands every key-value under the prefixes to {@code sink} and returns the revision R they
     * reflect. Fails if etcd is unreachable or R is compacted away mid-read; the caller retries.
     */
    long load(List<String> prefixes, Consumer<KeyValue> sink)
            throws InterruptedException, ExecutionException, TimeoutException {
        long revision = 0;
        for (String prefix : prefixes) {
            ByteSequence end = EtcdBytes.prefixEnd(prefix);
            ByteSequence from = EtcdBytes.of(prefix);
            while (true) {
                GetOption.Builder page = GetOption.builder().withRange(end).withLimit(PAGE_SIZE);
                if (revision != 0) {
                    page.withRevision(revision);
                }
                GetResponse response = kv.get(from, page.build()).get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
                if (revision == 0) {
                    revision = response.getHeader().getRevision();
                }
                List<KeyValue> kvs = response.getKvs();
                kvs.forEach(sink);
                if (!response.isMore() || kvs.isEmpty()) {
                    break;
                }
                from = afterKey(kvs.get(kvs.size() - 1).getKey());
            }
        }
        return revision;
    }

    /** The smallest key greater than {@code key}: the key with a zero byte appended. */
    private static ByteSequence afterKey(ByteSequence key) {
        return key.concat(ByteSequence.from(new byte[] {0}));
    }
}
