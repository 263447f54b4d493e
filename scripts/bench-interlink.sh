#!/usr/bin/env bash
# N held pods through crigate's virtual node (fabric8 mock API server, the interLink API over
# loopback HTTP, crigate's plugin, the Slurm backend) with one pod worker and with several, against
# plain sbatch loops (serial and threaded) of N held jobs,
# same run (docs/benchmarks.md). Uses the running Slurm of scripts/infra; starts nothing.
# Usage: bash scripts/bench-interlink.sh [pods=200] [rounds=2] [pod workers=8]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench-build.sh"
work=$CRIGATE_SLURM_WORKDIR/interlink-bench-$$
state=$(mktemp -d /tmp/crigate-interlink-bench.XXXXXX)
trap 'rm -rf "$work" "$state"' EXIT
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
  -cp "$bench_classpath" \
  io.crigate.bench.InterlinkSubmitBenchmark "$work" "$state" "${1:-200}" "${2:-2}" "${3:-8}"
