#!/usr/bin/env bash
# Installs the Debian packages crigate's infrastructure needs; does nothing when all are present.
set -euo pipefail
packages=(containerd runc docker-registry umoci skopeo busybox-static curl)
# ss (iproute2) and pgrep (procps), which the bring-up and tear-down scripts call; a minimal Debian lacks them
packages+=(iproute2 procps)
# htpasswd, for the registry client's basic-auth test against a real registry
packages+=(apache2-utils)
# the proxy benchmark's floor: a plain byte relay between client and containerd (scripts/bench-proxy.sh)
packages+=(socat)
# Slurm single node with accounting, slurmrestd and sshd (scripts/infra/slurm-up.sh)
packages+=(munge slurmctld slurmd slurm-client slurmdbd slurmrestd slurm-wlm-jwt-plugin mariadb-server openssh-server openssh-client)
# Open MPI, which multi-cri's MPI_VERSION/MPI_FLAGS jobs run under (mpirun inside the Slurm job; MultiCriSeedIT)
packages+=(openmpi-bin)
# the slurm backend's podman image runner, run for real by PodmanRunnerIT
packages+=(podman)
# crigate-ttrpc's GoInteropIT and the ttrpc benchmark build containerd's Go ttrpc (GOPATH mode, Go 1.19)
packages+=(golang-go golang-github-containerd-ttrpc-dev golang-gogoprotobuf-dev)
# crigate-nri's GoRuntimeIT generates the NRI API for Go with protoc and the packaged protoc-gen-gogottrpc
packages+=(protobuf-compiler)
# Go 1.19 and the libraries Kubernetes streams with (spdystream, gorilla/websocket): StreamingIT builds
# its remotecommand client from crigate-it/src/test/go in GOPATH mode
packages+=(golang-github-docker-spdystream-dev golang-github-gorilla-websocket-dev)
# HelmChartIT renders deploy/helm/crigate with text/template and sprig, the library Helm uses (no helm in Debian 12)
packages+=(golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev)
# throwaway TLS certificates for the tests of every HTTPS server (SelfSignedTls, the webhook's test):
# a minimal Debian has no openssl
packages+=(openssl)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} = 0 ]; then
  echo "[install-deps] all packages present"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "[install-deps] run as root to install: ${missing[*]}" >&2; exit 1; }
echo "[install-deps] installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
