#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine (for tests and trying the scripts): munged,
# slurmctld and slurmd, every file of theirs under one fresh temporary directory, and waits
# until the node is idle.
#
#   slurm/local/start.sh            needs root (the daemons run as root)
#
# It waits up to 30 s for the node to become idle, times DUNESIM_TIMEOUT_SCALE if set
# (tests/timeouts.sh: a sanitizer build's tests set it).
#
# The last line printed is `export SLURM_CONF=DIR/slurm.conf`: every client (sbatch, srun,
# squeue, scontrol, sinfo) needs it. Stop the cluster with `slurm/local/stop.sh DIR`.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/timeouts.sh"
if [ "$(id -u)" -ne 0 ]; then
  echo "start.sh: the local cluster runs its daemons as root; run as root" >&2
  exit 1
fi
PATH=$PATH:/usr/sbin  # where Debian puts the daemons
for tool in munged slurmctld slurmd sinfo; do
  if ! command -v "$tool" >/dev/null; then
    echo "start.sh: $tool not found (apt-get install slurm-wlm munge)" >&2
    exit 1
  fi
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/dunesim-slurm.XXXXXX")
# munged running as root refuses a key whose directory others may write to.
chmod 0711 "$dir"
mkdir -p "$dir/state" "$dir/spool"
# If anything below fails, leave nothing running.
trap '"$here/stop.sh" "$dir" >&2' ERR

# A port nobody listens on yet, so several clusters can run side by side.
free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
}

host=$(hostname -s)
# `slurmd -C` prints "NodeName=<host> CPUs=... RealMemory=..."; keep the hardware part.
node_line=$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]* //')
ctld_port=$(free_port)
slurmd_port=$(free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done
sed -e "s|@HOST@|$host|g" -e "s|@DIR@|$dir|g" -e "s|@NODE@|$node_line|" \
    -e "s|@CTLD_PORT@|$ctld_port|" -e "s|@SLURMD_PORT@|$slurmd_port|" \
    "$here/slurm.conf.in" > "$dir/slurm.conf"
export SLURM_CONF=$dir/slurm.conf

# A private copy of the key, root-owned and 0600, and a private socket: the system's munged
# (if any) is left alone.
install -m 0600 -o root -g root /etc/munge/munge.key "$dir/munge.key"
munged --socket="$dir/munge.socket.2" --key-file="$dir/munge.key" \
       --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"
slurmctld -i
slurmd

limit=$(scaled 30)
deadline=$((SECONDS + limit))
while [ "$SECONDS" -lt "$deadline" ]; do
  if [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; then
    echo "start.sh: one-node cluster '$host' is up in $dir"
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.2
done
echo "start.sh: the node did not become idle within $limit s" >&2
sinfo >&2 || true
tail -n 20 "$dir"/*.log >&2 || true
"$here/stop.sh" "$dir" >&2
exit 1
