package io.leasehold.proxy.logging;

/**
 * Makes a client-supplied string (client id, topic, group or user name) safe to put in a log
 * line: control and other non-printable characters become {@code \xNN} (or a backslash-u escape),
 * so a client cannot start a forged line, and long values are cut so a client cannot flood the log.
 */
public final class ClientText {

    /** Characters of the client's string kept before the cut. */
    public static final int MAX_CHARS = 128;

    private ClientText() {
    }

    /** The escaped, possibly shortened form of {@code value}; {@code "null"} for null. */
    public static String escape(String value) {
        if (value == null) {
            return "null";
        }
        int kept = Math.min(value.length(), MAX_CHARS);
        StringBuilder out = new StringBuilder(kept + 16);
        for (int i = 0; i < kept; i++) {
            char c = value.charAt(i);
            if (c == '\\') {
                out.append("\\\\");
            } else if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\x%02x", (int) c));
            } else if (Character.isISOControl(c) || isLineOrFormatBreak(c) || Character.isSurrogate(c)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (value.length() > kept) {
            out.append("...(").append(value.length()).append(" chars)");
        }
        return out.toString();
    }

    /** Unicode line and paragraph separators and invisible format characters (e.g. bidi overrides). */
    private static boolean isLineOrFormatBreak(char c) {
        int type = Character.getType(c);
        return type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
                || type == Character.FORMAT;
    }
}
