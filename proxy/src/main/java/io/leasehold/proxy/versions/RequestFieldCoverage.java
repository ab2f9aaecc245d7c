package io.leasehold.proxy.versions;

import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.TaggedFields;
import org.apache.kafka.common.protocol.types.Type;

/**
 * Which request fields a client may send in one version that another version of the same API has
 * no place for, read from the request schemas kafka-clients generates. A field is named by its
 * path ({@code topics.topic_id}); tagged fields count like any other, since a client may set them.
 * A request re-encoded in a version lacking one of these fields either fails (the generated
 * writer refuses a non-default value) or silently loses what the client asked for.
 */
final class RequestFieldCoverage {

    private RequestFieldCoverage() {
    }

    /**
     * The fields of {@code api}'s request in {@code clientVersion} that {@code target} lacks; every
     * field (reported as {@code *}) when kafka-clients has no schema for either version.
     */
    static Set<String> fieldsMissingIn(ApiKeys api, short clientVersion, short target) {
        Schema client = requestSchema(api, clientVersion);
        Schema backend = requestSchema(api, target);
        Set<String> missing = new TreeSet<>();
        if (client == null || backend == null) {
            missing.add("*");
            return missing;
        }
        missing.addAll(fieldPaths(client));
        missing.removeAll(fieldPaths(backend));
        return missing;
    }

    private static Schema requestSchema(ApiKeys api, short version) {
        Schema[] schemas = ApiMessageType.fromApiKey(api.id).requestSchemas();
        return version >= 0 && version < schemas.length ? schemas[version] : null;
    }

    private static Set<String> fieldPaths(Schema schema) {
        Set<String> paths = new TreeSet<>();
        collect(schema, "", paths);
        return paths;
    }

    private static void collect(Type type, String prefix, Set<String> paths) {
        if (type instanceof Schema struct) {
            for (BoundField bound : struct.fields()) {
                if (bound.def.type instanceof TaggedFields tagged) {
                    tagged.fields().values().forEach(field -> add(field, prefix, paths));
                } else {
                    add(bound.def, prefix, paths);
                }
            }
        } else {
            type.arrayElementType().ifPresent(element -> collect(element, prefix, paths));
        }
    }

    private static void add(Field field, String prefix, Set<String> paths) {
        String path = prefix + field.name;
        paths.add(path);
        collect(field.type, path + ".", paths);
    }
}
