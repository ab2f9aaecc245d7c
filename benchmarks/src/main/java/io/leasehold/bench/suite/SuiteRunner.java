package io.leasehold.bench.suite;

import io.leasehold.bench.cluster.ProxyInstance;
import io.leasehold.bench.load.ConsumerLoad;
import io.leasehold.bench.load.LoadResult;
import io.leasehold.bench.load.ProducerLoad;
import io.leasehold.bench.load.ProducerWorkload;
import io.leasehold.bench.load.Sizes;
import io.leasehold.bench.load.Timing;
import io.leasehold.bench.load.TopicFiller;
import io.leasehold.bench.process.MachineCpu;
import io.leasehold.bench.process.ProcessStats;
import io.leasehold.bench.report.Comparison;
import io.leasehold.bench.report.Failures;
import io.leasehold.bench.report.Measurement;
import io.leasehold.bench.report.Target;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Runs a {@link Plan} against one backend and one proxy. Every configuration runs direct and
 * through the proxy in each round, the order alternating between rounds so that drift on a
 * shared machine (page cache, JIT, other processes) does not always favour the same side.
 */
public final class SuiteRunner {

    private static final String PRODUCE_TOPIC = "bench-produce";
    private static final String CONSUME_TOPIC = "bench-consume";

    private final Plan plan;
    private final PrintStream progress;

    public SuiteRunner(Plan plan, PrintStream progress) {
        this.plan = plan;
        this.progress = progress;
    }

    /**
     * Runs the plan. With no proxy (it could not start) the direct runs still happen, and every
     * proxy run is recorded as failed with {@code whyNoProxy}, so the report shows the baseline and
     * says exactly what is missing.
     */
    public Outcome run(Backend backend, Optional<ProxyInstance> proxy, String whyNoProxy) {
        List<Comparison> results = new ArrayList<>();
        try {
            runPlan(new Session(backend, proxy, whyNoProxy), backend, results);
            return new Outcome(results, null);
        } catch (RuntimeException e) {
            String failure = Failures.describe(e);
            progress.println("[" + backend.name() + "] suite stopped: " + failure);
            return new Outcome(results, failure);
        }
    }

    /** The comparisons measured, and why the plan stopped early (null if it did not). */
    public record Outcome(List<Comparison> comparisons, String failure) {
    }

    private void runPlan(Session session, Backend backend, List<Comparison> results) {
        backend.createTopic(PRODUCE_TOPIC, plan.partitions());
        session.warmUp();
        ProducerLoad producers = new ProducerLoad(plan.timing(), plan.producerBuffer());
        for (ProducerWorkload workload : concat(plan.scaling(), plan.produce())) {
            results.add(session.compare("produce", workload.label(), workload.producers(),
                    bootstrap -> producers.run(bootstrap, PRODUCE_TOPIC, workload)));
        }
        for (ProducerWorkload workload : plan.halfSaturation()) {
            double max = directMaximum(results, workload)
                    .orElseGet(() -> session.compare("produce", workload.label(), workload.producers(),
                            bootstrap -> producers.run(bootstrap, PRODUCE_TOPIC, workload)))
                    .recordsPerSecond(Target.DIRECT).median();
            if (Double.isNaN(max)) {
                progress.println("[" + backend.name() + "] no direct maximum for " + workload.label()
                        + ": half-saturation run skipped");
                continue;
            }
            // Half of saturation as the issue asks, and a light load (a twentieth) where the
            // machine has idle cores, so that queueing for CPU does not hide what the proxy adds.
            for (double share : new double[] {0.5, 0.05}) {
                ProducerWorkload limited = workload.atRate(max * share);
                results.add(session.compare("produce-rate-limited", limited.label(), limited.producers(),
                        bootstrap -> producers.run(bootstrap, PRODUCE_TOPIC, limited)));
            }
        }
        if (plan.consumeRecordSize() > 0) {
            long records = plan.consumeBytes() / plan.consumeRecordSize();
            backend.createTopic(CONSUME_TOPIC, plan.partitions());
            progress.println("[" + backend.name() + "] filling " + CONSUME_TOPIC + " with " + records + " records of "
                    + Sizes.label(plan.consumeRecordSize()));
            new TopicFiller().fill(backend.directBootstrap(), CONSUME_TOPIC, records, plan.consumeRecordSize());
            ConsumerLoad consumer = new ConsumerLoad(plan.timing(), plan.consumeTimeLimit());
            results.add(session.compare("consume", Sizes.label(plan.consumeRecordSize()) + " x1 consumer", 1,
                    bootstrap -> consumer.run(bootstrap, CONSUME_TOPIC)));
        }
    }

    private static Optional<Comparison> directMaximum(List<Comparison> results, ProducerWorkload workload) {
        return results.stream().filter(c -> c.kind().equals("produce") && c.label().equals(workload.label()))
                .filter(c -> !c.recordsPerSecond(Target.DIRECT).isEmpty()).findFirst();
    }

    private static List<ProducerWorkload> concat(List<ProducerWorkload> first, List<ProducerWorkload> second) {
        List<ProducerWorkload> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }

    /** One backend and one proxy, with the proxy's process statistics. */
    private final class Session {
        private final Backend backend;
        private final Optional<ProxyInstance> proxy;
        private final String whyNoProxy;
        private final Optional<ProcessStats> proxyStats;

        Session(Backend backend, Optional<ProxyInstance> proxy, String whyNoProxy) {
            this.backend = backend;
            this.proxy = proxy;
            this.whyNoProxy = whyNoProxy;
            this.proxyStats = proxy.map(p -> new ProcessStats(p.pid()));
        }

        /** A few seconds of traffic on both paths, not recorded, so the first measured round is not the JIT's. */
        void warmUp() {
            ProducerLoad load = new ProducerLoad(new Timing(Duration.ZERO, Duration.ofSeconds(3)), plan.producerBuffer());
            ProducerWorkload workload = new ProducerWorkload(2, 1024, "1", 5, 0);
            for (Target target : Target.values()) {
                if (target == Target.PROXY && proxy.isEmpty()) {
                    continue;
                }
                try {
                    load.run(bootstrap(target), PRODUCE_TOPIC, workload);
                } catch (RuntimeException e) {
                    progress.println("[" + backend.name() + "] warm-up " + target.label() + " failed: " + e);
                }
            }
        }

        Comparison compare(String kind, String label, int clients, Function<String, LoadResult> load) {
            Comparison comparison = new Comparison(backend.name(), kind, label, clients);
            for (int round = 1; round <= plan.rounds(); round++) {
                List<Target> order = round % 2 == 1 ? List.of(Target.DIRECT, Target.PROXY)
                        : List.of(Target.PROXY, Target.DIRECT);
                for (Target target : order) {
                    Measurement measurement = measure(target, round, load);
                    comparison.add(measurement);
                    progress.println(describe(kind, label, measurement));
                }
            }
            requireDirectProgress(comparison);
            return comparison;
        }

        /**
         * Stops the suite when the backend itself moved nothing: every further configuration would
         * only wait out its timeouts, and there is no baseline to compare the proxy with.
         */
        private void requireDirectProgress(Comparison comparison) {
            List<Measurement> direct = comparison.measurements().stream()
                    .filter(m -> m.target() == Target.DIRECT).toList();
            if (direct.stream().noneMatch(m -> m.succeeded() && m.result().records() > 0)) {
                String why = direct.stream().map(m -> m.succeeded() ? m.result().firstError() : m.failure())
                        .filter(reason -> reason != null).findFirst().orElse("no records acknowledged");
                throw new IllegalStateException("the " + backend.name() + " backend moved no records directly in "
                        + comparison.label() + ": " + why);
            }
        }

        private Measurement measure(Target target, int round, Function<String, LoadResult> load) {
            if (target == Target.PROXY && proxy.isEmpty()) {
                return Measurement.failed(target, round, whyNoProxy);
            }
            if (proxy.isPresent() && !proxy.get().isAlive()) {
                return Measurement.failed(target, round, "proxy process is not running");
            }
            double brokerCpuBefore = brokerCpuSeconds();
            MachineCpu machineBefore = MachineCpu.read();
            Optional<ProcessStats.Sample> before = proxyStats.map(ProcessStats::sample);
            try {
                LoadResult result = load.apply(bootstrap(target));
                Optional<ProcessStats.Sample> after = proxyStats.map(ProcessStats::sample);
                double proxyCpu = after.isPresent() ? after.get().cpuSecondsSince(before.orElseThrow()) : 0;
                long proxyRss = after.map(ProcessStats.Sample::rssBytes).orElse(0L);
                return new Measurement(target, round, result, proxyCpu, proxyRss, brokerCpuSeconds() - brokerCpuBefore,
                        MachineCpu.read().since(machineBefore), null);
            } catch (RuntimeException e) {
                return Measurement.failed(target, round, Failures.describe(e));
            }
        }

        private double brokerCpuSeconds() {
            return backend.pids().stream().mapToDouble(pid -> new ProcessStats(pid).sample().cpuSeconds()).sum();
        }

        private String bootstrap(Target target) {
            return target == Target.DIRECT ? backend.directBootstrap() : proxy.orElseThrow().bootstrap();
        }

        private String describe(String kind, String label, Measurement m) {
            String prefix = String.format(Locale.ROOT, "[%s] %s %s round %d %-6s ", backend.name(), kind, label,
                    m.round(), m.target().label());
            if (!m.succeeded()) {
                return prefix + "FAILED: " + m.failure();
            }
            LoadResult r = m.result();
            String line = String.format(Locale.ROOT, "%8.1f MB/s %9.0f rec/s", r.megabytesPerSecond(), r.recordsPerSecond());
            if (r.hasLatency()) {
                line += String.format(Locale.ROOT, "  p50 %.2f p99 %.2f p99.9 %.2f ms", r.latencyMillis(50),
                        r.latencyMillis(99), r.latencyMillis(99.9));
            }
            if (m.target() == Target.PROXY) {
                line += String.format(Locale.ROOT, "  proxy cpu %.1f s", m.proxyCpuSeconds());
            }
            return prefix + line + (r.errors() > 0 ? "  errors " + r.errors() + ", first: " + r.firstError() : "");
        }
    }

}
