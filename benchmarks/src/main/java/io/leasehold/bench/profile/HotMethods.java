package io.leasehold.bench.profile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Summarises a Java Flight Recorder file: which methods the sampled threads were executing
 * (self time) and which packages that time belongs to, as Markdown tables.
 */
public final class HotMethods {

    private static final String EXECUTION_SAMPLE = "jdk.ExecutionSample";

    private final Map<String, Integer> byMethod = new HashMap<>();
    private final Map<String, Integer> byPackage = new HashMap<>();
    private int samples;

    private HotMethods() {
    }

    public static HotMethods read(Path jfrFile) {
        HotMethods hot = new HotMethods();
        try (RecordingFile recording = new RecordingFile(jfrFile)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent event = recording.readEvent();
                if (event.getEventType().getName().equals(EXECUTION_SAMPLE)) {
                    hot.add(event.getStackTrace());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read flight recording " + jfrFile, e);
        }
        return hot;
    }

    public int samples() {
        return samples;
    }

    /** The {@code limit} methods with the most samples on top of the stack. */
    public String methodTable(int limit) {
        return table("method (self)", byMethod, limit);
    }

    /** The {@code limit} packages with the most self samples. */
    public String packageTable(int limit) {
        return table("package (self)", byPackage, limit);
    }

    private void add(RecordedStackTrace stack) {
        if (stack == null || stack.getFrames().isEmpty()) {
            return;
        }
        RecordedFrame top = stack.getFrames().get(0);
        String type = top.getMethod().getType().getName();
        int lastDot = type.lastIndexOf('.');
        samples++;
        byMethod.merge(type + "." + top.getMethod().getName(), 1, Integer::sum);
        byPackage.merge(lastDot < 0 ? "(default)" : type.substring(0, lastDot), 1, Integer::sum);
    }

    private String table(String heading, Map<String, Integer> counts, int limit) {
        StringBuilder out = new StringBuilder("| " + heading + " | samples | share |\n|---|---|---|\n");
        List<Map.Entry<String, Integer>> top = counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(limit).toList();
        for (Map.Entry<String, Integer> entry : top) {
            out.append("| `").append(entry.getKey()).append("` | ").append(entry.getValue()).append(" | ")
                    .append(String.format(Locale.ROOT, "%.1f %%", 100.0 * entry.getValue() / samples)).append(" |\n");
        }
        return out.toString();
    }
}
