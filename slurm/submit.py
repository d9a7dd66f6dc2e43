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

Standard library only; any python3 >= 3.6.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

from sizing import (CELL_SIZE_RE, add_sizing_options, check_sizing_values, domain_of, plan,
                    weak_cell_size)

SLURM_DIR = os.path.dirname(os.path.abspath(__file__))

# Keys whose strings are file names read relative to the case file.
PATH_LINE_RE = re.compile(r"^\s*(file|scripts)\s*=")
STRING_RE = re.compile(r'"([^"\\]*)"')


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


def main():
    args = parse_args(sys.argv[1:])
    if args.plan:
        return plan(args)
    stem = os.path.splitext(os.path.basename(args.case))[0]
    output = args.output or os.path.join("output", "{}-np{}".format(stem, args.ranks))
    case_file = args.case

    if args.cell_size is not None or args.weak_from is not None:
        with open(args.case) as f:
            lines = f.read().splitlines()
        size, cell_size, cell_line = domain_of(lines, args.case)
        if args.weak_from is not None:
            new_size, ratio = weak_cell_size(size, cell_size, args.weak_from, args.ranks)
            print("submit.py: {} ranks: cell_size {} -> {:.6g} (particles per rank {:.3f} x "
                  "those on {} ranks)".format(args.ranks, cell_size, new_size, ratio,
                                               args.weak_from), file=sys.stderr)
        else:
            new_size = args.cell_size
        case_file = os.path.join(output, stem + ".toml")
        if not args.dry_run:
            os.makedirs(output, exist_ok=True)
            case_dir = os.path.dirname(os.path.abspath(args.case))
            with open(case_file, "w") as f:
                f.write(refined_case_text(lines, cell_line, new_size, case_dir))

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


if __name__ == "__main__":
    main()
