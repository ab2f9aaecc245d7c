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
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.jose4j.jwk.JsonWebKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Token signing keys from an identity provider's {@code https} JWKS URL
 * ({@code listener.sasl.oauthbearer.jwksUrl}), fetched on a thread of its own right away and then
 * every refresh interval, each fetch bounded by the fetch timeout, so no event loop ever waits for
 * it. A failed fetch or an unusable answer is logged (once per distinct problem) and the previous
 * keys stay in force; until the first good fetch there are none and every token is refused.
 */
public final class JwksUrl implements VerificationKeys {
    private static final Logger LOG = LoggerFactory.getLogger(JwksUrl.class);

    private final URI url;
    private final Duration fetchTimeout;
    private final HttpClient client;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread fetcher = new Thread(runnable, "leasehold-jwks-fetch");
        fetcher.setDaemon(true);
        return fetcher;
    });
    private volatile List<JsonWebKey> keys = List.of();
    /** The last key set installed and the last problem reported; only the fetching thread touches them. */
    private String lastBody;
    private String lastProblem;

    private JwksUrl(URI url, Duration fetchTimeout, HttpClient client) {
        this.url = url;
        this.fetchTimeout = fetchTimeout;
        this.client = client;
    }

    /**
     * Starts fetching {@code url} now and every {@code refresh}.
     *
     * @param caFile the CA that signs the URL's certificate, or {@code null} for the JVM's trust store
     * @throws JwksException when {@code caFile} is not usable
     */
    public static JwksUrl start(URI url, Path caFile, Duration refresh, Duration fetchTimeout) throws JwksException {
        HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(fetchTimeout)
                .followRedirects(HttpClient.Redirect.NEVER);
        if (caFile != null) {
            client.sslContext(trusting(caFile));
        }
        JwksUrl jwks = new JwksUrl(url, fetchTimeout, client.build());
        jwks.thread.scheduleWithFixedDelay(jwks::fetch, 0, refresh.toMillis(), TimeUnit.MILLISECONDS);
        return jwks;
    }

    @Override
    public List<JsonWebKey> current() {
        return keys;
    }

    /** Nothing to do: the keys are refreshed by this object's own thread. */
    @Override
    public void keepCurrent(MountedFileWatcher watcher) {
    }

    private void fetch() {
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
            return;
        } catch (JwksException e) {
            problem = e.getMessage();
        } catch (IOException e) {
            problem = url + ": " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
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
