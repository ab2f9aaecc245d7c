package io.leasehold.proxy.audit;

import java.time.Instant;

/**
 * One line of the audit log: who ({@code principal}, from {@code clientAddress} with
 * {@code clientId}) asked for what ({@code api}, the ACL {@code operation} on
 * {@code resourceType}/{@code resourceName}) and what the proxy decided ({@code ALLOW} or
 * {@code DENY}). Authentication events use the operation {@code AUTHENTICATE} on the resource
 * type {@code USER}.
 */
public record AuditEvent(Instant time, String principal, String clientAddress, String clientId, String api,
                         String operation, String resourceType, String resourceName, Decision decision) {

    /** What the proxy decided. */
    public enum Decision {
        ALLOW, DENY
    }
}
