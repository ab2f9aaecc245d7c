package io.leasehold.proxy.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;

/**
 * Reads typed values out of a parsed config tree, letting {@code LEASEHOLD_*} environment
 * variables override file values. Never stops at the first bad value: each problem is recorded
 * and a fallback returned, so one run reports everything that is wrong.
 */
final class ConfigReader {

    /** A Java package or class name, as loggers are named. */
    private static final Pattern LOGGER_NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h)");
    private static final Pattern BYTE_SIZE = Pattern.compile("(\\d{1,12})(Ki|Mi|Gi)?");
    private static final String BYTE_SIZE_EXPECTED = "a positive byte size like 268435456, 512Mi or 1Gi";

    private final ObjectNode root;
    private final Map<String, String> environment;
    private final String sourceName;
    private final List<String> problems;

    ConfigReader(ObjectNode root, Map<String, String> environment, String sourceName, List<String> problems) {
        this.root = root;
        this.environment = environment;
        this.sourceName = sourceName;
        this.problems = problems;
    }

    /** A raw value and where it came from: exactly one of {@code node} and {@code envText} is set. */
    private record Raw(ConfigKey key, JsonNode node, String envText) {
        boolean fromEnvironment() {
            return envText != null;
        }
    }

    /** A scalar value did not fit: says what was expected. */
    private static final class Unfit extends Exception {
        Unfit(String expected) {
            super(expected, null, false, false);
        }
    }

    @FunctionalInterface
    private interface Conversion<T> {
        T apply(String text) throws Unfit;
    }

    String host(ConfigKey key, String fallback) {
        return scalar(key, fallback, "a host name or IP address", false, this::hostText);
    }

    /** A port; {@code min} is 0 where "any free port" makes sense, else 1. */
    int port(ConfigKey key, int fallback, int min) {
        String expected = min == 0 ? "an integer 0..65535 (0 picks a free port)" : "an integer 1..65535";
        return scalar(key, fallback, expected, true, text -> intInRange(text, min, 65535, expected));
    }

    int positiveInt(ConfigKey key, int fallback) {
        String expected = "an integer 1.." + Integer.MAX_VALUE;
        return scalar(key, fallback, expected, true, text -> intInRange(text, 1, Integer.MAX_VALUE, expected));
    }

    Duration duration(ConfigKey key, Duration fallback) {
        return scalar(key, fallback, "a positive duration like 250ms, 5s, 10m or 1h", false, this::durationText);
    }

    /** {@code true} or {@code false} (a YAML boolean, or that word in the environment variable). */
    boolean bool(ConfigKey key, boolean fallback) {
        Optional<Raw> raw = raw(key);
        if (raw.isEmpty()) {
            return fallback;
        }
        Raw value = raw.get();
        String text = value.fromEnvironment() ? value.envText().strip()
                : value.node().isBoolean() ? value.node().asText() : null;
        if ("true".equals(text) || "false".equals(text)) {
            return Boolean.parseBoolean(text);
        }
        report(value, "true or false");
        return fallback;
    }

    /** An optional positive duration; {@code null} when not set. */
    Duration optionalDuration(ConfigKey key) {
        return scalar(key, null, "a positive duration like 250ms, 5s, 10m or 1h", false, this::durationText, true);
    }

    /** An optional positive number of bytes, plain or with a binary suffix (Ki, Mi, Gi); {@code null} when not set. */
    Long optionalByteSize(ConfigKey key) {
        return scalar(key, null, BYTE_SIZE_EXPECTED, false, ConfigReader::byteSizeText, true);
    }

    /** An optional absolute file path; {@code null} when not set. */
    Path optionalFile(ConfigKey key) {
        return scalar(key, null, "an absolute file path", false, text -> {
            Path path;
            try {
                path = Path.of(text);
            } catch (InvalidPathException e) {
                throw new Unfit("an absolute file path");
            }
            if (!path.isAbsolute()) {
                throw new Unfit("an absolute file path");
            }
            return path;
        }, true);
    }

    /**
     * One of a fixed set of words, written as the lower-case constant name (e.g. {@code required});
     * {@code null} when not set.
     */
    <E extends Enum<E>> E optionalChoice(ConfigKey key, E[] choices) {
        List<String> words = Arrays.stream(choices).map(ConfigReader::word).toList();
        String expected = "one of " + String.join(", ", words);
        return scalar(key, null, expected, false, text -> {
            int index = words.indexOf(text);
            if (index < 0) {
                throw new Unfit(expected);
            }
            return choices[index];
        }, true);
    }

    /** How a choice is written in the config file. */
    static String word(Enum<?> choice) {
        return choice.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** An optional port 1..65535; {@code null} when not set. */
    Integer optionalPort(ConfigKey key) {
        String expected = "an integer 1..65535";
        return scalar(key, null, expected, true, text -> intInRange(text, 1, 65535, expected), true);
    }

    /** An optional integer {@code min..max}; {@code null} when not set. */
    Integer optionalInt(ConfigKey key, int min, int max) {
        String expected = "an integer " + min + ".." + max;
        return scalar(key, null, expected, true, text -> intInRange(text, min, max, expected), true);
    }

    /**
     * An optional host name containing {@code placeholder} once or more, which must be a valid
     * host name once the placeholder is replaced by a number; {@code null} when not set.
     */
    String optionalHostPattern(ConfigKey key, String placeholder) {
        String expected = "a host name containing " + placeholder + ", e.g. broker-" + placeholder + ".kafka.example.com";
        return scalar(key, null, expected, false, text -> {
            if (!text.contains(placeholder)) {
                throw new Unfit(expected);
            }
            if (!text.replace(placeholder, "0").matches("[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?")) {
                throw new Unfit(expected);
            }
            return text;
        }, true);
    }

    /**
     * Rules in the syntax of Kafka's {@code ssl.principal.mapping.rules} ({@code RULE:pattern/replacement/[LU]}
     * and {@code DEFAULT}, separated by commas or new lines), checked by kafka-clients' own parser;
     * {@code null} when not set.
     */
    SslPrincipalMapper optionalPrincipalMappingRules(ConfigKey key) {
        String expected = "mapping rules like RULE:^CN=([^,]+),.*$/$1/L,DEFAULT (Kafka's ssl.principal.mapping.rules)";
        return scalar(key, null, expected, false, text -> {
            try {
                return SslPrincipalMapper.fromRules(text);
            } catch (PatternSyntaxException e) {
                throw new Unfit(expected + "; not a regular expression: " + e.getDescription() + " near index "
                        + e.getIndex() + " of " + e.getPattern());
            } catch (IllegalArgumentException e) {
                throw new Unfit(expected + "; " + e.getMessage());
            }
        }, true);
    }

    String etcdPrefix(ConfigKey key, String fallback) {
        return scalar(key, fallback, "a key prefix starting with '/', e.g. /kafscale", false, text -> {
            if (!text.startsWith("/") || text.length() < 2 || text.endsWith("/")
                    || text.chars().anyMatch(Character::isWhitespace)) {
                throw new Unfit("a key prefix starting with '/' and not ending with '/', e.g. /kafscale");
            }
            return text;
        });
    }

    List<String> etcdEndpoints(ConfigKey key, List<String> fallback) {
        return list(key, fallback, "a non-empty list of etcd URLs like http://127.0.0.1:2379",
                this::endpointText);
    }

    List<HostPort> hostPorts(ConfigKey key, List<HostPort> fallback) {
        return list(key, fallback, "a non-empty list of host:port addresses", text -> {
            try {
                return HostPort.parse(text);
            } catch (IllegalArgumentException e) {
                throw new Unfit("host:port (or [ipv6]:port) with port 1..65535");
            }
        });
    }

    /**
     * A list of distinct words, each one of {@code choices} (written exactly as listed);
     * {@code null} when not set, an empty list when the value is unusable (the problem is recorded).
     */
    List<String> optionalWords(ConfigKey key, List<String> choices) {
        if (raw(key).isEmpty()) {
            return null;
        }
        String expected = "one of " + String.join(", ", choices);
        List<String> words = list(key, List.of(), "a non-empty list, each " + expected, text -> {
            if (!choices.contains(text)) {
                throw new Unfit(expected);
            }
            return text;
        });
        if (words.stream().distinct().count() < words.size()) {
            problem(key, "lists a value more than once: " + words);
            return List.of();
        }
        return words;
    }

    /**
     * An optional mapping of logger names (a package or class) to one of {@code choices}, written
     * as in {@link #optionalChoice}; {@code null} when not set, empty when unusable (the problem is
     * recorded). The environment variable holds {@code name=word} pairs separated by commas.
     */
    <E extends Enum<E>> Map<String, E> optionalChoicesByName(ConfigKey key, E[] choices) {
        Optional<Raw> raw = raw(key);
        if (raw.isEmpty()) {
            return null;
        }
        Raw value = raw.get();
        List<String> words = Arrays.stream(choices).map(ConfigReader::word).toList();
        String expectedWord = "one of " + String.join(", ", words);
        Map<String, String> texts = new LinkedHashMap<>();
        if (value.fromEnvironment()) {
            for (String pair : value.envText().split(",", -1)) {
                int equals = pair.indexOf('=');
                if (equals < 0 && !pair.isBlank()) {
                    report(value, "name=level pairs separated by commas, e.g. io.netty=debug,io.grpc=warn");
                    return Map.of();
                }
                if (equals >= 0) {
                    texts.put(pair.substring(0, equals).strip(), pair.substring(equals + 1).strip());
                }
            }
        } else if (value.node().isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = value.node().fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                texts.put(field.getKey(), field.getValue().isTextual() ? field.getValue().asText().strip() : null);
            }
        } else {
            report(value, "a mapping of logger names (a package or class) to " + expectedWord);
            return Map.of();
        }
        Map<String, E> result = new LinkedHashMap<>();
        texts.forEach((name, text) -> {
            int index = text == null ? -1 : words.indexOf(text);
            if (!LOGGER_NAME.matcher(name).matches()) {
                report(value, "." + name, "a logger name (a package or class, e.g. io.netty)", quote(name));
            } else if (index < 0) {
                report(value, "." + name, expectedWord, text == null
                        ? describe(value.node().get(name)) : quote(text));
            } else {
                result.put(name, choices[index]);
            }
        });
        return result.size() < texts.size() ? Map.of() : Map.copyOf(result);
    }

    /** Whether {@code key} has a value, usable or not (in the file or the environment). */
    boolean isSet(ConfigKey key) {
        return raw(key).isPresent();
    }

    /** An optional non-blank text, stripped; {@code null} when not set. */
    String optionalText(ConfigKey key) {
        return scalar(key, null, "a non-empty string", false, ConfigReader::nonBlank, true);
    }

    /** An optional list of non-blank texts; {@code null} when not set, empty when unusable (the problem is recorded). */
    List<String> optionalTexts(ConfigKey key) {
        if (raw(key).isEmpty()) {
            return null;
        }
        return list(key, List.of(), "a non-empty list of strings", ConfigReader::nonBlank);
    }

    /** An optional absolute {@code https://} URL; {@code null} when not set. */
    URI optionalHttpsUrl(ConfigKey key) {
        String expected = "an https:// URL";
        return scalar(key, null, expected, false, text -> {
            try {
                URI uri = new URI(text);
                if (!"https".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
                    throw new Unfit(expected);
                }
                return uri;
            } catch (URISyntaxException e) {
                throw new Unfit(expected);
            }
        }, true);
    }

    private static String nonBlank(String text) throws Unfit {
        if (text.isBlank()) {
            throw new Unfit("a non-empty string");
        }
        return text.strip();
    }

    /** Records a problem that involves several keys (a cross-field rule). */
    void problem(ConfigKey key, String message) {
        problems.add(location(key, "", false) + ": " + message);
    }

    private <T> T scalar(ConfigKey key, T fallback, String expected, boolean integer, Conversion<T> conversion) {
        return scalar(key, fallback, expected, integer, conversion, false);
    }

    /** A scalar value; a {@code null} fallback marks the key required unless {@code optional}. */
    private <T> T scalar(ConfigKey key, T fallback, String expected, boolean integer, Conversion<T> conversion,
                         boolean optional) {
        Optional<Raw> raw = raw(key);
        if (raw.isEmpty()) {
            return optional ? fallback : requireFallback(key, fallback, expected);
        }
        Raw value = raw.get();
        String text;
        if (value.fromEnvironment()) {
            text = value.envText().strip();
        } else if (integer ? value.node().isIntegralNumber() : value.node().isValueNode() && !value.node().isNull()
                && !value.node().isBoolean()) {
            text = value.node().asText();
        } else {
            report(value, expected);
            return fallback;
        }
        try {
            return conversion.apply(text);
        } catch (Unfit unfit) {
            report(value, unfit.getMessage());
            return fallback;
        }
    }

    /** A list value; a {@code null} fallback marks the key required, and an empty list stands in when it fails. */
    private <T> List<T> list(ConfigKey key, List<T> fallback, String expected, Conversion<T> element) {
        List<T> value = listOrFallback(key, fallback, expected, element);
        return value == null ? List.of() : value;
    }

    private <T> List<T> listOrFallback(ConfigKey key, List<T> fallback, String expected, Conversion<T> element) {
        Optional<Raw> raw = raw(key);
        if (raw.isEmpty()) {
            return requireFallback(key, fallback, expected);
        }
        Raw value = raw.get();
        List<String> texts = new ArrayList<>();
        if (value.fromEnvironment()) {
            for (String part : value.envText().split(",", -1)) {
                if (!part.isBlank()) {
                    texts.add(part.strip());
                }
            }
        } else if (value.node().isArray()) {
            for (int i = 0; i < value.node().size(); i++) {
                JsonNode item = value.node().get(i);
                if (!item.isTextual()) {
                    report(value, "[" + i + "]", "a string", describe(item));
                    return fallback;
                }
                texts.add(item.asText().strip());
            }
        } else {
            report(value, expected);
            return fallback;
        }
        if (texts.isEmpty()) {
            report(value, expected);
            return fallback;
        }
        List<T> result = new ArrayList<>();
        boolean bad = false;
        for (int i = 0; i < texts.size(); i++) {
            try {
                result.add(element.apply(texts.get(i)));
            } catch (Unfit unfit) {
                report(value, "[" + i + "]", unfit.getMessage(), quote(texts.get(i)));
                bad = true;
            }
        }
        return bad ? fallback : List.copyOf(result);
    }

    private <T> T requireFallback(ConfigKey key, T fallback, String expected) {
        if (fallback == null) {
            problems.add(sourceName + ": " + key.path() + ": required key is missing (expected " + expected
                    + "; or set " + key.envName() + ")");
        }
        return fallback;
    }

    private Optional<Raw> raw(ConfigKey key) {
        String env = environment.get(key.envName());
        if (env != null) {
            return Optional.of(new Raw(key, null, env));
        }
        JsonNode section = root;
        for (String part : key.section().split("\\.")) {
            section = section == null || !section.isObject() ? null : section.get(part);
        }
        if (section == null || !section.isObject()) {
            return Optional.empty();
        }
        JsonNode node = section.get(key.name());
        return Optional.ofNullable(node).map(n -> new Raw(key, n, null));
    }

    private void report(Raw value, String expected) {
        String got = value.fromEnvironment() ? quote(value.envText()) : describe(value.node());
        report(value, "", expected, got);
    }

    private void report(Raw value, String suffix, String expected, String got) {
        problems.add(location(value.key(), suffix, value.fromEnvironment()) + ": expected " + expected
                + ", got " + got);
    }

    private String location(ConfigKey key, String suffix, boolean fromEnvironment) {
        String where = sourceName + ": " + key.path() + suffix;
        return fromEnvironment ? where + " (from environment variable " + key.envName() + ")" : where;
    }

    private String hostText(String text) throws Unfit {
        if (text.isEmpty() || text.chars().anyMatch(c -> Character.isWhitespace(c) || c == '/')
                || text.contains("://")) {
            throw new Unfit("a host name or IP address (no scheme, port or spaces)");
        }
        return text;
    }

    private static int intInRange(String text, int min, int max, String expected) throws Unfit {
        long value;
        try {
            value = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new Unfit(expected);
        }
        if (value < min || value > max) {
            throw new Unfit(expected);
        }
        return (int) value;
    }

    private static Long byteSizeText(String text) throws Unfit {
        Matcher matcher = BYTE_SIZE.matcher(text);
        if (!matcher.matches()) {
            throw new Unfit(BYTE_SIZE_EXPECTED);
        }
        int shift = matcher.group(2) == null ? 0 : switch (matcher.group(2)) {
            case "Ki" -> 10;
            case "Mi" -> 20;
            default -> 30;
        };
        long amount = Long.parseLong(matcher.group(1));
        if (amount > Long.MAX_VALUE >> shift) {
            throw new Unfit(BYTE_SIZE_EXPECTED);
        }
        long bytes = amount << shift;
        if (bytes <= 0) {
            throw new Unfit(BYTE_SIZE_EXPECTED + " (zero is not allowed)");
        }
        return bytes;
    }

    private Duration durationText(String text) throws Unfit {
        Matcher matcher = DURATION.matcher(text);
        if (!matcher.matches()) {
            throw new Unfit("a positive duration like 250ms, 5s, 10m or 1h");
        }
        long amount = Long.parseLong(matcher.group(1));
        Function<Long, Duration> unit = switch (matcher.group(2)) {
            case "ms" -> Duration::ofMillis;
            case "s" -> Duration::ofSeconds;
            case "m" -> Duration::ofMinutes;
            default -> Duration::ofHours;
        };
        if (amount == 0) {
            throw new Unfit("a positive duration like 250ms, 5s, 10m or 1h (zero is not allowed)");
        }
        return unit.apply(amount);
    }

    private String endpointText(String text) throws Unfit {
        String expected = "an etcd URL like http://127.0.0.1:2379";
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new Unfit(expected);
        }
        boolean scheme = "http".equals(uri.getScheme()) || "https".equals(uri.getScheme());
        boolean path = uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawPath().equals("/");
        if (!scheme || uri.getHost() == null || uri.getPort() < 1 || uri.getPort() > 65535 || !path
                || uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
            throw new Unfit(expected + " (http or https, host and port, nothing else)");
        }
        return text;
    }

    static String describe(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return "null";
        }
        if (node.isTextual()) {
            return quote(node.asText());
        }
        if (node.isObject()) {
            return "a mapping";
        }
        if (node.isArray()) {
            return node.isEmpty() ? "an empty list" : "a list";
        }
        return node.asText();
    }

    private static String quote(String text) {
        return "\"" + text + "\"";
    }
}
