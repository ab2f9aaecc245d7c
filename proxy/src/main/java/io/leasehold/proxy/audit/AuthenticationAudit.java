package io.leasehold.proxy.audit;

import java.time.Clock;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Where every way a client proves who it is reports the outcome: SASL (SaslAuthenticate, the bare
 * tokens after SaslHandshake v0, a mechanism the listener does not offer) and client certificates
 * (a certificate mapped to a principal, one no rule maps, a handshake the listener refused). Each
 * becomes one audit line with the operation {@code AUTHENTICATE} on the resource type
 * {@code USER}. A refusal is written for the anonymous principal: a claimed name is not proof.
 */
public final class AuthenticationAudit {
    /** The {@code api} of lines about a TLS client certificate, which no Kafka API carries. */
    public static final String TLS = "TLS";

    private final AuditLog log;
    private final Clock clock;

    public AuthenticationAudit(AuditLog log, Clock clock) {
        this.log = log;
        this.clock = clock;
    }

    /** Reports nothing ({@code audit.file} unset). */
    public static AuthenticationAudit off() {
        return new AuthenticationAudit(AuditLog.none(), Clock.systemUTC());
    }

    /**
     * A client proved it is {@code principal}.
     *
     * @param api      the Kafka API that carried the proof, or {@link #TLS}
     * @param clientId the request header's client id; null where there was no request
     */
    public void accepted(String api, KafkaPrincipal principal, String clientAddress, String clientId) {
        if (log.enabled()) {
            log.record(new AuditEvent(clock.instant(), principal.toString(), clientAddress, clientId, api,
                    "AUTHENTICATE", "USER", principal.getName(), AuditEvent.Decision.ALLOW));
        }
    }

    /**
     * A client's proof was refused.
     *
     * @param claimed what the client claimed to be, where it named anything (a certificate's
     *                subject), else null
     */
    public void refused(String api, String clientAddress, String clientId, String claimed) {
        if (log.enabled()) {
            log.record(new AuditEvent(clock.instant(), KafkaPrincipal.ANONYMOUS.toString(), clientAddress, clientId,
                    api, "AUTHENTICATE", "USER", claimed, AuditEvent.Decision.DENY));
        }
    }
}
