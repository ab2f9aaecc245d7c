package io.leasehold.proxy.dispatch;

import io.leasehold.proxy.access.AccessRule;
import io.leasehold.proxy.access.AccessRules;
import io.leasehold.proxy.access.AdminAccess;
import io.leasehold.proxy.access.AnswerFilter;
import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.apis.AclApis;
import io.leasehold.proxy.apis.ConsumerGroupDescribeApi;
import io.leasehold.proxy.apis.DeleteGroupsApi;
import io.leasehold.proxy.apis.DescribeGroupsApi;
import io.leasehold.proxy.apis.FetchApi;
import io.leasehold.proxy.apis.ListGroupsMerger;
import io.leasehold.proxy.apis.ListOffsetsApi;
import io.leasehold.proxy.apis.OffsetFetchGroupsApi;
import io.leasehold.proxy.apis.OffsetForLeaderEpochApi;
import io.leasehold.proxy.apis.ProduceApi;
import io.leasehold.proxy.audit.RequestAuditing;
import io.leasehold.proxy.authorization.Authorizer;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.backend.BackendUnreachableException;
import io.leasehold.proxy.backend.Failures;
import io.leasehold.proxy.exchange.AdminSplit;
import io.leasehold.proxy.exchange.EntryAccess;
import io.leasehold.proxy.exchange.PartitionedRequestRunner;
import io.leasehold.proxy.exchange.RetryFactory;
import io.leasehold.proxy.logging.WarningRateLimiter;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.owners.Route;
import io.leasehold.proxy.presentation.BrokerConfigRefusal;
import io.leasehold.proxy.presentation.ClusterPresentation;
import io.leasehold.proxy.presentation.FindCoordinatorResponder;
import io.leasehold.proxy.presentation.MetadataService;
import io.leasehold.proxy.presentation.TransactionRefusal;
import io.leasehold.proxy.protocol.ErrorResponder;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.AccessDecision;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.proxy.request.RequestHandler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCounted;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's request dispatcher: checks that the API and version are ones the proxy
 * advertises, then hands the request to the component that serves its {@link Route}.
 */
public final class RequestDispatcher implements RequestHandler, AccessDecision {
    private static final Logger LOG = LoggerFactory.getLogger(RequestDispatcher.class);

    private final RoutePolicy policy = new RoutePolicy();
    private final ApiVersionsService apiVersions;
    private final MetadataService metadata;
    private final FindCoordinatorResponder coordinators;
    private final PartitionedRequestRunner partitions;
    private final GroupForwarder groups;
    private final AnyBrokerForwarder anyBroker;
    private final ListGroupsMerger listGroups;
    private final ClusterPresentation presentation;
    private final ProduceApi produce;
    private final FetchApi fetch = new FetchApi();
    private final ListOffsetsApi listOffsets = new ListOffsetsApi();
    private final OffsetForLeaderEpochApi offsetForLeaderEpoch = new OffsetForLeaderEpochApi();
    private final DescribeGroupsApi describeGroups = new DescribeGroupsApi();
    private final ConsumerGroupDescribeApi consumerGroupDescribe = new ConsumerGroupDescribeApi();
    private final DeleteGroupsApi deleteGroups = new DeleteGroupsApi();
    private final OffsetFetchGroupsApi offsetFetchGroups = new OffsetFetchGroupsApi();
    private final Authorizer authorizer;
    private final RequestAuditing auditing;
    private final AclApis aclApis;
    private final AccessRules rules;
    private final UndeliveredProduceLog undelivered = new UndeliveredProduceLog(LOG, WarningRateLimiter.perSecond());

    /** A consumer asks again within milliseconds of taking an answer: a read ahead not asked for by then is stale. */
    private static final Duration READ_AHEAD_IDLE = Duration.ofSeconds(1);

    /**
     * Settings the router needs from the configuration; {@code produceOwnerDeadline} is how long
     * one owner's part of a Produce may go unanswered before the rest is answered without it (the
     * single-node presentation), null to wait for every owner.
     */
    public record Settings(Duration metadataMaxAge, Duration retryInitialBackoff, Duration retryMaxBackoff,
                           Duration requestTimeout, Duration produceOwnerDeadline) {

        /** Settings that wait for every owner of a Produce. */
        public Settings(Duration metadataMaxAge, Duration retryInitialBackoff, Duration retryMaxBackoff,
                        Duration requestTimeout) {
            this(metadataMaxAge, retryInitialBackoff, retryMaxBackoff, requestTimeout, null);
        }
    }

    /**
     * @param router       routing snapshot access and broker choice
     * @param control      the proxy's own backend session (metadata and ApiVersions queries)
     * @param presentation the nodes clients are shown
     * @param authorizer   what each client's principal may do; {@link Authorizer#open()} for everything
     * @param readAheadBudget where Fetch reads ahead are counted; null for no reads ahead
     */
    public RequestDispatcher(OwnerLookup router, BackendSession control, ByteBufAllocator alloc,
                         ClusterPresentation presentation, ProxyMetrics metrics, Settings settings,
                         Authorizer authorizer, MemoryBudget readAheadBudget) {
        this(router, control, alloc, presentation, metrics, settings, authorizer, readAheadBudget,
                RequestAuditing.off(), new AccessRules());
    }

    /**
     * As {@link #RequestDispatcher(OwnerLookup, BackendSession, ByteBufAllocator, ClusterPresentation,
     * ProxyMetrics, Settings, Authorizer, MemoryBudget)}, reporting decisions to an audit log.
     *
     * @param auditing gives each request its authorizer, reporting its decisions to the audit log
     * @param rules    what each API needs from the ACLs
     */
    public RequestDispatcher(OwnerLookup router, BackendSession control, ByteBufAllocator alloc,
                         ClusterPresentation presentation, ProxyMetrics metrics, Settings settings,
                         Authorizer authorizer, MemoryBudget readAheadBudget, RequestAuditing auditing,
                         AccessRules rules) {
        this.authorizer = authorizer;
        this.auditing = auditing;
        this.rules = rules;
        this.aclApis = new AclApis(authorizer);
        RetryFactory retries = new RetryFactory(settings.retryInitialBackoff(), settings.retryMaxBackoff());
        this.presentation = presentation;
        this.produce = new ProduceApi(settings.produceOwnerDeadline());
        this.apiVersions = new ApiVersionsService(control, router, policy, alloc, settings.metadataMaxAge()
                .multipliedBy(15));
        this.metadata = new MetadataService(control, router, presentation, alloc, settings.metadataMaxAge(),
                apiVersions::bridge);
        this.coordinators = new FindCoordinatorResponder(presentation);
        this.partitions = new PartitionedRequestRunner(router, metadata, retries, metrics, settings.requestTimeout(),
                apiVersions::bridge, readAheadBudget == null ? null
                        : new PartitionedRequestRunner.ReadAhead(readAheadBudget, READ_AHEAD_IDLE));
        this.groups = new GroupForwarder(router, retries, metrics, new GroupDeadlines(settings.requestTimeout()),
                apiVersions::bridge);
        this.anyBroker = new AnyBrokerForwarder(router, metrics, apiVersions::bridge);
        this.listGroups = new ListGroupsMerger(router, apiVersions::bridge);
    }

    @Override
    public CompletableFuture<ReferenceCounted> handle(RequestFrame request, ClientContext client) {
        if (request.apiKey() == ApiKeys.API_VERSIONS) {
            return answerApiVersions(request, client);
        }
        if (client.versions().isNegotiated()) {
            return checked(request, client, client.versions().allows(request.apiKey(), request.version()));
        }
        return apiVersions.isAdvertised(request.apiKey(), request.version()).handle((advertised, error) -> {
            if (error != null) {
                request.release();
                return CompletableFuture.<ReferenceCounted>failedFuture(error);
            }
            return checked(request, client, advertised);
        }).thenCompose(f -> f);
    }

    /** Serves a request whose version was checked against what the client was told (or, before that, the current answer). */
    private CompletableFuture<ReferenceCounted> checked(RequestFrame request, ClientContext client, boolean advertised) {
        if (!advertised) {
            return unsupported(request, client);
        }
        try {
            return dispatch(request, client);
        } catch (MalformedRequestException | RuntimeException e) {
            request.release();
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<ReferenceCounted> dispatch(RequestFrame request, ClientContext client)
            throws MalformedRequestException {
        Route route = policy.route(request.apiKey());
        switch (route) {
            case LOCAL:
                FindCoordinatorRequestData find = request.decodeBody();
                AnswerFilter coordinatorsSeen = seen(request, client, find);
                return respond(request, client, coordinatorsSeen.visible(coordinators.answer(find, request.version()),
                        Map.of()));
            case METADATA:
                MetadataRequestData metadataRequest = request.decodeBody();
                AnswerFilter metadataSeen = seen(request, client, metadataRequest);
                return metadata.metadata(metadataRequest, request.version()).<ReferenceCounted>handle((response, error) -> {
                    try {
                        MetadataResponseData answer = response;
                        if (error != null) {
                            Throwable cause = Failures.unwrap(error);
                            if (!(cause instanceof BackendUnreachableException)) {
                                throw new CompletionException(cause);
                            }
                            answer = metadata.noBrokerAnswered(metadataRequest);
                        }
                        return KafkaMessages.encodeResponse(client.alloc(), ApiKeys.METADATA, request.version(),
                                request.correlationId(), metadataSeen.visible(answer, Map.of()));
                    } finally {
                        request.release();
                    }
                });
            case PARTITIONED:
                return routePartitioned(request, client);
            case GROUP:
                return routeGroup(request, client);
            case ANY_BROKER_REWRITTEN:
                // DescribeCluster needs no ACL (as in Kafka): kafka-clients' admin client asks it for any operation.
                return widen(anyBroker.forward(request, client, true,
                        frame -> rewriteDescribeCluster(request, client, frame)));
            case ALL_BROKERS:
                AnswerFilter groupsSeen = seen(request, client, null);
                return widen(listGroups.forward(request, client,
                        answer -> (ListGroupsResponseData) groupsSeen.visible(answer, Map.of())));
            default:
                return routeAnyBroker(request, client);
        }
    }

    private CompletableFuture<ReferenceCounted> routeAnyBroker(RequestFrame request, ClientContext client)
            throws MalformedRequestException {
        if (authorizer.enabled()) {
            AccessRule rule = rules.of(request.apiKey());
            if (rule.decidesPerResource()) {
                return perResource(request, client, request.decodeBody(),
                        (frame, c) -> anyBroker.forward(frame, c, policy.reads(frame.apiKey())));
            }
            CompletableFuture<ReferenceCounted> decided = authorized(request, client, rule);
            if (decided != null) {
                return decided;
            }
        }
        return forwardToAnyBroker(request, client);
    }

    private CompletableFuture<ReferenceCounted> forwardToAnyBroker(RequestFrame request, ClientContext client)
            throws MalformedRequestException {
        switch (request.apiKey()) {
            case INIT_PRODUCER_ID:
                if (TransactionRefusal.refuses(request.decodeBody())) {
                    return refuse(request, client, TransactionRefusal.ERROR);
                }
                break;
            case DESCRIBE_CONFIGS:
            case ALTER_CONFIGS:
            case INCREMENTAL_ALTER_CONFIGS:
                ApiMessage refused = BrokerConfigRefusal.answer(request.decodeBody());
                if (refused != null) {
                    return respond(request, client, refused);
                }
                break;
            default:
                break;
        }
        return widen(anyBroker.forward(request, client, policy.reads(request.apiKey())));
    }

    /**
     * A request decided resource by resource (the admin APIs of {@link AdminAccess}, OffsetCommit,
     * OffsetDelete): topic ids (DeleteTopics v6+, OffsetCommit v10) are looked up first, since ACLs
     * name topics.
     */
    private CompletableFuture<ReferenceCounted> perResource(RequestFrame request, ClientContext client,
                                                            ApiMessage body, Forwarder forwarder) {
        Set<Uuid> ids = AdminAccess.topicIds(body);
        AdminAccess access = new AdminAccess(decider(request, client));
        Set<String> existenceDecides = access.topicsWhoseExistenceDecides(body, client.principal());
        // An unresolved lookup leaves every id unknown (UNKNOWN_TOPIC_ID, which clients retry).
        CompletableFuture<Map<Uuid, String>> names = ids.isEmpty() ? CompletableFuture.completedFuture(Map.of())
                : metadata.resolve(ids).exceptionally(error -> Map.of());
        CompletableFuture<Set<String>> unknown = existenceDecides.isEmpty()
                ? CompletableFuture.completedFuture(Set.of()) : metadata.unknownTopics(existenceDecides);
        return names.thenCombine(unknown, (topicNames, unknownTopics) -> split(request, client, body, access,
                topicNames, unknownTopics, forwarder)).thenCompose(answer -> answer);
    }

    /** Where a request decided resource by resource goes: any broker, or its group's coordinator. */
    @FunctionalInterface
    private interface Forwarder {
        CompletableFuture<ByteBuf> forward(RequestFrame request, ClientContext client)
                throws MalformedRequestException;
    }

    /**
     * Forwards the request as it is when every resource is allowed, answers it alone when none
     * is, and otherwise forwards the allowed part and merges the refusals into the answer.
     */
    private CompletableFuture<ReferenceCounted> split(RequestFrame request, ClientContext client, ApiMessage body,
                                                      AdminAccess access,
                                                      Map<Uuid, String> topicNames, Set<String> unknownTopics,
                                                      Forwarder forwarder) {
        try {
            AdminSplit split = access.split(body, client.principal(), topicNames, unknownTopics);
            if (split.allAllowed()) {
                ApiMessage local = BrokerConfigRefusal.answer(body);
                return local != null ? respond(request, client, local) : widen(forwarder.forward(request, client));
            }
            if (split.noneAllowed()) {
                return respond(request, client, split.answer(null));
            }
            return forwardPart(request, client, split, forwarder);
        } catch (MalformedRequestException | RuntimeException e) {
            request.release();
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Sends the allowed part in the client's version; takes over (and releases) {@code request}. */
    private CompletableFuture<ReferenceCounted> forwardPart(RequestFrame request, ClientContext client,
                                                            AdminSplit split, Forwarder forwarder)
            throws MalformedRequestException {
        ApiMessage part = split.allowedPart();
        ApiMessage local = BrokerConfigRefusal.answer(part);
        if (local != null) {
            return respond(request, client, split.answer(local));
        }
        ApiKeys api = request.apiKey();
        short version = request.version();
        int correlationId = request.correlationId();
        ByteBuf encoded = KafkaMessages.withRequestCorrelationId(KafkaMessages.encodeRequest(client.alloc(), api,
                version, request.header().clientId(), part), correlationId);
        RequestFrame partFrame;
        try {
            partFrame = RequestFrame.parse(encoded);
        } catch (MalformedRequestException | RuntimeException e) {
            encoded.release();
            throw e;
        }
        request.release();
        CompletableFuture<ByteBuf> sent;
        try {
            sent = forwarder.forward(partFrame, client);
        } catch (MalformedRequestException | RuntimeException e) {
            partFrame.release();
            return CompletableFuture.failedFuture(e);
        }
        return widen(sent.thenApply(frame -> {
            try {
                ApiMessage answer = KafkaMessages.decodeResponse(frame, api, version);
                return KafkaMessages.encodeResponse(client.alloc(), api, version, correlationId, split.answer(answer));
            } finally {
                frame.release();
            }
        }));
    }

    /**
     * With authorization on: the refusal {@code rule} gives the whole request, DescribeAcls's
     * answer from the ACL file (the only rule set: it never reaches a broker), or null when the
     * request goes on to a broker.
     */
    private CompletableFuture<ReferenceCounted> authorized(RequestFrame request, ClientContext client,
                                                           AccessRule rule) throws MalformedRequestException {
        ApiException refusal = rule.refusal(decider(request, client), request.decodeBody(), client.principal());
        if (refusal != null) {
            return refuse(request, client, refusal);
        }
        if (request.apiKey() != ApiKeys.DESCRIBE_ACLS) {
            return null;
        }
        try {
            return respond(request, client, aclApis.describe(request));
        } catch (ApiException e) {
            return refuse(request, client, e);
        }
    }

    private static CompletableFuture<ReferenceCounted> refuse(RequestFrame request, ClientContext client,
                                                              ApiException error) {
        return answerLocally(request, () -> ErrorResponder.respond(client.alloc(), request, error));
    }

    /**
     * Completes with an answer the proxy builds itself and releases the request exactly once: a
     * failure to build it fails the future rather than escaping to callers that release again.
     */
    private static CompletableFuture<ReferenceCounted> answerLocally(RequestFrame request,
                                                                    Supplier<ReferenceCounted> answer) {
        try {
            return CompletableFuture.completedFuture(answer.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            request.release();
        }
    }

    private static CompletableFuture<ReferenceCounted> refuse(RequestFrame request, ClientContext client, Errors error) {
        return refuse(request, client, error.exception());
    }

    private CompletableFuture<ReferenceCounted> routePartitioned(RequestFrame request, ClientContext client)
            throws MalformedRequestException {
        switch (request.apiKey()) {
            case PRODUCE:
                ProduceRequestData produceRequest = request.decodeBody();
                if (TransactionRefusal.refuses(produceRequest)) {
                    return refuse(request, client, TransactionRefusal.ERROR);
                }
                CompletableFuture<ReferenceCounted> result = partitions.execute(produce, request, produceRequest, client,
                        access(request, client));
                if (produceRequest.acks() != 0) {
                    return result;
                }
                // acks=0: the client expects no answer; the proxy still lands the records on the
                // owner (retrying rejections), even if the client hangs up meanwhile, and only
                // logs what it could not deliver.
                client.work().track(result);
                short version = request.version();
                result.whenComplete((response, error) -> {
                    if (error != null) {
                        undelivered.failed(client, error);
                    } else {
                        logUndelivered((ByteBuf) response, version, client);
                    }
                });
                return CompletableFuture.completedFuture(null);
            case FETCH:
                return partitions.execute(fetch, request, request.decodeBody(), client, access(request, client));
            case LIST_OFFSETS:
                return partitions.execute(listOffsets, request, request.decodeBody(), client, access(request, client));
            default:
                return partitions.execute(offsetForLeaderEpoch, request, request.decodeBody(), client,
                        access(request, client));
        }
    }

    /** Logs the partitions of an acks=0 produce that no owner took (the client never hears of them). */
    private void logUndelivered(ByteBuf response, short version, ClientContext client) {
        try {
            undelivered.undelivered(client, KafkaMessages.decodeResponse(response, ApiKeys.PRODUCE, version));
        } finally {
            response.release();
        }
    }

    @Override
    public ApiException refusal(RequestFrame request, ClientContext client) throws MalformedRequestException {
        return !authorizer.enabled() ? null
                : rules.of(request.apiKey()).refusal(decider(request, client), request.decodeBody(), client.principal());
    }

    /**
     * The authorizer that decides {@code request}: the proxy's own, reporting to the audit log
     * (when there is one) with the request's API and client.
     */
    private Authorizer decider(RequestFrame request, ClientContext client) {
        return auditing.authorizerFor(authorizer, request.apiKey(), client.remote(), request.header().clientId());
    }

    /** Which entries of a partition-keyed request the client's principal may touch. */
    private EntryAccess access(RequestFrame request, ClientContext client) {
        return rules.of(request.apiKey()).entries(decider(request, client), client.principal());
    }

    /**
     * What of the answer to {@code request} the client's principal may see; built before the
     * request is sent, which it may change.
     *
     * @param body the decoded request, or null when its API's rule needs none
     */
    private AnswerFilter seen(RequestFrame request, ClientContext client, ApiMessage body) {
        return rules.of(request.apiKey()).answers(decider(request, client), body, request.version(),
                client.principal());
    }

    private CompletableFuture<ReferenceCounted> routeGroup(RequestFrame request, ClientContext client)
            throws MalformedRequestException {
        switch (request.apiKey()) {
            case DESCRIBE_GROUPS:
                return partitions.execute(describeGroups, request, request.decodeBody(), client,
                        access(request, client));
            case CONSUMER_GROUP_DESCRIBE:
                return consumerGroupDescribe(request, client);
            case DELETE_GROUPS:
                return partitions.execute(deleteGroups, request, request.decodeBody(), client,
                        access(request, client));
            case OFFSET_FETCH:
                return offsetFetch(request, client);
            default:
                return singleGroup(request, client, authorizer.enabled() ? request.decodeBody() : null);
        }
    }

    /** ConsumerGroupDescribe, split by group owner; with authorization on, groups naming hidden topics are refused. */
    private CompletableFuture<ReferenceCounted> consumerGroupDescribe(RequestFrame request, ClientContext client)
            throws MalformedRequestException {
        short version = request.version();
        int correlationId = request.correlationId();
        CompletableFuture<ReferenceCounted> answer = partitions.execute(consumerGroupDescribe, request,
                request.decodeBody(), client, access(request, client));
        if (!authorizer.enabled()) {
            return answer;
        }
        AnswerFilter groupsSeen = seen(request, client, null);
        return answer.thenApply(frame -> {
            ApiMessage decoded;
            try {
                decoded = KafkaMessages.decodeResponse((ByteBuf) frame, ApiKeys.CONSUMER_GROUP_DESCRIBE, version);
            } finally {
                frame.release();
            }
            return KafkaMessages.encodeResponse(client.alloc(), ApiKeys.CONSUMER_GROUP_DESCRIBE, version,
                    correlationId, groupsSeen.visible(decoded, Map.of()));
        });
    }

    /**
     * OffsetFetch: v8+ split by group owner, earlier versions to the one group's coordinator; with
     * authorization on, the answer then shows only the topics the principal may describe.
     */
    private CompletableFuture<ReferenceCounted> offsetFetch(RequestFrame request, ClientContext client)
            throws MalformedRequestException {
        short version = request.version();
        int correlationId = request.correlationId();
        boolean multiGroup = version >= OffsetFetchGroupsApi.FIRST_MULTI_GROUP_VERSION;
        OffsetFetchRequestData body = multiGroup || authorizer.enabled() ? request.decodeBody() : null;
        CompletableFuture<ReferenceCounted> answer = multiGroup
                ? partitions.execute(offsetFetchGroups, request, body, client, access(request, client))
                : singleGroup(request, client, body);
        if (!authorizer.enabled()) {
            return answer;
        }
        AnswerFilter offsetsSeen = seen(request, client, body);
        return answer.thenCompose(frame -> {
            ApiMessage decoded;
            try {
                decoded = KafkaMessages.decodeResponse((ByteBuf) frame, ApiKeys.OFFSET_FETCH, version);
            } finally {
                frame.release();
            }
            Set<Uuid> ids = offsetsSeen.topicIdsToName(decoded);
            CompletableFuture<Map<Uuid, String>> names = ids.isEmpty() ? CompletableFuture.completedFuture(Map.of())
                    : metadata.resolve(ids).exceptionally(error -> Map.of());
            return names.thenApply(topicNames -> KafkaMessages.encodeResponse(client.alloc(), ApiKeys.OFFSET_FETCH,
                    version, correlationId, offsetsSeen.visible(decoded, topicNames)));
        });
    }

    /**
     * A request about one group, checked against the ACLs before it goes to the group's coordinator.
     *
     * @param body the decoded request when authorization is on (null when it is off)
     */
    private CompletableFuture<ReferenceCounted> singleGroup(RequestFrame request, ClientContext client,
                                                            ApiMessage body) throws MalformedRequestException {
        if (authorizer.enabled()) {
            AccessRule rule = rules.of(request.apiKey());
            ApiException refusal = rule.refusal(decider(request, client), body, client.principal());
            if (refusal != null) {
                return refuse(request, client, refusal);
            }
            if (rule.decidesPerResource()) {
                return perResource(request, client, body, groups::route);
            }
        }
        return widen(groups.route(request, client));
    }

    private ByteBuf rewriteDescribeCluster(RequestFrame request, ClientContext client, ByteBuf frame) {
        try {
            DescribeClusterResponseData response = KafkaMessages.decodeResponse(frame, ApiKeys.DESCRIBE_CLUSTER,
                    request.version());
            presentation.rewrite(response);
            return KafkaMessages.encodeResponse(client.alloc(), ApiKeys.DESCRIBE_CLUSTER, request.version(),
                    request.correlationId(), response);
        } finally {
            frame.release();
        }
    }

    private CompletableFuture<ReferenceCounted> answerApiVersions(RequestFrame request, ClientContext client) {
        if (request.version() > ApiKeys.API_VERSIONS.latestVersion()) {
            // Answered in v0, which every client can read, so it can retry with a version we know.
            try {
                return CompletableFuture.<ReferenceCounted>completedFuture(KafkaMessages.encodeResponse(client.alloc(),
                        ApiKeys.API_VERSIONS, (short) 0, request.correlationId(), apiVersions.unsupportedVersion()));
            } finally {
                request.release();
            }
        }
        return apiVersions.answer().thenApply(aclApis::advertised).<ReferenceCounted>handle((answer, error) -> {
            try {
                if (error != null) {
                    throw new IllegalStateException("no backend answered ApiVersions: " + error.getMessage(), error);
                }
                client.versions().remember(answer);
                return KafkaMessages.encodeResponse(client.alloc(), ApiKeys.API_VERSIONS, request.version(),
                        request.correlationId(), answer);
            } finally {
                request.release();
            }
        });
    }

    private CompletableFuture<ReferenceCounted> unsupported(RequestFrame request, ClientContext client) {
        try {
            return CompletableFuture.<ReferenceCounted>completedFuture(
                    ErrorResponder.respond(client.alloc(), request, Errors.UNSUPPORTED_VERSION));
        } catch (RuntimeException e) {
            // kafka-clients cannot even read this version, so no error response can be built.
            return CompletableFuture.failedFuture(new MalformedRequestException("unsupported_version",
                    request + " is not an API version this proxy serves", e));
        } finally {
            request.release();
        }
    }

    private static CompletableFuture<ReferenceCounted> respond(RequestFrame request, ClientContext client,
                                                               ApiMessage body) {
        return answerLocally(request, () -> KafkaMessages.encodeResponse(client.alloc(), request.apiKey(),
                request.version(), request.correlationId(), body));
    }

    /** Views a whole-frame answer as the handler's response type. */
    private static CompletableFuture<ReferenceCounted> widen(CompletableFuture<ByteBuf> response) {
        return response.thenApply(frame -> frame);
    }
}
