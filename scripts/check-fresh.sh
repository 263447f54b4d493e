#!/usr/bin/env bash
# Proves that scripts/infra/install-deps.sh installs everything crigate's scripts and generated configs
# need, on a Debian 12 that has never run them: builds a minimal bookworm root with debootstrap (from
# the same apt sources as this machine), runs install-deps.sh inside it, then check-deps.sh, which
# looks for every command, Slurm plugin and containerd plugin. A package installed by hand on this
# machine cannot fool it. Takes a few minutes, so it is not part of scripts/test.sh.
#   bash scripts/check-fresh.sh [--keep]   (as root; --keep leaves the root under /var/tmp for a look)
# The pristine root is cached as /var/tmp/crigate-fresh-base.tar.zst (delete it to bootstrap again).
set -euo pipefail
root_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "check-fresh: run as root (debootstrap and chroot need it)" >&2; exit 1; }
keep=false
case "${1:-}" in --keep) keep=true ;; "") ;; *) echo "usage: $0 [--keep]" >&2; exit 2 ;; esac
log() { printf '[check-fresh %s] %s\n' "$(date +%T)" "$*" >&2; }

for tool in debootstrap zstd; do
  command -v "$tool" >/dev/null || { log "installing $tool"; apt-get install -y -q --no-install-recommends "$tool" >/dev/null; }
done

base=/var/tmp/crigate-fresh-base.tar.zst
fresh=$(mktemp -d /var/tmp/crigate-fresh.XXXXXX)
cleanup() {
  for mnt in proc sys dev/pts dev; do umount -l "$fresh/$mnt" 2>/dev/null || true; done
  if $keep; then log "root kept at $fresh"; else rm -rf --one-file-system "$fresh"; fi
}
trap cleanup EXIT

mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
mirror=${mirror:-http://deb.debian.org/debian}
if [ ! -s "$base" ]; then
  log "bootstrapping a minimal Debian 12 from $mirror (once; cached in $base)"
  debootstrap --variant=minbase bookworm "$fresh" "$mirror" > "$fresh.debootstrap.log" 2>&1 ||
    { tail -n 20 "$fresh.debootstrap.log" >&2; log "debootstrap failed"; exit 1; }
  rm -f "$fresh.debootstrap.log"
  tar -C "$fresh" --zstd -cf "$base.tmp" . && mv "$base.tmp" "$base"
else
  log "unpacking the cached minimal Debian 12 root"
  tar -C "$fresh" --zstd -xf "$base"
fi

# mktemp (and so the cached tar's ".") makes it 0700: package scripts that run as a system user
# (munge's postinst, apt's _apt) must be able to enter it.
chmod 0755 "$fresh"
# The same apt sources as this machine; no daemon may start inside the root.
rm -f "$fresh/etc/apt/sources.list"
cp /etc/apt/sources.list.d/*.sources "$fresh/etc/apt/sources.list.d/" 2>/dev/null || true
printf '#!/bin/sh\nexit 101\n' > "$fresh/usr/sbin/policy-rc.d"
chmod +x "$fresh/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$fresh/etc/resolv.conf"
mount -t proc proc "$fresh/proc"
mount --rbind /sys "$fresh/sys"
mount --bind /dev "$fresh/dev"
mount --bind /dev/pts "$fresh/dev/pts"

mkdir -p "$fresh/crigate/scripts"
cp -r "$root_dir/scripts/infra" "$fresh/crigate/scripts/"
log "running install-deps.sh in the fresh root"
chroot "$fresh" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  bash /crigate/scripts/infra/install-deps.sh > "$fresh/install-deps.log" 2>&1 ||
  { tail -n 30 "$fresh/install-deps.log" >&2; log "install-deps.sh failed in the fresh root"; exit 1; }
log "install-deps.sh done ($(grep -c '^Setting up' "$fresh/install-deps.log") packages set up)"
log "checking commands and plugins"
if chroot "$fresh" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  bash /crigate/scripts/infra/check-deps.sh; then
  log "PASS: a fresh Debian 12 with install-deps.sh has everything the scripts and configs need"
else
  log "FAIL: install-deps.sh leaves the fresh root without the above"
  exit 1
fi
