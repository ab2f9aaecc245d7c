package io.leasehold.proxy.admin;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;

/**
 * JVM and Netty buffer metrics: heap, GC pauses, threads, CPU, and the off-heap memory Netty's
 * allocators hold (where record bytes live between client and broker sockets).
 */
final class RuntimeMetrics implements AutoCloseable {
    /** The {@code pool} tag of the default allocator's direct memory: client connections and encoding. */
    static final String DEFAULT_POOL = "default";

    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();

    RuntimeMetrics(MeterRegistry registry, ByteBufAllocator allocator) {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
        bindDirectMemory(registry, allocator, DEFAULT_POOL);
        if (allocator instanceof ByteBufAllocatorMetricProvider provider) {
            Gauge.builder("leasehold.netty.heap.memory.used", provider, p -> p.metric().usedHeapMemory())
                    .description("Heap memory held by Netty's buffer allocator")
                    .baseUnit("bytes").strongReference(true).register(registry);
        }
    }

    /**
     * Publishes the direct memory {@code allocator} holds as one series of
     * {@code leasehold.netty.direct.memory.used}, tagged {@code pool}: their sum is what Netty holds
     * off-heap in all. Allocators that keep no metrics are skipped.
     */
    static void bindDirectMemory(MeterRegistry registry, ByteBufAllocator allocator, String pool) {
        if (allocator instanceof ByteBufAllocatorMetricProvider provider) {
            Gauge.builder("leasehold.netty.direct.memory.used", provider, p -> p.metric().usedDirectMemory())
                    .description("Direct (off-heap) memory held by Netty's buffer allocators, by pool")
                    .tag("pool", pool)
                    .baseUnit("bytes").strongReference(true).register(registry);
        }
    }

    /** Stops listening for GC notifications. */
    @Override
    public void close() {
        gcMetrics.close();
    }
}
