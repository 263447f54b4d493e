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

# infra_await NAME SECONDS DESCRIPTION COMMAND...: like infra_wait, but gives up at once when the
# daemon NAME exits, so a daemon that dies at start is reported in seconds, not after the timeout.
infra_await() {
  local name=$1 deadline=$(( $(date +%s) + $2 )) what=$3 pid
  shift 3
  # Watch the pid as started, not infra_live_pid: until the forked shell has exec'd the daemon,
  # its cmdline is this script's, which infra_live_pid takes for a stranger's (and forgets the pid).
  pid=$(cat "$infra_pids/$name" 2>/dev/null) || return 1
  until "$@" >/dev/null 2>&1; do
    ! infra_gone "$pid" || return 1
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.1
  done
  infra_log "$what ready"
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

# infra_probable_cause LOG...: one line naming the likeliest cause of a failed start found in the
# given logs, or nothing. Ordered from the most specific pattern to the last error line.
infra_probable_cause() {
  local logs=() log plugin line
  for log in "$@"; do [ -s "$log" ] && logs+=("$log"); done
  [ ${#logs[@]} -gt 0 ] || return 0
  plugin=$(grep -h -o -E "Couldn't find the specified plugin name for [a-z_]+/[a-z0-9_.]+" "${logs[@]}" | head -n1)
  if [ -n "$plugin" ]; then
    plugin=${plugin##* }
    if declare -F slurm_plugin_package >/dev/null; then
      echo "the Slurm plugin $plugin is not installed (Debian package $(slurm_plugin_package "$plugin"))"
    else
      echo "the Slurm plugin $plugin is not installed"
    fi
    return 0
  fi
  if grep -q -i -E 'munge.*(fail|unable|error|refused)|(fail|unable|error).*munge' "${logs[@]}"; then
    echo "munge is not running or its socket cannot be reached (is munged up?)"
    return 0
  fi
  if grep -q -E 'Address already in use' "${logs[@]}"; then
    echo "a port or socket it needs is already taken by another process"
    return 0
  fi
  if grep -q -E "Can't connect to (local )?(MySQL|MariaDB) server" "${logs[@]}"; then
    echo "mariadb is not answering on its socket"
    return 0
  fi
  line=$(grep -h -i -E 'fatal|error' "${logs[@]}" | tail -n1)
  [ -z "$line" ] || echo "last error logged: $line"
}

# infra_fail NAME WHAT LOG...: reports that daemon NAME failed (WHAT), whether it is still running,
# the last lines of each log, and the probable cause; then exits 1. Use it instead of infra_die
# whenever a daemon does not come up, so the first message a user sees is the reason, not a symptom.
infra_fail() {
  local name=$1 what=$2 pid log cause
  shift 2
  if pid=$(infra_live_pid "$name"); then
    infra_log "ERROR: $what ($name is still running, pid $pid)"
  else
    infra_log "ERROR: $what ($name exited)"
  fi
  for log in "$@"; do
    [ -s "$log" ] || continue
    infra_log "last lines of $log:"
    tail -n 15 "$log" | sed 's/^/    /' >&2
  done
  cause=$(infra_probable_cause "$@")
  [ -z "$cause" ] || infra_log "probable cause: $cause"
  exit 1
}
