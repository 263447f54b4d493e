#!/usr/bin/env bash
# Runtime hooks benchmark (docs/benchmarks.md): proxy-mode CreateContainer work with every built-in
# hook against none, and the standalone reconcile delay with N in-memory containers, in one run.
# Usage: bash scripts/bench-hooks.sh [iterations=200000] [containers=200] [seconds=20]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/lib/java.sh
[ -f crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar ] || ./mvnw -B -q -pl crigate-bench -am package -DskipTests
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx256m \
  -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-cli/target/crigate-cli-0.1.0-SNAPSHOT.jar:crigate-cli/target/lib/*" \
  io.crigate.bench.HooksBenchmark "$@"
