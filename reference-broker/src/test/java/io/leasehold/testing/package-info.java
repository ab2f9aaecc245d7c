/**
 * Multi-process test harness: a real etcd, reference broker JVMs and proxy JVMs started as
 * separate processes on free loopback ports, with per-process signal control (SIGKILL,
 * SIGSTOP, SIGCONT, SIGTERM), logs captured to files, and full cleanup. Shared with the proxy
 * module through this module's test-jar; processes are launched by main class name only, so
 * the harness compiles without the proxy module.
 */
package io.leasehold.testing;
