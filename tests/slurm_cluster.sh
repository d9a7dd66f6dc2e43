#!/usr/bin/env bash
# The ctest fixture around the local Slurm cluster (slurm/local/).
#
#   slurm_cluster.sh start CONF_FILE   start a cluster; write its SLURM_CONF path to CONF_FILE
#   slurm_cluster.sh stop CONF_FILE    stop the cluster named in CONF_FILE and remove the file
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
if [ "$#" -ne 2 ]; then
  echo "usage: $0 start|stop CONF_FILE" >&2
  exit 2
fi
action=$1
conf_file=$2

stop() {
  if [ -f "$conf_file" ]; then
    "$repo/slurm/local/stop.sh" "$(dirname "$(cat "$conf_file")")"
    rm -f "$conf_file"
  fi
}

case "$action" in
  start)
    # A cluster left over from an interrupted test run would hold the CPUs.
    stop
    started=$("$repo/slurm/local/start.sh")
    echo "$started"
    echo "$started" | sed -n 's/^export SLURM_CONF=//p' > "$conf_file"
    ;;
  stop) stop ;;
  *)
    echo "usage: $0 start|stop CONF_FILE" >&2
    exit 2
    ;;
esac
