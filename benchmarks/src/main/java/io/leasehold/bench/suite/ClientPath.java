package io.leasehold.bench.suite;

import io.leasehold.bench.cluster.LaunchedProxy;
import io.leasehold.bench.report.Target;
import java.util.Optional;

/**
 * One way for the load's clients to reach the backend: straight to it, or through a proxy
 * process. A proxy that could not be started is kept as a path with the reason, so each of its
 * runs is reported as failed instead of silently missing.
 *
 * @param bootstrap   what clients bootstrap from (null when unavailable)
 * @param proxy       the proxy process, empty for direct and for an unavailable proxy
 * @param unavailable why the path cannot be measured, or null
 */
public record ClientPath(Target target, String bootstrap, Optional<LaunchedProxy> proxy, String unavailable) {

    public static ClientPath direct(String bootstrap) {
        return new ClientPath(Target.DIRECT, bootstrap, Optional.empty(), null);
    }

    public static ClientPath through(Target target, LaunchedProxy proxy) {
        return new ClientPath(target, proxy.bootstrap(), Optional.of(proxy), null);
    }

    public static ClientPath unavailable(Target target, String why) {
        return new ClientPath(target, null, Optional.empty(), why);
    }
}
