# Sourced by slurm-up.sh and check-deps.sh: writes the single-node Slurm configuration, and knows which
# plugins it names and which Debian package ships each one, so a missing plugin is named before any
# daemon starts instead of surfacing later as "slurm node not idle".

# The plugins slurmrestd is started with (its -a and -s options); they are not in any config file.
slurm_restd_auth=rest_auth/jwt
slurm_restd_openapi=openapi/v0.0.38,openapi/dbv0.0.38

# slurm_write_configs DIR HOST: writes DIR/etc/slurm.conf and DIR/etc/slurmdbd.conf for HOST.
# Rewritten on every run: the content only depends on paths.
slurm_write_configs() {
  local D=$1 H=$2
  mkdir -p "$D/etc"
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
  cat > "$D/etc/slurm.conf" <<EOF
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
  chmod 0644 "$D/etc/slurm.conf"
}

slurm_plugin_dir=${SLURM_PLUGIN_DIR:-/usr/lib/x86_64-linux-gnu/slurm-wlm}

# slurm_named_plugins CONF...: prints each plugin (type/name) that the given config files select,
# then slurmrestd's, one per line.
slurm_named_plugins() {
  sed -n -E 's/^(AuthType|AuthAltTypes|CredType|ProctrackType|TaskPlugin|SelectType|JobAcctGatherType|AccountingStorageType|StorageType)=//p' "$@" |
    tr ',' '\n'
  printf '%s\n' "$slurm_restd_auth" ${slurm_restd_openapi//,/ }
}

# slurm_plugin_package PLUGIN: the Debian package that ships PLUGIN's shared object.
slurm_plugin_package() {
  case $1 in
    auth/jwt) echo slurm-wlm-jwt-plugin ;;
    accounting_storage/mysql | jobcomp/mysql) echo slurm-wlm-mysql-plugin ;;
    rest_auth/* | openapi/*) echo slurmrestd ;;
    *) echo slurm-wlm-basic-plugins ;;
  esac
}

# slurm_missing_plugins CONF...: prints "PLUGIN (package PACKAGE)" for each named plugin whose
# shared object is not installed; prints nothing when all are there. "none" values need no file.
slurm_missing_plugins() {
  local plugin file
  for plugin in $(slurm_named_plugins "$@" | sort -u); do
    [ "${plugin#*/}" = none ] && continue
    file=$slurm_plugin_dir/$(printf '%s' "$plugin" | tr '/.' '__').so
    [ -e "$file" ] || printf '%s (package %s)\n' "$plugin" "$(slurm_plugin_package "$plugin")"
  done
}
