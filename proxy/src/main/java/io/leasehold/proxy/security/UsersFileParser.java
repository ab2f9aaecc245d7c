package io.leasehold.proxy.security;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * Reads the users file: {@code users: [{name, password}]} or {@code {name, scramSha256|scramSha512:
 * {salt, storedKey, serverKey, iterations}}} with base64 byte strings, the values Kafka's
 * {@code kafka-configs --add-config SCRAM-SHA-512=[...]} stores. A password also yields SCRAM
 * credentials (fresh salt, {@link #PASSWORD_ITERATIONS} iterations) for the mechanisms not given
 * explicitly. Problems are collected with the file and entry they are in; values never appear.
 */
public final class UsersFileParser {
    /** Iterations for SCRAM credentials derived from a password: Kafka's minimum and default. */
    public static final int PASSWORD_ITERATIONS = 4096;
    /** The users-file key of each SCRAM mechanism's credential. */
    static final Map<ScramMechanism, String> SCRAM_KEYS = Map.of(
            ScramMechanism.SCRAM_SHA_256, "scramSha256",
            ScramMechanism.SCRAM_SHA_512, "scramSha512");
    private static final Set<String> USER_KEYS = Set.of("name", "password", "scramSha256", "scramSha512");
    private static final Set<String> SCRAM_FIELDS = Set.of("salt", "storedKey", "serverKey", "iterations");

    private final YAMLMapper yaml = YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    /**
     * Parses {@code text}; {@code source} names the file in messages.
     *
     * @throws UsersFileException listing every problem found
     */
    public UserDirectory parse(String text, String source) throws UsersFileException {
        JsonNode root;
        try {
            root = yaml.readTree(text);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            // Jackson's own message may quote the offending text, which can be a password: leave it out.
            throw new UsersFileException(List.of(source + ": not valid YAML" + where));
        }
        List<String> problems = new ArrayList<>();
        if (root == null || !root.isObject() || !root.path("users").isArray()) {
            throw new UsersFileException(List.of(source + ": expected a mapping with a list 'users' at the top level"));
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!key.equals("users")) {
                problems.add(source + ": " + key + ": unknown key (known: users)");
            }
        }
        Map<String, UserCredentials> users = new LinkedHashMap<>();
        Set<String> names = new HashSet<>();
        JsonNode list = root.get("users");
        for (int i = 0; i < list.size(); i++) {
            String where = source + ": users[" + i + "]";
            JsonNode name = list.get(i).get("name");
            if (name != null && name.isTextual() && !names.add(name.asText())) {
                problems.add(where + ": user '" + name.asText() + "' is listed twice");
            }
            UserCredentials user = user(list.get(i), where, problems);
            if (user != null) {
                users.putIfAbsent(user.name(), user);
            }
        }
        if (!problems.isEmpty()) {
            throw new UsersFileException(problems);
        }
        return new UserDirectory(users);
    }

    private static UserCredentials user(JsonNode entry, String where, List<String> problems) {
        if (!entry.isObject()) {
            problems.add(where + ": expected a mapping with name and password or scramSha256/scramSha512");
            return null;
        }
        int before = problems.size();
        for (Iterator<String> it = entry.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!USER_KEYS.contains(key)) {
                problems.add(where + "." + key + ": unknown key (known: name, password, scramSha256, scramSha512)");
            }
        }
        JsonNode nameNode = entry.get("name");
        String name = nameNode != null && nameNode.isTextual() ? nameNode.asText() : null;
        if (name == null || name.isBlank()) {
            problems.add(where + ".name: expected a non-empty user name");
        }
        String at = name == null ? where : where + " (" + name + ")";
        JsonNode passwordNode = entry.get("password");
        String password = null;
        if (passwordNode != null) {
            if (!passwordNode.isTextual() || passwordNode.asText().isEmpty()) {
                problems.add(at + ".password: expected a non-empty string");
            } else {
                password = passwordNode.asText();
            }
        }
        Map<ScramMechanism, ScramCredential> scram = new EnumMap<>(ScramMechanism.class);
        SCRAM_KEYS.forEach((mechanism, key) -> {
            JsonNode node = entry.get(key);
            if (node != null) {
                ScramCredential credential = scramCredential(node, mechanism, at + "." + key, problems);
                if (credential != null) {
                    scram.put(mechanism, credential);
                }
            }
        });
        if (passwordNode == null && !entry.has("scramSha256") && !entry.has("scramSha512")) {
            problems.add(at + ": needs a password or SCRAM credentials (scramSha256, scramSha512)");
        }
        if (problems.size() > before) {
            return null;
        }
        if (password != null) {
            for (ScramMechanism mechanism : ScramMechanism.values()) {
                if (!scram.containsKey(mechanism)) {
                    scram.put(mechanism, derive(mechanism, password));
                }
            }
        }
        return new UserCredentials(name, password, scram);
    }

    private static ScramCredential scramCredential(JsonNode node, ScramMechanism mechanism, String where,
                                                   List<String> problems) {
        if (!node.isObject()) {
            problems.add(where + ": expected a mapping with salt, storedKey, serverKey, iterations");
            return null;
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!SCRAM_FIELDS.contains(key)) {
                problems.add(where + "." + key + ": unknown key (known: salt, storedKey, serverKey, iterations)");
            }
        }
        byte[] salt = base64(node, "salt", where, problems);
        byte[] storedKey = base64(node, "storedKey", where, problems);
        byte[] serverKey = base64(node, "serverKey", where, problems);
        JsonNode iterationsNode = node.get("iterations");
        int iterations = 0;
        if (iterationsNode == null || !iterationsNode.canConvertToInt() || !iterationsNode.isIntegralNumber()
                || iterationsNode.asInt() < mechanism.minIterations()
                || iterationsNode.asInt() > mechanism.maxIterations()) {
            problems.add(where + ".iterations: expected a whole number from " + mechanism.minIterations() + " to "
                    + mechanism.maxIterations() + " (" + mechanism.mechanismName() + ")");
        } else {
            iterations = iterationsNode.asInt();
        }
        if (salt == null || storedKey == null || serverKey == null || iterations == 0) {
            return null;
        }
        return new ScramCredential(salt, storedKey, serverKey, iterations);
    }

    private static byte[] base64(JsonNode node, String field, String where, List<String> problems) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isEmpty()) {
            problems.add(where + "." + field + ": expected a base64 string");
            return null;
        }
        try {
            return Base64.getDecoder().decode(value.asText());
        } catch (IllegalArgumentException e) {
            problems.add(where + "." + field + ": not valid base64");
            return null;
        }
    }

    /** SCRAM credentials for {@code password} with a fresh random salt. */
    static ScramCredential derive(ScramMechanism mechanism, String password) {
        try {
            return new ScramFormatter(mechanism).generateCredential(password, PASSWORD_ITERATIONS);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks " + mechanism.hashAlgorithm(), e);
        }
    }
}
