package io.leasehold.proxy.security;

import io.leasehold.proxy.files.MountedFileWatcher;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.jose4j.jwk.JsonWebKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Token signing keys from an identity provider's {@code https} JWKS URL
 * ({@code listener.sasl.oauthbearer.jwksUrl}), fetched on a thread of its own from
 * {@link #keepCurrent} on and then every refresh interval, each fetch bounded by the fetch timeout,
 * so no event loop ever waits for it. A token naming an unknown key id brings the next fetch
 * forward, at most once per early-fetch spacing since the last fetch, since an identity provider
 * may sign with a key it published after that fetch (as Kafka's own JWKS client does); a flood of
 * made-up key ids cannot turn into a flood of fetches. A failed fetch or an unusable answer is
 * logged (once per distinct problem) and counted, and the previous keys stay in force; until the
 * first good fetch there are none and every token is refused.
 */
public final class JwksUrl implements VerificationKeys {
    private static final Logger LOG = LoggerFactory.getLogger(JwksUrl.class);

    private final URI url;
    private final Duration refresh;
    private final Duration fetchTimeout;
    private final Duration earlyFetchSpacing;
    private final HttpClient client;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread fetcher = new Thread(runnable, "leasehold-jwks-fetch");
        fetcher.setDaemon(true);
        return fetcher;
    });
    private final AtomicLong lastFetchStartNanos = new AtomicLong();
    private volatile List<JsonWebKey> keys = List.of();
    private volatile JwksMetrics metrics;
    /** The last key set installed and the last problem reported; only the fetching thread touches them. */
    private String lastBody;
    private String lastProblem;

    private JwksUrl(URI url, Timing timing, HttpClient client) {
        this.url = url;
        this.refresh = timing.refresh();
        this.fetchTimeout = timing.fetchTimeout();
        this.earlyFetchSpacing = timing.earlyFetchSpacing();
        this.client = client;
        // Counted from creation, so an unknown key id cannot fetch before keepCurrent's first fetch.
        lastFetchStartNanos.set(System.nanoTime());
    }

    /**
     * When the URL is fetched: every {@code refresh}, each fetch given up after {@code fetchTimeout},
     * and brought forward for an unknown key id only when the last fetch started at least
     * {@code earlyFetchSpacing} ago.
     */
    public record Timing(Duration refresh, Duration fetchTimeout, Duration earlyFetchSpacing) {
    }

    /**
     * A key source for {@code url}; fetching starts with {@link #keepCurrent}.
     *
     * @param caFile the CA that signs the URL's certificate, or {@code null} for the JVM's trust store
     * @throws JwksException when {@code caFile} is not usable
     */
    public static JwksUrl of(URI url, Path caFile, Timing timing) throws JwksException {
        HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(timing.fetchTimeout())
                .followRedirects(HttpClient.Redirect.NEVER);
        if (caFile != null) {
            client.sslContext(trusting(caFile));
        }
        return new JwksUrl(url, timing, client.build());
    }

    @Override
    public List<JsonWebKey> current() {
        return keys;
    }

    /** Fetches the URL now and every refresh interval from then on, counting each fetch in {@code metrics}. */
    @Override
    public void keepCurrent(MountedFileWatcher watcher, JwksMetrics metrics) {
        this.metrics = metrics;
        thread.scheduleWithFixedDelay(this::fetch, 0, refresh.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Fetches the URL at once unless the last fetch started less than the early-fetch spacing ago. */
    @Override
    public void keyNotFound() {
        long last = lastFetchStartNanos.get();
        long now = System.nanoTime();
        if (now - last >= earlyFetchSpacing.toNanos() && lastFetchStartNanos.compareAndSet(last, now)) {
            LOG.info("A token names a key id not in the JWKS from {}: fetching it again now", url);
            thread.execute(this::fetch);
        }
    }

    private void fetch() {
        lastFetchStartNanos.set(System.nanoTime());
        String problem;
        try {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(url).timeout(fetchTimeout)
                    .header("Accept", "application/json").GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new JwksException(url + ": HTTP status " + response.statusCode());
            }
            List<JsonWebKey> fetched = JwksDocument.parse(response.body(), url.toString());
            if (!response.body().equals(lastBody) || lastProblem != null) {
                LOG.info("Fetched the JWKS from {}: {} keys", url, fetched.size());
            }
            keys = fetched;
            lastBody = response.body();
            lastProblem = null;
            metrics.refreshed("url", true);
            return;
        } catch (JwksException e) {
            problem = e.getMessage();
        } catch (IOException e) {
            problem = url + ": " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        metrics.refreshed("url", false);
        if (!Objects.equals(problem, lastProblem)) {
            LOG.warn("Keeping the previous {} JWKS keys: {}", keys.size(), problem);
            lastProblem = problem;
        }
    }

    private static SSLContext trusting(Path caFile) throws JwksException {
        try (InputStream in = Files.newInputStream(caFile)) {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int index = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trusted.setCertificateEntry("ca-" + index++, certificate);
            }
            if (index == 0) {
                throw new JwksException(caFile + ": no PEM certificate in the JWKS CA file");
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new JwksException(caFile + ": cannot use the JWKS CA file: " + e.getMessage());
        }
    }

    /** Stops fetching. */
    @Override
    public void close() {
        thread.shutdownNow();
    }
}
