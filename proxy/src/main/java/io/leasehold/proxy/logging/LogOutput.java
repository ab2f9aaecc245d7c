package io.leasehold.proxy.logging;

import io.leasehold.proxy.config.ProxyConfig;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Properties;
import java.util.TimeZone;
import java.util.logging.Level;
import java.util.logging.LogManager;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Sets up the proxy's one log output before the first logger is made: slf4j-simple (which reads
 * its settings once, from system properties) with an ISO-8601 UTC timestamp on every line and
 * the levels of {@code logging.*}; and java.util.logging, where gRPC and jetcd write, routed
 * into it at the same levels. A {@code -Dorg.slf4j.simpleLogger.*} JVM flag given by hand
 * still wins over the config.
 */
public final class LogOutput {
    private static final String SIMPLE_LOGGER = "org.slf4j.simpleLogger.";
    /** Milliseconds and the zone as {@code Z}: ISO 8601, sortable, the same in every pod. */
    private static final String TIMESTAMP = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX";

    private final ProxyConfig.Logging logging;

    public LogOutput(ProxyConfig.Logging logging) {
        this.logging = logging;
    }

    /** Applies the settings; call once, before anything logs. */
    public void install() {
        // slf4j-simple formats times in the JVM's zone; the proxy's lines are UTC wherever it runs.
        TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
        setUnlessGiven("showDateTime", "true");
        setUnlessGiven("dateTimeFormat", TIMESTAMP);
        setUnlessGiven("defaultLogLevel", word(logging.level()));
        logging.levels().forEach((name, level) -> setUnlessGiven("log." + name, word(level)));
        routeJavaUtilLogging();
    }

    private static void setUnlessGiven(String key, String value) {
        if (System.getProperty(SIMPLE_LOGGER + key) == null) {
            System.setProperty(SIMPLE_LOGGER + key, value);
        }
    }

    /**
     * java.util.logging drops records below a logger's level before any handler sees them, so its
     * levels follow the config too; its own console handler goes, the bridge to SLF4J comes in.
     */
    private void routeJavaUtilLogging() {
        Properties levels = new Properties();
        levels.setProperty(".level", julLevel(logging.level()).getName());
        logging.levels().forEach((name, level) -> levels.setProperty(name + ".level", julLevel(level).getName()));
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        try {
            levels.store(text, null);
            // Levels set this way also reach loggers made later (gRPC makes its own lazily).
            LogManager.getLogManager().readConfiguration(new ByteArrayInputStream(text.toByteArray()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot configure java.util.logging", e);
        }
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
    }

    private static String word(ProxyConfig.LogLevel level) {
        return level.name().toLowerCase(Locale.ROOT);
    }

    private static Level julLevel(ProxyConfig.LogLevel level) {
        return switch (level) {
            case TRACE -> Level.FINEST;
            case DEBUG -> Level.FINE;
            case INFO -> Level.INFO;
            case WARN -> Level.WARNING;
            case ERROR -> Level.SEVERE;
            case OFF -> Level.OFF;
        };
    }
}
