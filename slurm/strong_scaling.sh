#!/usr/bin/env bash
# Strong scaling: the same case on 1, 2, 4, ... ranks. Options: see scaling_sweep.sh.
#   slurm/strong_scaling.sh [--ranks="1 2 4 8"] [--dry-run] [SUBMIT_OPTION...] CASE SWEEP_DIR [-- run options]
set -euo pipefail
exec "$(dirname "$0")/scaling_sweep.sh" strong "$@"
