#!/usr/bin/env bash
# Idempotent bring-up of crigate's local test infrastructure under ${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}:
#   - an OCI registry on 127.0.0.1:5000 with the test images (see images.sh)
#   - two containerd instances, A and B, each with its own root, state and sockets (containerd.sh)
# and writes $CRIGATE_INFRA_DIR/env with the export lines tests and the quickstart source.
# Safe to run again while everything runs, and after a crash (stale pid files are detected).
# Stop everything with scripts/infra/down.sh.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
[ "$(id -u)" = 0 ] || infra_die "run as root: containerd needs it"
for tool in containerd ctr runc docker-registry umoci skopeo curl; do
  command -v "$tool" >/dev/null || infra_die "$tool missing (run scripts/infra/install-deps.sh)"
done

registry=127.0.0.1:5000
export CRIGATE_REGISTRY=$registry
mkdir -p "$CRIGATE_INFRA_DIR"/{pids,logs}

start_registry() {
  local dir=$CRIGATE_INFRA_DIR/registry
  mkdir -p "$dir/data"
  # Our own config: the Debian default listens on all interfaces and wants htpasswd auth.
  cat > "$dir/config.yml" <<CONF
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $dir/data
  delete:
    enabled: true
http:
  addr: $registry
CONF
  if ! infra_live_pid registry >/dev/null && curl -sf -o /dev/null "http://$registry/v2/"; then
    infra_die "something else already serves $registry; stop it first"
  fi
  infra_start registry docker-registry serve "$dir/config.yml"
  infra_await registry 30 "registry on $registry" curl -sf -o /dev/null "http://$registry/v2/" \
    || infra_fail registry "the registry did not answer on $registry" "$infra_logs/registry.log"
}

write_env() {
  local tmp=$CRIGATE_INFRA_DIR/env.tmp
  cat > "$tmp" <<ENV
export CRIGATE_INFRA_DIR=$CRIGATE_INFRA_DIR
export CRIGATE_REGISTRY=$registry
export CRIGATE_CONTAINERD_A=unix://$CRIGATE_INFRA_DIR/containerd-a/containerd.sock
export CRIGATE_CONTAINERD_B=unix://$CRIGATE_INFRA_DIR/containerd-b/containerd.sock
export CRIGATE_IMAGE_PAUSE=$registry/crigate/pause:v1
export CRIGATE_IMAGE_BASE=$registry/crigate/base:v1
export CRIGATE_IMAGE_A=$registry/crigate/a:v1
export CRIGATE_IMAGE_B=$registry/crigate/b:v1
export CRIGATE_IMAGE_DEMO=$registry/crigate/demo:v1
export CRIGATE_IMAGE_JRE=$registry/crigate/jre:v1
export CRIGATE_IMAGE_CRIGATE=$registry/crigate/crigate:dev
ENV
  # Keep lines other scripts (slurm-up.sh) appended on an earlier run.
  if [ -f "$CRIGATE_INFRA_DIR/env" ]; then
    grep -v -F -f <(sed 's/=.*/=/' "$tmp") "$CRIGATE_INFRA_DIR/env" >> "$tmp" || true
  fi
  mv "$tmp" "$CRIGATE_INFRA_DIR/env"
}

start=$(date +%s%N)
start_registry
"$here/images.sh"
"$here/containerd.sh" start a
"$here/containerd.sh" start b
write_env
infra_log "infrastructure up in $(( ($(date +%s%N) - start) / 1000000 )) ms; source $CRIGATE_INFRA_DIR/env"
