#!/usr/bin/env bash
# The extender at cluster scale (docs/benchmarks.md, "Extender at 5,000 nodes"): fabric8's mock API
# server with 5,000 Nodes, 5,000 NodeImageLayers and 150,000 Pods, `bin/crigate extender` syncing
# against it as its own process, its live heap and time to serve, and prioritize with all 5,000
# nodes from a curl process beside the verb called in process. Pushes the pod's two images to
# CRIGATE_REGISTRY (scripts/infra/up.sh) and deletes their manifests at the end.
# Usage: bash scripts/bench-extender-scale.sh [nodes=5000] [pods=150000] [iterations=1000]
#        PORT_BASE (default 27000) picks the mock API server's (+1) and the extender's (+2) ports.
#        EXTENDER_JAVA_OPTS adds JVM options to the extender (e.g. a profiler). EXTENDER_B_JAVA_OPTS
#        (default -XX:+UseParallelGC; empty for none) measures a second extender with those options
#        added, after the first has stopped: an A/B of JVM options in one run (docs/benchmarks.md).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench-build.sh"
work=$(mktemp -d /tmp/crigate-extender-scale.XXXXXX)
trap 'rm -rf "$work"' EXIT
port=${PORT_BASE:-27000}
export EXTENDER_B_JAVA_OPTS=${EXTENDER_B_JAVA_OPTS--XX:+UseParallelGC}
# The mock API server holds every object as JSON and answers a list of all pods in one body.
"$JAVA_HOME/bin/java" -Xmx8g -cp "$bench_classpath" \
  io.crigate.bench.ExtenderScaleBenchmark "$work" "${1:-5000}" "${2:-150000}" "${3:-1000}" $((port + 1)) $((port + 2))
