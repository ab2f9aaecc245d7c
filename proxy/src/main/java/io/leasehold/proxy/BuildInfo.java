package io.leasehold.proxy;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version and commit this proxy was built from, as the build recorded them in
 * {@code build-info.properties} beside this class; {@value #UNKNOWN} for whatever it could not
 * record (a build from sources without {@code .git}).
 */
public record BuildInfo(String version, String commit) {
    static final String UNKNOWN = "unknown";
    private static final String RESOURCE = "build-info.properties";

    /** What the build of these classes recorded. */
    public static BuildInfo ofThisBuild() {
        Properties recorded = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                recorded.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE + " from the proxy's jar", e);
        }
        return new BuildInfo(valueOrUnknown(recorded.getProperty("version")),
                valueOrUnknown(recorded.getProperty("commit")));
    }

    /** How {@code --version} and the first log line say it, e.g. {@code leasehold-proxy 1.2.0 (commit 0123abcd4567)}. */
    public String describe() {
        return "leasehold-proxy " + version + " (commit " + commit + ")";
    }

    /** Exports {@code leasehold_build_info{version,commit} 1}, the Prometheus way to publish a build. */
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("leasehold.build.info", () -> 1)
                .description("Always 1; its labels say which build of the proxy runs")
                .tag("version", version).tag("commit", commit)
                .strongReference(true).register(registry);
    }

    private static String valueOrUnknown(String value) {
        return value == null || value.isBlank() ? UNKNOWN : value.strip();
    }
}
