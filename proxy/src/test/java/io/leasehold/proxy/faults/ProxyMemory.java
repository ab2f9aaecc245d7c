package io.leasehold.proxy.faults;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a proxy's memory use from its Prometheus {@code /metrics}: JVM heap in use (all heap
 * pools) plus the direct memory Netty's allocator holds, where request frames live; and, from
 * {@code /proc}, the process's peak resident memory.
 */
final class ProxyMemory {

    private static final Pattern HEAP = Pattern.compile("(?m)^jvm_memory_used_bytes\\{[^}]*area=\"heap\"[^}]*} (\\S+)$");
    private static final Pattern DIRECT = Pattern.compile("(?m)^leasehold_netty_direct_memory_used\\S* (\\S+)$");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String metricsUrl;

    ProxyMemory(String adminUrl) {
        this.metricsUrl = adminUrl + "/metrics";
    }

    /** Heap used plus Netty direct memory used, in bytes. */
    long usedBytes() throws IOException, InterruptedException {
        String metrics = scrape();
        return sum(HEAP, metrics) + sum(DIRECT, metrics);
    }

    /** Netty direct memory used, in bytes: where request frames wait. */
    long directBytes() throws IOException, InterruptedException {
        return sum(DIRECT, scrape());
    }

    /** The peak resident set size of process {@code pid} so far (Linux {@code VmHWM}), in bytes. */
    static long peakRssBytes(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmHWM in /proc/" + pid + "/status");
    }

    private String scrape() throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(metricsUrl)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private static long sum(Pattern pattern, String metrics) {
        Matcher matcher = pattern.matcher(metrics);
        double total = 0;
        boolean found = false;
        while (matcher.find()) {
            total += Double.parseDouble(matcher.group(1));
            found = true;
        }
        if (!found) {
            throw new IllegalStateException("no " + pattern + " in the proxy's /metrics");
        }
        return (long) total;
    }
}
