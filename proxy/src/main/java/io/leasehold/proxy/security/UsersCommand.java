package io.leasehold.proxy.security;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.apache.kafka.common.security.scram.ScramCredential;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code leasehold-proxy users add NAME}: reads a password from standard input and prints a
 * users-file entry holding only SCRAM credentials for it (fresh salt, SCRAM-SHA-256 and -512),
 * ready to append to the {@code users:} list. The password itself is never printed.
 */
@Command(name = "users", mixinStandardHelpOptions = true,
        description = "Write entries of the users file (listener.sasl.usersFile).")
public final class UsersCommand {
    /** Users-file names are printed unquoted in YAML, so they are kept to safe characters. */
    private static final String NAME_PATTERN = "[A-Za-z0-9._@-]+";

    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;

    public UsersCommand(InputStream in, PrintStream out, PrintStream err) {
        this.in = in;
        this.out = out;
        this.err = err;
    }

    /** Runs {@code users add NAME}; returns the process exit code. */
    @Command(name = "add", mixinStandardHelpOptions = true,
            description = {"Read a password from standard input and print the users-file entry for NAME "
                    + "(SCRAM-SHA-256 and SCRAM-SHA-512 credentials with a fresh salt; never the password), "
                    + "to append to the users: list.",
                    "e.g. printf %%s \"$PASSWORD\" | leasehold-proxy users add alice >> users.yaml"})
    public int add(@Parameters(paramLabel = "NAME", description = "the user name: letters, digits, . _ @ -")
                   String name) throws IOException {
        if (!name.matches(NAME_PATTERN)) {
            err.println("leasehold-proxy users add: user name '" + name + "' must match " + NAME_PATTERN);
            return 2;
        }
        String password = withoutLineEnd(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        if (password.isEmpty()) {
            err.println("leasehold-proxy users add: no password on standard input");
            return 2;
        }
        StringBuilder entry = new StringBuilder("- name: ").append(name).append('\n');
        UsersFileParser.SCRAM_KEYS.entrySet().stream().sorted(Map.Entry.comparingByValue()).forEach(e -> {
            ScramCredential credential = UsersFileParser.derive(e.getKey(), password);
            entry.append("  ").append(e.getValue()).append(":\n")
                    .append("    salt: ").append(base64(credential.salt())).append('\n')
                    .append("    storedKey: ").append(base64(credential.storedKey())).append('\n')
                    .append("    serverKey: ").append(base64(credential.serverKey())).append('\n')
                    .append("    iterations: ").append(credential.iterations()).append('\n');
        });
        out.print(entry);
        out.flush();
        return 0;
    }

    /** A password piped from a file or {@code echo} ends with one line end that is not part of it. */
    private static String withoutLineEnd(String text) {
        if (text.endsWith("\r\n")) {
            return text.substring(0, text.length() - 2);
        }
        return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    }

    private static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }
}
