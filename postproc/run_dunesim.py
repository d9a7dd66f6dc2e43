"""Runs dunesim on a case under mpiexec, as the studies in this folder do."""
import subprocess
import sys


def dunesim_command(dunesim, ranks, case):
    """The command that runs `case` with `dunesim` on `ranks` ranks, quietly."""
    return ["mpiexec", "-n", str(ranks), "--oversubscribe", dunesim, "run", case, "--quiet"]


def run_dunesim(dunesim, ranks, case, script):
    """Runs `case` to its end; if it fails, exits with an error naming `script` and the
    command (mpiexec names a missing program in its own message)."""
    command = dunesim_command(dunesim, ranks, case)
    if subprocess.run(command).returncode != 0:
        sys.exit(f"{script}: error: {' '.join(command)} failed")
