#!/usr/bin/env bash
# Real layer-placement experiment: the simulator's scheduler and kubelet image GC
# (LayerPlacementExperiment) on fresh containerd instances acting as nodes, with real images in a real
# registry. The same seeded pod trace is placed by each scorer (resources-only, image-locality,
# layer-locality); every pull and every GC removal is carried out on the chosen containerd through CRI,
# and the bytes the registry served are read from its access log.
# Usage: [SEEDS="1 2 3"] [NODES=5] bash scripts/experiment-layers.sh [--pods N] [--image-disk-mb MB]
#        (prints markdown tables; KEEP_EXPERIMENT_IMAGES=1 leaves the images in the registry)
# Needs the local infra (scripts/infra/up.sh) and an installed crigate-bench/crigate-cli build.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/lib/java.sh
set -a; . "${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}/env"; set +a
. scripts/infra/lib.sh
registry=$CRIGATE_REGISTRY
repo=crigate-exp
mapfile -t nodes < <(seq -f 'exp-%g' "${NODES:-5}")
scorers=(resources-only image-locality layer-locality)
mib=1048576
# Catalog: an OS-like base, three language runtimes on it, five apps on each runtime whose own layer
# (dependencies and code) is 20 to 60 MiB. Random bytes, so gzip cannot shrink them: the pulled sizes
# are the sizes below.
base_mib=40
runtimes=(py js jvm)
declare -A runtime_mib=([py]=60 [js]=90 [jvm]=130)
app_mib=(20 30 40 50 60)
mapfile -t apps < <(for r in "${runtimes[@]}"; do seq -f "$r-%g" "${#app_mib[@]}"; done)
oci_accept='application/vnd.oci.image.manifest.v1+json,application/vnd.docker.distribution.manifest.v2+json'
work=$CRIGATE_INFRA_DIR/experiment-layers
results=$work/results.tsv

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
  local all=(base "${runtimes[@]}" "${apps[@]}") name missing=0
  for name in "${all[@]}"; do pushed "$name" || missing=1; done
  [ $missing = 1 ] || { infra_log "experiment images already in $registry/$repo"; return; }
  rm -rf "$work/oci" && mkdir -p "$work/oci" && cd "$work/oci"
  umoci init --layout oci
  umoci new --image oci:empty
  add_layer empty base $base_mib
  for name in "${runtimes[@]}"; do add_layer base "$name" "${runtime_mib[$name]}"; done
  for name in "${apps[@]}"; do add_layer "${name%%-*}" "$name" "${app_mib[${name##*-} - 1]}"; done
  for name in "${all[@]}"; do
    skopeo copy --quiet --dest-tls-verify=false "oci:oci:$name" "docker://$registry/$repo/$name:v1"
  done
  cd "$root"
  rm -rf "$work/oci"
}

remove_nodes() {
  local node
  for node in "${nodes[@]}"; do
    bash scripts/infra/containerd.sh stop "$node" >/dev/null 2>&1 || true
    rm -rf "$CRIGATE_INFRA_DIR/containerd-$node"
  done
}

fresh_nodes() {
  local node
  remove_nodes
  for node in "${nodes[@]}"; do bash scripts/infra/containerd.sh start "$node" >/dev/null; done
}

# Deletes the experiment's manifests from the registry (blobs go at the registry's next garbage-collect).
remove_images() {
  local name digest
  for name in base "${runtimes[@]}" "${apps[@]}"; do
    digest=$(curl -sfI -H "Accept: $oci_accept" "http://$registry/v2/$repo/$name/manifests/v1" \
      | tr -d '\r' | awk -F': ' 'tolower($1)=="docker-content-digest"{print $2}') || continue
    [ -n "$digest" ] && curl -sf -X DELETE "http://$registry/v2/$repo/$name/manifests/$digest" >/dev/null || true
  done
}

mkdir -p "$work"
trap 'remove_nodes' EXIT
build_catalog
rm -f "$results"
endpoints=$(for n in "${nodes[@]}"; do printf 'unix://%s/containerd-%s/containerd.sock,' "$CRIGATE_INFRA_DIR" "$n"; done)
images=$(for a in "${apps[@]}"; do printf '%s/%s/%s:v1,' "$registry" "$repo" "$a"; done)
for seed in ${SEEDS:-1 2 3}; do for scorer in "${scorers[@]}"; do
  fresh_nodes
  "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
    -cp "crigate-bench/target/crigate-bench-0.1.0-SNAPSHOT.jar:crigate-scheduler/target/crigate-scheduler-0.1.0-SNAPSHOT.jar:crigate-cli/target/crigate-cli-0.1.0-SNAPSHOT.jar:crigate-cli/target/lib/*" \
    io.crigate.bench.LayerPlacementExperiment \
    --scorer "$scorer" --nodes "${endpoints%,}" --images "${images%,}" \
    --registry-log "$infra_logs/registry.log" --registry-repository "$repo" --results "$results" --seed "$seed" "$@"
done; done
printf '| scorer | seed | pods | MB pulled (registry log) | MB simulator | MB new layers (containerd) | pulls | GC removals | CV pods/node | CV CPU/node | unschedulable |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
cat "$results"
# Totals per scorer over the seeds, the change against upstream image-locality, mean balance.
awk -F'|' '{ s=$2; gsub(/ /,"",s); mb[s]+=$5; sim[s]+=$6; pulls[s]+=$8; gc[s]+=$9; cv[s]+=$10; cpu[s]+=$11; n[s]++ }
  END { printf "\n| scorer | seeds | MB pulled | vs image-locality | MB simulator | pulls | GC removals | mean CV pods/node | mean CV CPU/node |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
        split("image-locality layer-locality resources-only", order, " ");
        for (i = 1; i <= 3; i++) { s = order[i];
          printf "| %s | %d | %.1f | %+.1f%% | %.1f | %d | %d | %.3f | %.3f |\n", s, n[s], mb[s],
            100 * (mb[s] / mb["image-locality"] - 1), sim[s], pulls[s], gc[s], cv[s] / n[s], cpu[s] / n[s] } }' "$results"
[ "${KEEP_EXPERIMENT_IMAGES:-0}" = 1 ] || remove_images
