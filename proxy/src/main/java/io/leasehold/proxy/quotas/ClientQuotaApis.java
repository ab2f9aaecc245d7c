package io.leasehold.proxy.quotas;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.request.AccessDecision;
import io.leasehold.proxy.request.ClientContext;
import io.leasehold.proxy.request.RequestHandler;
import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The client quota APIs answered from the quotas file, so {@code kafka-configs --describe
 * --entity-type users} and {@code Admin.describeClientQuotas} show what the tier enforces:
 * DescribeClientQuotas lists the file's entries that match the request's filter (Kafka's exact,
 * default and any matches, strict or not), AlterClientQuotas is refused with a message naming
 * the file. Both are first decided as every request is, by their access rule through
 * {@link AccessDecision} (what Kafka asks: DESCRIBE_CONFIGS, ALTER_CONFIGS on the cluster), and both
 * are advertised in the ApiVersions answer at every version kafka-clients knows, whatever the
 * brokers support. Other requests pass on untouched.
 */
public final class ClientQuotaApis implements RequestHandler {
    private static final String USER = "user";
    private static final String CLIENT_ID = "client-id";
    /** Kafka's entity types; the file sets no quota by address, so {@code ip} matches nothing. */
    private static final Set<String> ENTITY_TYPES = Set.of(USER, CLIENT_ID, "ip");
    private static final byte MATCH_EXACT = 0;
    private static final byte MATCH_DEFAULT = 1;

    private final RequestHandler next;
    private final Supplier<QuotaRules> rules;
    private final Path file;
    private final AccessDecision access;

    /** @param file the quotas file, named in the refusal of a change */
    public ClientQuotaApis(RequestHandler next, Supplier<QuotaRules> rules, Path file, AccessDecision access) {
        this.next = next;
        this.rules = rules;
        this.file = file;
        this.access = access;
    }

    @Override
    public CompletableFuture<ReferenceCounted> handle(RequestFrame request, ClientContext client) {
        ApiKeys api = request.apiKey();
        if (api == ApiKeys.API_VERSIONS) {
            short version = request.version();
            return next.handle(request, client).thenApply(answer -> advertised(answer, version, client));
        }
        if (api != ApiKeys.DESCRIBE_CLIENT_QUOTAS && api != ApiKeys.ALTER_CLIENT_QUOTAS) {
            return next.handle(request, client);
        }
        try {
            ApiException refusal = access.refusal(request, client);
            ApiMessage answer = api == ApiKeys.DESCRIBE_CLIENT_QUOTAS
                    ? describe(request.decodeBody(), refusal)
                    : refuse(request.decodeBody(), refusal);
            return CompletableFuture.completedFuture(KafkaMessages.encodeResponse(client.alloc(), api,
                    request.version(), request.correlationId(), answer));
        } catch (MalformedRequestException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            request.release();
        }
    }

    private DescribeClientQuotasResponseData describe(DescribeClientQuotasRequestData request,
                                                      ApiException refusal) {
        DescribeClientQuotasResponseData answer = new DescribeClientQuotasResponseData();
        if (refusal != null) {
            return answer.setErrorCode(Errors.forException(refusal).code()).setErrorMessage(refusal.getMessage())
                    .setEntries(null);
        }
        Map<String, DescribeClientQuotasRequestData.ComponentData> filter = new HashMap<>();
        for (DescribeClientQuotasRequestData.ComponentData component : request.components()) {
            String problem = !ENTITY_TYPES.contains(component.entityType())
                    ? "Custom entity type '" + component.entityType() + "' not supported"
                    : filter.putIfAbsent(component.entityType(), component) != null
                    ? "Duplicate entity type '" + component.entityType() + "' in the filter" : null;
            if (problem != null) {
                return answer.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(problem).setEntries(null);
            }
        }
        List<DescribeClientQuotasResponseData.EntryData> entries = new ArrayList<>();
        for (QuotaEntry entry : rules.get().entries()) {
            Map<String, Optional<String>> entity = new HashMap<>();
            entry.entity().user().ifPresent(name -> entity.put(USER, Optional.of(name)));
            entry.entity().clientId().ifPresent(name -> entity.put(CLIENT_ID, Optional.of(name)));
            if (matches(entity, filter, request.strict())) {
                entries.add(entryData(entry));
            }
        }
        return answer.setEntries(entries);
    }

    private static boolean matches(Map<String, Optional<String>> entity,
                                   Map<String, DescribeClientQuotasRequestData.ComponentData> filter,
                                   boolean strict) {
        if (strict && !filter.keySet().containsAll(entity.keySet())) {
            return false;
        }
        for (DescribeClientQuotasRequestData.ComponentData component : filter.values()) {
            Optional<String> name = entity.get(component.entityType());
            if (name == null) {
                return false;
            }
            boolean isDefault = name.get().equals(QuotaEntity.DEFAULT);
            if (component.matchType() == MATCH_EXACT && (isDefault || !name.get().equals(component.match()))
                    || component.matchType() == MATCH_DEFAULT && !isDefault) {
                return false;
            }
        }
        return true;
    }

    private static DescribeClientQuotasResponseData.EntryData entryData(QuotaEntry entry) {
        List<DescribeClientQuotasResponseData.EntityData> entity = new ArrayList<>();
        entry.entity().user().ifPresent(name -> entity.add(entityData(USER, name)));
        entry.entity().clientId().ifPresent(name -> entity.add(entityData(CLIENT_ID, name)));
        List<DescribeClientQuotasResponseData.ValueData> values = new ArrayList<>();
        entry.quotas().forEach((type, value) -> values.add(new DescribeClientQuotasResponseData.ValueData()
                .setKey(type.kafkaName()).setValue(value)));
        return new DescribeClientQuotasResponseData.EntryData().setEntity(entity).setValues(values);
    }

    /** Kafka names a default entity by a null name. */
    private static DescribeClientQuotasResponseData.EntityData entityData(String type, String name) {
        return new DescribeClientQuotasResponseData.EntityData().setEntityType(type)
                .setEntityName(name.equals(QuotaEntity.DEFAULT) ? null : name);
    }

    private AlterClientQuotasResponseData refuse(AlterClientQuotasRequestData request, ApiException refusal) {
        Errors error = refusal == null ? Errors.INVALID_REQUEST : Errors.forException(refusal);
        String message = refusal == null ? "Client quotas are set in the proxy tier's quotas file " + file
                + " (quotas.file), not through AlterClientQuotas" : refusal.getMessage();
        List<AlterClientQuotasResponseData.EntryData> entries = new ArrayList<>();
        for (AlterClientQuotasRequestData.EntryData entry : request.entries()) {
            List<AlterClientQuotasResponseData.EntityData> entity = new ArrayList<>();
            entry.entity().forEach(part -> entity.add(new AlterClientQuotasResponseData.EntityData()
                    .setEntityType(part.entityType()).setEntityName(part.entityName())));
            entries.add(new AlterClientQuotasResponseData.EntryData().setErrorCode(error.code())
                    .setErrorMessage(message).setEntity(entity));
        }
        return new AlterClientQuotasResponseData().setEntries(entries);
    }

    /**
     * The ApiVersions answer with both client quota APIs at every version kafka-clients knows;
     * an error answer (a version the proxy does not know, answered in v0) is left as it is.
     */
    private static ReferenceCounted advertised(ReferenceCounted answer, short version, ClientContext client) {
        if (!(answer instanceof ByteBuf frame) || version > ApiKeys.API_VERSIONS.latestVersion()) {
            return answer;
        }
        try {
            ApiVersionsResponseData versions = KafkaMessages.decodeResponse(frame, ApiKeys.API_VERSIONS, version);
            if (versions.errorCode() != Errors.NONE.code()) {
                return frame.retain();
            }
            for (ApiKeys api : List.of(ApiKeys.DESCRIBE_CLIENT_QUOTAS, ApiKeys.ALTER_CLIENT_QUOTAS)) {
                ApiVersion known = versions.apiKeys().find(api.id);
                if (known != null) {
                    versions.apiKeys().remove(known);
                }
                versions.apiKeys().add(new ApiVersion().setApiKey(api.id).setMinVersion(api.oldestVersion())
                        .setMaxVersion(api.latestVersion()));
            }
            return KafkaMessages.encodeResponse(client.alloc(), ApiKeys.API_VERSIONS, version,
                    KafkaMessages.responseCorrelationId(frame), versions);
        } finally {
            frame.release();
        }
    }
}
