#!/usr/bin/env bash
# Slurm backend benchmark: 200 containers through the slurm backend against a plain sbatch loop in
# the same run, then slurmctld RPCs per poll with 1, 10 and 200 tracked jobs (from sdiag).
# Usage: bash scripts/bench-slurm.sh [jobs=200] [rounds=2]   (starts Slurm via slurm-up.sh)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/lib/java.sh
bash scripts/infra/slurm-up.sh >/dev/null
set -a; . "${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}/env"; set +a
[ -f crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar ] || ./mvnw -B -q -DskipTests install
work=$CRIGATE_SLURM_WORKDIR/bench-$$
state=$(mktemp -d /tmp/crigate-slurm-bench.XXXXXX)
trap 'rm -rf "$work" "$state"' EXIT
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
  -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-cli/target/crigate-cli-0.1.0-SNAPSHOT.jar:crigate-cli/target/lib/*" \
  io.crigate.bench.SlurmSubmitBenchmark "$work" "$state" "${1:-200}" "${2:-2}"
