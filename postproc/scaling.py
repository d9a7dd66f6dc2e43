#!/usr/bin/python3
"""Scaling-study summary from the timing.json files of a sweep of dunesim runs.

Usage:
  scaling.py [--mode strong|weak] [--output-dir DIR] [--extrapolate-to P] PATH [PATH ...]
  scaling.py --project-dune [P,P,...] [--bandwidth GBPS] [--latency US]

Each PATH is a run's output folder (holding timing.json), a timing.json file, or a glob
pattern of either (quoted, e.g. 'out/sweep/np*'). Writes to DIR (default: the current
folder):

  scaling.csv      one row per rank count: ranks, steps, particles, wall seconds,
                   particle-steps/s, speed-up, parallel efficiency, particle imbalance,
                   mean pressure iterations, communication per step and rank, and the
                   seconds of every stage (max over ranks: the slowest rank sets the pace)
  speedup.png      speed-up against ranks, with the ideal line
  efficiency.png   parallel efficiency against ranks
  stage_times.png  seconds per stage against ranks

A run whose timing.json says it was oversubscribed (more ranks on a node than the node has
cores) is drawn with a hollow marker and named in the plots' titles and the printed table:
its ranks time-share cores, so its speed-up measures the overhead of more ranks, not
parallel work.

Speed-up and efficiency are measured in throughput (particle-steps per second), relative
to the smallest rank count p0: speed-up S(p) = X(p) / X(p0), efficiency E(p) = S(p) p0 / p.
For a strong-scaling sweep (same case, same steps) this is the usual T(p0) / T(p); for a
weak-scaling sweep it is the scaled speed-up, and it stays correct when the refined runs
take more steps or hold slightly different particle counts. If several runs share a rank
count, the fastest is kept.

Then prints a communication model per rank. Measured, for every run: halo bytes, migrated
particles and migration bytes per step and rank (mean and max over ranks, from per_rank
in timing.json), and the pressure solve's global reductions per step, taken as 2 per CG
iteration (its two dot products; the preconditioner's own traffic is not counted, nor is
PETSc's vector scatter, which is not in halo_bytes_sent). Extrapolated beyond the largest
measured rank count p_m (up to --extrapolate-to, default 4 p_m), assuming:

  - halo bytes are proportional to the surface of a rank's block of cells, and the blocks
    are roughly cubes: per rank ~ (cells per rank)^(2/3). Strong scaling: cells per rank
    ~ 1/p, so b(p) = b(p_m) (p / p_m)^(-2/3); weak scaling: cells per rank fixed, b(p) =
    b(p_m). Small runs understate this: a block at the domain wall sends nothing through
    that face (2 ranks exchange one face each, an interior rank of a 3D layout six), so
    extrapolating from few ranks is a lower bound.
  - migration follows the same surface law (particles cross faces at a rate set by the
    flow, not by the rank count);
  - pressure iterations per step stay at their value at p_m (multigrid-preconditioned CG
    converges nearly independently of the rank count and the grid size).

The model's "bytes per particle-step" (halo bytes per step and rank over particles per rank)
is the communication-to-computation ratio: it grows as p^(1/3) under strong scaling and
stays flat under weak scaling.

--project-dune prints what the step-time model of slurm/sizing.py (the same surface law,
calibrated on the 1e7 dune's measured halo bytes, plus the latency of every message and
reduction and the measured stage costs) projects for the 1e9 dune (cases/dune.toml at
1 mm cells) in strong scaling: seconds per step and parallel efficiency against one node
(64 ranks) at 64, 256 and 1024 ranks (or the ranks given). A model, not a measurement.

Needs matplotlib (on Debian: /usr/bin/python3 with python3-matplotlib).
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

REDUCTIONS_PER_CG_ITERATION = 2
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The billion-particle dune: cases/dune.toml at 1 mm cells (1.05e9 particles).
DUNE_PROJECTION = [os.path.join(REPOSITORY, "slurm", "submit.py"),
                   os.path.join(REPOSITORY, "cases", "dune.toml"), "--cell-size", "0.001"]


def report_paths(patterns):
    paths = []
    for pattern in patterns:
        matches = sorted(glob.glob(pattern)) or [pattern]
        for match in matches:
            path = os.path.join(match, "timing.json") if os.path.isdir(match) else match
            if os.path.isfile(path):
                paths.append(path)
            else:
                print("scaling.py: no timing.json in {}; skipped".format(match), file=sys.stderr)
    return paths


def per_rank_stats(report, key):
    """(mean, max) over ranks of a per_rank counter, per step."""
    steps = max(report["steps"], 1)
    values = [rank[key] / steps for rank in report["per_rank"]]
    return sum(values) / len(values), max(values)


def summarise(path):
    with open(path) as f:
        report = json.load(f)
    ranks = report["ranks"]
    particles = sum(rank["particles"] for rank in report["per_rank"])
    halo_mean, halo_max = per_rank_stats(report, "halo_bytes_sent")
    moved_mean, _ = per_rank_stats(report, "migrated_particles_sent")
    migration_mean, migration_max = per_rank_stats(report, "migration_bytes_sent")
    return {
        "path": path,
        "ranks": ranks,
        "steps": report["steps"],
        "particles": particles,
        "wall_seconds": report["wall_seconds"],
        "particle_steps_per_second": report["particle_steps_per_second"],
        "particle_imbalance": report["particle_imbalance"],
        "pressure_iterations_mean": report["pressure_iterations"]["mean"],
        "halo_bytes_per_step_rank_mean": halo_mean,
        "halo_bytes_per_step_rank_max": halo_max,
        "migrated_particles_per_step_rank_mean": moved_mean,
        "migration_bytes_per_step_rank_mean": migration_mean,
        "migration_bytes_per_step_rank_max": migration_max,
        "stages": {stage["name"]: stage["max"] for stage in report["stages"]},
        # Reports written before dunesim recorded it have no such key.
        "oversubscribed": bool(report.get("oversubscribed", False)),
        "node_cores": report.get("fewest_node_cores"),
    }


def fastest_per_rank_count(runs):
    best = {}
    for run in runs:
        kept = best.get(run["ranks"])
        if kept is not None:
            print("scaling.py: two runs on {} ranks; keeping the faster of {} and {}".format(
                run["ranks"], kept["path"], run["path"]), file=sys.stderr)
        if kept is None or run["particle_steps_per_second"] > kept["particle_steps_per_second"]:
            best[run["ranks"]] = run
    return [best[p] for p in sorted(best)]


def add_speedup(runs):
    base = runs[0]
    for run in runs:
        throughput = run["particle_steps_per_second"]
        run["speedup"] = throughput / base["particle_steps_per_second"]
        run["efficiency"] = run["speedup"] * base["ranks"] / run["ranks"]


def stage_names(runs):
    names = []
    for run in runs:
        names += [name for name in run["stages"] if name not in names]
    return names


COLUMNS = ["ranks", "steps", "particles", "wall_seconds", "particle_steps_per_second",
           "speedup", "efficiency", "particle_imbalance", "pressure_iterations_mean",
           "halo_bytes_per_step_rank_mean", "halo_bytes_per_step_rank_max",
           "migrated_particles_per_step_rank_mean", "migration_bytes_per_step_rank_mean",
           "migration_bytes_per_step_rank_max", "oversubscribed"]


def write_csv(runs, stages, path):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS + ["seconds_" + name for name in stages])
        for run in runs:
            # A stage missing from a run (e.g. plasticity in a water-only case) stays empty.
            writer.writerow([run[c] for c in COLUMNS] +
                            [run["stages"].get(name, "") for name in stages])


def plot_against_ranks(path, title, ylabel, ranks, series, ideal=None, log_y=False,
                       oversubscribed=()):
    """`oversubscribed`: the rank counts whose runs time-shared cores (hollow markers)."""
    figure, axes = plt.subplots(figsize=(7, 4.5))
    # Twenty distinct colours (the default cycle repeats after ten; there are more stages).
    palette = plt.cm.tab20.colors
    axes.set_prop_cycle(color=palette[::2] + palette[1::2])
    for label, values in series:
        points = [(p, v) for p, v in zip(ranks, values) if v is not None]
        line, = axes.plot([p for p, _ in points], [v for _, v in points], marker="o",
                          label=label)
        shared = [(p, v) for p, v in points if p in oversubscribed]
        if shared:
            axes.plot([p for p, _ in shared], [v for _, v in shared], linestyle="none",
                      marker="o", markersize=9, markerfacecolor="white",
                      markeredgecolor=line.get_color())
    if ideal is not None:
        axes.plot(ranks, ideal, linestyle="--", color="grey", label="ideal")
    axes.set_xscale("log", base=2)
    if log_y:
        axes.set_yscale("log")
    axes.set_xticks(ranks)
    axes.set_xticklabels([str(p) for p in ranks])
    axes.set_xlabel("MPI ranks")
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def oversubscribed_note(runs):
    """' (hollow: N ranks on C cores, oversubscribed)' for the runs that were, else ''."""
    shared = [run for run in runs if run["oversubscribed"]]
    if not shared:
        return ""
    cores = min(run["node_cores"] or 0 for run in shared)
    counts = ", ".join(str(run["ranks"]) for run in shared)
    return "\n(hollow: {} ranks on {} cores, oversubscribed)".format(counts, cores)


def write_plots(runs, stages, mode, out_dir):
    ranks = [run["ranks"] for run in runs]
    p0 = ranks[0]
    shared = [run["ranks"] for run in runs if run["oversubscribed"]]
    note = oversubscribed_note(runs)
    plot_against_ranks(os.path.join(out_dir, "speedup.png"),
                       "{} scaling: speed-up{}".format(mode, note),
                       "speed-up (throughput vs {} ranks)".format(p0), ranks,
                       [("measured", [run["speedup"] for run in runs])],
                       ideal=[p / p0 for p in ranks], oversubscribed=shared)
    plot_against_ranks(os.path.join(out_dir, "efficiency.png"),
                       "{} scaling: parallel efficiency{}".format(mode, note), "efficiency",
                       ranks, [("measured", [run["efficiency"] for run in runs])],
                       ideal=[1.0 for _ in ranks], oversubscribed=shared)
    plot_against_ranks(os.path.join(out_dir, "stage_times.png"),
                       "{} scaling: time per stage (slowest rank){}".format(mode, note),
                       "seconds", ranks, [(name, [run["stages"].get(name) for run in runs])
                                          for name in stages], log_y=True,
                       oversubscribed=shared)


def communication_model(runs, mode, extrapolate_to):
    print("\nCommunication per rank and step ({} scaling; * = extrapolated, see the "
          "docstring for the assumptions)".format(mode))
    header = "{:>7} {:>14} {:>14} {:>14} {:>14} {:>12} {:>12} {:>12}".format(
        "ranks", "halo B mean", "halo B max", "migr. B mean", "migr. parts", "pressure its",
        "reductions", "halo B/part")
    print(header)
    row = "{:>7} {:>14.0f} {:>14} {:>14.0f} {:>14.1f} {:>12.1f} {:>12.0f} {:>12.3g}"
    for run in runs:
        particles_per_rank = run["particles"] / run["ranks"]
        print(row.format(str(run["ranks"]), run["halo_bytes_per_step_rank_mean"],
                         "{:.0f}".format(run["halo_bytes_per_step_rank_max"]),
                         run["migration_bytes_per_step_rank_mean"],
                         run["migrated_particles_per_step_rank_mean"],
                         run["pressure_iterations_mean"],
                         REDUCTIONS_PER_CG_ITERATION * run["pressure_iterations_mean"],
                         run["halo_bytes_per_step_rank_mean"] / max(particles_per_rank, 1)))

    anchor = runs[-1]
    pm = anchor["ranks"]
    if pm < 2:
        print("(no run on more than one rank: nothing to extrapolate from)")
        return
    p = pm * 2
    while p <= extrapolate_to:
        # Surface-to-volume: per-rank block volume ~ 1/p (strong) or constant (weak).
        surface = (p / pm) ** (-2.0 / 3.0) if mode == "strong" else 1.0
        particles_per_rank = anchor["particles"] / (p if mode == "strong" else pm)
        halo = anchor["halo_bytes_per_step_rank_mean"] * surface
        print(row.format(str(p) + "*", halo, "-",
                         anchor["migration_bytes_per_step_rank_mean"] * surface,
                         anchor["migrated_particles_per_step_rank_mean"] * surface,
                         anchor["pressure_iterations_mean"],
                         REDUCTIONS_PER_CG_ITERATION * anchor["pressure_iterations_mean"],
                         halo / max(particles_per_rank, 1)))
        p *= 2


def summarise_sweep(args):
    runs = [summarise(path) for path in report_paths(args.paths)]
    if not runs:
        sys.exit("scaling.py: no timing.json found")
    runs = fastest_per_rank_count(runs)
    add_speedup(runs)
    stages = stage_names(runs)

    os.makedirs(args.output_dir, exist_ok=True)
    write_csv(runs, stages, os.path.join(args.output_dir, "scaling.csv"))
    write_plots(runs, stages, args.mode, args.output_dir)

    print("{:>7} {:>12} {:>16} {:>9} {:>11}".format("ranks", "wall s", "particle-steps/s",
                                                     "speed-up", "efficiency"))
    for run in runs:
        print("{:>7} {:>12.3f} {:>16.4g} {:>9.2f} {:>11.2f}{}".format(
            run["ranks"], run["wall_seconds"], run["particle_steps_per_second"], run["speedup"],
            run["efficiency"], "  oversubscribed ({} cores)".format(run["node_cores"])
            if run["oversubscribed"] else ""))
    communication_model(runs, args.mode, args.extrapolate_to or 4 * runs[-1]["ranks"])
    print("\nwrote scaling.csv, speedup.png, efficiency.png, stage_times.png in {}".format(
        args.output_dir))


def project_dune(args):
    """The step-time model's strong scaling of the 1e9 dune (slurm/submit.py --project)."""
    command = [sys.executable] + DUNE_PROJECTION + [
        "--project", args.project_dune, "--bandwidth", str(args.bandwidth),
        "--latency", str(args.latency)]
    return subprocess.call(command)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*", help="run folders, timing.json files or globs")
    parser.add_argument("--mode", choices=("strong", "weak"), default="strong")
    parser.add_argument("--output-dir", default=".")
    parser.add_argument("--extrapolate-to", type=int,
                        help="largest rank count of the model (default 4x the largest measured)")
    parser.add_argument("--project-dune", nargs="?", const="64,256,1024", metavar="P,P,...",
                        help="project the 1e9 dune's step time and efficiency at these rank "
                             "counts (default 64,256,1024) with slurm/submit.py's model")
    parser.add_argument("--bandwidth", type=float, default=12.5,
                        help="for --project-dune: GB/s per link (default 12.5)")
    parser.add_argument("--latency", type=float, default=2.0,
                        help="for --project-dune: microseconds per message (default 2)")
    args = parser.parse_args()
    if not args.paths and args.project_dune is None:
        parser.error("give the runs' folders or timing.json files, or --project-dune")
    if args.paths:
        summarise_sweep(args)
    if args.project_dune is not None:
        sys.exit(project_dune(args))


if __name__ == "__main__":
    main()
