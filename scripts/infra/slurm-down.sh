#!/bin/bash
# Stops what slurm-up.sh started, by recorded pid, in reverse order; keeps state so a later
# slurm-up.sh resumes with the same keys and accounting database.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
for name in slurm-sshd slurm-slurmrestd slurm-slurmd slurm-slurmctld slurm-slurmdbd slurm-mariadb slurm-munged; do
  infra_stop "$name"
done
infra_log "slurm down"
