package io.leasehold.proxy.config;

import java.util.List;

/**
 * The configuration could not be used. Carries every problem found, each naming the source
 * (file or environment variable), the key path and what was wrong, e.g.
 * {@code config.yaml: listener.port: expected an integer 0..65535, got "abc"}.
 */
public final class ConfigException extends Exception {

    private final List<String> problems;

    public ConfigException(List<String> problems) {
        super(String.join(System.lineSeparator(), problems));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one problem");
        }
        this.problems = List.copyOf(problems);
    }

    /** One line per problem, in the order found. */
    public List<String> problems() {
        return problems;
    }
}
