package io.leasehold.bench.suite;

import io.leasehold.bench.load.ConsumerLoad;
import io.leasehold.bench.load.LoadResult;
import io.leasehold.bench.load.OwnerStallLoad;
import io.leasehold.bench.load.ProducerLoad;
import io.leasehold.bench.load.ProducerWorkload;
import io.leasehold.bench.load.Sizes;
import io.leasehold.bench.load.StallPlan;
import io.leasehold.bench.load.StallResult;
import io.leasehold.bench.load.Timing;
import io.leasehold.bench.load.TopicFiller;
import io.leasehold.bench.process.MachineCpu;
import io.leasehold.bench.process.ProcessStats;
import io.leasehold.bench.report.Comparison;
import io.leasehold.bench.report.Failures;
import io.leasehold.bench.report.Measurement;
import io.leasehold.bench.report.StallComparison;
import io.leasehold.bench.report.Target;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Runs a {@link Plan} against one backend on every {@link ClientPath}. In each round every
 * configuration runs once on each path, the order rotating from round to round so that drift on
 * a shared machine (page cache, JIT, other processes) does not always favour the same path.
 */
public final class SuiteRunner {

    private static final String PRODUCE_TOPIC = "bench-produce";
    private static final String CONSUME_TOPIC = "bench-consume";
    private static final String STALL_TOPIC = "bench-stall";

    private final Plan plan;
    private final CompilerWarmUp compilerWarmUp;
    private final PrintStream progress;

    /**
     * @param compilerWarmUp how long to warm each proxy up before the produce rounds, beyond the
     *                       brief warm-up every suite gets
     */
    public SuiteRunner(Plan plan, CompilerWarmUp compilerWarmUp, PrintStream progress) {
        this.plan = plan;
        this.compilerWarmUp = compilerWarmUp;
        this.progress = progress;
    }

    /** The comparisons measured, the owner-stall runs (null if none), and why the plan stopped early (null if it did not). */
    public record Outcome(List<Comparison> comparisons, StallComparison stall, String failure) {
    }

    /** Runs the plan on {@code paths} (direct first). */
    public Outcome run(Backend backend, List<ClientPath> paths) {
        Session session = new Session(backend, paths);
        List<Comparison> results = new ArrayList<>();
        try {
            runPlan(session, results);
            return new Outcome(results, session.stall, null);
        } catch (RuntimeException e) {
            String failure = Failures.describe(e);
            progress.println("[" + backend.name() + "] suite stopped: " + failure);
            return new Outcome(results, session.stall, failure);
        }
    }

    private void runPlan(Session session, List<Comparison> results) {
        Set<Placement> produceTopics = EnumSet.noneOf(Placement.class);
        concat(plan.scaling(), plan.produce()).forEach(c -> produceTopics.add(c.placement()));
        produceTopics.forEach(p -> session.backend.createTopic(p.topic(PRODUCE_TOPIC), plan.partitions(), p));
        produceTopics.forEach(session::warmUp);
        if (compilerWarmUp.enabled()) {
            session.warmUpCompilers(concat(plan.scaling(), plan.produce()));
        }
        ProducerLoad producers = new ProducerLoad(plan.timing(), plan.producerBuffer());
        for (ProduceCase produce : concat(plan.scaling(), plan.produce())) {
            results.add(session.compare("produce", produce.label(), produce.workload().producers(),
                    bootstrap -> producers.run(bootstrap, produce.placement().topic(PRODUCE_TOPIC), produce.workload())));
        }
        for (ProduceCase produce : plan.halfSaturation()) {
            runHalfSaturation(session, results, producers, produce);
        }
        for (Placement placement : plan.consume()) {
            String topic = placement.topic(CONSUME_TOPIC);
            long records = plan.consumeBytes() / plan.consumeRecordSize();
            session.backend.createTopic(topic, plan.partitions(), placement);
            progress.println("[" + session.backend.name() + "] filling " + topic + " with " + records + " records of "
                    + Sizes.label(plan.consumeRecordSize()));
            new TopicFiller().fill(session.backend.directBootstrap(), topic, records, plan.consumeRecordSize());
            ConsumerLoad consumer = new ConsumerLoad(plan.timing(), plan.consumeTimeLimit());
            results.add(session.compare("consume", Sizes.label(plan.consumeRecordSize()) + " x1 consumer"
                    + placement.labelSuffix(), 1, bootstrap -> consumer.run(bootstrap, topic)));
        }
        if (plan.stall() != null) {
            session.backend.stallableOwner().ifPresentOrElse(owner -> runStall(session, owner, plan.stall()),
                    () -> progress.println("[" + session.backend.name() + "] no owner can be stopped: stall skipped"));
        }
    }

    private void runHalfSaturation(Session session, List<Comparison> results, ProducerLoad producers,
            ProduceCase produce) {
        String topic = produce.placement().topic(PRODUCE_TOPIC);
        double max = directMaximum(results, produce)
                .orElseGet(() -> session.compare("produce", produce.label(), produce.workload().producers(),
                        bootstrap -> producers.run(bootstrap, topic, produce.workload())))
                .recordsPerSecond(Target.DIRECT).median();
        if (Double.isNaN(max)) {
            progress.println("[" + session.backend.name() + "] no direct maximum for " + produce.label()
                    + ": half-saturation run skipped");
            return;
        }
        // Half of saturation, and a light load (a twentieth) where the machine has idle cores, so
        // that queueing for CPU does not hide what a proxy adds.
        for (double share : new double[] {0.5, 0.05}) {
            ProduceCase limited = produce.atRate(max * share);
            results.add(session.compare("produce-rate-limited", limited.label(), limited.workload().producers(),
                    bootstrap -> producers.run(bootstrap, topic, limited.workload())));
        }
    }

    private void runStall(Session session, Backend.StallableOwner owner, StallPlan stall) {
        String topic = Placement.SPREAD.topic(STALL_TOPIC);
        session.backend.createTopic(topic, plan.partitions(), Placement.SPREAD);
        Set<Integer> owned = new HashSet<>(owner.ownedPartitions(topic));
        session.stall = StallComparison.of(String.format(Locale.ROOT,
                "broker %d (partitions %s of %d) SIGSTOPped for %d s after %d s warm-up and a %d s before-window; "
                        + "%d producers at %d records/s in total, %s each, acks=1, and one consumer, all partitions",
                owner.brokerId(), owned.stream().sorted().toList(), plan.partitions(), stall.stall().toSeconds(),
                stall.warmup().toSeconds(), stall.before().toSeconds(), stall.producers(), stall.recordsPerSecond(),
                Sizes.label(stall.recordBytes())));
        OwnerStallLoad load = new OwnerStallLoad(stall);
        OwnerStallLoad.Owner frozen = new OwnerStallLoad.Owner() {
            @Override
            public void pause() {
                progress.println("[" + session.backend.name() + "] SIGSTOP broker " + owner.brokerId());
                owner.pause();
            }

            @Override
            public void resume() {
                owner.resume();
                progress.println("[" + session.backend.name() + "] SIGCONT broker " + owner.brokerId());
            }
        };
        // Stopping the benchmark mid-stall kills the stopped broker with the rest (ChildProcessStopper).
        for (int round = 1; round <= stall.rounds(); round++) {
            for (ClientPath path : session.order(round)) {
                session.stall = session.stall.with(stallRun(session, path, round, topic, owned, load, frozen));
                owner.awaitRecovered();
            }
        }
    }

    private StallComparison.Run stallRun(Session session, ClientPath path, int round, String topic, Set<Integer> owned,
            OwnerStallLoad load, OwnerStallLoad.Owner owner) {
        String prefix = String.format(Locale.ROOT, "[%s] owner stall round %d %-15s ", session.backend.name(), round,
                path.target().label());
        if (path.unavailable() != null) {
            progress.println(prefix + "FAILED: " + path.unavailable());
            return new StallComparison.Run(path.target(), round, null, path.unavailable());
        }
        try {
            StallResult r = load.run(path.bootstrap(), topic, plan.partitions(), owned, owner);
            progress.println(prefix + String.format(Locale.ROOT,
                    "produce %.0f -> %.0f rec/s (%.2f), consume %.0f -> %.0f rec/s (%.2f), stopped owner %.0f rec/s, errors %d",
                    r.produceBefore(), r.produceDuring(), r.produceKept(), r.consumeBefore(), r.consumeDuring(),
                    r.consumeKept(), r.stalledOwnerProduceDuring(), r.errors()));
            return new StallComparison.Run(path.target(), round, r, null);
        } catch (RuntimeException e) {
            progress.println(prefix + "FAILED: " + Failures.describe(e));
            return new StallComparison.Run(path.target(), round, null, Failures.describe(e));
        }
    }

    private static Optional<Comparison> directMaximum(List<Comparison> results, ProduceCase produce) {
        return results.stream().filter(c -> c.kind().equals("produce") && c.label().equals(produce.label()))
                .filter(c -> !c.recordsPerSecond(Target.DIRECT).isEmpty()).findFirst();
    }

    private static List<ProduceCase> concat(List<ProduceCase> first, List<ProduceCase> second) {
        List<ProduceCase> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }

    /** One backend and its client paths, with the proxies' process statistics. */
    private final class Session {
        private final Backend backend;
        private final List<ClientPath> paths;
        private StallComparison stall;

        Session(Backend backend, List<ClientPath> paths) {
            this.backend = backend;
            this.paths = List.copyOf(paths);
        }

        /** The paths rotated by the round number, so each path takes each place in the order in turn. */
        List<ClientPath> order(int round) {
            List<ClientPath> rotated = new ArrayList<>();
            for (int i = 0; i < paths.size(); i++) {
                rotated.add(paths.get((i + round - 1) % paths.size()));
            }
            return rotated;
        }

        /** A few seconds of traffic on every path, not recorded, so the first measured round is not the JIT's. */
        void warmUp(Placement placement) {
            ProducerLoad load = new ProducerLoad(new Timing(Duration.ZERO, Duration.ofSeconds(2)), plan.producerBuffer());
            ProducerWorkload workload = new ProducerWorkload(2, 1024, "1", 5, 0);
            for (ClientPath path : paths) {
                if (path.unavailable() != null) {
                    continue;
                }
                try {
                    load.run(path.bootstrap(), placement.topic(PRODUCE_TOPIC), workload);
                } catch (RuntimeException e) {
                    progress.println("[" + backend.name() + "] warm-up " + path.target().label() + " failed: " + e);
                }
            }
        }

        /**
         * Passes of the produce cases on every proxy until its compiler settles (see
         * {@link CompilerWarmUp}); direct gets one pass, which warms the brokers and this JVM's clients.
         */
        void warmUpCompilers(List<ProduceCase> cases) {
            ProducerLoad load = new ProducerLoad(new Timing(Duration.ZERO, CompilerWarmUp.RUN_PER_WORKLOAD),
                    plan.producerBuffer());
            for (ClientPath path : paths) {
                if (path.unavailable() != null) {
                    continue;
                }
                Runnable pass = () -> cases.forEach(c ->
                        load.run(path.bootstrap(), c.placement().topic(PRODUCE_TOPIC), c.workload()));
                try {
                    if (path.proxy().isEmpty()) {
                        pass.run();
                    } else {
                        progress.println("[" + backend.name() + "] warm-up " + path.target().label() + ": "
                                + compilerWarmUp.untilSettled(path.proxy().get().pid(), pass));
                    }
                } catch (RuntimeException e) {
                    progress.println("[" + backend.name() + "] warm-up " + path.target().label() + " failed: "
                            + Failures.describe(e));
                }
            }
        }

        Comparison compare(String kind, String label, int clients, Function<String, LoadResult> load) {
            Comparison comparison = new Comparison(backend.name(), kind, label, clients);
            for (int round = 1; round <= plan.rounds(); round++) {
                for (ClientPath path : order(round)) {
                    Measurement measurement = measure(path, round, load);
                    comparison.add(measurement);
                    progress.println(describe(kind, label, measurement));
                }
            }
            requireDirectProgress(comparison);
            return comparison;
        }

        /**
         * Stops the suite when the backend itself moved nothing: every further configuration would
         * only wait out its timeouts, and there is no baseline to compare the proxies with.
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

        private Measurement measure(ClientPath path, int round, Function<String, LoadResult> load) {
            if (path.unavailable() != null) {
                return Measurement.failed(path.target(), round, path.unavailable());
            }
            if (path.proxy().isPresent() && !path.proxy().get().isAlive()) {
                return Measurement.failed(path.target(), round, path.target().label() + " process is not running");
            }
            Optional<ProcessStats> proxyStats = path.proxy().map(p -> new ProcessStats(p.pid()));
            double brokerCpuBefore = brokerCpuSeconds();
            MachineCpu machineBefore = MachineCpu.read();
            Optional<ProcessStats.Sample> before = proxyStats.map(ProcessStats::sample);
            try {
                LoadResult result = load.apply(path.bootstrap());
                Optional<ProcessStats.Sample> after = proxyStats.map(ProcessStats::sample);
                double proxyCpu = after.isPresent() ? after.get().cpuSecondsSince(before.orElseThrow()) : 0;
                long proxyRss = after.map(ProcessStats.Sample::rssBytes).orElse(0L);
                return new Measurement(path.target(), round, result, proxyCpu, proxyRss,
                        brokerCpuSeconds() - brokerCpuBefore, MachineCpu.read().since(machineBefore), null);
            } catch (RuntimeException e) {
                return Measurement.failed(path.target(), round, Failures.describe(e));
            }
        }

        private double brokerCpuSeconds() {
            return backend.pids().stream().mapToDouble(pid -> new ProcessStats(pid).sample().cpuSeconds()).sum();
        }

        private String describe(String kind, String label, Measurement m) {
            String prefix = String.format(Locale.ROOT, "[%s] %s %s round %d %-15s ", backend.name(), kind, label,
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
            if (m.target().isProxy()) {
                line += String.format(Locale.ROOT, "  proxy cpu %.1f s", m.proxyCpuSeconds());
            }
            return prefix + line + (r.errors() > 0 ? "  errors " + r.errors() + ", first: " + r.firstError() : "");
        }
    }
}
