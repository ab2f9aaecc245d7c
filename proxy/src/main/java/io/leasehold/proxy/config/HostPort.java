package io.leasehold.proxy.config;

/**
 * A network address as written in configuration: {@code host:port}, or {@code [v6addr]:port}
 * for IPv6 literals.
 */
public record HostPort(String host, int port) {

    public HostPort {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host must not be empty");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1..65535, got " + port);
        }
    }

    /**
     * Parses {@code host:port} or {@code [ipv6]:port}.
     *
     * @throws IllegalArgumentException with a message saying what is wrong with {@code text}
     */
    public static HostPort parse(String text) {
        String trimmed = text.strip();
        String host;
        String portText;
        if (trimmed.startsWith("[")) {
            int close = trimmed.indexOf(']');
            if (close < 0 || close + 1 >= trimmed.length() || trimmed.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("expected [ipv6]:port, got \"" + text + "\"");
            }
            host = trimmed.substring(1, close);
            portText = trimmed.substring(close + 2);
        } else {
            int colon = trimmed.lastIndexOf(':');
            if (colon <= 0 || trimmed.indexOf(':') != colon) {
                throw new IllegalArgumentException("expected host:port, got \"" + text + "\"");
            }
            host = trimmed.substring(0, colon);
            portText = trimmed.substring(colon + 1);
        }
        if (host.isEmpty() || host.chars().anyMatch(c -> Character.isWhitespace(c) || c == '/')) {
            throw new IllegalArgumentException("expected host:port with a valid host, got \"" + text + "\"");
        }
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected host:port with a numeric port, got \"" + text + "\"");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("expected host:port with port 1..65535, got \"" + text + "\"");
        }
        return new HostPort(host, port);
    }

    /** The form {@link #parse} accepts; IPv6 literals get brackets. */
    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
