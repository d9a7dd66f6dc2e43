#!/usr/bin/env python3
"""Submit one dunesim run to Slurm: fills in slurm/dunesim.sbatch from the command line.

Usage:
  slurm/submit.py CASE [--ranks N] [--nodes N] [--time T] [--partition P]
                  [--launcher srun|mpirun] [--output DIR] [--job-name NAME] [--exe PATH]
                  [--cell-size H | --weak-from P0] [--sbatch OPTION ...] [--dry-run]
                  [-- dunesim run options]

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

Standard library only; any python3 >= 3.6.
"""
import argparse
import math
import os
import re
import shlex
import subprocess
import sys

SLURM_DIR = os.path.dirname(os.path.abspath(__file__))

NUMBER = r"[-+0-9.eE_]+"
SECTION_RE = re.compile(r"^\s*\[+\s*([A-Za-z_.]+)\s*\]+")
SIZE_RE = re.compile(r"^\s*size\s*=\s*\[\s*({0})\s*,\s*({0})\s*,\s*({0})\s*\]".format(NUMBER))
CELL_SIZE_RE = re.compile(r"^(\s*cell_size\s*=\s*)({0})(.*)$".format(NUMBER))
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
        description="Submit one dunesim run to Slurm (slurm/dunesim.sbatch).",
        epilog="Arguments after -- go to `dunesim run`, e.g. -- --end-time 0.5 --no-frames")
    parser.add_argument("case", help="case file (TOML)")
    parser.add_argument("--ranks", type=int, default=2, help="MPI ranks (Slurm tasks); default 2")
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
    args = parser.parse_args(own)
    args.run_args = run_args
    if args.ranks < 1 or (args.weak_from is not None and args.weak_from < 1):
        parser.error("rank counts must be at least 1")
    return args


def domain_of(lines, case_file):
    """The [domain] size and cell_size of a case, and the index of the cell_size line."""
    section = None
    size = cell_size = cell_line = None
    for index, line in enumerate(lines):
        header = SECTION_RE.match(line)
        if header:
            section = header.group(1)
            continue
        if section != "domain":
            continue
        match = SIZE_RE.match(line)
        if match:
            size = [float(match.group(i).replace("_", "")) for i in (1, 2, 3)]
        match = CELL_SIZE_RE.match(line)
        if match:
            cell_size = float(match.group(2).replace("_", ""))
            cell_line = index
    if size is None or cell_size is None:
        sys.exit("submit.py: {}: needs [domain] size = [x, y, z] and cell_size = h, each on "
                 "one line".format(case_file))
    return size, cell_size, cell_line


def weak_cell_size(size, cell_size, base_ranks, ranks):
    """Cell size giving `ranks / base_ranks` times the cells, rounded to whole cells.

    The grid can only be refined by k/g per axis, where g is the greatest common divisor
    of the cell counts, so that every axis still holds a whole number of cells.
    """
    cells = [int(round(s / cell_size)) for s in size]
    g = math.gcd(math.gcd(cells[0], cells[1]), cells[2])
    k = max(1, int(round(g * (ranks / base_ranks) ** (1.0 / 3.0))))
    return cell_size * g / k, (k / g) ** 3 * base_ranks / ranks


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
