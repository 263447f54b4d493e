#!/usr/bin/env bash
# ttrpc round trip: crigate's Java ttrpc against containerd's Go ttrpc (Debian's 1.1), same run.
# Usage: bash scripts/bench-ttrpc.sh [--iterations 20000] [--rounds 5]
# Needs golang-go and golang-github-containerd-ttrpc-dev (scripts/infra/install-deps.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/lib/java.sh
work=$(mktemp -d /tmp/crigate-ttrpc-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
GO111MODULE=off GOCACHE="$work/cache" \
  GOPATH="$work/gopath:$root/crigate-ttrpc/src/test/resources/gopath:/usr/share/gocode" \
  go build -o "$work/ttrpcpeer" ttrpcpeer
./mvnw -B -q -o -pl crigate-bench -am -DskipTests package
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
  -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-ttrpc/target/crigate-ttrpc-0.1.0-SNAPSHOT.jar:crigate-cli/target/crigate-cli-0.1.0-SNAPSHOT.jar:crigate-cli/target/lib/*" \
  io.crigate.bench.TtrpcRoundTripBenchmark --go-peer "$work/ttrpcpeer" "$@"
