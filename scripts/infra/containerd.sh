#!/usr/bin/env bash
# Starts or stops one containerd instance NAME under $CRIGATE_INFRA_DIR/containerd-NAME, with its own
# root, state and sockets (unix://$CRIGATE_INFRA_DIR/containerd-NAME/containerd.sock).
#   containerd.sh start NAME   start (or keep) it and wait until its CRI plugin serves
#   containerd.sh stop NAME    end the containers it runs, then stop it
#   containerd.sh remove NAME  stop it and delete its root and state, so the next start has no images
# up.sh starts instances a and b; tests start extra ones (e.g. to take a backend away).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
[ $# = 2 ] && [[ "$2" =~ ^[a-z0-9-]+$ ]] || infra_die "usage: $0 start|stop|remove NAME (NAME: lowercase letters, digits, -)"
action=$1
name=containerd-$2
dir=$CRIGATE_INFRA_DIR/$name
socket=$dir/containerd.sock
pause_image=${CRIGATE_REGISTRY:-127.0.0.1:5000}/crigate/pause:v1

write_config() {
  mkdir -p "$dir"/{root,state,opt,certs.d,cni}
  cat > "$dir/config.toml" <<CONF
version = 2
root = "$dir/root"
state = "$dir/state"
[grpc]
  address = "$socket"
[ttrpc]
  address = "$socket.ttrpc"
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
}

cri_ready() { ctr -a "$socket" plugins ls 2>/dev/null | grep -qE 'io\.containerd\.grpc\.v1[[:space:]]+cri[[:space:]].*ok'; }

# Containers outlive containerd (their shims are separate processes), so end them first.
end_containers() {
  local id
  infra_live_pid "$name" >/dev/null || return 0
  for id in $(ctr -a "$socket" -n k8s.io tasks ls -q 2>/dev/null); do
    ctr -a "$socket" -n k8s.io tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
  done
  for id in $(ctr -a "$socket" -n k8s.io tasks ls -q 2>/dev/null); do
    timeout 10 ctr -a "$socket" -n k8s.io tasks delete -f "$id" >/dev/null 2>&1 || true
  done
}

case "$action" in
  start)
    write_config
    infra_start "$name" containerd --config "$dir/config.toml"
    infra_await "$name" 60 "$name CRI on $socket" cri_ready \
      || infra_fail "$name" "$name did not serve CRI on $socket" "$infra_logs/$name.log"
    ;;
  stop)
    end_containers
    infra_stop "$name"
    ;;
  remove)
    end_containers
    infra_stop "$name"
    # a sandbox's shm and a container's rootfs stay mounted when containerd stopped under them
    awk -v dir="$dir/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
    rm -rf "${dir:?}"
    ;;
  *) infra_die "usage: $0 start|stop|remove NAME" ;;
esac
