package io.leasehold.proxy.routing;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendSession;
import io.leasehold.proxy.backend.BackendUnreachableException;
import io.leasehold.proxy.frontend.ClientContext;
import io.leasehold.proxy.frontend.RequestHandler;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's request dispatcher: checks that the API and version are ones the proxy
 * advertises, then hands the request to the component that serves its {@link Route}.
 */
public final class RequestRouter implements RequestHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RequestRouter.class);

    private final RoutePolicy policy = new RoutePolicy();
    private final ApiVersionsService apiVersions;
    private final MetadataService metadata;
    private final FindCoordinatorResponder coordinators;
    private final PartitionRouting partitions;
    private final GroupRouter groups;
    private final AnyBrokerForwarder anyBroker;
    private final ListGroupsMerger listGroups;
    private final AddressRewriter rewriter;
    private final ProduceApi produce = new ProduceApi();
    private final FetchApi fetch = new FetchApi();
    private final ListOffsetsApi listOffsets = new ListOffsetsApi();
    private final OffsetForLeaderEpochApi offsetForLeaderEpoch = new OffsetForLeaderEpochApi();
    private final DescribeGroupsApi describeGroups = new DescribeGroupsApi();
    private final ConsumerGroupDescribeApi consumerGroupDescribe = new ConsumerGroupDescribeApi();
    private final DeleteGroupsApi deleteGroups = new DeleteGroupsApi();
    private final OffsetFetchGroupsApi offsetFetchGroups = new OffsetFetchGroupsApi();

    /** Settings the router needs from the configuration. */
    public record Settings(Duration metadataMaxAge, Duration retryInitialBackoff, Duration retryMaxBackoff,
                           Duration requestTimeout) {
    }

    /**
     * @param router   routing snapshot access and broker choice
     * @param control  the proxy's own backend session (metadata and ApiVersions queries)
     * @param identity the advertised address clients see
     */
    public RequestRouter(OwnerRouter router, BackendSession control, ByteBufAllocator alloc, ProxyIdentity identity,
                         ProxyMetrics metrics, Settings settings) {
        RetryFactory retries = new RetryFactory(settings.retryInitialBackoff(), settings.retryMaxBackoff());
        this.rewriter = new AddressRewriter(identity);
        this.apiVersions = new ApiVersionsService(control, router, policy, alloc, settings.metadataMaxAge()
                .multipliedBy(15));
        this.metadata = new MetadataService(control, router, rewriter, alloc, settings.metadataMaxAge(),
                apiVersions::bridge);
        this.coordinators = new FindCoordinatorResponder(identity);
        this.partitions = new PartitionRouting(router, metadata, retries, metrics, settings.requestTimeout(),
                apiVersions::bridge);
        this.groups = new GroupRouter(router, retries, metrics, new GroupDeadlines(settings.requestTimeout()),
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
                return respond(request, client, coordinators.answer(find, request.version()));
            case METADATA:
                MetadataRequestData metadataRequest = request.decodeBody();
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
                                request.correlationId(), answer);
                    } finally {
                        request.release();
                    }
                });
            case PARTITIONED:
                return routePartitioned(request, client);
            case GROUP:
                return routeGroup(request, client);
            case ANY_BROKER_REWRITTEN:
                return widen(anyBroker.forward(request, client, true,
                        frame -> rewriteDescribeCluster(request, client, frame)));
            case ALL_BROKERS:
                return widen(listGroups.forward(request, client));
            default:
                return routeAnyBroker(request, client);
        }
    }

    private CompletableFuture<ReferenceCounted> routeAnyBroker(RequestFrame request, ClientContext client)
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

    private static CompletableFuture<ReferenceCounted> refuse(RequestFrame request, ClientContext client, Errors error) {
        try {
            return CompletableFuture.completedFuture(ErrorResponder.respond(client.alloc(), request, error));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            request.release();
        }
    }

    private CompletableFuture<ReferenceCounted> routePartitioned(RequestFrame request, ClientContext client)
            throws MalformedRequestException {
        switch (request.apiKey()) {
            case PRODUCE:
                ProduceRequestData produceRequest = request.decodeBody();
                if (TransactionRefusal.refuses(produceRequest)) {
                    return refuse(request, client, TransactionRefusal.ERROR);
                }
                CompletableFuture<ReferenceCounted> result = partitions.execute(produce, request, produceRequest, client);
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
                        LOG.warn("acks=0 produce from {} could not be delivered: {}", client.remote(), error.toString());
                    } else {
                        logUndelivered((ByteBuf) response, version, client);
                    }
                });
                return CompletableFuture.completedFuture(null);
            case FETCH:
                return partitions.execute(fetch, request, request.decodeBody(), client);
            case LIST_OFFSETS:
                return partitions.execute(listOffsets, request, request.decodeBody(), client);
            default:
                return partitions.execute(offsetForLeaderEpoch, request, request.decodeBody(), client);
        }
    }

    /** Logs the partitions of an acks=0 produce that no owner took (the client never hears of them). */
    private static void logUndelivered(ByteBuf response, short version, ClientContext client) {
        try {
            ProduceResponseData answer = KafkaMessages.decodeResponse(response, ApiKeys.PRODUCE, version);
            for (ProduceResponseData.TopicProduceResponse topic : answer.responses()) {
                for (ProduceResponseData.PartitionProduceResponse partition : topic.partitionResponses()) {
                    if (partition.errorCode() != Errors.NONE.code()) {
                        LOG.warn("acks=0 produce from {} could not be delivered to {}-{}: {}", client.remote(),
                                topic.name(), partition.index(), Errors.forCode(partition.errorCode()));
                    }
                }
            }
        } finally {
            response.release();
        }
    }

    private CompletableFuture<ReferenceCounted> routeGroup(RequestFrame request, ClientContext client)
            throws MalformedRequestException {
        switch (request.apiKey()) {
            case DESCRIBE_GROUPS:
                return partitions.execute(describeGroups, request, request.decodeBody(), client);
            case CONSUMER_GROUP_DESCRIBE:
                return partitions.execute(consumerGroupDescribe, request, request.decodeBody(), client);
            case DELETE_GROUPS:
                return partitions.execute(deleteGroups, request, request.decodeBody(), client);
            case OFFSET_FETCH:
                if (request.version() >= OffsetFetchGroupsApi.FIRST_MULTI_GROUP_VERSION) {
                    return partitions.execute(offsetFetchGroups, request, request.decodeBody(), client);
                }
                return widen(groups.route(request, client));
            default:
                return widen(groups.route(request, client));
        }
    }

    private ByteBuf rewriteDescribeCluster(RequestFrame request, ClientContext client, ByteBuf frame) {
        try {
            DescribeClusterResponseData response = KafkaMessages.decodeResponse(frame, ApiKeys.DESCRIBE_CLUSTER,
                    request.version());
            rewriter.rewrite(response);
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
        return apiVersions.answer().<ReferenceCounted>handle((answer, error) -> {
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

    private CompletableFuture<ReferenceCounted> respond(RequestFrame request, ClientContext client,
                                               ApiMessage body) {
        try {
            return CompletableFuture.<ReferenceCounted>completedFuture(KafkaMessages.encodeResponse(client.alloc(), request.apiKey(),
                    request.version(), request.correlationId(), body));
        } finally {
            request.release();
        }
    }

    /** Views a whole-frame answer as the handler's response type. */
    private static CompletableFuture<ReferenceCounted> widen(CompletableFuture<ByteBuf> response) {
        return response.thenApply(frame -> frame);
    }
}
