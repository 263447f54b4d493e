#!/usr/bin/env bash
# How long `bin/crigate nri-plugin` takes to register when a runtime starts it as a pre-installed
# plugin (containerd's default plugin_registration_timeout is 5 s). The Go runtime peer (nriruntime,
# built as GoNriPeers builds it) launches a wrapper file with the connection on fd 3 and only the
# three NRI variables, as containerd does, and reports the time from the plugin's start to its
# RegisterPlugin. The first start has no class cache yet (bin/crigate writes it); the others use it.
# The baseline, in the same run and interleaved start by start, is bin/crigate as of git revision
# BASELINE (default main) running the same jar, so a change to how bin/crigate starts the JVM is
# measured against the old way under the same load.
# Build first: ./mvnw -B -q -o -pl crigate-cli -am -DskipTests package
# Usage: bash scripts/bench-nri-launch.sh [starts=5] [BASELINE=main]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
starts=${1:-5}
baseline=${2:-main}
out="$root/crigate-it/target/go-nri"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

export GO111MODULE=off GOFLAGS= GOCACHE="$out/cache"
export GOPATH="$out/gopath:$root/crigate-nri/src/test/resources/gopath:/usr/share/gocode"
mkdir -p "$out/gopath/src/nriapi"
go build -o "$out/protoc-gen-gogottrpc" github.com/containerd/ttrpc/cmd/protoc-gen-gogottrpc
proto="$root/crigate-api/src/main/proto/nri/v1alpha1/api.proto"
protoc --plugin=protoc-gen-gogottrpc="$out/protoc-gen-gogottrpc" -I "$(dirname "$proto")" \
  --gogottrpc_out=plugins=ttrpc:"$out/gopath/src/nriapi" "$proto"
go build -o "$out/nriruntime" nriruntime

# the configuration NriLaunchedPluginIT serves: the GPU env hook
cat >"$work/crigate.yaml" <<'EOF'
hooks:
  mode: nri
  GPUEnvInject: {order: 400, failurePolicy: fail-closed, enabled: true}
EOF
# the baseline's launcher sees the same build through links: bin/crigate finds everything from its parent
mkdir -p "$work/old/bin"
git -C "$root" show "$baseline:bin/crigate" >"$work/old/bin/crigate"
chmod 755 "$work/old/bin/crigate"
ln -s "$root/scripts" "$root/crigate-cli" "$work/old/"
wrapper() { # launcher plugin-file
  mkdir -p "$(dirname "$2")"
  printf '#!/bin/sh\nexec %s nri-plugin --config %s --state-dir %s\n' "$1" "$work/crigate.yaml" "$work/state" >"$2"
  chmod 755 "$2"
}
wrapper "$work/old/bin/crigate" "$work/baseline/42-gpuhooks"
wrapper "$root/bin/crigate" "$work/current/42-gpuhooks"

# fresh caches, so the first start of each is the cold one
rm -f "$root"/crigate-cli/target/jvm-cache/nri_plugin.*
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$starts"); do
  for launcher in baseline current; do
    "$out/nriruntime" -launch "$work/$launcher/42-gpuhooks" 2>"$work/log" >/dev/null || { cat "$work/log" >&2; exit 1; }
    echo "start $i $launcher: $(grep -o 'registered after .*' "$work/log")"
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
