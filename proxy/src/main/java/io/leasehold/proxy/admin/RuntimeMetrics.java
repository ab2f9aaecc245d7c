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
 * default allocator holds (where record bytes live between client and broker sockets).
 */
final class RuntimeMetrics implements AutoCloseable {

    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();

    RuntimeMetrics(MeterRegistry registry, ByteBufAllocator allocator) {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
        if (allocator instanceof ByteBufAllocatorMetricProvider provider) {
            Gauge.builder("leasehold.netty.direct.memory.used", provider, p -> p.metric().usedDirectMemory())
                    .description("Direct (off-heap) memory held by Netty's buffer allocator")
                    .baseUnit("bytes").strongReference(true).register(registry);
            Gauge.builder("leasehold.netty.heap.memory.used", provider, p -> p.metric().usedHeapMemory())
                    .description("Heap memory held by Netty's buffer allocator")
                    .baseUnit("bytes").strongReference(true).register(registry);
        }
    }

    /** Stops listening for GC notifications. */
    @Override
    public void close() {
        gcMetrics.close();
    }
}
