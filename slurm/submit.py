#!/usr/bin/env python3
"""Submit one dunesim run to Slurm: fills in slurm/dunesim.sbatch from the command line.

Usage:
  slurm/submit.py CASE [--ranks N] [--nodes N] [--time T] [--partition P]
                  [--launcher srun|mpirun] [--output DIR] [--job-name NAME] [--exe PATH]
                  [--cell-size H | --weak-from P0] [--sbatch OPTION ...] [--dry-run]
                  [-- dunesim run options]
  slurm/submit.py CASE --plan [--cell-size H] [--ranks N | --nodes N] [--particles N]
                  [--flow-speed V] [--memory-per-node SIZE] [--ranks-per-node N]
                  [--bandwidth GBPS] [--latency US] [--cg-iterations N]
  slurm/submit.py CASE --project [P,P,...] [the --plan options]

The job is the first link of a restart chain (slurm/chain.sh): if the run checkpoints
before its time limit, the job resubmits itself until the case is done. Prints the job id
(or, with --dry-run, the sbatch command that would run). Options left out keep the
defaults of dunesim.sbatch (and any SBATCH_* variables set in the environment).

--cell-size H writes a copy of the case with [domain] cell_size = H into the output folder
and runs that (dunesim has no command-line override for the cell size). --weak-from P0
picks H for weak scaling: the case's cells refined so that the particles per rank on
--ranks ranks stay as they are with the case as written on P0 ranks. The refined cell size
must still divide the domain into whole cells, so the refinement is rounded; the particle
ratio actually reached is printed. Relative mesh and script paths in the copy are made
absolute, because dunesim reads them relative to the case file.

--plan sizes a run without submitting it (no Slurm needed): the particles (8 per cell the
sources fill at the start, from the shapes' volumes), the grid, the ranks and nodes, the
memory per rank, the wall seconds per simulated second and the parallel efficiency that the
communication model projects. --project does the same at several rank counts. The costs
are measured (the dune, a dry sand run, on a 2-core machine); the network and the message
counts are assumptions. It is a model, not a measurement: see slurm/README.md. The sizing
is slurm/sizing.py.

Before it sizes or submits anything, submit.py checks its input and refuses what dunesim
would refuse: a case file that is missing or not a regular file; a case that `dunesim check`
refuses (the executable of --exe, else DUNESIM_EXE, else build/dunesim in this folder, as the
job runs it), and with --cell-size or --weak-from a refined copy of it (in a temporary
folder); where there is no executable, its own rules, a subset of dunesim check's: the grid
(4 to 1e6 cells per axis, whole cells, at most 1e10 in all), every number finite, and the
values the sizing reads of the right type and range. dunesim check's one refusal that is
about the machine it runs on (a grid larger than this machine's memory) is not one: the
job runs elsewhere, and the plan sizes the memory. Every numeric option must be finite and
positive, rank and node counts (and CG iterations) at most the grid's cells, the steps to the
case's end at --flow-speed within dunesim's 1e8, the network figures within the ranges of
sizing.py. See slurm/README.md.

Exit status:
  0  submitted (the job id printed), dry run printed, or plan printed
  2  refused input: a bad option, a missing or unreadable case, a case dunesim check (or
     submit.py's rules) refuses, or values beyond what dunesim runs; the message names the
     file, key or option. Nothing is submitted or written.
  other  sbatch's own status when it refuses the job (1; its message on stderr), or 127 when
     there is no sbatch; chain.sh's 1 when the output folder cannot be made.

Standard library only; any python3 >= 3.6.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import traceback

from sizing import (CELL_SIZE_RE, EXIT_USAGE, add_sizing_options, check_case_values,
                    check_counts, check_grid, check_sizing_values, domain_of, plan,
                    plan_cell_size, read_case, refuse)

SLURM_DIR = os.path.dirname(os.path.abspath(__file__))

# Keys whose strings are file names read relative to the case file.
PATH_LINE_RE = re.compile(r"^\s*(file|scripts)\s*=")
STRING_RE = re.compile(r'"([^"\\]*)"')
# How long `dunesim check` may take (a case with large meshes reads them all).
CHECK_SECONDS = 300
# dunesim check's refusal of a grid too large for this machine's memory (src/driver/
# memory_budget.cpp): the machine that submits is not the one that runs.
MEMORY_REFUSAL = "of memory each rank has on its node"


def parse_args(argv):
    if "--" in argv:
        split = argv.index("--")
        own, run_args = argv[:split], argv[split + 1:]
    else:
        own, run_args = argv, []
    parser = argparse.ArgumentParser(
        description="Submit one dunesim run to Slurm (slurm/dunesim.sbatch), or size one "
                    "(--plan).",
        epilog="Arguments after -- go to `dunesim run`, e.g. -- --end-time 0.5 --no-frames")
    parser.add_argument("case", help="case file (TOML)")
    parser.add_argument("--ranks", type=int, help="MPI ranks (Slurm tasks); default 2 (--plan: "
                                                  "the nodes that hold the run, fully used)")
    parser.add_argument("--nodes", type=int, help="nodes (default: the template's, 1)")
    parser.add_argument("--time", help="time limit, e.g. 2:00:00 (default: the template's)")
    parser.add_argument("--partition", help="partition (default: the template's or SBATCH_PARTITION)")
    parser.add_argument("--launcher", choices=("srun", "mpirun"), help="default srun")
    parser.add_argument("--output", help="output folder (default output/<case>-np<ranks>)")
    parser.add_argument("--job-name", help="default dunesim-<case>")
    parser.add_argument("--exe", help="dunesim executable (default build/dunesim under the "
                                      "submit folder)")
    refine = parser.add_mutually_exclusive_group()
    refine.add_argument("--cell-size", type=float, help="run a copy of the case with this cell size")
    refine.add_argument("--weak-from", type=int, metavar="P0",
                        help="refine the cells for weak scaling from P0 ranks to --ranks ranks")
    parser.add_argument("--sbatch", action="append", default=[], metavar="OPTION",
                        help="extra sbatch option in one-word form (--mem=8G), for every job "
                             "of the restart chain; repeatable")
    parser.add_argument("--dry-run", action="store_true", help="print the sbatch command only")
    add_sizing_options(parser)
    args = parser.parse_args(own)
    args.run_args = run_args
    args.plan = args.plan or args.project is not None
    if args.ranks is None and (not args.plan or args.weak_from is not None):
        args.ranks = 2
    if (args.ranks is not None and args.ranks < 1) or \
            (args.weak_from is not None and args.weak_from < 1):
        parser.error("rank counts must be at least 1")
    check_sizing_values(parser, args)
    return args


def refined_case_text(lines, cell_line, cell_size, case_dir):
    out = list(lines)
    out[cell_line] = CELL_SIZE_RE.sub(lambda m: m.group(1) + repr(cell_size) + m.group(3),
                                      lines[cell_line])
    for index, line in enumerate(out):
        if PATH_LINE_RE.match(line):
            out[index] = STRING_RE.sub(
                lambda m: '"{}"'.format(os.path.join(case_dir, m.group(1))), line)
    return "\n".join(out) + "\n"


def dunesim_executable(args):
    """(path, named): --exe, else DUNESIM_EXE, else build/dunesim in this folder (what the job
    runs, see dunesim.sbatch); `named` when the user chose it, which must then exist."""
    if args.exe:
        return args.exe, "--exe " + args.exe
    if os.environ.get("DUNESIM_EXE"):
        return os.environ["DUNESIM_EXE"], "DUNESIM_EXE=" + os.environ["DUNESIM_EXE"]
    return os.path.join("build", "dunesim"), None


def dunesim_check(exe, case_file, shown_as):
    """`dunesim check case_file`: None when it passes, else its message (with `case_file`
    spelled `shown_as`). "memory" when its one complaint is this machine's memory."""
    try:
        result = subprocess.run([exe, "check", case_file], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, universal_newlines=True,
                                timeout=CHECK_SECONDS)
    except subprocess.TimeoutExpired:
        return "dunesim check did not finish in {} s".format(CHECK_SECONDS)
    except OSError as error:
        return "cannot run {}: {}".format(exe, error)
    if result.returncode == 0:
        return None
    said = result.stdout.strip().replace(case_file, shown_as)
    if result.returncode == EXIT_USAGE and MEMORY_REFUSAL in said:
        return "memory"
    return said or "dunesim check ended with status {} and said nothing".format(
        result.returncode)


def validate(args):
    """Refuses (status 2, the message naming the file, key or option) what dunesim would
    refuse or the sizing cannot size; returns (case, lines, size, cell size, cells) with the
    cell size that will run. `dunesim check` judges the case where the executable exists (and
    a refined copy of it for --cell-size or --weak-from); else submit.py's own rules, a
    subset of dunesim check's: the grid, every number finite, the values the sizing reads."""
    if not os.path.isfile(args.case):
        refuse("{}: {}".format(args.case, "not a regular file" if os.path.exists(args.case)
                               else "no such file"))
    try:
        with open(args.case) as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        refuse("{}: cannot read it: {}".format(args.case, error))
    exe, named = dunesim_executable(args)
    have_exe = os.path.isfile(exe) and os.access(exe, os.X_OK)
    if named and not have_exe:
        refuse("{}: not an executable file".format(named))
    judged = False
    if have_exe:
        exe = os.path.abspath(exe)
        said = dunesim_check(exe, args.case, args.case)
        if said not in (None, "memory"):
            refuse("dunesim check refuses the case:\n" + said)
        judged = said is None
    case = read_case(args.case)
    size, cell_size, _ = domain_of(lines, args.case)
    if not judged:
        check_case_values(case, args.case)
    cells = check_grid(size, cell_size, "{}: key 'domain.cell_size'".format(args.case))
    if args.weak_from is not None and args.weak_from > float(cells[0]) * cells[1] * cells[2]:
        refuse("--weak-from {}: more ranks than the case's {} x {} x {} cells".format(
            args.weak_from, *cells))
    new_size = plan_cell_size(args, size, cell_size)
    if new_size != cell_size:
        option = ("--cell-size {!r}".format(args.cell_size) if args.cell_size is not None else
                  "--weak-from {} (cell size {:.6g} m on {} ranks)".format(
                      args.weak_from, new_size, args.ranks))
        cells = check_grid(size, new_size, option)
        if have_exe:
            folder = tempfile.mkdtemp(prefix="submit-check-")
            try:
                copy = os.path.join(folder, os.path.basename(args.case))
                with open(copy, "w") as f:
                    f.write(refined_case_text(lines, domain_of(lines, args.case)[2], new_size,
                                              os.path.dirname(os.path.abspath(args.case))))
                said = dunesim_check(exe, copy, "{} with {}".format(args.case, option))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            if said not in (None, "memory"):
                refuse("dunesim check refuses the case with {}:\n{}".format(option, said))
    check_counts(args, cells)
    return case, lines, size, new_size, cells


def submit(args, lines, cell_size):
    stem = os.path.splitext(os.path.basename(args.case))[0]
    output = args.output or os.path.join("output", "{}-np{}".format(stem, args.ranks))
    case_file = args.case

    if args.cell_size is not None or args.weak_from is not None:
        size, old_size, cell_line = domain_of(lines, args.case)
        if args.weak_from is not None:
            ratio = (old_size / cell_size) ** 3 * args.weak_from / args.ranks
            print("submit.py: {} ranks: cell_size {} -> {:.6g} (particles per rank {:.3f} x "
                  "those on {} ranks)".format(args.ranks, old_size, cell_size, ratio,
                                               args.weak_from), file=sys.stderr)
        case_file = os.path.join(output, stem + ".toml")
        if not args.dry_run:
            try:
                os.makedirs(output, exist_ok=True)
                case_dir = os.path.dirname(os.path.abspath(args.case))
                with open(case_file, "w") as f:
                    f.write(refined_case_text(lines, cell_line, cell_size, case_dir))
            except OSError as error:
                refuse("--output {}: cannot write the refined case there: {}".format(output,
                                                                                    error))

    env = dict(os.environ)
    env_shown = []
    if args.launcher:
        env["DUNESIM_LAUNCHER"] = args.launcher
        env_shown.append("DUNESIM_LAUNCHER=" + args.launcher)
    if args.exe:
        env["DUNESIM_EXE"] = os.path.abspath(args.exe)
        env_shown.append("DUNESIM_EXE=" + shlex.quote(env["DUNESIM_EXE"]))
    if args.sbatch:
        env["DUNESIM_SBATCH_OPTIONS"] = " ".join(args.sbatch)
        env_shown.append("DUNESIM_SBATCH_OPTIONS=" + shlex.quote(env["DUNESIM_SBATCH_OPTIONS"]))

    sbatch_options = ["--ntasks={}".format(args.ranks),
                      "--job-name={}".format(args.job_name or "dunesim-" + stem)]
    if args.nodes:
        sbatch_options.append("--nodes={}".format(args.nodes))
    if args.time:
        sbatch_options.append("--time=" + args.time)
    if args.partition:
        sbatch_options.append("--partition=" + args.partition)
    command = [os.path.join(SLURM_DIR, "chain.sh")]
    if args.dry_run:
        command.append("--dry-run")
    command += sbatch_options + [case_file, output] + args.run_args

    result = subprocess.run(command, env=env, stdout=subprocess.PIPE, universal_newlines=True)
    if result.returncode != 0:
        sys.exit(result.returncode)
    printed = result.stdout.strip()
    print(" ".join(env_shown + [printed]) if args.dry_run else printed)


def main():
    args = parse_args(sys.argv[1:])
    try:
        case, lines, size, cell_size, cells = validate(args)
        if args.plan:
            return plan(args, case, size, cell_size, cells)
        return submit(args, lines, cell_size)
    except (ArithmeticError, ValueError, TypeError, KeyError, IndexError) as error:
        # The last line of defence: the checks above are meant to refuse every input that
        # gets here. Say what failed and where, so that the gap can be closed.
        where = traceback.extract_tb(sys.exc_info()[2])[-1]
        refuse("{}: cannot size or submit this case: {}: {} (at {} line {}, in {}); the checks "
               "missed an input they should refuse: please report it".format(
                   args.case, type(error).__name__, error, os.path.basename(where.filename),
                   where.lineno, where.name))


if __name__ == "__main__":
    main()
