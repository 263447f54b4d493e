#!/usr/bin/env bash
# crigate in one command, as root on a fresh Debian 12: installs what it needs, builds crigate,
# starts a local registry with a demo image and containerd, runs crigate in front of containerd,
# and runs a demo pod and container through it. Safe to run again; stop everything with
#   scripts/infra/down.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
step() { printf '\n==> %s\n' "$*"; }
[ "$(id -u)" = 0 ] || { echo "quickstart: run as root (as root: bash scripts/quickstart.sh): containerd needs it" >&2; exit 1; }
started=$(date +%s)

step "Installing Debian packages (containerd, runc, registry, image tools)"
bash scripts/infra/install-deps.sh

step "Building crigate"
. scripts/lib/java.sh
./mvnw -B -q -DskipTests install
# serve's JVM class cache now, so the first start below is already a fast one (bin/crigate)
if [ "$JAVA_MAJOR" -ge 25 ]; then
  bin/crigate prepare-cache
fi

step "Starting the registry, test images and containerd"
bash scripts/infra/up.sh
bash scripts/infra/slurm-up.sh
. "${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}/env"
. scripts/infra/lib.sh

step "Starting crigate in front of containerd A"
socket=$CRIGATE_INFRA_DIR/crigate.sock
state=$CRIGATE_INFRA_DIR/crigate-state
mkdir -p "$state"
ctl() { bin/crigate ctl --runtime-endpoint "unix://$socket" "$@"; }
# Restarted every run, so the crigate serving is the one just built.
infra_stop crigate
# Handler "default" goes to containerd A, handler "slurm" runs containers as Slurm jobs.
cat > "$state/crigate.yaml" <<YAML
backends:
  - {name: default, type: cri, handlers: [default], endpoint: "$CRIGATE_CONTAINERD_A"}
  - {name: slurm, type: slurm, handlers: [slurm], workDir: "$CRIGATE_SLURM_WORKDIR", transport: local}
YAML
infra_start crigate bin/crigate serve \
  --socket "$socket" \
  --state-dir "$state" \
  --config "$state/crigate.yaml"
infra_wait 60 "crigate on unix://$socket" ctl version \
  || { tail -n 30 "$CRIGATE_INFRA_DIR/logs/crigate.log" >&2; infra_die "crigate did not serve"; }
ctl version

step "Running a demo pod and container through crigate"
demo=$CRIGATE_INFRA_DIR/quickstart
mkdir -p "$demo"
cat > "$demo/pod.json" <<JSON
{
  "metadata": {"name": "crigate-demo", "namespace": "default", "uid": "crigate-demo-uid", "attempt": 0},
  "log_directory": "$demo/logs",
  "linux": {"security_context": {"namespace_options": {"network": "NODE"}}}
}
JSON
cat > "$demo/container.json" <<JSON
{
  "metadata": {"name": "demo"},
  "image": {"image": "$CRIGATE_IMAGE_DEMO"},
  "log_path": "demo.log"
}
JSON
# A pod left by an earlier run has the same name and uid: remove it so this run starts clean.
previous=$(ctl pods --name '^crigate-demo$' -q)
[ -z "$previous" ] || ctl rmp -f $previous
rm -rf "$demo/logs"
mkdir -p "$demo/logs"
pod=$(ctl runp "$demo/pod.json")
container=$(ctl create --with-pull "$pod" "$demo/container.json" "$demo/pod.json")
ctl start "$container"
infra_wait 30 "demo output" bash -c "bin/crigate ctl --runtime-endpoint unix://$socket logs $container | grep -q 'sleeping until stopped'" \
  || infra_die "the demo container printed nothing; see $demo/logs/demo.log"

step "Pods and containers"
ctl pods
ctl ps
step "Container status"
ctl inspect "$container" > "$demo/inspect.json"
sed -n 1,25p "$demo/inspect.json"
echo "(full status: $demo/inspect.json)"
step "Container logs"
ctl logs "$container"

step "A pod on the slurm handler: its container is a Slurm batch job"
cat > "$demo/slurm-pod.json" <<JSON
{"metadata": {"name": "crigate-slurm-demo", "namespace": "default", "uid": "crigate-slurm-demo-uid", "attempt": 0},
 "log_directory": "$demo/slurm-logs"}
JSON
cat > "$demo/slurm-job.json" <<'JSON'
{"metadata": {"name": "job"}, "image": {"image": "none"}, "log_path": "job.log",
 "command": ["/bin/sh", "-c", "echo hello from slurm job $SLURM_JOB_ID; exit 3"]}
JSON
previous=$(ctl pods --name '^crigate-slurm-demo$' -q)
[ -z "$previous" ] || ctl rmp -f $previous
rm -rf "$demo/slurm-logs"   # a fresh log per run, as for the demo pod above
mkdir -p "$demo/slurm-logs"
slurm_pod=$(ctl runp --runtime slurm "$demo/slurm-pod.json")
job=$(ctl create "$slurm_pod" "$demo/slurm-job.json" "$demo/slurm-pod.json")
ctl start "$job"
infra_wait 60 "slurm job to end" bash -c "bin/crigate ctl --runtime-endpoint unix://$socket inspect $job | grep -q CONTAINER_EXITED" \
  || infra_die "the slurm job did not end; see squeue and $CRIGATE_INFRA_DIR/slurm/log"
ctl inspect "$job" | grep -E '"(state|exitCode|reason|message)"'
ctl logs "$job"

step "Port-forward into a Slurm job: a web server in the job, reached from this host"
free_port() {   # the first port from $1 up that nothing listens on
  local port=$1
  while ss -ltnH "sport = :$port" | grep -q .; do port=$((port + 1)); done
  echo "$port"
}
web_port=$(free_port 28080)
local_port=$(free_port $((web_port + 1)))
site=$CRIGATE_SLURM_WORKDIR/crigate-demo-site
mkdir -p "$site"
echo "hello from a web server in a slurm job" > "$site/index.html"
cat > "$demo/slurm-web.json" <<JSON
{"metadata": {"name": "web"}, "image": {"image": "none"}, "log_path": "web.log",
 "command": ["busybox", "httpd", "-f", "-p", "127.0.0.1:$web_port", "-h", "$site"]}
JSON
web=$(ctl create "$slurm_pod" "$demo/slurm-web.json" "$demo/slurm-pod.json")
ctl start "$web"
infra_wait 60 "web server in the slurm job" bash -c "exec 2>/dev/null; exec 3<>/dev/tcp/127.0.0.1/$web_port" \
  || infra_die "the web job did not listen on $web_port; see squeue and $CRIGATE_SLURM_WORKDIR"
# not through the ctl function: $! must be crigate's own pid (bin/crigate execs java), so kill stops it
bin/crigate ctl --runtime-endpoint "unix://$socket" port-forward "$slurm_pod" "$local_port:$web_port" \
  > "$demo/port-forward.log" 2>&1 &
forward=$!
infra_wait 30 "crigate ctl port-forward" grep -q "Forwarding from" "$demo/port-forward.log" \
  || infra_die "ctl port-forward did not start; see $demo/port-forward.log"
echo "curl http://127.0.0.1:$local_port/  (a relay step in the job joins it to port $web_port on the job's node)"
curl -sS "http://127.0.0.1:$local_port/"
kill "$forward"
wait "$forward" 2>/dev/null || true
ctl stop "$web" > /dev/null

cat <<DONE

==> crigate is running (quickstart took $(( $(date +%s) - started )) s)
  CRI socket:   unix://$socket
  a kubelet:    kubelet --container-runtime-endpoint=unix://$socket ...
  try it:       bin/crigate ctl --runtime-endpoint unix://$socket ps
                bin/crigate ctl --runtime-endpoint unix://$socket exec $container echo hello
                bin/crigate ctl --runtime-endpoint unix://$socket port-forward POD LOCAL:REMOTE
  crigate log:  $CRIGATE_INFRA_DIR/logs/crigate.log
  stop it all:  bash scripts/infra/down.sh   (add --purge to delete $CRIGATE_INFRA_DIR)
DONE
