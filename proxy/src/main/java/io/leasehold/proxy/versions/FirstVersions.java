package io.leasehold.proxy.versions;

/** The versions at which a request's shape changed, where both the access checks and the presentation read it. */
public final class FirstVersions {
    /** First Metadata version with {@code allowAutoTopicCreation}; below it a named topic may be created. */
    public static final short METADATA_WITHOUT_CREATION = 4;
    /** First FindCoordinator version that asks for many keys at once; 0-3 ask for one. */
    public static final short FIND_COORDINATOR_BATCHED = 4;

    private FirstVersions() {
    }
}
