#!/usr/bin/env bash
# Real layer-placement experiment: three fresh containerd instances act as nodes; the same seeded pod
# sequence is placed by each scorer (resources-only, image-locality, layer-locality) with
# crigate-scheduler's scoring code, each pod's image is pulled for real on the chosen node, and the
# bytes the registry served are read from its access log.
# Usage: [SEEDS="1 2 3"] bash scripts/experiment-layers.sh [--pods N]   (prints a markdown table)
# Needs the local infra (scripts/infra/up.sh) and an installed crigate-bench/crigate-cli build.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/lib/java.sh
set -a; . "${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}/env"; set +a
. scripts/infra/lib.sh
registry=$CRIGATE_REGISTRY
repo=crigate-exp
nodes=(exp-1 exp-2 exp-3)
scorers=(resources-only image-locality layer-locality)
mib=1048576
# Catalog: one OS-like base, two runtimes on it, three apps on each runtime. Random bytes, so gzip
# cannot shrink them: the pulled sizes are the sizes below.
base_mib=64 runtime_mib=32 app_mib=8
runtimes=(py java)
apps=(py-web py-etl py-api java-web java-batch java-api)
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
  for name in "${runtimes[@]}"; do add_layer base "$name" $runtime_mib; done
  for name in "${apps[@]}"; do add_layer "${name%%-*}" "$name" $app_mib; done
  for name in "${all[@]}"; do
    skopeo copy --quiet --dest-tls-verify=false "oci:oci:$name" "docker://$registry/$repo/$name:v1"
  done
  cd "$root"
  rm -rf "$work/oci"
}

fresh_nodes() {
  local node
  for node in "${nodes[@]}"; do
    bash scripts/infra/containerd.sh stop "$node" >/dev/null 2>&1 || true
    rm -rf "$CRIGATE_INFRA_DIR/containerd-$node"
    bash scripts/infra/containerd.sh start "$node" >/dev/null
  done
}

remove_nodes() {
  local node
  for node in "${nodes[@]}"; do
    bash scripts/infra/containerd.sh stop "$node" >/dev/null 2>&1 || true
    rm -rf "$CRIGATE_INFRA_DIR/containerd-$node"
  done
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
printf '| scorer | seed | pods | MB pulled (registry log) | MB new layers (inventories) | pulls | pods per node | CV pods/node |\n'
printf '|---|---:|---:|---:|---:|---:|---|---:|\n'
cat "$results"
# Totals per scorer over the seeds, and the change against upstream image-locality.
awk -F'|' '{ s=$2; gsub(/ /,"",s); mb[s]+=$5; pulls[s]+=$7; cv[s]+=$9; n[s]++ }
  END { printf "\n| scorer | seeds | MB pulled | vs image-locality | pulls | mean CV pods/node |\n|---|---:|---:|---:|---:|---:|\n";
        split("image-locality layer-locality resources-only", order, " ");
        for (i = 1; i <= 3; i++) { s = order[i];
          printf "| %s | %d | %.1f | %+.1f%% | %d | %.3f |\n", s, n[s], mb[s], 100 * (mb[s] / mb["image-locality"] - 1), pulls[s], cv[s] / n[s] } }' "$results"
[ "${KEEP_EXPERIMENT_IMAGES:-0}" = 1 ] || remove_images
