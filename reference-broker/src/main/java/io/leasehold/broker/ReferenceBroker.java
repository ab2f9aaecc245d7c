package io.leasehold.broker;

import io.etcd.jetcd.Client;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import javax.net.ssl.SSLException;
import io.leasehold.broker.cluster.AlterConfigsHandler;
import io.leasehold.broker.cluster.ClusterView;
import io.leasehold.broker.cluster.DescribeClusterHandler;
import io.leasehold.broker.cluster.DescribeConfigsHandler;
import io.leasehold.broker.cluster.MetadataHandler;
import io.leasehold.broker.cluster.MetadataSnapshotPublisher;
import io.leasehold.broker.etcd.BrokerKeys;
import io.leasehold.broker.etcd.Etcd;
import io.leasehold.broker.fetch.FetchHandler;
import io.leasehold.broker.fetch.ListOffsetsHandler;
import io.leasehold.broker.fetch.OffsetForLeaderEpochHandler;
import io.leasehold.broker.group.DeleteGroupsHandler;
import io.leasehold.broker.group.FindCoordinatorHandler;
import io.leasehold.broker.group.GroupCoordinator;
import io.leasehold.broker.group.GroupListingHandlers;
import io.leasehold.broker.group.MembershipHandlers;
import io.leasehold.broker.group.OffsetHandlers;
import io.leasehold.broker.group.OffsetStore;
import io.leasehold.broker.ownership.LeasedWriteGuard;
import io.leasehold.broker.ownership.PartitionWriteGuard;
import io.leasehold.broker.ownership.UnfencedWriteGuard;
import io.leasehold.broker.produce.EtcdTrouble;
import io.leasehold.broker.produce.InitProducerIdHandler;
import io.leasehold.broker.produce.PartitionWriters;
import io.leasehold.broker.produce.ProduceHandler;
import io.leasehold.broker.protocol.ApiVersionsHandler;
import io.leasehold.broker.protocol.KafkaServer;
import io.leasehold.broker.protocol.RequestDispatcher;
import io.leasehold.broker.protocol.SupportedApis;
import io.leasehold.broker.storage.CommitSignals;
import io.leasehold.broker.storage.PartitionIndexStore;
import io.leasehold.broker.storage.PartitionReader;
import io.leasehold.broker.storage.SegmentFiles;
import io.leasehold.broker.storage.SegmentReader;
import io.leasehold.broker.topic.CreatePartitionsHandler;
import io.leasehold.broker.topic.CreateTopicsHandler;
import io.leasehold.broker.topic.DeleteTopicsHandler;
import io.leasehold.broker.topic.TopicStore;
import io.leasehold.routing.claim.OwnershipClaimer;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.snapshot.BrokerAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.protocol.ApiKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running reference broker: the Kafka listener, its handlers, and its etcd session. Started
 * by {@link ReferenceBrokerMain} as a process, or in-JVM by tests; {@link #close()} is the
 * graceful shutdown (finish in-flight writes, release every lease).
 */
public final class ReferenceBroker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReferenceBroker.class);

    /** Same for every broker: clients compare cluster ids across the brokers they talk to. */
    public static final String CLUSTER_ID = "leasehold-reference";

    private static final long SEGMENT_BYTES = 64L * 1024 * 1024;
    /** How often a waiting fetch looks for commits by other brokers (its own commits wake it at once). */
    private static final Duration FETCH_POLL_INTERVAL = Duration.ofMillis(100);
    private static final long INITIAL_REBALANCE_DELAY_MS = 300;
    private static final int AUTO_CREATE_PARTITIONS = 1;
    private static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(20);
    /**
     * API keys a KafScale v1.6 broker lists as {@code -1..-1}: LeaderAndIsr, StopReplica,
     * UpdateMetadata, ControlledShutdown, DeleteRecords, InitProducerId and the transaction APIs.
     */
    private static final int[] KAFSCALE_UNSUPPORTED_APIS = {4, 5, 6, 7, 21, 22, 24, 25, 26};

    private final BrokerOptions options;
    private final Client etcdClient;
    private final OwnershipClaimer claimer;
    private final ExecutorService storageExecutor;
    private final ScheduledExecutorService scheduler;
    private final KafkaServer server;
    private final PartitionWriters writers;
    private final BrokerAddress address;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ReferenceBroker(BrokerOptions options, Client etcdClient, OwnershipClaimer claimer,
                            ExecutorService storageExecutor, ScheduledExecutorService scheduler, KafkaServer server,
                            PartitionWriters writers, BrokerAddress address) {
        this.options = options;
        this.etcdClient = etcdClient;
        this.claimer = claimer;
        this.storageExecutor = storageExecutor;
        this.scheduler = scheduler;
        this.server = server;
        this.writers = writers;
        this.address = address;
    }

    /** The listener's TLS context from PEM files, or {@code null} for plaintext. */
    private static SslContext serverTls(BrokerOptions.Tls tls) throws SSLException {
        if (tls == null) {
            return null;
        }
        SslContextBuilder builder = SslContextBuilder.forServer(tls.cert().toFile(), tls.key().toFile())
                .sslProvider(SslProvider.JDK);
        if (tls.clientCa() != null) {
            builder.trustManager(tls.clientCa().toFile()).clientAuth(ClientAuth.REQUIRE);
        }
        return builder.build();
    }

    /** Starts serving and registers the broker in etcd; returns once both are done. */
    public static ReferenceBroker start(BrokerOptions options) throws Exception {
        Files.createDirectories(options.dataDir());
        Client client = Client.builder().endpoints(options.etcdEndpoints().toArray(String[]::new)).build();
        KeySchema schema = new KeySchema(options.prefix());
        BrokerKeys keys = new BrokerKeys(schema);
        Etcd etcd = new Etcd(client.getKVClient());
        OwnershipClaimer claimer = OwnershipClaimer.start(client, schema, options.id(), options.leaseTtl());
        ExecutorService storageExecutor = Executors.newFixedThreadPool(4, daemonThreads("broker-" + options.id() + "-storage"));
        ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, daemonThreads("broker-" + options.id() + "-timer"));

        TopicStore topics = new TopicStore(etcd, keys);
        SegmentFiles files = new SegmentFiles(options.dataDir());
        SegmentReader segmentReader = new SegmentReader();
        PartitionIndexStore indexStore = new PartitionIndexStore(etcd, keys);
        PartitionReader reader = new PartitionReader(indexStore, segmentReader, files, storageExecutor);
        PartitionWriteGuard guard = options.ownership() == BrokerOptions.OwnershipMode.LEASE
                ? new LeasedWriteGuard(claimer)
                : new UnfencedWriteGuard(etcd, options.id(), System.currentTimeMillis());
        CommitSignals signals = new CommitSignals();
        boolean kafscale = options.layout() == BrokerOptions.Layout.KAFSCALE;
        EtcdTrouble etcdTrouble = kafscale ? EtcdTrouble.kafscale() : EtcdTrouble.leaseholdDefault();
        PartitionWriters writers = new PartitionWriters(guard, indexStore, etcd, keys, files, storageExecutor, SEGMENT_BYTES,
                signals, etcdTrouble);
        ClusterView cluster = new ClusterView(etcd, schema, kafscale);
        GroupCoordinator coordinator = new GroupCoordinator(claimer, scheduler, INITIAL_REBALANCE_DELAY_MS);
        OffsetStore offsets = new OffsetStore(etcd, keys, claimer);
        MembershipHandlers membership = new MembershipHandlers(coordinator);
        GroupListingHandlers listing = new GroupListingHandlers(coordinator);
        OffsetHandlers offsetHandlers = new OffsetHandlers(coordinator, offsets);

        KafkaServer server = new KafkaServer();
        SupportedApis apis = new SupportedApis();
        int port = server.start(options.host(), options.port(), new RequestDispatcher(apis), serverTls(options.tls()));
        BrokerAddress self = new BrokerAddress(options.id(), options.host(), port, null);
        ApiVersionsHandler versions = new ApiVersionsHandler(apis);
        MetadataHandler metadata = new MetadataHandler(cluster, topics, CLUSTER_ID, AUTO_CREATE_PARTITIONS);
        CreateTopicsHandler createTopics = new CreateTopicsHandler(topics, AUTO_CREATE_PARTITIONS);
        DeleteTopicsHandler deleteTopics = new DeleteTopicsHandler(topics, files, segmentReader);
        ProduceHandler produce = new ProduceHandler(topics, writers, etcdTrouble);
        FetchHandler fetch = new FetchHandler(topics, reader, scheduler, FETCH_POLL_INTERVAL, signals);
        ListOffsetsHandler listOffsets = new ListOffsetsHandler(topics, reader);
        FindCoordinatorHandler findCoordinator = new FindCoordinatorHandler(coordinator, cluster, self);
        DescribeConfigsHandler describeConfigs = new DescribeConfigsHandler(options.id(), topics);
        AlterConfigsHandler alterConfigs = new AlterConfigsHandler(topics);
        CreatePartitionsHandler createPartitions = new CreatePartitionsHandler(topics);
        DeleteGroupsHandler deleteGroups = new DeleteGroupsHandler(coordinator, offsets);
        OffsetForLeaderEpochHandler offsetForLeaderEpoch = new OffsetForLeaderEpochHandler(topics, reader);
        if (kafscale) {
            // KafScale v1.6's whole table (KAFSCALE-NOTES.md). Where KafScale starts lower than
            // kafka-clients can parse (Produce 0-2, ListOffsets 0, CreateTopics 0-1, DeleteTopics 0),
            // the range starts at kafka-clients' oldest version.
            apis.add(ApiKeys.API_VERSIONS, 0, 4, versions)
                    .add(ApiKeys.METADATA, 0, 12, metadata)
                    .add(ApiKeys.DESCRIBE_CONFIGS, 4, 4, describeConfigs)
                    .add(ApiKeys.ALTER_CONFIGS, 1, 1, alterConfigs)
                    .add(ApiKeys.CREATE_PARTITIONS, 0, 3, createPartitions)
                    .add(ApiKeys.CREATE_TOPICS, 2, 2, createTopics)
                    .add(ApiKeys.DELETE_TOPICS, 1, 2, deleteTopics)
                    .add(ApiKeys.PRODUCE, 3, 9, produce)
                    .add(ApiKeys.FETCH, 11, 13, fetch)
                    .add(ApiKeys.LIST_OFFSETS, 1, 4, listOffsets)
                    .add(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 3, 3, offsetForLeaderEpoch)
                    .add(ApiKeys.FIND_COORDINATOR, 3, 3, findCoordinator)
                    .add(ApiKeys.JOIN_GROUP, 4, 4, membership.joinGroup())
                    .add(ApiKeys.SYNC_GROUP, 4, 4, membership.syncGroup())
                    .add(ApiKeys.HEARTBEAT, 4, 4, membership.heartbeat())
                    .add(ApiKeys.LEAVE_GROUP, 4, 4, membership.leaveGroup())
                    .add(ApiKeys.DESCRIBE_GROUPS, 5, 5, listing.describeGroups())
                    .add(ApiKeys.LIST_GROUPS, 0, 5, listing.listGroups())
                    .add(ApiKeys.DELETE_GROUPS, 0, 2, deleteGroups)
                    .add(ApiKeys.OFFSET_COMMIT, 3, 3, offsetHandlers.offsetCommit())
                    .add(ApiKeys.OFFSET_FETCH, 5, 5, offsetHandlers.offsetFetch())
                    .unsupported(KAFSCALE_UNSUPPORTED_APIS);
        } else {
            apis.add(ApiKeys.API_VERSIONS, 0, 3, versions)
                    .add(ApiKeys.METADATA, 0, 12, metadata)
                    .add(ApiKeys.DESCRIBE_CLUSTER, 0, 1, new DescribeClusterHandler(cluster, CLUSTER_ID))
                    .add(ApiKeys.DESCRIBE_CONFIGS, 1, 4, describeConfigs)
                    .add(ApiKeys.ALTER_CONFIGS, 0, 2, alterConfigs)
                    .add(ApiKeys.CREATE_PARTITIONS, 0, 3, createPartitions)
                    .add(ApiKeys.CREATE_TOPICS, 2, 7, createTopics)
                    .add(ApiKeys.DELETE_TOPICS, 1, 6, deleteTopics)
                    .add(ApiKeys.INIT_PRODUCER_ID, 0, 4, new InitProducerIdHandler(etcd, keys))
                    .add(ApiKeys.PRODUCE, 3, 11, produce)
                    .add(ApiKeys.FETCH, 4, 12, fetch)
                    .add(ApiKeys.LIST_OFFSETS, 1, 6, listOffsets)
                    .add(ApiKeys.FIND_COORDINATOR, 0, 4, findCoordinator)
                    .add(ApiKeys.JOIN_GROUP, 0, 9, membership.joinGroup())
                    .add(ApiKeys.SYNC_GROUP, 0, 5, membership.syncGroup())
                    .add(ApiKeys.HEARTBEAT, 0, 4, membership.heartbeat())
                    .add(ApiKeys.LEAVE_GROUP, 0, 5, membership.leaveGroup())
                    .add(ApiKeys.DESCRIBE_GROUPS, 0, 5, listing.describeGroups())
                    .add(ApiKeys.LIST_GROUPS, 0, 4, listing.listGroups())
                    .add(ApiKeys.OFFSET_COMMIT, 2, 8, offsetHandlers.offsetCommit())
                    .add(ApiKeys.OFFSET_FETCH, 1, 7, offsetHandlers.offsetFetch())
                    .add(ApiKeys.DELETE_GROUPS, 0, 2, deleteGroups)
                    .add(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 2, 4, offsetForLeaderEpoch);
        }
        if (kafscale) {
            new MetadataSnapshotPublisher(client.getKVClient(), schema.metadataSnapshotKey(), "leasehold-reference", CLUSTER_ID)
                    .publish(self);
        } else {
            claimer.registerBroker(self).get(30, TimeUnit.SECONDS);
        }
        if (options.ownership() == BrokerOptions.OwnershipMode.NONE) {
            LOG.warn("broker {} writes partitions WITHOUT ownership (--ownership none): brokers sharing a partition "
                    + "will hand out overlapping offsets; use this only to reproduce that bug", options.id());
        }
        LOG.info("broker {} serving {} at {}:{} (ownership {}, layout {}, data {}, etcd prefix '{}')", options.id(),
                options.tls() == null ? "plaintext" : options.tls().clientCa() == null ? "TLS" : "mutual TLS",
                options.host(), port, options.ownership().name().toLowerCase(), options.layout().name().toLowerCase(),
                options.dataDir(), options.prefix());
        return new ReferenceBroker(options, client, claimer, storageExecutor, scheduler, server, writers, self);
    }

    public BrokerAddress address() {
        return address;
    }

    public int port() {
        return address.port();
    }

    public int id() {
        return options.id();
    }

    /** Graceful shutdown: stop taking requests, finish in-flight writes, release every lease, disconnect. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            server.close();
            writers.whenIdle().get(SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            claimer.releaseAll().get(SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("interrupted while shutting down broker {}", options.id());
        } catch (Exception e) {
            LOG.warn("broker {} did not shut down cleanly", options.id(), e);
        } finally {
            long sessionLease = claimer.leaseId();
            claimer.close();
            revokeAndWait(sessionLease);
            etcdClient.close();
            scheduler.shutdownNow();
            storageExecutor.shutdownNow();
            LOG.info("broker {} stopped", options.id());
        }
    }

    /**
     * The claimer revokes its lease in the background; a process about to exit waits for it here,
     * so its registration disappears now rather than after the lease TTL.
     */
    private void revokeAndWait(long leaseId) {
        if (leaseId == 0) {
            return;
        }
        try {
            etcdClient.getLeaseClient().revoke(leaseId).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // Already revoked by the claimer, or etcd unreachable: then the lease expires by its TTL.
            LOG.debug("revoking session lease {} at shutdown: {}", Long.toHexString(leaseId), e.toString());
        }
    }

    private static ThreadFactory daemonThreads(String name) {
        AtomicInteger counter = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
