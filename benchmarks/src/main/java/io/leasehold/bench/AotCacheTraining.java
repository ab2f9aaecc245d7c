package io.leasehold.bench;

import io.leasehold.bench.cluster.LaunchedProxy;
import io.leasehold.bench.load.LoadResult;
import io.leasehold.bench.load.ProducerLoad;
import io.leasehold.bench.load.ProducerWorkload;
import io.leasehold.bench.load.Timing;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Writes a JDK 25 ahead-of-time cache for a proxy from one training run: the proxy is started
 * with {@code -XX:AOTCacheOutput}, carries the measured workload for a while and is stopped; at
 * exit the JVM stores the classes it loaded and linked and the method profiles it gathered
 * (JEPs 483, 514 and 515). A proxy started with {@code -XX:AOTCache} then begins with both, so
 * the compiler can go to optimized code without first profiling under traffic — what a fresh
 * start otherwise spends its first minute on.
 */
final class AotCacheTraining {

    /** How long the JVM may take to exit after SIGTERM: it writes the cache, in a second JVM, as it exits. */
    private static final Duration WRITE_TIMEOUT = Duration.ofMinutes(5);

    private final Duration duration;
    private final ProducerWorkload workload;
    private final String topic;
    private final int bufferBytes;
    private final PrintStream out;

    /** @param duration how long the training run carries the workload */
    AotCacheTraining(Duration duration, ProducerWorkload workload, String topic, int bufferBytes, PrintStream out) {
        this.duration = duration;
        this.workload = workload;
        this.topic = topic;
        this.bufferBytes = bufferBytes;
        this.out = out;
    }

    /**
     * Trains a proxy started by {@code start} (given the extra JVM options) and returns the
     * options that start it with the cache written to {@code cache}, or not at all.
     *
     * @throws IllegalStateException if the JVM wrote no cache (a runtime older than JDK 25 refuses the flag at start)
     */
    List<String> train(Function<List<String>, LaunchedProxy> start, Path cache) {
        deleteIfPresent(cache);
        long started = System.nanoTime();
        // The JVM's log goes to stderr: stdout is closed once the proxy is told to stop, while the cache is written.
        LaunchedProxy proxy = start.apply(List.of("-XX:AOTCacheOutput=" + cache.toAbsolutePath(), "-Xlog:disable",
                "-Xlog:all=warning:stderr", "-Xlog:aot=info:stderr"));
        try {
            LoadResult result = new ProducerLoad(new Timing(Duration.ZERO, duration), bufferBytes)
                    .run(proxy.bootstrap(), topic, workload);
            out.printf(Locale.ROOT, "AOT cache training: %s for %d s, %.1f MB/s, errors %d%n", workload.label(),
                    duration.toSeconds(), result.megabytesPerSecond(), result.errors());
        } finally {
            proxy.close(WRITE_TIMEOUT);
        }
        if (!Files.isRegularFile(cache)) {
            throw new IllegalStateException("the training run wrote no AOT cache at " + cache
                    + "; its log in the bench log directory says why");
        }
        out.printf(Locale.ROOT, "AOT cache: %s, %.1f MiB, training and writing took %.0f s%n", cache,
                size(cache) / 1048576.0, (System.nanoTime() - started) / 1e9);
        // AOTMode=on: a JVM that cannot use the cache fails to start instead of running without it unnoticed.
        return List.of("-XX:AOTCache=" + cache.toAbsolutePath(), "-XX:AOTMode=on");
    }

    private static void deleteIfPresent(Path cache) {
        try {
            Files.deleteIfExists(cache);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the previous AOT cache " + cache, e);
        }
    }

    private static long size(Path cache) {
        try {
            return Files.size(cache);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the size of " + cache, e);
        }
    }
}
