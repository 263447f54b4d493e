#!/usr/bin/env bash
# Whole-chain layer-aware scheduling experiment (io.crigate.bench.ChainExperiment), docs/scheduling.md:
# NODES nodes, each a `crigate serve` in front of its own containerd 1.6, publishing NodeImageLayers to
# fabric8's mock API server (in the harness JVM, with the Nodes and Pods); kube-scheduler's cycle with
# LeastAllocated + BalancedAllocation plus, per scorer, nothing, upstream ImageLocality on each node's 50
# largest images, or a real `crigate extender` process over HTTP (NodeNames form, weight 1); every run
# carries the extender and computes both image scores, using its scorer's, so runs load the machine alike; every pod
# started through its node's crigate, run for its trace time x TIME_SCALE, stopped and removed; the
# kubelet's image GC through crigate. Bytes come from the registry's access log.
# Usage: [SEEDS="1 2 3"] [NODES="5"] [TIME_SCALE=1] [BURST=30] [SCORERS="..."] [BURST_SCORERS="..."]
#        [BUILD=0] bash scripts/experiment-layers.sh [--pods N]
#        NODES may list several counts ("5 10"); BURST=0 skips the burst runs.
#        EXTENDER_B_REPOSITORY=<checkout, built, bin/crigate prepare-cache run> also runs layer-locality with that
#        checkout's extender after each layer-locality run, labelled layer-locality-at-<its commit>.
#        BOUND=1 runs no chain: it simulates the chain's shape (its catalog from the registry, its nodes and
#        traces) over BOUND_SEEDS (20) seeds per node count, the scorers beside a greedy oracle at a sweep of CPU
#        slacks, an offline hindsight search at a sweep of prices on balance and two lower bounds
#        (io.crigate.bench.ChainBound; arguments after the script go to it), and writes $work/bound.md. The layer-locality burst
#        runs twice: as shipped, and with pods unnamed to the extender (no NodeLoads.assume), its baseline.
#        Prints markdown tables, writes $work/results.md and $work/bytes-vs-cpu-balance.png.
# Needs the local registry (scripts/infra/up.sh); the node containerds are the experiment's own, under
# NODES_INFRA_DIR (default: $CRIGATE_INFRA_DIR), on unix sockets only; the extender listens on
# EXTENDER_PORT (26080).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/lib/java.sh
set -a; . "${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}/env"; set +a
registry_log=$CRIGATE_INFRA_DIR/logs/registry.log
nodes_dir=${NODES_INFRA_DIR:-$CRIGATE_INFRA_DIR}
registry=$CRIGATE_REGISTRY
repo=crigate-chain
read -r -a scorers <<< "${SCORERS:-resources-only image-locality layer-locality}"
mib=1048576
# Catalog: a base layer (busybox, so pods can run sleep, and 40 MiB), three language runtimes on it,
# five apps on each runtime whose own layer (dependencies and code) is 20 to 60 MiB. Random bytes, so
# gzip cannot shrink them: the pulled sizes are the sizes below.
base_mib=40
runtimes=(py js jvm)
declare -A runtime_mib=([py]=60 [js]=90 [jvm]=130)
app_mib=(20 30 40 50 60)
mapfile -t apps < <(for r in "${runtimes[@]}"; do seq -f "$r-%g" "${#app_mib[@]}"; done)
oci_accept='application/vnd.oci.image.manifest.v1+json,application/vnd.docker.distribution.manifest.v2+json'
work=$nodes_dir/experiment-chain
results=$work/results.tsv
starts=$work/starts.tsv

pushed() { curl -sf -o /dev/null -H "Accept: $oci_accept" "http://$registry/v2/$repo/$1/manifests/v1"; }

# add_layer FROM TO MIB: image TO = image FROM plus one file of MIB random mebibytes.
add_layer() {
  local from=$1 to=$2 size=$3
  rm -rf "bundle-$to"
  umoci unpack --image "oci:$from" "bundle-$to" >/dev/null
  head -c $((size * mib)) /dev/urandom > "bundle-$to/rootfs/$to.bin"
  umoci repack --image "oci:$to" "bundle-$to"
  rm -rf "bundle-$to"
}

build_catalog() {
  local all=(base "${runtimes[@]}" "${apps[@]}") name missing=0 applet
  for name in "${all[@]}"; do pushed "$name" || missing=1; done
  [ $missing = 1 ] || { echo "experiment images already in $registry/$repo" >&2; return; }
  rm -rf "$work/oci" && mkdir -p "$work/oci" && cd "$work/oci"
  umoci init --layout oci
  umoci new --image oci:base
  umoci unpack --image oci:base bundle-base >/dev/null
  mkdir -p bundle-base/rootfs/{bin,tmp,proc,sys,dev}
  cp /bin/busybox bundle-base/rootfs/bin/busybox
  for applet in sh sleep; do ln -sf busybox "bundle-base/rootfs/bin/$applet"; done
  head -c $((base_mib * mib)) /dev/urandom > bundle-base/rootfs/base.bin
  umoci repack --image oci:base bundle-base
  rm -rf bundle-base
  umoci config --image oci:base --config.env PATH=/bin --config.cmd /bin/sh
  for name in "${runtimes[@]}"; do add_layer base "$name" "${runtime_mib[$name]}"; done
  for name in "${apps[@]}"; do add_layer "${name%%-*}" "$name" "${app_mib[${name##*-} - 1]}"; done
  for name in "${all[@]}"; do
    skopeo copy --quiet --dest-tls-verify=false "oci:oci:$name" "docker://$registry/$repo/$name:v1"
  done
  cd "$root"
  rm -rf "$work/oci"
}

node_names() { seq -f 'chain-%g' "$1"; }

remove_nodes() {
  local node
  for node in $(node_names "$max_nodes"); do
    CRIGATE_INFRA_DIR=$nodes_dir bash scripts/infra/containerd.sh remove "$node" >/dev/null 2>&1 || true
  done
}

fresh_nodes() {
  local node
  remove_nodes
  for node in $(node_names "$1"); do
    CRIGATE_INFRA_DIR=$nodes_dir bash scripts/infra/containerd.sh start "$node" >/dev/null
  done
}

# run N SEED SCORER [ARGS...]: one scorer on N fresh nodes.
run() {
  local n=$1 seed=$2 scorer=$3 endpoints
  shift 3
  fresh_nodes "$n"
  endpoints=$(for node in $(node_names "$n"); do printf 'unix://%s/containerd-%s/containerd.sock,' "$nodes_dir" "$node"; done)
  "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
    -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-bench/target/dependency/*" \
    io.crigate.bench.ChainExperiment \
    --scorer "$scorer" --nodes "${endpoints%,}" --images "$images" --pause-image "$CRIGATE_IMAGE_PAUSE" \
    --registry-log "$registry_log" --registry-repository "$repo" --seed "$seed" \
    --time-scale "${TIME_SCALE:-1}" --extender-port "${EXTENDER_PORT:-26080}" \
    --work-dir "$work/runs-$n" --crigate-home "$root" "$@"
}

# BUILD=0 reuses the last build (a re-run of the same checkout)
[ "${BUILD:-1}" = 0 ] || ./mvnw -B -q -o -pl crigate-bench,crigate-cli -am package -DskipTests dependency:copy-dependencies -DincludeScope=runtime
read -r -a node_counts <<< "${NODES:-5}"
max_nodes=$(printf '%s\n' "${node_counts[@]}" | sort -n | tail -1)
mkdir -p "$work"
trap 'remove_nodes' EXIT
build_catalog
images=$(for a in "${apps[@]}"; do printf '%s/%s/%s:v1,' "$registry" "$repo" "$a"; done)
images=${images%,}
if [ "${BOUND:-0}" = 1 ]; then
  counts=${node_counts[*]}
  "$JAVA_HOME/bin/java" -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-bench/target/dependency/*" \
    io.crigate.bench.ChainBound --images "$images" --nodes "${counts// /,}" --seeds "${BOUND_SEEDS:-20}" \
    --out "$work/bound.md" "$@"
  exit
fi
rm -f "$results" "$starts" "$work/burst.tsv"
# the burst first (short), on the first node count
if [ "${BURST:-30}" -gt 0 ]; then
  for scorer in ${BURST_SCORERS:-${scorers[*]}}; do
    run "${node_counts[0]}" 1 "$scorer" --burst "${BURST:-30}" --results "$work/burst.tsv"
    # the baseline: the extender unable to count the pods it scored (as before NodeLoads.assume)
    [ "$scorer" != layer-locality ] \
      || run "${node_counts[0]}" 1 "$scorer" --burst "${BURST:-30}" --results "$work/burst.tsv" --unnamed-to-extender
  done
fi
for n in "${node_counts[@]}"; do for seed in ${SEEDS:-1 2 3}; do for scorer in "${scorers[@]}"; do
  run "$n" "$seed" "$scorer" --results "$results" --starts "$starts" "$@"
  # another build's extender as layer-locality's baseline, in the same run and on the same trace
  [ -z "${EXTENDER_B_REPOSITORY:-}" ] || [ "$scorer" != layer-locality ] \
    || run "$n" "$seed" "$scorer" --results "$results" --starts "$starts" --extender-home "$EXTENDER_B_REPOSITORY" \
      --label "layer-locality-at-$(git -C "$EXTENDER_B_REPOSITORY" rev-parse --short HEAD)" "$@"
done; done; done
"$JAVA_HOME/bin/java" -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-bench/target/dependency/*" \
  io.crigate.bench.ChainReport "$results" "$work/burst.tsv" "$work/bytes-vs-cpu-balance.png" "$starts" \
  | tee "$work/results.md"
