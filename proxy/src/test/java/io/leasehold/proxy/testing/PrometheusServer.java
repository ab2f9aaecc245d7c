package io.leasehold.proxy.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.routing.testing.LoopbackPorts;
import io.leasehold.testing.ManagedProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A real Prometheus server (Debian's {@code prometheus}, installed by
 * {@code scripts/ensure-prometheus}) on a free loopback port with a temporary data directory,
 * scraping the given targets as one job and evaluating the given rules file, both every
 * {@code interval}. {@link #close()} kills it and deletes its directory.
 */
public final class PrometheusServer implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private final ManagedProcess process;
    private final Path dir;
    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();

    private PrometheusServer(ManagedProcess process, Path dir, URI base) {
        this.process = process;
        this.dir = dir;
        this.base = base;
    }

    /**
     * Starts Prometheus scraping {@code targets} ({@code host:port} of {@code /metrics}) as job
     * {@code job} and evaluating {@code rules} (Prometheus rule-file YAML), and waits until it is ready.
     */
    public static PrometheusServer start(String job, List<String> targets, String rules, Duration interval, Path logDir) {
        Path dir;
        try {
            dir = Files.createTempDirectory("leasehold-prometheus-");
            Files.writeString(dir.resolve("rules.yaml"), rules);
            Files.writeString(dir.resolve("prometheus.yaml"), String.join("\n",
                    "global:",
                    "  scrape_interval: " + interval.toMillis() + "ms",
                    "  scrape_timeout: " + interval.toMillis() + "ms",
                    "  evaluation_interval: " + interval.toMillis() + "ms",
                    "rule_files: [" + dir.resolve("rules.yaml") + "]",
                    "scrape_configs:",
                    "  - job_name: " + job,
                    "    static_configs:",
                    "      - targets: [" + String.join(", ", targets) + "]",
                    ""));
        } catch (IOException e) {
            throw new UncheckedIOException("could not write Prometheus's configuration", e);
        }
        int port = LoopbackPorts.take();
        ManagedProcess process = ManagedProcess.start("prometheus", List.of("prometheus",
                "--config.file=" + dir.resolve("prometheus.yaml"),
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port), logDir, Map.of());
        PrometheusServer server = new PrometheusServer(process, dir, URI.create("http://127.0.0.1:" + port));
        try {
            server.awaitReady();
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** Names of the alerts in state {@code state} ({@code firing} or {@code pending}) right now. */
    public TreeSet<String> alerts(String state) {
        JsonNode alerts = get("/api/v1/alerts").path("data").path("alerts");
        TreeSet<String> names = new TreeSet<>();
        alerts.forEach(alert -> {
            if (state.equals(alert.path("state").asText())) {
                names.add(alert.path("labels").path("alertname").asText());
            }
        });
        return names;
    }

    /**
     * The result of an instant query: the {@code data} object ({@code resultType}, {@code result}).
     * Fails with Prometheus's own error text if the query is refused.
     */
    public JsonNode query(String promql) {
        return get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)).path("data");
    }

    /** How many scrape targets answered their last scrape. */
    public int targetsUp() {
        int up = 0;
        for (JsonNode target : get("/api/v1/targets").path("data").path("activeTargets")) {
            if ("up".equals(target.path("health").asText())) {
                up++;
            }
        }
        return up;
    }

    /** Where Prometheus logs. */
    public Path log() {
        return process.stderrLog();
    }

    @Override
    public void close() {
        try {
            process.close();
        } finally {
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException("could not delete " + dir, e);
            }
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("prometheus exited " + process.exitCode().orElse(-1) + " at start: "
                        + process.stderrTail(20));
            }
            try {
                HttpResponse<String> ready = http.send(HttpRequest.newBuilder(base.resolve("/-/ready"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (ready.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // Not listening yet.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for Prometheus", e);
            }
            sleep(Duration.ofMillis(200));
        }
        throw new IllegalStateException("prometheus not ready within " + READY_TIMEOUT + ": " + process.stderrTail(20));
    }

    private JsonNode get(String pathAndQuery) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            JsonNode body = json.readTree(response.body());
            if (response.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
                throw new IllegalStateException("Prometheus refused " + pathAndQuery + ": HTTP " + response.statusCode()
                        + " " + body.path("errorType").asText() + ": " + body.path("error").asText());
            }
            return body;
        } catch (IOException e) {
            throw new UncheckedIOException("could not ask Prometheus " + pathAndQuery, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted asking Prometheus " + pathAndQuery, e);
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public String toString() {
        return "prometheus at " + base + " " + process;
    }
}
