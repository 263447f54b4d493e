#!/usr/bin/env bash
# Slurm backend benchmark: 200 containers through the slurm backend against a plain sbatch loop in
# the same run, then slurmctld RPCs per poll with 1, 10 and 200 tracked jobs (from sdiag).
# Usage: bash scripts/bench-slurm.sh [jobs=200] [rounds=2]   (starts Slurm via slurm-up.sh)
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/infra/slurm-up.sh" >/dev/null
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench-build.sh"
work=$CRIGATE_SLURM_WORKDIR/bench-$$
state=$(mktemp -d /tmp/crigate-slurm-bench.XXXXXX)
trap 'rm -rf "$work" "$state"' EXIT
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$bench_classpath" \
  io.crigate.bench.SlurmSubmitBenchmark "$work" "$state" "${1:-200}" "${2:-2}"
