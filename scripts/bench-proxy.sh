#!/usr/bin/env bash
# Proxy-overhead benchmark: direct containerd against the same calls through crigate, in one run.
# Usage: bash scripts/bench-proxy.sh [harness options, e.g. --pods 50 --iterations 5000]
# Brings up the local infra (registry, images, containerd) if needed and prints a markdown report (also written to $CRIGATE_BENCH_REPORT if set).
# Every call is also made through a socat byte relay (the floor of any hop), so socat must be installed (scripts/infra/install-deps.sh).
# The lifecycle rounds report crigate's CPU per lifecycle, whole and by thread group (event loop, virtual-thread carriers
# with SQLite, JIT, GC/VM, other), from the kernel's per-thread accounting (/proc/<pid>/task/*/schedstat).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/lib/java.sh
# Infra that is already up (shared by others) is used as it is, never restarted.
env_file="${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}/env"
[ -f "$env_file" ] || bash scripts/infra/up.sh >/dev/null
. "$env_file"
# package, not install: a benchmark must not put this checkout's artifacts into ~/.m2.
# A build is followed by the install step's cache training, so the timed starts are those of an installed crigate.
if [ ! -f crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar ] || [ ! -f crigate-cli/target/crigate-cli-0.1.0-SNAPSHOT.jar ]; then
  ./mvnw -B -q -o -DskipTests -pl crigate-bench,crigate-cli -am package
  [ "$JAVA_MAJOR" -lt 25 ] || bin/crigate prepare-cache
fi
work=$(mktemp -d /tmp/crigate-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
# CRIGATE_BENCH_METRICS=1: crigate with metrics on (loopback, free port), to measure what they cost the fast path
if [ "${CRIGATE_BENCH_METRICS:-}" = 1 ]; then
  printf 'metrics:\n  enabled: true\n  port: 0\n' >"$work/metrics.yaml"
  set -- --crigate-config "$work/metrics.yaml" "$@"
fi
# containerd's own CPU per lifecycle of each side, when the infra recorded its pid
runtime_pid_file="${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}/pids/containerd-a"
[ -r "$runtime_pid_file" ] && set -- --runtime-pid "$(cat "$runtime_pid_file")" "$@"
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
  -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-cli/target/crigate-cli-0.1.0-SNAPSHOT.jar:crigate-cli/target/lib/*" \
  io.crigate.bench.ProxyOverheadBenchmark \
  --runtime-endpoint "$CRIGATE_CONTAINERD_A" --image "$CRIGATE_IMAGE_BASE" \
  --repository "$root" --work-dir "$work" ${CRIGATE_BENCH_REPORT:+--report "$CRIGATE_BENCH_REPORT"} "$@"
