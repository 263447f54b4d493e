#!/usr/bin/env bash
# CreateContainer's added latency with one hosted NRI plugin (its own JVM) against none, same run.
# Usage: bash scripts/bench-nri.sh [--iterations 20000] [--warmup 5000]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/lib/java.sh
./mvnw -B -q -o -pl crigate-bench -am -DskipTests package
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
  -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-cli/target/crigate-cli-0.1.0-SNAPSHOT.jar:crigate-cli/target/lib/*" \
  io.crigate.bench.NriHostedLatencyBenchmark "$@"
