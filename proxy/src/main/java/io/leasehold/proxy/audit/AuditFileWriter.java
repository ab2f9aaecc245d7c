package io.leasehold.proxy.audit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Counter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes audit events as JSON lines, one object per line, from a thread of its own. Callers
 * only {@code offer} to a bounded queue, so a slow or stuck destination never holds up a client:
 * when the queue is full the event is dropped and counted in {@code dropped}. The stream is
 * flushed after every batch the writer takes from the queue, so lines reach the file promptly.
 */
public final class AuditFileWriter implements AuditLog, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AuditFileWriter.class);
    private static final int BATCH = 256;

    private final BlockingQueue<AuditEvent> queue;
    private final OutputStream out;
    private final Counter written;
    private final Counter dropped;
    private final ObjectMapper json = new ObjectMapper();
    private final Thread writer;
    private volatile boolean closing;

    /**
     * @param out      where lines go (a file, or standard output); closed by {@link #close()}
     * @param capacity events that may wait to be written before new ones are dropped
     * @param written  counts lines written and flushed to {@code out}
     * @param dropped  counts events dropped because the queue was full
     */
    public AuditFileWriter(OutputStream out, int capacity, Counter written, Counter dropped) {
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.out = out;
        this.written = written;
        this.dropped = dropped;
        this.writer = new Thread(this::writeUntilClosed, "leasehold-audit-writer");
        writer.setDaemon(true);
        writer.start();
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public void record(AuditEvent event) {
        if (!queue.offer(event)) {
            dropped.increment();
        }
    }

    /** Writes what is queued, then stops the writer and closes the stream. */
    @Override
    public void close() {
        closing = true;
        try {
            writer.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void writeUntilClosed() {
        List<AuditEvent> batch = new ArrayList<>(BATCH);
        try {
            while (!closing || !queue.isEmpty()) {
                AuditEvent first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, BATCH - 1);
                for (AuditEvent event : batch) {
                    out.write(line(event));
                }
                out.flush();
                written.increment(batch.size());
                batch.clear();
            }
        } catch (IOException e) {
            LOG.error("The audit log can no longer be written ({}); audit events are dropped from now on", e.toString());
            closing = true;
            // Nothing drains the queue now: further events are dropped and counted.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly();
        }
    }

    private byte[] line(AuditEvent event) throws IOException {
        ObjectNode node = json.createObjectNode();
        node.put("time", DateTimeFormatter.ISO_INSTANT.format(event.time()));
        node.put("principal", event.principal());
        node.put("clientAddress", event.clientAddress());
        node.put("clientId", event.clientId());
        node.put("api", event.api());
        node.put("operation", event.operation());
        node.put("resourceType", event.resourceType());
        node.put("resourceName", event.resourceName());
        node.put("decision", event.decision().name());
        // One write per line, newline included, so lines on standard output are not split by other output.
        return (json.writeValueAsString(node) + '\n').getBytes(StandardCharsets.UTF_8);
    }

    private void closeQuietly() {
        try {
            out.close();
        } catch (IOException e) {
            LOG.warn("Closing the audit log failed: {}", e.toString());
        }
    }
}
