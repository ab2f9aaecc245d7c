package io.leasehold.audit;

/**
 * One record as a consumer returned it.
 *
 * @param identity  the audit identity in its value, or null for a record that is not audited
 * @param valueHash a hash of the value, to tell two unaudited records at one offset apart
 * @param source    which read pass saw it (e.g. the bootstrap address)
 */
public record ObservedRecord(String topic, int partition, long offset, RecordIdentity identity, int valueHash,
                             String source) {

    /** What the auditor compares at an offset: the identity, or a stand-in for unaudited values. */
    String claimKey() {
        return identity != null ? identity.toString() : "unaudited:" + Integer.toHexString(valueHash);
    }
}
