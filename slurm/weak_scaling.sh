#!/usr/bin/env bash
# Weak scaling: the particles per rank held fixed by refining the case's cells with the
# rank count. Options: see scaling_sweep.sh.
#   slurm/weak_scaling.sh [--ranks="1 2 4 8"] [--dry-run] [SUBMIT_OPTION...] CASE SWEEP_DIR [-- run options]
set -euo pipefail
exec "$(dirname "$0")/scaling_sweep.sh" weak "$@"
