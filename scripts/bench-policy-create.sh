#!/usr/bin/env bash
# Resource policy CreateContainer benchmark (docs/benchmarks.md): topology-aware against none, two
# crigate serve processes on the shared containerd, in one run.
# Usage: bash scripts/bench-policy-create.sh [--iterations 200] [--warmup 10] [--baseline-repository DIR]
# --baseline-repository adds a second pair from another checkout's build (its bin/crigate and
# crigate-cli/target, e.g. main's: ./mvnw -q -o -DskipTests -pl crigate-cli -am package there), run in
# the same iterations, for an A/B under the same load.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/lib/java.sh
env_file="${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}/env"
. "$env_file"
[ -f crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar ] && [ -f crigate-cli/target/crigate-cli-0.1.0-SNAPSHOT.jar ] \
  || ./mvnw -B -q -o -DskipTests -pl crigate-bench,crigate-cli -am package
work=$(mktemp -d /tmp/crigate-policy-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
  -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-cli/target/crigate-cli-0.1.0-SNAPSHOT.jar:crigate-cli/target/lib/*" \
  io.crigate.bench.PolicyCreateLatencyBenchmark \
  --runtime-endpoint "$CRIGATE_CONTAINERD_A" --image "$CRIGATE_IMAGE_BASE" --repository "$root" --work-dir "$work" "$@"
