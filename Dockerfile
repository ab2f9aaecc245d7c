# Container image of the Leasehold proxy (the default image of helm/leasehold-proxy).
#   docker build -t ghcr.io/leasehold/leasehold-proxy:0.1.0 .
# The tag the chart uses by default is its appVersion: the Maven project version without
# -SNAPSHOT. Run development builds by digest (chart value image.digest), never a reused tag.

# Base images; scripts/image-smoke builds on a local Debian base instead (no registry access).
ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-17
ARG RUNTIME_IMAGE=eclipse-temurin:17-jre

# --- build: the shaded jar, tests skipped (CI runs them on the same sources) ---------------
FROM ${BUILD_IMAGE} AS build
WORKDIR /src
# The whole reactor (every module the parent pom lists must exist); .dockerignore drops builds.
COPY . .
RUN mvn -B -ntp -pl proxy -am package -DskipTests

# --- run: JRE only, non-root, read-only-root-filesystem friendly -----------------------------
FROM ${RUNTIME_IMAGE}
RUN groupadd --system --gid 10001 leasehold \
 && useradd --system --uid 10001 --gid leasehold --home-dir /nonexistent --no-create-home \
      --shell /usr/sbin/nologin leasehold
COPY --from=build /src/proxy/target/leasehold-proxy-*-all.jar /opt/leasehold/lib/
COPY bin/leasehold-proxy /opt/leasehold/bin/leasehold-proxy
# Numeric user so Kubernetes can verify runAsNonRoot without resolving names.
USER 10001:10001
# 9092 Kafka protocol, 9094 admin HTTP (/healthz /readyz /metrics /routes).
EXPOSE 9092 9094
# bin/leasehold-proxy execs java, so the JVM is PID 1 and receives SIGTERM for the drain.
# Heap flags are container-aware by default (see bin/leasehold-proxy); JAVA_OPTS replaces them.
ENTRYPOINT ["/opt/leasehold/bin/leasehold-proxy"]
CMD ["--config", "/etc/leasehold/proxy.yaml"]
