#!/usr/bin/env bash
# Tests the bring-up's own diagnostics, in seconds and without touching running daemons:
#   - slurm-up.sh refuses to start when a plugin its config names is missing, naming the package,
#     before it touches keys, users or daemons;
#   - check-deps.sh names the package of a missing command and of a missing plugin;
#   - infra_fail reports a daemon that exited, its log's last lines and the probable cause, for the
#     failures seen in practice (a missing Slurm plugin, munge down);
#   - infra_await waits for the daemon it started, and stops waiting when that daemon exits.
# Run by scripts/test.sh before the bring-up. Prints "N passed, N failed"; exits 1 on any failure.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
# expect NAME OUTPUT-FILE STATUS WANTED-STATUS PATTERN...: every PATTERN (grep -E) must be in the output.
expect() {
  local name=$1 out=$2 status=$3 wanted=$4 pattern ok=true
  shift 4
  [ "$status" = "$wanted" ] || { ok=false; echo "selftest: $name: exit $status, wanted $wanted"; }
  for pattern in "$@"; do
    grep -qE -- "$pattern" "$out" || { ok=false; echo "selftest: $name: output lacks /$pattern/"; }
  done
  if $ok; then passed=$((passed + 1)); else failed=$((failed + 1)); sed 's/^/    | /' "$out"; fi
}

# A plugin directory like the real one but without auth/jwt, as on a machine lacking slurm-wlm-jwt-plugin.
real_plugins=/usr/lib/x86_64-linux-gnu/slurm-wlm
mkdir -p "$tmp/plugins"
[ -d "$real_plugins" ] && cp -s "$real_plugins"/*.so "$tmp/plugins/" 2>/dev/null
rm -f "$tmp/plugins/auth_jwt.so"

# A PATH with the basic tools only, as on a machine where no package of install-deps.sh is installed.
# slurm-up.sh runs with it too, so that if its plugin check ever broke it could not go on to change
# the test user or start daemons beside the real ones.
mkdir -p "$tmp/bin"
for tool in dirname mktemp rm mkdir chmod cat sed tr sort grep paste hostname; do
  ln -s "$(command -v "$tool")" "$tmp/bin/$tool"
done
SLURM_PLUGIN_DIR=$tmp/plugins CRIGATE_INFRA_DIR=$tmp/infra PATH=$tmp/bin /bin/bash "$here/slurm-up.sh" > "$tmp/up.out" 2>&1
expect "slurm-up names a missing plugin" "$tmp/up.out" $? 1 'auth/jwt \(package slurm-wlm-jwt-plugin\)'
if [ -e "$tmp/infra/slurm/ssh" ] || [ -e "$tmp/infra/pids" ]; then
  echo "selftest: slurm-up touched keys or daemons before its plugin check"; failed=$((failed + 1))
else
  passed=$((passed + 1))
fi

SLURM_PLUGIN_DIR=$tmp/plugins PATH=$tmp/bin /bin/bash "$here/check-deps.sh" > "$tmp/deps.out" 2>&1
expect "check-deps names missing commands and plugins" "$tmp/deps.out" $? 1 \
  'command sbatch \(Debian package slurm-client\)' 'command containerd \(Debian package containerd\)' \
  'Slurm plugin auth/jwt \(package slurm-wlm-jwt-plugin\)'

# infra_fail on a daemon that has exited, with slurmctld's own words for a missing plugin.
cat > "$tmp/slurmctld.log" <<'LOG'
[2026-11-25T06:58:01.120] error: Couldn't find the specified plugin name for auth/jwt looking at all files
[2026-11-25T06:58:01.121] error: cannot find auth plugin for auth/jwt
[2026-11-25T06:58:01.121] fatal: failed to initialize authentication plugin
LOG
(
  export CRIGATE_INFRA_DIR=$tmp/fail
  . "$here/lib.sh"
  . "$here/slurm-conf.sh"
  mkdir -p "$infra_pids"
  echo 999999999 > "$infra_pids/slurm-slurmctld"
  infra_fail slurm-slurmctld "slurmctld did not start" "$tmp/slurmctld.log"
) > "$tmp/fail.out" 2>&1
expect "infra_fail explains a missing plugin" "$tmp/fail.out" $? 1 'slurmctld did not start \(slurm-slurmctld exited\)' \
  'fatal: failed to initialize authentication plugin' \
  'probable cause: the Slurm plugin auth/jwt is not installed \(Debian package slurm-wlm-jwt-plugin\)'

printf '[2026-11-25T07:00:00.000] error: Munge encode failed: Failed to access "/x/munge.sock": No such file or directory\n' \
  > "$tmp/slurmd.log"
(CRIGATE_INFRA_DIR=$tmp/fail2; . "$here/lib.sh"; infra_fail slurm-slurmd "slurmd did not start" "$tmp/slurmd.log") > "$tmp/munge.out" 2>&1
expect "infra_fail explains munge down" "$tmp/munge.out" $? 1 'probable cause: munge is not running'

# infra_await follows the daemon it started even before its cmdline names the infra directory (the
# moment between fork and exec, which under load it once took for a stranger's and gave up), and
# still gives up when that daemon exits.
(
  export CRIGATE_INFRA_DIR=$tmp/await
  . "$here/lib.sh"
  mkdir -p "$infra_pids"
  sleep 30 & echo $! > "$infra_pids/late"
  (sleep 0.5; touch "$tmp/late-ready") &
  infra_await late 20 "late daemon" test -e "$tmp/late-ready"; echo "late: $?"
  kill %1
  sleep 0.3 & echo $! > "$infra_pids/dying"
  infra_await dying 20 "dying daemon" false; echo "dying: $?"
) > "$tmp/await.out" 2>&1
expect "infra_await follows its daemon, and not one that exited" "$tmp/await.out" 0 0 'late daemon ready' '^late: 0$' '^dying: 1$'

echo "infra selftest: $passed passed, $failed failed"
[ "$failed" = 0 ]
