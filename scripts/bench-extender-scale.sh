#!/usr/bin/env bash
# The extender at cluster scale (docs/benchmarks.md, "Extender at 5,000 nodes"): fabric8's mock API
# server with 5,000 Nodes, 5,000 NodeImageLayers and 150,000 Pods, `bin/crigate extender` syncing
# against it as its own process, its live heap and time to serve, and prioritize with all 5,000
# nodes from a curl process beside the verb called in process. Pushes the pod's two images to
# CRIGATE_REGISTRY (scripts/infra/up.sh) and deletes their manifests at the end.
# Usage: bash scripts/bench-extender-scale.sh [nodes=5000] [pods=150000] [iterations=1000]
#        PORT_BASE (default 27000) picks the mock API server's (+1) and the extenders' (+2, +3) ports.
#        EXTENDER_JAVA_OPTS adds JVM options to the extender (A). A second extender B runs beside A,
#        both serving, their timed series interleaved (docs/benchmarks.md), when either is set:
#        EXTENDER_B_REPOSITORY  another checkout (e.g. a worktree of main at the same commit), built
#                               here (crigate-cli, no install), whose bin/crigate starts B;
#        EXTENDER_B_JAVA_OPTS   JVM options added to B's (and A's EXTENDER_JAVA_OPTS). bin/crigate
#                               names the extender's collector (G1), so a B naming another fails.
#        EXTENDER_JFR=1 records JFR (profile settings) of each extender over its timed series with all
#        names and prints its hot methods, GC pauses and allocation by class.
#        BENCH_KEEP=1 keeps the work directory (GC logs, class histograms, recordings) and names it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench-build.sh"
work=$(mktemp -d /tmp/crigate-extender-scale.XXXXXX)
if [ -n "${BENCH_KEEP:-}" ]; then
  trap 'echo "work directory kept: $work"' EXIT
else
  trap 'rm -rf "$work"' EXIT
fi
port=${PORT_BASE:-27000}
if [ -n "${EXTENDER_B_REPOSITORY:-}" ]; then
  (cd "$EXTENDER_B_REPOSITORY" && ./mvnw -B -q -o -pl crigate-cli -am package -DskipTests)
fi
# The mock API server holds every object as JSON and answers a list of all pods in one body.
"$JAVA_HOME/bin/java" -Xmx8g -cp "$bench_classpath" \
  io.crigate.bench.ExtenderScaleBenchmark "$work" "${1:-5000}" "${2:-150000}" "${3:-1000}" $((port + 1)) $((port + 2))
