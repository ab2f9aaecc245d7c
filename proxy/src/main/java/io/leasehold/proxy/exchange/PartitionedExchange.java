package io.leasehold.proxy.exchange;

import io.github.resilience4j.retry.Retry;
import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendOutcomeUnknownException;
import io.leasehold.proxy.backend.BackendUnreachableException;
import io.leasehold.proxy.backend.Failures;
import io.leasehold.proxy.backend.ResponseInspector;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.owners.Target;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RecordRegions;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.PartitionWriteOrder;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.PartitionId;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * One partition-keyed request in progress: routes every partition to its owner, sends one
 * sub-request per broker concurrently, retries partitions a broker rejected as not its own
 * (and partitions never sent) on the current owner, and merges all partition results into one
 * response in the client's version. When a single broker takes the whole request on the first
 * try, its response bytes are forwarded as they are (a streamed one passes an inspector that
 * drops rejected routes and removes backend broker ids), unless the exchange is bridged: then
 * sub-requests go out and responses are read in the backend version, and the merged response is
 * always encoded in the client's version.
 */
final class PartitionedExchange<Q extends ApiMessage, R extends ApiMessage, T, E, P> {

    /** Identifies a partition the same way in a request and in its response. */
    record Key(String topicName, Uuid topicId, int partition) {
    }

    /** One partition of the request with its resolved topic name, as the routing table and write order know it. */
    record Entry<T, E>(T topic, E partition, String resolvedName, Key key, PartitionId partitionId) {
        Entry(T topic, E partition, String resolvedName, Key key) {
            this(topic, partition, resolvedName, key, new PartitionId(resolvedName, key.partition()));
        }
    }

    record Routed<T, E>(Entry<T, E> entry, Ownership ownership) {
    }

    /**
     * Outcome of one attempt: what is left to retry, or a response passed on as the broker sent it
     * (a frame or a stream) that finishes the exchange; {@code worthRetrying} is decided when the
     * attempt ends, against the request's budget and whether anyone still waits for the answer.
     */
    record Attempt<T, E>(List<Entry<T, E>> retry, ReferenceCounted raw, boolean worthRetrying) {
    }

    /** How long a write's owner may still answer after etcd stopped naming it. */
    private static final Duration WRITE_SETTLE_GRACE = Duration.ofSeconds(5);
    /**
     * Attempts a partition gets at brokers that cannot be reached. Unlike a broker's rejection
     * (ownership moved, and the watch brings the new owner within moments), an unreachable owner
     * keeps its partitions until its lease ends, and in the single-node presentation the rest of
     * the request waits for them: after this many tries (about 2.6 s with the default backoff) the
     * partition is answered with the rejection for the client to retry. In the single-node
     * presentation that comes sooner, once the write is past the owner deadline: the other owners'
     * partitions, and everything the client pipelined after them, wait no longer for an
     * unreachable owner than for a silent one.
     */
    static final int UNREACHABLE_TRIES = 10;

    private final PartitionedApi<Q, R, T, E, P> api;
    /** How the API merges a read over several brokers; null when its answers wait for every broker. */
    private final MergedRead<Q, P> mergedRead;
    /** What keeps the API's writes in order; null for a read. */
    private final OrderedWrites<Q> writes;
    private final OwnerAnswerDeadline ownerDeadline;
    private final RequestFrame frame;
    private final Q request;
    private final ClientContext client;
    private final OwnerLookup router;
    private final ProxyMetrics metrics;
    private final RetriesGivenUp givenUp;
    private final Map<Key, P> results = new ConcurrentHashMap<>();
    private final Queue<ByteBuf> responseFrames = new ConcurrentLinkedQueue<>();
    /** Where the record sets of {@link #responseFrames} lie: the merged response carries them as slices. */
    private final RecordRegions recordRegions = new RecordRegions();
    private final RetryBudget budget;
    /** Brokers that did not answer a sub-request of this exchange: reads go elsewhere on retry. */
    private final Set<BrokerAddress> unanswered = ConcurrentHashMap.newKeySet();
    /** Per partition, how many of its attempts found the broker unreachable. */
    private final Map<Key, Integer> unreachableTries = new ConcurrentHashMap<>();
    /** Partitions no longer retried because their broker could not be reached {@link #UNREACHABLE_TRIES} times. */
    private final Queue<Entry<T, E>> unreachableGivenUp = new ConcurrentLinkedQueue<>();
    private volatile int attempts;
    private PartitionWriteOrder.Writer writer;
    private volatile int throttle;
    /** The version sub-requests are sent and responses read in; the client's unless bridged. */
    private final short backendVersion;
    /** When the request arrived, on {@link System#nanoTime()}'s clock. */
    private final long startNanos = System.nanoTime();
    /** For a merged read, one per attempt: decide when it is answered without the brokers still polling. */
    private final Queue<MergeGate> gates = new ConcurrentLinkedQueue<>();
    /** This read's part in the connection's reads ahead, null when it neither uses nor starts any. */
    private final ExchangeReadAheads<Q, R, T, E, P> readAheads;

    /**
     * @param backendVersion the version backends are spoken to in (see {@link VersionBridge})
     * @param readAheads     the client connection's reads ahead, or null for none
     */
    PartitionedExchange(PartitionedApi<Q, R, T, E, P> api, RequestFrame frame, Q request, ClientContext client,
                        OwnerLookup router, ProxyMetrics metrics, RetriesGivenUp givenUp, RetryBudget budget,
                        short backendVersion, ReadAheads readAheads) {
        this.givenUp = givenUp;
        this.mergedRead = api.mergedRead().orElse(null);
        this.writes = api.orderedWrites().orElse(null);
        this.ownerDeadline = new OwnerAnswerDeadline(writes != null ? writes.ownerAnswerDeadline(request) : null,
                client.backends().silentBrokers(), metrics);
        ReadsAhead<Q, E, P> reads = api.readsAhead().orElse(null);
        // Reads ahead are only taken and started on the merged path (see attempt), which the merged read drives.
        this.readAheads = readAheads == null || reads == null || mergedRead == null ? null
                : new ExchangeReadAheads<>(api, reads, mergedRead, readAheads, request, frame, backendVersion,
                        client.alloc(), metrics);
        this.backendVersion = backendVersion;
        this.budget = budget;
        this.api = api;
        this.frame = frame;
        this.request = request;
        this.client = client;
        this.router = router;
        this.metrics = metrics;
    }

    /**
     * Lists the request's partitions; those of a request the API refuses as a whole, topics named
     * by an unknown id, and entries {@code access} refuses, are answered at once and never sent.
     */
    List<Entry<T, E>> entries(Map<Uuid, String> topicNames, EntryAccess access) {
        List<Entry<T, E>> entries = new ArrayList<>();
        Errors refusedWhole = api.refusal(request);
        for (T topic : api.topics(request)) {
            Uuid id = api.topicId(topic);
            String name = Uuid.ZERO_UUID.equals(id) ? api.topicName(topic) : topicNames.get(id);
            for (E partition : api.partitions(topic)) {
                int index = api.partitionIndex(partition);
                Key key = new Key(api.topicName(topic), id, index);
                Errors refused = refusedWhole != null ? refusedWhole
                        : name == null ? Errors.UNKNOWN_TOPIC_ID : access.refusal(name);
                if (refused != null) {
                    results.put(key, api.errorResult(index, refused));
                } else {
                    entries.add(new Entry<>(topic, partition, name, key));
                }
            }
        }
        if (writes != null) {
            writer = client.writeOrder().register(entries.stream().map(Entry::partitionId).toList());
        }
        return entries;
    }

    /**
     * Runs the attempts under {@code retry} and completes with the encoded response; releases
     * the request frame and every backend response frame it used.
     */
    CompletableFuture<ReferenceCounted> run(List<Entry<T, E>> entries, Retry retry) {
        AtomicReference<List<Entry<T, E>>> remaining = new AtomicReference<>(entries);
        CompletableFuture<Attempt<T, E>> done = retry.<Attempt<T, E>>executeCompletionStage(
                client.backends().eventLoop(), () -> {
                    if (attempts > 0) {
                        metrics.retried(api.apiKey());
                    }
                    CompletableFuture<Attempt<T, E>> attempt;
                    try {
                        attempt = attempt(remaining.get());
                    } catch (RuntimeException e) {
                        // resilience4j does not catch a throwing supplier: the exchange would never end.
                        attempt = CompletableFuture.failedFuture(e);
                    }
                    return attempt.thenApply(a -> {
                        remaining.set(a.retry());
                        return a;
                    });
                }).toCompletableFuture();
        return done.handle((attempt, error) -> {
            try {
                if (error != null) {
                    throw new IllegalStateException("partition exchange failed", error);
                }
                if (attempt.raw() != null) {
                    return attempt.raw();
                }
                if (!unreachableGivenUp.isEmpty()) {
                    reportGivenUp(List.copyOf(unreachableGivenUp), RetriesGivenUp.Reason.UNREACHABLE);
                }
                if (!attempt.retry().isEmpty()) {
                    // Attempts are not counted, so only the budget or a departed client ends retries.
                    reportGivenUp(attempt.retry(), answerWanted() ? RetriesGivenUp.Reason.BUDGET
                            : RetriesGivenUp.Reason.CLIENT_GONE);
                }
                return assemble();
            } finally {
                gates.forEach(MergeGate::close);
                if (writer != null) {
                    client.writeOrder().finished(writer);
                }
                responseFrames.forEach(ByteBuf::release);
                responseFrames.clear();
                frame.release();
            }
        });
    }

    private void reportGivenUp(List<Entry<T, E>> left, RetriesGivenUp.Reason reason) {
        givenUp.report(api.apiKey(), client, left.stream().map(e -> e.resolvedName() + "-" + e.key().partition()).toList(),
                attempts, reason,
                Duration.ofNanos(System.nanoTime() - startNanos).toMillis());
    }

    private ReferenceCounted assemble() {
        LinkedHashMap<T, List<P>> merged = new LinkedHashMap<>();
        for (T topic : api.topics(request)) {
            List<P> partitions = new ArrayList<>();
            for (E partition : api.partitions(topic)) {
                int index = api.partitionIndex(partition);
                P result = results.get(new Key(api.topicName(topic), api.topicId(topic), index));
                partitions.add(result != null ? result : api.errorResult(index, Errors.UNKNOWN_SERVER_ERROR));
            }
            merged.put(topic, partitions);
        }
        R response = api.assemble(request, merged, throttle);
        if (readAheads != null && !gates.isEmpty() && readAheads.haveRoom()) {
            readAheads.startAfter(response);
        }
        return KafkaMessages.encodeResponse(client.alloc(), api.apiKey(), frame.version(), frame.correlationId(),
                response, recordRegions);
    }

    private CompletableFuture<Attempt<T, E>> attempt(List<Entry<T, E>> entries) {
        return attempt(entries, attempts++);
    }

    private CompletableFuture<Attempt<T, E>> attempt(List<Entry<T, E>> entries, int attempt) {
        RoutingSnapshot snapshot = router.snapshot();
        Map<BrokerAddress, List<Routed<T, E>>> byBroker = new LinkedHashMap<>();
        List<Entry<T, E>> retry = new ArrayList<>();
        for (Entry<T, E> entry : entries) {
            Target target = api.route(router, snapshot, entry.resolvedName(), entry.key().partition(), attempt);
            if (target != null && api.readsAnyBroker() && unanswered.contains(target.broker())) {
                target = router.readReplica(snapshot, target, unanswered, attempt);
            }
            if (target == null) {
                results.put(entry.key(), api.errorResult(entry.key().partition(), api.rejection()));
                retry.add(entry);
            } else {
                byBroker.computeIfAbsent(target.broker(), b -> new ArrayList<>())
                        .add(new Routed<>(entry, target.ownership()));
            }
        }
        if (writer != null) {
            Map<PartitionId, BrokerAddress> planned = new HashMap<>();
            byBroker.forEach((broker, routed) -> routed.forEach(r ->
                    planned.put(r.entry().partitionId(), r.ownership() != null ? broker : null)));
            CompletableFuture<Void> blockers = client.writeOrder().blockers(writer, planned, attempt > 0);
            if (blockers != null) {
                // Route again once the earlier requests are done: ownership may have moved meanwhile.
                return blockers.thenComposeAsync(v -> attempt(entries, attempt), client.backends().eventLoop());
            }
            planned.forEach((partition, owner) -> client.writeOrder().sent(writer, partition, owner));
        }
        answerSilentOwnersAtOnce(byBroker);
        boolean mergeable = mergedRead != null && mergedRead.answerAfterBytes(request) > 0;
        if (attempt == 0 && byBroker.size() == 1 && retry.isEmpty() && results.isEmpty()
                && !(mergeable && readAheads != null)) {
            Map.Entry<BrokerAddress, List<Routed<T, E>>> only = byBroker.entrySet().iterator().next();
            return sendWhole(only.getKey(), only.getValue());
        }
        int total = byBroker.values().stream().mapToInt(List::size).sum();
        if (mergeable) {
            return merged(byBroker, total, retry);
        }
        List<CompletableFuture<List<Entry<T, E>>>> sends = new ArrayList<>();
        byBroker.forEach((broker, routed) -> sends.add(sendPart(broker, routed, total, () -> false)));
        return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).thenApply(v -> {
            sends.forEach(s -> retry.addAll(s.join()));
            return retrying(retry);
        });
    }

    /**
     * Takes out of {@code byBroker} the partitions of brokers known silent (a request to them is
     * past the owner deadline, unanswered) and answers them with the rejection, which every
     * client retries, as for a write that was never sent: nothing more queues at a silent owner,
     * and the other owners' partitions do not wait for it.
     */
    private void answerSilentOwnersAtOnce(Map<BrokerAddress, List<Routed<T, E>>> byBroker) {
        byBroker.entrySet().removeIf(owner -> {
            if (!ownerDeadline.answeredWithout(owner.getKey(), owner.getValue().size())) {
                return false;
            }
            for (Routed<T, E> r : owner.getValue()) {
                results.put(r.entry().key(), api.errorResult(r.entry().key().partition(), api.rejection()));
                notSentToOwner(r.entry());
            }
            return true;
        });
    }

    /**
     * A read split over several brokers: answered once every broker answered or, earlier, once the
     * gate opens (enough data, an error to report, or the deadline). Then nothing is retried; the
     * partitions of brokers still polling, and those left to retry, are answered empty without
     * error, and late answers are dropped. A sub-fetch to a broker whose connection still carries
     * an earlier, abandoned poll is sent only once that poll is answered, so polls never pile up.
     */
    private CompletableFuture<Attempt<T, E>> merged(Map<BrokerAddress, List<Routed<T, E>>> byBroker, int total,
                                                    List<Entry<T, E>> retry) {
        long now = System.nanoTime();
        MergeGate gate = new MergeGate(mergedRead.answerAfterBytes(request), now,
                now + mergedRead.mergedAnswerDeadline(request, Duration.ofNanos(now - startNanos)).toNanos(),
                client.backends().eventLoop());
        gates.add(gate);
        AtomicBoolean abandoned = new AtomicBoolean();
        Map<CompletableFuture<List<Entry<T, E>>>, List<Routed<T, E>>> sends = new LinkedHashMap<>();
        byBroker.forEach((broker, routed) -> {
            CompletableFuture<List<Entry<T, E>>> send = fromReadAhead(broker, routed, abandoned::get).thenCompose(left ->
                    left.isEmpty() ? CompletableFuture.completedFuture(List.<Entry<T, E>>of())
                            : client.backends().whenIdle(broker).thenCompose(idle -> abandoned.get()
                                    ? CompletableFuture.completedFuture(List.<Entry<T, E>>of())
                                    : sendPart(broker, left, total, abandoned::get)));
            send.thenRun(() -> countTowards(gate, routed));
            sends.put(send, routed);
        });
        CompletableFuture<Void> all = CompletableFuture.allOf(sends.keySet().toArray(CompletableFuture[]::new));
        return CompletableFuture.anyOf(all, gate.opened()).thenApply(v -> {
            if (!gate.isOpen()) {
                sends.keySet().forEach(s -> retry.addAll(s.join()));
                return retrying(retry);
            }
            abandoned.set(true);
            sends.forEach((send, routed) -> {
                List<Entry<T, E>> left = send.isDone() ? send.join() : routed.stream().map(Routed::entry).toList();
                left.forEach(e -> results.put(e.key(), api.errorResult(e.key().partition(), Errors.NONE)));
            });
            retry.forEach(e -> results.put(e.key(), api.errorResult(e.key().partition(), Errors.NONE)));
            return new Attempt<>(List.of(), null, false);
        });
    }

    /**
     * Answers what it can of {@code routed} from the connection's reads ahead (taken, so each is
     * used once): partitions read ahead at exactly the position, route and form asked now, that
     * found data. Completes with the partitions still to send.
     */
    private CompletableFuture<List<Routed<T, E>>> fromReadAhead(BrokerAddress broker, List<Routed<T, E>> routed,
                                                               BooleanSupplier abandoned) {
        if (readAheads == null) {
            return CompletableFuture.completedFuture(routed);
        }
        List<ReadAheads.Claim> claims = readAheads.take(routed);
        if (claims.isEmpty()) {
            return CompletableFuture.completedFuture(routed);
        }
        CompletableFuture<?>[] answers = claims.stream().map(ReadAheads.Claim::answer).toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(answers).thenApplyAsync(v -> {
            Set<Key> used = new HashSet<>();
            for (ReadAheads.Claim claim : claims) {
                ByteBuf answer = claim.answer().join();
                if (answer == null) {
                    continue;
                }
                if (abandoned.getAsBoolean()) {
                    answer.release();
                    continue;
                }
                responseFrames.add(answer);
                R response = KafkaMessages.decodeResponse(answer, api.apiKey(), backendVersion, recordRegions);
                if (api.topLevelError(response) != Errors.NONE.code()) {
                    continue;
                }
                throttle = Math.max(throttle, api.throttleTimeMs(response));
                api.forEachResult(response, (name, id, partition, result) -> {
                    Key key = new Key(name, id, partition);
                    if (claim.keys().contains(key) && api.errorCode(result) == Errors.NONE.code()
                            && mergedRead.dataBytes(result) > 0) {
                        results.put(key, result);
                        used.add(key);
                    }
                });
            }
            if (abandoned.getAsBoolean()) {
                return List.<Routed<T, E>>of();
            }
            List<Routed<T, E>> left = new ArrayList<>();
            for (Routed<T, E> r : routed) {
                if (used.contains(r.entry().key())) {
                    readAheads.answered(broker, r);
                    metrics.readAheadUsed();
                } else {
                    left.add(r);
                }
            }
            return left;
        }, client.backends().eventLoop());
    }

    /** Adds what one broker answered to the gate: its data, or an error the client must see. */
    private void countTowards(MergeGate gate, List<Routed<T, E>> routed) {
        for (Routed<T, E> r : routed) {
            P result = results.get(r.entry().key());
            if (result == null) {
                continue;
            }
            short error = api.errorCode(result);
            if (error == Errors.NONE.code()) {
                gate.received(mergedRead.dataBytes(result));
            } else if (error != api.rejection().code()) {
                gate.mustReport();
            }
        }
    }

    /** An attempt that leaves {@code retry} to do: retried only within budget and while the answer is wanted. */
    private Attempt<T, E> retrying(List<Entry<T, E>> retry) {
        return new Attempt<>(retry, null, !retry.isEmpty() && answerWanted() && budget.allowsAnotherAttempt());
    }

    /** True while someone waits for the answer: the client, or nobody needs to (acks=0). */
    private boolean answerWanted() {
        return writes != null && writes.continuesWithoutClient(request) || client.work().clientConnected();
    }

    private Attempt<T, E> finished(ReferenceCounted raw) {
        return new Attempt<>(List.of(), raw, false);
    }

    /** Single owner on the first try: forward the client's bytes when allowed, and its response as is. */
    private CompletableFuture<Attempt<T, E>> sendWhole(BrokerAddress broker, List<Routed<T, E>> routed) {
        boolean bridged = backendVersion != frame.version();
        ByteBuf payload = api.forwardsOriginal(request) && !bridged ? frame.retainedFrame() : encode(routed, routed.size());
        ResponseInspector inspector = bridged ? null : api.streamedAnswer()
                .map(streamed -> streamed.streamInspector(frame.version(), streamedErrors(routed))).orElse(null);
        if (inspector != null) {
            return within(client.backends().sendStreaming(broker, payload, inspector), broker, routed).handle((stream, error) ->
                    error != null
                            ? retrying(failed(broker, routed, error))
                            : finished(stream.withCorrelationId(frame.correlationId())));
        }
        return within(client.backends().send(broker, payload), broker, routed).handle((response, error) -> {
            if (error != null) {
                return retrying(failed(broker, routed, error));
            }
            responseFrames.add(response);
            List<Entry<T, E>> retry = absorb(KafkaMessages.decodeResponse(response, api.apiKey(), backendVersion, recordRegions),
                    broker, routed);
            if (retry.isEmpty() && !bridged && responseFrames.remove(response)) {
                return finished(KafkaMessages.withResponseCorrelationId(response, frame.correlationId()));
            }
            return retrying(retry);
        });
    }

    /**
     * Where a streamed response's error codes go: it is already on its way to the client, so
     * nothing is retried, but a rejected route is dropped exactly as for a response read whole.
     */
    private StreamedAnswer.StreamedErrors streamedErrors(List<Routed<T, E>> routed) {
        return new StreamedAnswer.StreamedErrors() {
            /** Built at the first rejection: APIs that do not stream (Produce) never get here. */
            private Map<Key, Routed<T, E>> byKey;

            @Override
            public void partition(String topicName, Uuid topicId, int partition, short error) {
                if (error != api.rejection().code()) {
                    return;
                }
                if (byKey == null) {
                    byKey = new HashMap<>();
                    routed.forEach(r -> byKey.put(r.entry().key(), r));
                }
                Routed<T, E> r = byKey.get(new Key(topicName, topicId, partition));
                if (r != null) {
                    rejected(r);
                }
            }

            @Override
            public void whole(short error) {
                if (error == api.rejection().code()) {
                    routed.forEach(PartitionedExchange.this::rejected);
                }
            }
        };
    }

    /**
     * Bounds the wait for a backend's answer by the API's own deadline, and for partition
     * requests by the owner they were sent to: once etcd no longer names that ownership for one
     * of them (the key expired, or another broker holds it), the old owner's fenced commit can no
     * longer succeed, so a write's outcome is settled, and a read is better asked elsewhere.
     */
    private <X extends ReferenceCounted> CompletableFuture<X> within(CompletableFuture<X> answer, BrokerAddress broker,
                                                                    List<Routed<T, E>> routed) {
        Duration limit = api.attemptTimeout(request, Duration.ofMillis(budget.remainingMillis()));
        boolean ownerBound = ownerDeadline.bounds(limit);
        if (ownerBound) {
            limit = ownerDeadline.deadline();
        }
        BooleanSupplier settled = writes != null || api.readsAnyBroker() ? () -> ownerMoved(routed) : null;
        // A write's owner that is alive answers a lost partition with a rejection, which the proxy
        // retries for the client: give it that chance before reporting an unknown outcome.
        Duration grace = writes != null ? WRITE_SETTLE_GRACE : Duration.ZERO;
        CompletableFuture<X> bounded = AnswerDeadline.bound(answer, limit, settled, grace, client.backends().eventLoop());
        ownerDeadline.watch(bounded, answer, broker, routed.size(), ownerBound);
        return bounded;
    }

    private boolean ownerMoved(List<Routed<T, E>> routed) {
        RoutingSnapshot snapshot = router.snapshot();
        for (Routed<T, E> r : routed) {
            if (r.ownership() != null) {
                Ownership now = snapshot.partitionOwner(r.entry().resolvedName(), r.entry().key().partition());
                if (!r.ownership().equals(now)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Sends {@code routed} ({@code total} partitions go out in this attempt); an answer that
     * arrives once {@code abandoned} holds is dropped unread (the merged answer went without it).
     */
    private CompletableFuture<List<Entry<T, E>>> sendPart(BrokerAddress broker, List<Routed<T, E>> routed, int total,
                                                         BooleanSupplier abandoned) {
        ByteBuf payload;
        try {
            payload = encode(routed, total);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return within(client.backends().send(broker, payload), broker, routed).handle((response, error) -> {
            if (abandoned.getAsBoolean()) {
                if (response != null) {
                    response.release();
                }
                return List.<Entry<T, E>>of();
            }
            if (error != null) {
                return failed(broker, routed, error);
            }
            responseFrames.add(response);
            return absorb(KafkaMessages.decodeResponse(response, api.apiKey(), backendVersion, recordRegions), broker, routed);
        });
    }

    private ByteBuf encode(List<Routed<T, E>> routed, int total) {
        TopicGrouping<T, E> partitions = new TopicGrouping<>();
        for (Routed<T, E> r : routed) {
            partitions.add(r.entry().topic(), r.entry().partition());
        }
        Q sub = api.subRequest(request, partitions.toMap());
        if (writes != null) {
            writes.limitTimeout(sub, budget.remainingMillis());
        }
        if (mergedRead != null) {
            mergedRead.share(sub, routed.size(), total, Duration.ofNanos(System.nanoTime() - startNanos));
        }
        return VersionBridge.encodeRequest(client.alloc(), frame, backendVersion, sub);
    }

    /** Records a sub-response; returns the partitions to retry (rejected as not owned). */
    private List<Entry<T, E>> absorb(R response, BrokerAddress broker, List<Routed<T, E>> routed) {
        throttle = Math.max(throttle, api.throttleTimeMs(response));
        short topLevel = api.topLevelError(response);
        Map<Key, P> answered = new HashMap<>();
        api.forEachResult(response, (name, id, partition, result) -> answered.put(new Key(name, id, partition), result));
        List<Entry<T, E>> retry = new ArrayList<>();
        for (Routed<T, E> r : routed) {
            Key key = r.entry().key();
            P result = topLevel != Errors.NONE.code()
                    ? api.errorResult(key.partition(), Errors.forCode(topLevel))
                    : answered.get(key);
            if (result == null) {
                // A throttled Fetch (KIP-219) is answered with no partitions at all: nothing went wrong.
                boolean throttledEmpty = api.answersEmptyWhenThrottled() && answered.isEmpty()
                        && api.throttleTimeMs(response) > 0;
                result = api.errorResult(key.partition(), throttledEmpty ? Errors.NONE : Errors.UNKNOWN_SERVER_ERROR);
            }
            results.put(key, result);
            if (readAheads != null && api.errorCode(result) == Errors.NONE.code()) {
                readAheads.answered(broker, r);
            }
            if (api.errorCode(result) == api.rejection().code()) {
                rejected(r);
                notSentToOwner(r.entry());
                retry.add(r.entry());
            } else if (r.ownership() == null && writes != null && api.errorCode(result) == Errors.NONE.code()) {
                // A write taken on a fallback route: if by the owner whose route was dropped, it is back.
                router.routes().ownerAccepted(r.entry().resolvedName(), key.partition(), broker.id());
            }
        }
        return retry;
    }

    /** A broker said "not mine" for a partition: counted, and the route it was sent by dropped. */
    private void rejected(Routed<T, E> r) {
        api.countRejection(metrics);
        if (r.ownership() != null) {
            api.invalidate(router.routes(), r.entry().resolvedName(), r.entry().key().partition(), r.ownership());
        }
    }

    /**
     * A sub-request that got no response: never sent → retry; sent but unanswered → retry only
     * reads; a write's partitions report the failure with the API's unknown-outcome code and the
     * client's idempotence decides. Either way the broker is remembered as not answering.
     */
    private List<Entry<T, E>> failed(BrokerAddress broker, List<Routed<T, E>> routed, Throwable error) {
        metrics.backendRequestFailed(api.apiKey(), Failures.reason(error));
        Throwable cause = Failures.unwrap(error);
        List<Entry<T, E>> retry = new ArrayList<>();
        Errors code;
        boolean retriable;
        boolean unreachable = cause instanceof BackendUnreachableException;
        if (unreachable) {
            code = api.rejection();
            retriable = true;
            unanswered.add(broker);
        } else if (cause instanceof BackendOutcomeUnknownException) {
            code = api.unknownOutcome();
            retriable = api.idempotent();
            unanswered.add(broker);
        } else {
            code = Errors.UNKNOWN_SERVER_ERROR;
            retriable = false;
        }
        for (Routed<T, E> r : routed) {
            results.put(r.entry().key(), api.errorResult(r.entry().key().partition(), code));
            notSentToOwner(r.entry());
            if (!retriable) {
                continue;
            }
            if (unreachable && (unreachableTries.merge(r.entry().key(), 1, Integer::sum) >= UNREACHABLE_TRIES
                    || ownerDeadline.passed(startNanos))) {
                unreachableGivenUp.add(r.entry());
            } else {
                retry.add(r.entry());
            }
        }
        return retry;
    }

    /** A write that must be sent again no longer counts as pipelined to its owner: later writes wait for it. */
    private void notSentToOwner(Entry<T, E> entry) {
        if (writer != null) {
            client.writeOrder().sent(writer, entry.partitionId(), null);
        }
    }
}
