package io.leasehold.proxy.audit;

import io.leasehold.proxy.config.ProxyConfig;
import java.io.BufferedOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Opens where {@code audit.file} says the audit lines go: a file appended to, or standard output. */
public final class AuditDestination {
    private AuditDestination() {
    }

    /**
     * The stream for {@code file}: standard output for {@code -} (left open when the stream is
     * closed, since the process still writes to it), otherwise the file, created if missing and
     * appended to, so a restart keeps the earlier lines.
     */
    public static OutputStream open(String file) throws IOException {
        if (ProxyConfig.Audit.STANDARD_OUTPUT.equals(file)) {
            return new FilterOutputStream(System.out) {
                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                }

                @Override
                public void close() throws IOException {
                    flush();
                }
            };
        }
        return new BufferedOutputStream(Files.newOutputStream(Path.of(file), StandardOpenOption.CREATE,
                StandardOpenOption.APPEND, StandardOpenOption.WRITE));
    }
}
