package io.leasehold.broker.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The few etcd operations the broker performs on its own keys, with string keys and values, so
 * the rest of the broker never handles {@link ByteSequence}s.
 */
public final class Etcd {

    private static final GetOption PREFIX = GetOption.builder().isPrefix(true).build();
    private static final DeleteOption DELETE_PREFIX = DeleteOption.builder().isPrefix(true).build();

    private final KV kv;

    public Etcd(KV kv) {
        this.kv = kv;
    }

    public KV kv() {
        return kv;
    }

    public static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    public static String text(ByteSequence bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** The value of one key, if present. */
    public CompletableFuture<Optional<String>> get(String key) {
        return kv.get(bytes(key)).thenApply(response -> response.getKvs().isEmpty()
                ? Optional.empty()
                : Optional.of(text(response.getKvs().get(0).getValue())));
    }

    /** Every key under a prefix with its value, in key order. */
    public CompletableFuture<Map<String, String>> getPrefix(String prefix) {
        return kv.get(bytes(prefix), PREFIX).thenApply(response -> toMap(response.getKvs()));
    }

    /** Puts all entries in one transaction, unconditionally. */
    public CompletableFuture<Void> putAll(Map<String, String> puts) {
        return kv.txn().Then(putOps(puts)).commit().thenApply(response -> null);
    }

    /** Deletes every key under a prefix. */
    public CompletableFuture<Void> deletePrefix(String prefix) {
        return kv.delete(bytes(prefix), DELETE_PREFIX).thenApply(response -> null);
    }

    public static Op[] putOps(Map<String, String> puts) {
        return puts.entrySet().stream()
                .map(entry -> Op.put(bytes(entry.getKey()), bytes(entry.getValue()), PutOption.DEFAULT))
                .toArray(Op[]::new);
    }

    public static Op getPrefixOp(String prefix) {
        return Op.get(bytes(prefix), PREFIX);
    }

    public static Op getOp(String key) {
        return Op.get(bytes(key), GetOption.DEFAULT);
    }

    public static Op deletePrefixOp(String prefix) {
        return Op.delete(bytes(prefix), DELETE_PREFIX);
    }

    public static Map<String, String> toMap(List<KeyValue> kvs) {
        Map<String, String> map = new LinkedHashMap<>();
        for (KeyValue entry : kvs) {
            map.put(text(entry.getKey()), text(entry.getValue()));
        }
        return map;
    }
}
