#!/bin/bash
# Starts a single-node Slurm 22.05 on loopback under $CRIGATE_INFRA_DIR/slurm: munged, mariadb (unix
# socket only) + slurmdbd for sacct, slurmctld, slurmd, slurmrestd (JWT, as nobody) and an sshd on
# 127.0.0.1:2222 that accepts a generated key. Appends its exports to $CRIGATE_INFRA_DIR/env.
# Idempotent: a second run keeps running daemons and existing keys.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/slurm-conf.sh"

D=$CRIGATE_INFRA_DIR/slurm
H=$(hostname -s)
export SLURM_CONF=$D/etc/slurm.conf
# --- configuration first, and a check that every plugin it names is installed, before anything
# else is touched (keys, users, daemons)
mkdir -p "$D/log"
slurm_write_configs "$D" "$H"
missing=$(slurm_missing_plugins "$D/etc/slurm.conf" "$D/etc/slurmdbd.conf")
[ -z "$missing" ] || infra_die "Slurm plugins named by the generated config are not installed: $(printf "%s" "$missing" | paste -sd ";" | sed "s/;/; /g")
  install them with scripts/infra/install-deps.sh (or apt-get install the packages named)"

mkdir -p "$D"/{etc,state,spool,log,work,munge/run,munge/key,munge/lib,mysql,ssh}
chmod 0755 "$D" "$D/munge" "$D/munge/run"
chmod 0700 "$D/munge/key" "$D/munge/lib"
# Sandboxes live here; jobs submitted over slurmrestd may run as another user, hence the sticky 1777.
chmod 1777 "$D/work"

# --- keys, generated once
[ -s "$D/munge/key/munge.key" ] || { dd if=/dev/urandom of="$D/munge/key/munge.key" bs=1024 count=1 2>/dev/null; }
chmod 0600 "$D/munge/key/munge.key"
[ -s "$D/etc/jwt.key" ] || dd if=/dev/urandom of="$D/etc/jwt.key" bs=32 count=1 2>/dev/null
chmod 0600 "$D/etc/jwt.key"
# ECDSA rather than ed25519: MINA SSHD needs an extra crypto provider for ed25519.
[ -s "$D/ssh/host_ecdsa" ] || ssh-keygen -q -t ecdsa -b 256 -N '' -f "$D/ssh/host_ecdsa"
[ -s "$D/ssh/client_ecdsa" ] || ssh-keygen -q -t ecdsa -b 256 -N '' -f "$D/ssh/client_ecdsa"
cp "$D/ssh/client_ecdsa.pub" "$D/ssh/authorized_keys"
printf '[127.0.0.1]:2222 %s\n' "$(cut -d' ' -f1,2 "$D/ssh/host_ecdsa.pub")" > "$D/ssh/known_hosts"
# A cluster user that logs in with a password, for multi-cri's per-container logins (CLUSTER_*).
# The password is random per machine and has shell metacharacters, so quoting mistakes show.
id crigate-hpc >/dev/null 2>&1 || useradd --system --create-home --shell /bin/bash crigate-hpc
[ -s "$D/ssh/hpc-password" ] ||
  (umask 077; printf 'p$(w) `x` %s' "$(head -c 12 /dev/urandom | base64 | tr -d '/+=')" > "$D/ssh/hpc-password")
printf 'crigate-hpc:%s\n' "$(cat "$D/ssh/hpc-password")" | chpasswd
# The test cluster is one node on loopback. Open MPI's out-of-band channel skips loopback and fails
# ("No network interfaces were found") where lo is the only interface, e.g. in a network namespace,
# so this user's MPI jobs are told to use it; other users' and machines' MPI settings are untouched.
install -d -o crigate-hpc ~crigate-hpc/.openmpi
printf 'oob_tcp_if_include = lo\nbtl_tcp_if_include = lo\n' > ~crigate-hpc/.openmpi/mca-params.conf

# --- munge
infra_start slurm-munged munged -F --socket="$D/munge/run/munge.sock" --key-file="$D/munge/key/munge.key" \
  --pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" --seed-file="$D/munge/lib/seed" --force
infra_await slurm-munged 15 munged test -S "$D/munge/run/munge.sock" ||
  infra_fail slurm-munged "munged did not start" "$D/munge/munged.log" "$infra_logs/slurm-munged.log"

# --- mariadb + slurmdbd
if [ ! -d "$D/mysql/data/mysql" ]; then
  mariadb-install-db --no-defaults --user=root --datadir="$D/mysql/data" >/dev/null 2>&1
fi
infra_start slurm-mariadb mariadbd --no-defaults --user=root --datadir="$D/mysql/data" --socket="$D/mysql/sock" \
  --skip-networking --pid-file="$D/mysql/pid" --innodb-buffer-pool-size=64M
infra_await slurm-mariadb 60 mariadb mariadb --socket="$D/mysql/sock" -uroot -e 'select 1' ||
  infra_fail slurm-mariadb "mariadb did not start" "$infra_logs/slurm-mariadb.log"
mariadb --socket="$D/mysql/sock" -uroot -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
  CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'crigate';
  GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';"
# slurmdbd finds slurmdbd.conf next to $SLURM_CONF; the argv[0] names our directory so lib.sh can
# tell this daemon from any other slurmdbd.
infra_start slurm-slurmdbd env MYSQL_UNIX_PORT="$D/mysql/sock" bash -c 'exec -a "slurmdbd $0" slurmdbd -D' "$D"
infra_await slurm-slurmdbd 60 slurmdbd bash -c 'ss -ltn | grep -q "127.0.0.1:6819 "' ||
  infra_fail slurm-slurmdbd "slurmdbd did not start" "$D/log/slurmdbd.log" "$infra_logs/slurm-slurmdbd.log"

# --- slurmctld + slurmd
infra_start slurm-slurmctld slurmctld -D -f "$SLURM_CONF"
infra_start slurm-slurmd slurmd -D -f "$SLURM_CONF"
node_up() { sinfo -h -o %t | grep -qE "idle|mix|alloc"; }
if ! infra_await slurm-slurmctld 60 "slurm node" node_up; then
  # Name the daemon that failed, not the symptom: a dead slurmctld or slurmd, or munge behind both.
  infra_live_pid slurm-munged >/dev/null ||
    infra_fail slurm-munged "munged is not running, so no Slurm daemon can authenticate" "$D/munge/munged.log"
  infra_live_pid slurm-slurmctld >/dev/null ||
    infra_fail slurm-slurmctld "slurmctld did not start" "$D/log/slurmctld.log" "$infra_logs/slurm-slurmctld.log"
  infra_live_pid slurm-slurmd >/dev/null ||
    infra_fail slurm-slurmd "slurmd did not start" "$D/log/slurmd.log" "$infra_logs/slurm-slurmd.log"
  infra_fail slurm-slurmctld "the Slurm node did not become idle within 60 s (sinfo: $(sinfo -h -o '%t %E' 2>&1 | head -n1))" \
    "$D/log/slurmctld.log" "$D/log/slurmd.log"
fi
# The cluster row appears in the accounting db shortly after slurmctld registers.
infra_wait 30 "accounting" bash -c 'sacctmgr -n list cluster format=cluster | grep -q crigate' \
  || infra_fail slurm-slurmdbd "slurmctld did not register with slurmdbd" "$D/log/slurmdbd.log" "$D/log/slurmctld.log"

# --- slurmrestd (refuses root; JWT over TCP)
infra_start slurm-slurmrestd env SLURM_JWT=daemon slurmrestd -f "$SLURM_CONF" -u nobody -a "$slurm_restd_auth" \
  -s "$slurm_restd_openapi" 127.0.0.1:6820
infra_await slurm-slurmrestd 30 slurmrestd curl -s -o /dev/null 127.0.0.1:6820/ ||
  infra_fail slurm-slurmrestd "slurmrestd did not start" "$infra_logs/slurm-slurmrestd.log"
scontrol token username=root lifespan=604800 | sed -n 's/^SLURM_JWT=//p' > "$D/jwt.token"
chmod 0600 "$D/jwt.token"

# --- sshd on 127.0.0.1:2222, key-only root login
cat > "$D/ssh/sshd_config" <<EOF
Port 2222
ListenAddress 127.0.0.1
HostKey $D/ssh/host_ecdsa
PidFile $D/ssh/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
AuthorizedKeysFile $D/ssh/authorized_keys
UsePAM no
StrictModes no
MaxSessions 64
MaxStartups 64
SetEnv SLURM_CONF=$SLURM_CONF
Match User crigate-hpc
  PasswordAuthentication yes
EOF
mkdir -p /run/sshd
infra_start slurm-sshd /usr/sbin/sshd -D -f "$D/ssh/sshd_config" -E "$D/log/sshd.log"
infra_await slurm-sshd 15 sshd bash -c 'ss -ltn | grep -q "127.0.0.1:2222 "' ||
  infra_fail slurm-sshd "sshd did not start" "$D/log/sshd.log" "$infra_logs/slurm-sshd.log"

# --- podman for the slurm backend's podman runner: the local registry is plain HTTP, and this
# machine refuses podman's default NPROC/NOFILE rlimits (EPERM from runc), so set ones it accepts.
mkdir -p /etc/containers/containers.conf.d /etc/containers/registries.conf.d
printf '[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=1000:1000"]\n' \
  > /etc/containers/containers.conf.d/50-crigate-infra.conf
printf '[[registry]]\nlocation = "127.0.0.1:5000"\ninsecure = true\n' \
  > /etc/containers/registries.conf.d/50-crigate-infra.conf

# --- exports: replace our block, keep everyone else's lines
env_file=$CRIGATE_INFRA_DIR/env
touch "$env_file"
sed -i '/^# slurm-up begin$/,/^# slurm-up end$/d' "$env_file"
cat >> "$env_file" <<EOF
# slurm-up begin
export SLURM_CONF=$SLURM_CONF
export CRIGATE_SLURM_WORKDIR=$D/work
export CRIGATE_SSH_PORT=2222
export CRIGATE_SSH_KEY=$D/ssh/client_ecdsa
export CRIGATE_SSH_KNOWN_HOSTS=$D/ssh/known_hosts
export CRIGATE_SSH_PASSWORD_USER=crigate-hpc
export CRIGATE_SSH_PASSWORD_FILE=$D/ssh/hpc-password
export CRIGATE_SLURMRESTD_URL=http://127.0.0.1:6820
export CRIGATE_SLURM_JWT_USER=root
export CRIGATE_SLURM_JWT_FILE=$D/jwt.token
export CRIGATE_SLURM_JWT_COMMAND='scontrol token username=root lifespan=604800'
# slurm-up end
EOF
infra_log "slurm up; exports in $env_file"
