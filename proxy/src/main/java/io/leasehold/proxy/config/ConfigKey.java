package io.leasehold.proxy.config;

import java.util.Locale;
import java.util.Map;

/**
 * One configuration key: a section and a camelCase name, e.g. {@code listener.advertisedHost},
 * whose environment override is {@code LEASEHOLD_LISTENER_ADVERTISED_HOST}. A section may be
 * nested inside another ({@code listener.sasl}); its keys' variables join the parts with '_'
 * ({@code LEASEHOLD_LISTENER_SASL_USERS_FILE}). The exception: {@code logging.level} is
 * {@code LEASEHOLD_LOG_LEVEL}.
 */
record ConfigKey(String section, String name) {

    static final String ENV_PREFIX = "LEASEHOLD_";
    /** Keys whose variable is shorter than the rule gives: the log level is the one operators set by hand most. */
    private static final Map<String, String> SHORT_ENV_NAMES = Map.of("logging.level", ENV_PREFIX + "LOG_LEVEL");

    /** The dotted path used in YAML documentation and error messages. */
    String path() {
        return section + "." + name;
    }

    /** The environment variable that overrides this key. */
    String envName() {
        String shortName = SHORT_ENV_NAMES.get(path());
        if (shortName != null) {
            return shortName;
        }
        return ENV_PREFIX + upperSnake(section).replace('.', '_') + "_" + upperSnake(name);
    }

    private static String upperSnake(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
    }
}
