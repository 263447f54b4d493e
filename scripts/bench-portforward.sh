#!/usr/bin/env bash
# kubectl port-forward into a Slurm job, per connection: through crigate's streaming server and the
# slurm backend's relay step, against the same request straight to the job's port, in one run.
# Usage: bash scripts/bench-portforward.sh [connections=50] [transport=local|ssh]   (starts Slurm via slurm-up.sh)
# Over ssh it logs in as $BENCH_SSH_USER (default crigate-hpc, a cluster account with Debian's own shell start-up).
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/infra/slurm-up.sh" >/dev/null
. "$(dirname "${BASH_SOURCE[0]}")/lib/bench-build.sh"
work=$CRIGATE_SLURM_WORKDIR/portforward-bench-$$
state=$(mktemp -d /tmp/crigate-portforward-bench.XXXXXX)
trap 'rm -rf "$work" "$state"' EXIT
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$bench_classpath" \
  io.crigate.bench.PortForwardBenchmark "$work" "$state" "${1:-50}" "${2:-local}"
