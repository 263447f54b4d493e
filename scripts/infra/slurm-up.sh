#!/bin/bash
# Starts a single-node Slurm 22.05 on loopback under $CRIGATE_INFRA_DIR/slurm: munged, mariadb (unix
# socket only) + slurmdbd for sacct, slurmctld, slurmd, slurmrestd (JWT, as nobody) and an sshd on
# 127.0.0.1:2222 that accepts a generated key. Appends its exports to $CRIGATE_INFRA_DIR/env.
# Idempotent: a second run keeps running daemons and existing keys.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

D=$CRIGATE_INFRA_DIR/slurm
H=$(hostname -s)
export SLURM_CONF=$D/etc/slurm.conf
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

# --- configuration (rewritten every run: it only depends on paths)
cat > "$D/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$D/munge/run/munge.sock
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$D/etc/jwt.key
DbdHost=$H
DbdAddr=127.0.0.1
DbdPort=6819
CommunicationParameters=NoInAddrAny
SlurmUser=root
PidFile=$D/slurmdbd.pid
LogFile=$D/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=crigate
StorageLoc=slurm_acct_db
EOF
chmod 0600 "$D/etc/slurmdbd.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=crigate
SlurmctldHost=$H(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/run/munge.sock
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$D/etc/jwt.key
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/linux
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePass=$D/munge/run/munge.sock
MailProg=/bin/true
ReturnToService=2
MinJobAge=300
NodeName=$H NodeAddr=127.0.0.1 CPUs=2 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=2048 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
EOF
chmod 0644 "$SLURM_CONF"

# --- munge
infra_start slurm-munged munged -F --socket="$D/munge/run/munge.sock" --key-file="$D/munge/key/munge.key" \
  --pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" --seed-file="$D/munge/lib/seed" --force
infra_wait 15 munged test -S "$D/munge/run/munge.sock" || infra_die "munged did not start"

# --- mariadb + slurmdbd
if [ ! -d "$D/mysql/data/mysql" ]; then
  mariadb-install-db --no-defaults --user=root --datadir="$D/mysql/data" >/dev/null 2>&1
fi
infra_start slurm-mariadb mariadbd --no-defaults --user=root --datadir="$D/mysql/data" --socket="$D/mysql/sock" \
  --skip-networking --pid-file="$D/mysql/pid" --innodb-buffer-pool-size=64M
infra_wait 60 mariadb mariadb --socket="$D/mysql/sock" -uroot -e 'select 1' || infra_die "mariadb did not start"
mariadb --socket="$D/mysql/sock" -uroot -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
  CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'crigate';
  GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';"
# slurmdbd finds slurmdbd.conf next to $SLURM_CONF; the argv[0] names our directory so lib.sh can
# tell this daemon from any other slurmdbd.
infra_start slurm-slurmdbd env MYSQL_UNIX_PORT="$D/mysql/sock" bash -c 'exec -a "slurmdbd $0" slurmdbd -D' "$D"
infra_wait 60 slurmdbd bash -c 'ss -ltn | grep -q "127.0.0.1:6819 "' || infra_die "slurmdbd did not start"

# --- slurmctld + slurmd
infra_start slurm-slurmctld slurmctld -D -f "$SLURM_CONF"
infra_start slurm-slurmd slurmd -D -f "$SLURM_CONF"
infra_wait 60 "slurm node" bash -c 'sinfo -h -o %t | grep -qE "idle|mix|alloc"' || infra_die "slurm node not idle"
# The cluster row appears in the accounting db shortly after slurmctld registers.
infra_wait 30 "accounting" bash -c 'sacctmgr -n list cluster format=cluster | grep -q crigate' \
  || infra_die "slurmctld did not register with slurmdbd"

# --- slurmrestd (refuses root; JWT over TCP)
infra_start slurm-slurmrestd env SLURM_JWT=daemon slurmrestd -f "$SLURM_CONF" -u nobody -a rest_auth/jwt \
  -s openapi/v0.0.38,openapi/dbv0.0.38 127.0.0.1:6820
infra_wait 30 slurmrestd curl -s -o /dev/null 127.0.0.1:6820/ || infra_die "slurmrestd did not start"
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
infra_wait 15 sshd bash -c 'ss -ltn | grep -q "127.0.0.1:2222 "' || infra_die "sshd did not start"

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
