package io.leasehold.bench.report;

import io.leasehold.bench.load.LoadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * All rounds of one configuration on every path (direct and through each proxy), and the figures
 * derived from them: ratios and added latencies are computed per round (one path's run against
 * the other path's run of the same round), then summarised as median and range.
 */
public final class Comparison {

    private final String suite;
    private final String kind;
    private final String label;
    private final int clients;
    private final List<Measurement> measurements = new ArrayList<>();

    /**
     * @param suite   backend name, e.g. "kafka"
     * @param kind    "produce", "produce-rate-limited" or "consume"
     * @param label   the workload's label
     * @param clients number of producers or consumers (the chart's x axis)
     */
    public Comparison(String suite, String kind, String label, int clients) {
        this.suite = suite;
        this.kind = kind;
        this.label = label;
        this.clients = clients;
    }

    public void add(Measurement measurement) {
        measurements.add(measurement);
    }

    public String suite() {
        return suite;
    }

    public String kind() {
        return kind;
    }

    public String label() {
        return label;
    }

    public int clients() {
        return clients;
    }

    public List<Measurement> measurements() {
        return List.copyOf(measurements);
    }

    /** The paths this configuration was run on, in {@link Target} order. */
    public List<Target> targets() {
        return measurements.stream().map(Measurement::target).distinct().sorted().toList();
    }

    public Spread throughput(Target target) {
        return spread(target, LoadResult::megabytesPerSecond);
    }

    public Spread recordsPerSecond(Target target) {
        return spread(target, LoadResult::recordsPerSecond);
    }

    public Spread latency(Target target, double percentile) {
        return spread(target, r -> r.latencyMillis(percentile));
    }

    /** {@code numerator}'s throughput divided by {@code denominator}'s, per round. */
    public Spread throughputRatio(Target numerator, Target denominator) {
        return perRound(denominator, numerator, (base, other) -> other.megabytesPerSecond() / base.megabytesPerSecond());
    }

    /** {@code proxy}'s latency minus the direct latency at {@code percentile}, per round, in milliseconds. */
    public Spread addedLatency(Target proxy, double percentile) {
        return perRound(Target.DIRECT, proxy,
                (direct, other) -> other.latencyMillis(percentile) - direct.latencyMillis(percentile));
    }

    /** The CPU seconds of {@code proxy}'s process per 10^9 payload bytes moved, over its successful runs. */
    public Optional<Double> proxyCpuSecondsPerGigabyte(Target proxy) {
        return perGigabyte(proxy, Measurement::proxyCpuSeconds);
    }

    /** The brokers' CPU seconds per 10^9 payload bytes in the runs against {@code target}. */
    public Optional<Double> brokerCpuSecondsPerGigabyte(Target target) {
        return perGigabyte(target, Measurement::brokerCpuSeconds);
    }

    /**
     * The whole machine's busy CPU seconds per 10^9 payload bytes in the runs against
     * {@code target}: load generator, brokers and proxy together (and anything else running).
     */
    public Optional<Double> machineCpuSecondsPerGigabyte(Target target) {
        return perGigabyte(target, m -> m.machineCpu().busySeconds());
    }

    /** How busy all cores were during the runs against {@code target}, in percent. */
    public Spread machineBusyPercent(Target target) {
        return Spread.of(successful(target).stream().map(m -> 100 * m.machineCpu().busyFraction()).toList());
    }

    /** Seconds of {@code cpu} per 10^9 payload bytes, over the successful runs against {@code target}. */
    private Optional<Double> perGigabyte(Target target, ToDoubleFunction<Measurement> cpu) {
        double seconds = 0;
        double bytes = 0;
        for (Measurement m : successful(target)) {
            seconds += cpu.applyAsDouble(m);
            bytes += m.result().totalPayloadBytes();
        }
        return bytes == 0 ? Optional.empty() : Optional.of(seconds / (bytes / 1e9));
    }

    public long errors(Target target) {
        return successful(target).stream().mapToLong(m -> m.result().errors()).sum();
    }

    private Spread spread(Target target, ToDoubleFunction<LoadResult> figure) {
        return Spread.of(successful(target).stream().map(m -> figure.applyAsDouble(m.result())).toList());
    }

    private Spread perRound(Target base, Target other, PairFigure figure) {
        List<Double> values = new ArrayList<>();
        for (Measurement measured : successful(other)) {
            successful(base).stream().filter(b -> b.round() == measured.round()).findFirst()
                    .ifPresent(baseline -> values.add(figure.apply(baseline.result(), measured.result())));
        }
        return Spread.of(values);
    }

    private List<Measurement> successful(Target target) {
        return measurements.stream().filter(m -> m.target() == target && m.succeeded()).toList();
    }

    @FunctionalInterface
    private interface PairFigure {
        double apply(LoadResult base, LoadResult other);
    }
}
