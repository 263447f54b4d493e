#!/usr/bin/env bash
# Verifies that everything the infra scripts, the generated configs and the tests run is installed:
# each command (with the Debian package that provides it), the Slurm plugins that the generated
# slurm.conf / slurmdbd.conf and slurmrestd's options name, and containerd's built-in plugins that the
# generated containerd config uses. Prints one line per problem and exits 1 if there is any.
# Used by scripts/check-fresh.sh inside a fresh Debian root, so that a package installed by hand on
# a developer's machine cannot hide a missing line in install-deps.sh. Starts no daemon.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/slurm-conf.sh"

# command:package, for every command the scripts and tests run.
commands=(
  containerd:containerd ctr:containerd containerd-shim-runc-v2:containerd runc:runc docker-registry:docker-registry umoci:umoci
  skopeo:skopeo busybox:busybox-static curl:curl htpasswd:apache2-utils
  munged:munge slurmctld:slurmctld slurmd:slurmd slurmdbd:slurmdbd slurmrestd:slurmrestd
  sbatch:slurm-client squeue:slurm-client sacct:slurm-client scontrol:slurm-client sinfo:slurm-client
  scancel:slurm-client srun:slurm-client sacctmgr:slurm-client
  mariadbd:mariadb-server mariadb:mariadb-client mariadb-install-db:mariadb-server
  sshd:openssh-server ssh-keygen:openssh-client podman:podman
  socat:socat ss:iproute2 pgrep:procps ps:procps setsid:util-linux useradd:passwd chpasswd:passwd
  go:golang-go protoc:protobuf-compiler mpirun:openmpi-bin openssl:openssl
)
# directory under /usr/share/gocode/src:package, for the Go libraries the Go test peers build against
# in GOPATH mode (ttrpc interop, NRI runtime and plugin, the streaming client, the Helm renderer).
go_libraries=(
  github.com/containerd/ttrpc:golang-github-containerd-ttrpc-dev github.com/gogo/protobuf:golang-gogoprotobuf-dev
  github.com/docker/spdystream:golang-github-docker-spdystream-dev
  github.com/gorilla/websocket:golang-github-gorilla-websocket-dev
  github.com/Masterminds/sprig:golang-github-masterminds-sprig-dev gopkg.in/yaml.v3:golang-gopkg-yaml.v3-dev
)
problems=0
problem() { echo "[check-deps] MISSING: $*"; problems=$((problems + 1)); }

for entry in "${commands[@]}"; do
  command -v "${entry%%:*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${entry%%:*}" ] ||
    problem "command ${entry%%:*} (Debian package ${entry#*:})"
done

for entry in "${go_libraries[@]}"; do
  [ -d "/usr/share/gocode/src/${entry%%:*}" ] || problem "Go library ${entry%%:*} (Debian package ${entry#*:})"
done

conf=$(mktemp -d)
trap 'rm -rf "$conf"' EXIT
slurm_write_configs "$conf" "$(hostname -s 2>/dev/null || echo localhost)"
while IFS= read -r line; do
  [ -n "$line" ] && problem "Slurm plugin $line"
done < <(slurm_missing_plugins "$conf/etc/slurm.conf" "$conf/etc/slurmdbd.conf")

# containerd.sh's config uses the CRI plugin and the overlayfs snapshotter, both built into the
# containerd binary: its default config lists the plugins that binary has.
if command -v containerd >/dev/null 2>&1; then
  defaults=$(containerd config default 2>/dev/null || true)
  for plugin in io.containerd.grpc.v1.cri io.containerd.snapshotter.v1.overlayfs io.containerd.runc.v2; do
    grep -qF "\"$plugin\"" <<<"$defaults" || problem "containerd plugin $plugin (package containerd)"
  done
fi

if [ "$problems" -gt 0 ]; then
  echo "[check-deps] $problems missing; add the packages named to scripts/infra/install-deps.sh"
  exit 1
fi
echo "[check-deps] all ${#commands[@]} commands, $(slurm_named_plugins "$conf/etc/slurm.conf" "$conf/etc/slurmdbd.conf" | sort -u | grep -vc '/none$') Slurm plugins and the containerd plugins are present"
