package io.leasehold.proxy.access;

/**
 * The admin APIs that name several topics or config resources, decided one resource at a time
 * by Kafka's rules ({@code AdminAccess} holds them): CREATE on the cluster or the topic for
 * CreateTopics, DELETE on the topic for DeleteTopics, ALTER on the topic for CreatePartitions,
 * DESCRIBE_CONFIGS / ALTER_CONFIGS on the topic, the group or (broker, broker-logger and
 * client-metrics configs) the cluster for DescribeConfigs, AlterConfigs and
 * IncrementalAlterConfigs. A refused resource is answered by the proxy; the rest is carried out.
 */
final class ResourceByResourceRule implements AccessRule {

    @Override
    public boolean decidesPerResource() {
        return true;
    }
}
