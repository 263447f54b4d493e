#!/usr/bin/env bash
# How often the host takes a core from a thread that never blocks, and for how long
# (docs/benchmarks.md, "A kept connection"): the floor under any latency percentile measured here.
# Usage: bash scripts/bench-host-stalls.sh [threads=2] [seconds=20]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench-build.sh"
"$JAVA_HOME/bin/java" -cp "$bench_classpath" io.crigate.bench.HostStalls "$@"
