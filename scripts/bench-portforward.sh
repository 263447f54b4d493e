#!/usr/bin/env bash
# kubectl port-forward into a Slurm job, per connection: through crigate's streaming server and the
# slurm backend's relay step, against the same request straight to the job's port, in one run.
# Usage: bash scripts/bench-portforward.sh [connections=50] [transport=local|ssh]   (starts Slurm via slurm-up.sh)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/lib/java.sh
bash scripts/infra/slurm-up.sh >/dev/null
set -a; . "${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}/env"; set +a
[ -f crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar ] || ./mvnw -B -q -DskipTests install
work=$CRIGATE_SLURM_WORKDIR/portforward-bench-$$
state=$(mktemp -d /tmp/crigate-portforward-bench.XXXXXX)
trap 'rm -rf "$work" "$state"' EXIT
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
  -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-cli/target/crigate-cli-0.1.0-SNAPSHOT.jar:crigate-cli/target/lib/*" \
  io.crigate.bench.PortForwardBenchmark "$work" "$state" "${1:-50}" "${2:-local}"
