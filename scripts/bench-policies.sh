#!/usr/bin/env bash
# Resource policy benchmark (docs/benchmarks.md): allocation decision with 500 running containers on
# a 2x64-core x2-thread layout for static, topology-aware and balloons against none, and their heap, in one run.
# Usage: bash scripts/bench-policies.sh [iterations=20000] [warmup=5000]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/lib/java.sh
[ -f crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar ] || ./mvnw -B -q -o -pl crigate-bench -am package -DskipTests
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx256m \
  -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-cli/target/crigate-cli-0.1.0-SNAPSHOT.jar:crigate-cli/target/lib/*" \
  io.crigate.bench.PolicyDecisionBenchmark "$@"
