package io.leasehold.bench;

/** When, where and how a benchmark run was made, for the report's header. */
record RunContext(String command, String mode, String started, String finished, String machine,
        String loadAtStart, String loadAtEnd) {
}
