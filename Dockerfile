# Container image of the Leasehold proxy (the default image of helm/leasehold-proxy).
#   docker build --build-arg VERSION=0.1.0 --build-arg REVISION="$(git rev-parse HEAD)" \
#     -t ghcr.io/leasehold/leasehold-proxy:0.1.0 .
# The tag the chart uses by default is its appVersion: the Maven project version without
# -SNAPSHOT. Run development builds by digest (chart value image.digest), never a reused tag.
# VERSION and REVISION only fill the OCI labels.

# Base images; scripts/image-smoke builds on a local Debian base instead (no registry access)
# and stands in for the build and runtime stages with the jar and a jlink runtime made locally.
ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17
ARG JDK_IMAGE=eclipse-temurin:17-jdk
ARG RUNTIME_IMAGE=debian:bookworm-slim

# --- build: the shaded jar, tests skipped (CI runs them on the same sources) ---------------
FROM ${BUILD_IMAGE} AS build
WORKDIR /src
# The whole reactor (every module the parent pom lists must exist); .dockerignore drops builds.
COPY . .
RUN mvn -B -ntp -pl proxy -am package -DskipTests

# --- runtime: a Java runtime of only the modules the proxy uses ------------------------------
# jdeps --print-module-deps on the shaded jar, plus what is loaded by name and so invisible to
# it: jdk.crypto.ec (TLS key exchange and EC keys), jdk.naming.dns, java.logging. A full JRE is
# three times the size. --generate-cds-archive: the JDK classes' own CDS archive, which a jlink
# runtime lacks otherwise and on which the proxy's archive (below) is built; its variant for
# heaps without compressed pointers (over 32 GB, never a proxy's) is dropped (11 MB).
FROM ${JDK_IMAGE} AS runtime
ARG JAVA_MODULES=java.base,java.compiler,java.desktop,java.logging,java.management,java.naming,java.net.http,java.security.jgss,java.security.sasl,java.sql,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.naming.dns,jdk.unsupported
RUN jlink --add-modules "${JAVA_MODULES}" --strip-debug --no-header-files --no-man-pages \
      --compress=2 --generate-cds-archive --output /opt/java \
 && rm /opt/java/lib/server/classes_nocoops.jsa

# --- run: a slim Debian with that runtime, non-root, read-only-root-filesystem friendly -------
FROM ${RUNTIME_IMAGE}
ARG VERSION=unknown
ARG REVISION=unknown
LABEL org.opencontainers.image.title="leasehold-proxy" \
      org.opencontainers.image.description="Leasehold, a partition-aware Kafka-protocol routing proxy" \
      org.opencontainers.image.source="https://github.com/leasehold/leasehold" \
      org.opencontainers.image.documentation="https://github.com/leasehold/leasehold/blob/main/docs/operations.md" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
RUN groupadd --system --gid 10001 leasehold \
 && useradd --system --uid 10001 --gid leasehold --home-dir /nonexistent --no-create-home \
      --shell /usr/sbin/nologin leasehold
COPY --from=runtime /opt/java /opt/java
ENV JAVA_HOME=/opt/java \
    PATH=/opt/java/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
COPY --from=build /src/proxy/target/leasehold-proxy-*-all.jar /opt/leasehold/lib/
COPY bin/leasehold-proxy /opt/leasehold/bin/leasehold-proxy
# The proxy's AppCDS archive, beside the jar where bin/leasehold-proxy looks for it: its classes
# parsed and verified once here, by this runtime, instead of at every start (half the start-up
# CPU, docs/benchmarks/startup.md). Trained by one real start with no etcd: an unreachable
# endpoint, serving anyway after 1 s, then SIGTERM, at which the JVM writes the archive.
RUN set -e; jar="$(ls /opt/leasehold/lib/leasehold-proxy-*-all.jar)"; \
    env LEASEHOLD_ETCD_ENDPOINTS=http://127.0.0.1:1 LEASEHOLD_ROUTING_START_WITHOUT_ETCD=true \
      LEASEHOLD_ROUTING_INITIAL_LOAD_TIMEOUT=1s LEASEHOLD_BACKENDS_BOOTSTRAP=127.0.0.1:1 \
      LEASEHOLD_LISTENER_ADVERTISED_HOST=localhost LEASEHOLD_LISTENER_PORT=0 LEASEHOLD_ADMIN_PORT=0 \
      LEASEHOLD_SHUTDOWN_DRAIN_TIMEOUT=1s JAVA_OPTS_APPEND="-XX:ArchiveClassesAtExit=${jar%.jar}.jsa" \
      /opt/leasehold/bin/leasehold-proxy --config /dev/null >/tmp/training.out 2>/tmp/training.err & \
    pid=$!; \
    for _ in $(seq 1 600); do grep -q '^READY' /tmp/training.out && break; sleep 0.1; done; \
    kill -TERM "$pid" && wait "$pid" && test -s "${jar%.jar}.jsa" || { cat /tmp/training.err; exit 1; }; \
    rm /tmp/training.out /tmp/training.err
# Numeric user so Kubernetes can verify runAsNonRoot without resolving names. Nothing in the
# image is written to, so it runs as well under any other user id (OpenShift's restricted-v2).
USER 10001:10001
# 9092 Kafka protocol, 9094 admin HTTP (/healthz /readyz /metrics /routes).
EXPOSE 9092 9094
# bin/leasehold-proxy execs java, so the JVM is PID 1 and receives SIGTERM for the drain.
# Heap flags are container-aware by default (see bin/leasehold-proxy); JAVA_OPTS replaces them.
ENTRYPOINT ["/opt/leasehold/bin/leasehold-proxy"]
CMD ["--config", "/etc/leasehold/proxy.yaml"]
