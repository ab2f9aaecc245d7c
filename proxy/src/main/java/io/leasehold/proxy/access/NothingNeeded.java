package io.leasehold.proxy.access;

/**
 * For APIs that need no ACL, as in Kafka: ApiVersions (asked before authentication ends) and
 * DescribeCluster (kafka-clients' admin client asks it for any operation; its answer names only
 * the nodes clients are shown).
 */
final class NothingNeeded implements AccessRule {
}
