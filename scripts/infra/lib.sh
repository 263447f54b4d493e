# Sourced by scripts/infra/*.sh: paths and process helpers shared by bring-up and tear-down.
# Every daemon we start gets a pid file under $CRIGATE_INFRA_DIR/pids; a pid file only counts while
# its process is alive AND its command line names the infra dir, so a stale file left by a crash
# (or a recycled pid) is never mistaken for a running daemon and never gets an unrelated process killed.

CRIGATE_INFRA_DIR=${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}
export CRIGATE_INFRA_DIR
infra_pids=$CRIGATE_INFRA_DIR/pids
infra_logs=$CRIGATE_INFRA_DIR/logs

infra_log() { printf '[infra %s] %s\n' "$(date +%T)" "$*" >&2; }
infra_die() { infra_log "ERROR: $*"; exit 1; }

# Prints the live pid recorded under pids/$1, or fails (and drops the file) when it is stale.
infra_live_pid() {
  local file=$infra_pids/$1 pid
  [ -s "$file" ] || return 1
  pid=$(cat "$file")
  if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$CRIGATE_INFRA_DIR"; then
    echo "$pid"
    return 0
  fi
  rm -f "$file"
  return 1
}

# infra_poll SECONDS COMMAND...: runs COMMAND every 0.1 s until it succeeds; fails after SECONDS.
infra_poll() {
  local deadline=$(( $(date +%s) + $1 ))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

# infra_wait SECONDS DESCRIPTION COMMAND...: infra_poll, then logs "DESCRIPTION ready".
infra_wait() {
  local seconds=$1 what=$2
  shift 2
  infra_poll "$seconds" "$@" && infra_log "$what ready"
}

# infra_start NAME COMMAND...: starts COMMAND in the background unless NAME already runs.
infra_start() {
  local name=$1
  shift
  if pid=$(infra_live_pid "$name"); then
    infra_log "$name already running (pid $pid)"
    return 0
  fi
  mkdir -p "$infra_pids" "$infra_logs"
  setsid "$@" >>"$infra_logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$infra_pids/$name"
  infra_log "$name started (pid $!, log $infra_logs/$name.log)"
}

# A zombie counts as gone: our daemons are reparented, so their reaper is not this shell.
infra_gone() { [ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

# infra_stop NAME: SIGTERM, up to 15 s grace, then SIGKILL; only for a live, verified pid.
infra_stop() {
  local name=$1 pid
  if ! pid=$(infra_live_pid "$name"); then
    rm -f "$infra_pids/$name"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  if ! infra_poll 15 infra_gone "$pid"; then
    infra_log "$name (pid $pid) ignored SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    infra_poll 5 infra_gone "$pid" || infra_log "$name (pid $pid) still alive after SIGKILL"
  fi
  infra_log "$name stopped"
  rm -f "$infra_pids/$name"
}
