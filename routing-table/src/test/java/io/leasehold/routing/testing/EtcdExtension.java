package io.leasehold.routing.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that runs one real {@link EtcdServer} per test class and injects it into
 * test constructors, lifecycle methods and test methods. The server is stopped and its data
 * deleted after the class, whether the tests passed or not.
 *
 * <pre>{@code
 * @ExtendWith(EtcdExtension.class)
 * class SomethingIT {
 *     @Test void works(EtcdServer etcd) { ... etcd.endpoint() ... }
 * }
 * }</pre>
 */
public final class EtcdExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(EtcdExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        server(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        EtcdServer server = context.getStore(NAMESPACE).remove("server", EtcdServer.class);
        if (server != null) {
            server.close();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == EtcdServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return server(context);
    }

    private static EtcdServer server(ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getParent().isPresent() && classContext.getTestMethod().isPresent()) {
            classContext = classContext.getParent().get();
        }
        return classContext.getStore(NAMESPACE).getOrComputeIfAbsent("server", key -> EtcdServer.start(), EtcdServer.class);
    }
}
