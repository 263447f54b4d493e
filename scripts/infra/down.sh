#!/usr/bin/env bash
# Stops everything scripts/infra/up.sh (and the quickstart's crigate) started under
# ${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}, by pid: crigate, Slurm (via slurm-down.sh when present),
# the containers containerd runs, containerd A and B, the registry. Keeps pulled images and the
# registry's data so the next up.sh is fast; --purge also deletes the directory.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
purge=false
case "${1:-}" in
  --purge) purge=true ;;
  "") ;;
  *) infra_die "usage: $0 [--purge]" ;;
esac
[ -d "$CRIGATE_INFRA_DIR" ] || { infra_log "nothing to stop: $CRIGATE_INFRA_DIR does not exist"; exit 0; }

infra_stop crigate
[ -x "$here/slurm-down.sh" ] && "$here/slurm-down.sh"

# Containers outlive containerd (their shims are separate processes), so end them first.
kill_tasks() {
  local socket=$CRIGATE_INFRA_DIR/containerd-$1/containerd.sock id
  infra_live_pid "containerd-$1" >/dev/null || return 0
  for id in $(ctr -a "$socket" -n k8s.io tasks ls -q 2>/dev/null); do
    ctr -a "$socket" -n k8s.io tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
  done
  for id in $(ctr -a "$socket" -n k8s.io tasks ls -q 2>/dev/null); do
    timeout 10 ctr -a "$socket" -n k8s.io tasks delete -f "$id" >/dev/null 2>&1 || true
  done
}

# Shims left by a containerd that crashed: kill each one's container init (which ends its pid
# namespace), then the shim. A shim is ours when its -address names the infra dir.
kill_orphan_shims() {
  local pid child
  for pid in $(pgrep -x containerd-shim || true); do
    tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-address $CRIGATE_INFRA_DIR/" || continue
    for child in $(pgrep -P "$pid" || true); do kill -KILL "$child" 2>/dev/null || true; done
    kill -KILL "$pid" 2>/dev/null || true
    infra_log "killed orphaned shim $pid"
  done
}

for instance in a b; do
  kill_tasks "$instance"
  infra_stop "containerd-$instance"
done
kill_orphan_shims
infra_stop registry

# Sandboxes' shm and containers' rootfs mounts that a crash left behind.
awk -v d="$CRIGATE_INFRA_DIR/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r | while read -r mnt; do
  umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || infra_log "could not unmount $mnt"
done

if $purge; then
  rm -rf "$CRIGATE_INFRA_DIR"
  infra_log "removed $CRIGATE_INFRA_DIR"
fi
infra_log "infrastructure stopped"
