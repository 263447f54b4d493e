#!/usr/bin/env bash
# Idempotent bring-up of crigate's local test infrastructure under ${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}:
#   - an OCI registry on 127.0.0.1:5000 with the test images (see images.sh)
#   - two containerd instances, A and B, each with its own root, state and sockets
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
pause_image=$registry/crigate/pause:v1
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
  infra_wait 30 "registry on $registry" curl -sf -o /dev/null "http://$registry/v2/" \
    || infra_die "registry did not answer; see $infra_logs/registry.log"
}

# containerd_config NAME: writes the config of instance NAME and prints its socket path.
containerd_config() {
  local dir=$CRIGATE_INFRA_DIR/containerd-$1
  mkdir -p "$dir"/{root,state,opt,certs.d,cni}
  cat > "$dir/config.toml" <<CONF
version = 2
root = "$dir/root"
state = "$dir/state"
[grpc]
  address = "$dir/containerd.sock"
[ttrpc]
  address = "$dir/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_image"
  # root here lacks CAP_SYS_RESOURCE: without this every sandbox fails in runc create
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$dir/cni"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$dir/certs.d"
CONF
  echo "$dir/containerd.sock"
}

cri_ready() { ctr -a "$1" plugins ls 2>/dev/null | grep -qE 'io\.containerd\.grpc\.v1[[:space:]]+cri[[:space:]].*ok'; }

start_containerd() {
  local name=containerd-$1 socket
  socket=$(containerd_config "$1")
  infra_start "$name" containerd --config "$CRIGATE_INFRA_DIR/$name/config.toml"
  infra_wait 60 "$name CRI on $socket" cri_ready "$socket" \
    || infra_die "$name did not serve CRI; see $infra_logs/$name.log"
}

write_env() {
  local tmp=$CRIGATE_INFRA_DIR/env.tmp
  cat > "$tmp" <<ENV
export CRIGATE_INFRA_DIR=$CRIGATE_INFRA_DIR
export CRIGATE_REGISTRY=$registry
export CRIGATE_CONTAINERD_A=unix://$CRIGATE_INFRA_DIR/containerd-a/containerd.sock
export CRIGATE_CONTAINERD_B=unix://$CRIGATE_INFRA_DIR/containerd-b/containerd.sock
export CRIGATE_IMAGE_PAUSE=$pause_image
export CRIGATE_IMAGE_BASE=$registry/crigate/base:v1
export CRIGATE_IMAGE_A=$registry/crigate/a:v1
export CRIGATE_IMAGE_B=$registry/crigate/b:v1
export CRIGATE_IMAGE_DEMO=$registry/crigate/demo:v1
ENV
  # Keep lines other scripts (slurm-up.sh) appended on an earlier run.
  if [ -f "$CRIGATE_INFRA_DIR/env" ]; then
    grep -v -F -f <(sed 's/=.*/=/' "$tmp") "$CRIGATE_INFRA_DIR/env" >> "$tmp" || true
  fi
  mv "$tmp" "$CRIGATE_INFRA_DIR/env"
}

start=$(date +%s%N)
start_registry
CRIGATE_REGISTRY=$registry "$here/images.sh"
start_containerd a
start_containerd b
write_env
infra_log "infrastructure up in $(( ($(date +%s%N) - start) / 1000000 )) ms; source $CRIGATE_INFRA_DIR/env"
