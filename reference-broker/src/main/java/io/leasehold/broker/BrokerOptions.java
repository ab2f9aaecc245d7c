package io.leasehold.broker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The reference broker's command line:
 * {@code --id N --host H --port P --etcd URL[,URL] --data-dir DIR [--prefix /kafscale]
 * [--lease-ttl 10s] [--ownership lease|none] [--layout default|kafscale]
 * [--tls-cert FILE --tls-key FILE [--tls-ca FILE]]}.
 */
public record BrokerOptions(int id, String host, int port, List<String> etcdEndpoints, Path dataDir, String prefix,
                            Duration leaseTtl, OwnershipMode ownership, Layout layout, Tls tls) {

    public static final String USAGE = """
            usage: reference-broker --id N --host H --port P --etcd URL[,URL] --data-dir DIR
                                    [--prefix /kafscale] [--lease-ttl 10s] [--ownership lease|none]
                                    [--layout default|kafscale]
                                    [--tls-cert FILE --tls-key FILE [--tls-ca FILE]]
              --id         broker id, a non-negative integer, unique in the cluster
              --host       address to listen on and to advertise (e.g. 127.0.0.1)
              --port       port to listen on (0 picks a free port)
              --etcd       etcd client URLs, comma-separated
              --data-dir   shared segment directory; every broker of one cluster gets the same one
              --prefix     etcd key prefix of the ownership contract (default /kafscale)
              --lease-ttl  etcd session lease TTL: ms, s or m suffix (default 10s)
              --ownership  lease: write a partition only while owning its lease key (default);
                           none: legacy unfenced writes that reproduce overlapping offsets
              --layout     default: register under P/brokers/{id} (default);
                           kafscale: behave like a KafScale v1.6 broker: no P/brokers/{id}, list
                           itself in P/metadata/snapshot, KafScale's API versions and error codes
              --tls-cert   PEM certificate: the Kafka listener speaks TLS only (with --tls-key)
              --tls-key    PKCS#8 PEM private key of --tls-cert
              --tls-ca     PEM CA: clients must present a certificate it signed (mutual TLS)""";

    /** TLS on the Kafka listener: the server certificate and key, and the CA of client certificates or {@code null}. */
    public record Tls(Path cert, Path key, Path clientCa) {}


    /** How partition writes are guarded. */
    public enum OwnershipMode {
        LEASE, NONE
    }

    /** Which cluster's etcd layout and API surface the broker presents. */
    public enum Layout {
        /** Leasehold's contract: a {@code P/brokers/{id}} registration, the broker's full API table. */
        DEFAULT,
        /** KafScale v1.6: addresses only in {@code P/metadata/snapshot}, KafScale's API table and error codes. */
        KAFSCALE
    }

    /** A bad command line; the message says which flag and why. */
    public static final class UsageException extends Exception {
        public UsageException(String message) {
            super(message);
        }
    }

    public BrokerOptions {
        etcdEndpoints = List.copyOf(etcdEndpoints);
    }

    /** A plaintext listener. */
    public BrokerOptions(int id, String host, int port, List<String> etcdEndpoints, Path dataDir, String prefix,
                         Duration leaseTtl, OwnershipMode ownership, Layout layout) {
        this(id, host, port, etcdEndpoints, dataDir, prefix, leaseTtl, ownership, layout, null);
    }

    public static BrokerOptions parse(String... args) throws UsageException {
        Integer id = null;
        String host = null;
        Integer port = null;
        List<String> etcd = null;
        Path dataDir = null;
        String prefix = "/kafscale";
        Duration leaseTtl = Duration.ofSeconds(10);
        OwnershipMode ownership = OwnershipMode.LEASE;
        Layout layout = Layout.DEFAULT;
        Path tlsCert = null;
        Path tlsKey = null;
        Path tlsCa = null;
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < args.length; i += 2) {
            String flag = args[i];
            if (i + 1 >= args.length) {
                throw new UsageException("flag " + flag + " needs a value");
            }
            if (seen.contains(flag)) {
                throw new UsageException("flag " + flag + " given twice");
            }
            seen.add(flag);
            String value = args[i + 1];
            switch (flag) {
                case "--id" -> id = parseInt(flag, value, 0, Integer.MAX_VALUE);
                case "--host" -> host = requireNonBlank(flag, value);
                case "--port" -> port = parseInt(flag, value, 0, 65535);
                case "--etcd" -> etcd = parseEndpoints(value);
                case "--data-dir" -> dataDir = Path.of(requireNonBlank(flag, value));
                case "--prefix" -> prefix = parsePrefix(value);
                case "--lease-ttl" -> leaseTtl = parseDuration(flag, value);
                case "--ownership" -> ownership = parseOwnership(value);
                case "--layout" -> layout = parseLayout(value);
                case "--tls-cert" -> tlsCert = Path.of(requireNonBlank(flag, value));
                case "--tls-key" -> tlsKey = Path.of(requireNonBlank(flag, value));
                case "--tls-ca" -> tlsCa = Path.of(requireNonBlank(flag, value));
                default -> throw new UsageException("unknown flag '" + flag + "'");
            }
        }
        List<String> missing = new ArrayList<>();
        if (id == null) {
            missing.add("--id");
        }
        if (host == null) {
            missing.add("--host");
        }
        if (port == null) {
            missing.add("--port");
        }
        if (etcd == null) {
            missing.add("--etcd");
        }
        if (dataDir == null) {
            missing.add("--data-dir");
        }
        if (!missing.isEmpty()) {
            throw new UsageException("missing required flag(s): " + String.join(", ", missing));
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new UsageException("--tls-cert and --tls-key must be given together");
        }
        if (tlsCa != null && tlsCert == null) {
            throw new UsageException("--tls-ca needs --tls-cert and --tls-key (it only checks clients of a TLS listener)");
        }
        Tls tls = tlsCert == null ? null : new Tls(tlsCert, tlsKey, tlsCa);
        return new BrokerOptions(id, host, port, etcd, dataDir, prefix, leaseTtl, ownership, layout, tls);
    }

    private static int parseInt(String flag, String value, int min, int max) throws UsageException {
        try {
            int parsed = Integer.parseInt(value);
            if (parsed < min || parsed > max) {
                throw new UsageException(flag + " must be " + min + ".." + max + ", got " + value);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new UsageException(flag + " must be an integer, got '" + value + "'");
        }
    }

    private static String requireNonBlank(String flag, String value) throws UsageException {
        if (value.isBlank()) {
            throw new UsageException(flag + " must not be empty");
        }
        return value;
    }

    private static List<String> parseEndpoints(String value) throws UsageException {
        List<String> endpoints = Arrays.stream(value.split(",")).map(String::trim).toList();
        for (String endpoint : endpoints) {
            if (!endpoint.matches("https?://[^/\\s]+(:\\d+)?/?")) {
                throw new UsageException("--etcd endpoint '" + endpoint + "' is not an http(s)://host:port URL");
            }
            if (endpoint.startsWith("https://")) {
                // Without TLS settings jetcd would speak plaintext to an https:// URL; better to say so.
                throw new UsageException("--etcd endpoint '" + endpoint + "': the reference broker has no etcd TLS "
                        + "settings and talks to etcd in plaintext only; use http://");
            }
        }
        return endpoints;
    }

    private static String parsePrefix(String value) throws UsageException {
        if (!value.isEmpty() && (!value.startsWith("/") || value.chars().anyMatch(Character::isWhitespace))) {
            throw new UsageException("--prefix must be empty or start with '/' and contain no whitespace, got '" + value + "'");
        }
        return value;
    }

    static Duration parseDuration(String flag, String value) throws UsageException {
        String text = value.trim().toLowerCase(Locale.ROOT);
        try {
            Duration duration;
            if (text.endsWith("ms")) {
                duration = Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
            } else if (text.endsWith("s")) {
                duration = Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1)));
            } else if (text.endsWith("m")) {
                duration = Duration.ofMinutes(Long.parseLong(text.substring(0, text.length() - 1)));
            } else {
                throw new UsageException(flag + " needs a unit (ms, s or m), got '" + value + "'");
            }
            if (duration.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new UsageException(flag + " must be at least 1s (etcd lease TTLs are whole seconds), got '" + value + "'");
            }
            return duration;
        } catch (NumberFormatException e) {
            throw new UsageException(flag + " must be a number with a unit (ms, s or m), got '" + value + "'");
        }
    }

    private static Layout parseLayout(String value) throws UsageException {
        return switch (value) {
            case "default" -> Layout.DEFAULT;
            case "kafscale" -> Layout.KAFSCALE;
            default -> throw new UsageException("--layout must be 'default' or 'kafscale', got '" + value + "'");
        };
    }

    private static OwnershipMode parseOwnership(String value) throws UsageException {
        return switch (value) {
            case "lease" -> OwnershipMode.LEASE;
            case "none" -> OwnershipMode.NONE;
            default -> throw new UsageException("--ownership must be 'lease' or 'none', got '" + value + "'");
        };
    }
}
