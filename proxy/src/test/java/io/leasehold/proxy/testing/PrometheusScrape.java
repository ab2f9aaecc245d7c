package io.leasehold.proxy.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads single series from a running proxy's Prometheus {@code /metrics}, as a scraper would. */
public final class PrometheusScrape {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final URI metrics;

    /** @param adminUrl the proxy's admin base URL, e.g. {@code http://127.0.0.1:9094} */
    public PrometheusScrape(String adminUrl) {
        this.metrics = URI.create(adminUrl + "/metrics");
    }

    /**
     * The value of the first series called {@code name} whose labels contain {@code label}
     * (e.g. {@code reason="oversized"}; any series if empty), or -1 if there is none.
     */
    public double value(String name, String label) throws IOException, InterruptedException {
        String body = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher series = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*})? (\\S+)$").matcher(body);
        while (series.find()) {
            if (label.isEmpty() || (series.group(1) != null && series.group(1).contains(label))) {
                return Double.parseDouble(series.group(2));
            }
        }
        return -1;
    }
}
