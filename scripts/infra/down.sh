#!/usr/bin/env bash
# Stops everything scripts/infra/up.sh (and the quickstart's crigate) started under
# ${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}, by pid: crigate, Slurm (via slurm-down.sh when present),
# the containers containerd runs, every containerd instance, the registry. Keeps pulled images and the
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

# Every instance: A and B from up.sh, and any a test started and did not stop.
for pidfile in "$infra_pids"/containerd-*; do
  [ -e "$pidfile" ] && "$here/containerd.sh" stop "${pidfile##*/containerd-}"
done
kill_orphan_shims
infra_stop registry

# Sandboxes' shm and containers' rootfs mounts that a crash left behind.
awk -v d="$CRIGATE_INFRA_DIR/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r | while read -r mnt; do
  umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || infra_log "could not unmount $mnt"
done

if $purge; then
  rm -rf "$CRIGATE_INFRA_DIR"
  rm -f /etc/containers/containers.conf.d/50-crigate-infra.conf /etc/containers/registries.conf.d/50-crigate-infra.conf
  # slurm-up.sh's password-login cluster user
  id crigate-hpc >/dev/null 2>&1 && userdel -r crigate-hpc 2>/dev/null || true
  infra_log "removed $CRIGATE_INFRA_DIR"
fi
infra_log "infrastructure stopped"
