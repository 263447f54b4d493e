#!/usr/bin/env bash
# How long `crigate serve` with policy.kubernetes takes to serve after a restart while its API server
# takes connections and never answers: with the last run's policy ConfigMap remembered in its state
# directory, against an empty state directory (the baseline, every restart before the ConfigMap was
# remembered), alternating in the same run (io.crigate.bench.PolicyRestartBenchmark). Needs
# containerd-a from scripts/infra/up.sh.
# Usage: bash scripts/bench-policy-restart.sh [rounds=5]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/lib/java.sh
set -a
. "${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}/env"
set +a
./mvnw -B -q -o -pl crigate-bench,crigate-cli -am package -DskipTests dependency:copy-dependencies -DincludeScope=runtime
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-bench/target/dependency/*" \
  io.crigate.bench.PolicyRestartBenchmark "$work" "$CRIGATE_CONTAINERD_A" "${1:-5}"
