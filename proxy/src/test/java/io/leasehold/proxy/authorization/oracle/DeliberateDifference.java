package io.leasehold.proxy.authorization.oracle;

import java.util.Arrays;
import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The places where Leasehold answers differently from Apache Kafka on purpose, each with the id
 * under which {@code docs/protocol-support.md} ("Where Leasehold answers differently from Apache
 * Kafka") gives its reason. The oracle test checks the proxy's side of each instead of comparing,
 * and that this list and the document's list are the same.
 */
enum DeliberateDifference {
    /** CreateAcls and DeleteAcls: the ACL file is the only rule set, so the Kafka API may never change it. */
    ACL_FILE_ONLY("D1", ApiKeys.CREATE_ACLS, ApiKeys.DELETE_ACLS),
    /** ApiVersions: the proxy advertises what it serves, not what the broker behind it serves. */
    OWN_API_VERSIONS("D2", ApiKeys.API_VERSIONS),
    /** Any API in a version the broker does not serve: the proxy bridges it to one the broker serves. */
    BRIDGED_VERSION("D3"),
    /**
     * Metadata asking to create a missing topic, from a principal that may not: the proxy answers
     * as Kafka with its default {@code auto.create.topics.enable=true}, whatever the brokers' setting.
     */
    CREATION_REFUSED("D4");

    private final String id;
    private final ApiKeys[] apis;

    DeliberateDifference(String id, ApiKeys... apis) {
        this.id = id;
        this.apis = apis;
    }

    /** The id the document lists it under. */
    String id() {
        return id;
    }

    /** The deliberate difference for {@code api}, if it has one. */
    static Optional<DeliberateDifference> of(ApiKeys api) {
        return Arrays.stream(values()).filter(d -> Arrays.asList(d.apis).contains(api)).findFirst();
    }
}
