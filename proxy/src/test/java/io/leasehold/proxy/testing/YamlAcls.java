package io.leasehold.proxy.testing;

import io.leasehold.proxy.authorization.AclAuthorizer;
import io.leasehold.proxy.authorization.AclRules;
import io.leasehold.proxy.authorization.AclsFileParser;
import io.leasehold.proxy.authorization.AuthorizationMetrics;
import io.leasehold.proxy.authorization.Authorizer;
import io.micrometer.core.instrument.MeterRegistry;

/** An {@link Authorizer} holding the rules of an ACL file's text, for unit tests of what the proxy decides. */
public final class YamlAcls {
    private YamlAcls() {
    }

    /** The rules of {@code yaml} (the ACL file's format), counting denials in {@code registry}. */
    public static Authorizer authorizer(String yaml, MeterRegistry registry) {
        AclRules rules;
        try {
            rules = AclRules.of(new AclsFileParser().parse(yaml, "test.yaml"));
        } catch (Exception e) {
            throw new IllegalArgumentException("bad test ACLs: " + e.getMessage(), e);
        }
        return new AclAuthorizer(() -> rules, new AuthorizationMetrics(registry));
    }
}
