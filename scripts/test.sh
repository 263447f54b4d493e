#!/usr/bin/env bash
# Runs crigate's whole test suite as CI does: installs what it needs, builds, starts the local
# infrastructure (registry, containerd A and B, and Slurm when slurm-up.sh exists), runs unit tests
# and the integration tests against it, and stops everything it started. Exits with Maven's status.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
[ "$(id -u)" = 0 ] || { echo "test.sh: run as root (as root: bash scripts/test.sh): containerd needs it" >&2; exit 1; }
started=$(date +%s)
export CRIGATE_INFRA_DIR=${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}

bash scripts/infra/install-deps.sh
bash scripts/infra/selftest.sh
. scripts/lib/java.sh

trap 'bash scripts/infra/down.sh' EXIT
bash scripts/infra/up.sh
[ ! -f scripts/infra/slurm-up.sh ] || bash scripts/infra/slurm-up.sh
set -a
. "$CRIGATE_INFRA_DIR/env"
set +a

# Jib (building crigate's OCI image) runs Guava in Maven's JVM, which on JDK 24+ warns about
# sun.misc.Unsafe on every run: JVM chatter, not a finding of ours.
[ "$JAVA_MAJOR" -lt 24 ] || export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
status=0
# -Dcrigate.image: crigate-cli pushes its OCI image (Jib) to the local registry; CrigateImageIT runs it.
./mvnw -B verify -Dcrigate.image="$CRIGATE_IMAGE_CRIGATE" -Dcrigate.image.base="$CRIGATE_IMAGE_JRE" || status=$?
echo "test.sh: mvnw verify exited $status after $(( $(date +%s) - started )) s"
exit $status
