#!/usr/bin/python3
"""The default sand model against each of its published targets at once: runs the studies and
tests that measure them and prints one table, each target with what was measured, what is
asked and whether it is met.

Usage (paths relative to where it is started; the studies run from the repository's root):
  sand_scorecard.py [--build build] [--seeds 1] [--ranks 2] [--pairs 3]
                    [--work out/sand_scorecard] [--skip collapses,heaps,cost,cohesion]

What it runs (each writes its own log into --work; about 10 minutes on 2 cores at one seed):
  collapses  column_collapse_study.py, axisymmetric (Lube et al. 2004) and slab (Lube et al.
             2005), a = 0.5 to 8, 5 mm, 20 cells across R0: each runout and final height
             within 10% of the law at every seed.
  heaps      heap_study.py, phi = 30 and 40, the slow pour read 1 s after it: the mean over the
             seeds within 2 degrees of phi.
  cost       bench_step on cases/sand_column_benchmark.toml (1M particles, 5 mm), sand and
             --as-water alternating, --pairs pairs: every pair's sand step at most 1.2 times
             its water step.
  cohesion   the default model's Rankine brackets (the tests VerticalCut.DefaultModel... on 1
             and 2 ranks, MoistColumn.DefaultModel... on 2, 1 cm cells, 2 s): a cut at 1.25
             c_crit stands, one at 0.8 c_crit fails; each log has the curve the test prints.
The tolerances are the project's targets for its sand; the studies' headers say how each
quantity is measured. A target a single seed meets may miss at another: pass several seeds.
"""
import argparse
import csv
import os
import re
import statistics
import subprocess
import sys

STEPS = re.compile(r"seconds_per_step ([\d.eE+-]+)")
CUT_CURVE = re.compile(r"c / c_crit ([\d.]+): face moved ([-\d.]+) m")
COLLAPSE_PERCENT = 10.0
HEAP_DEGREES = 2.0
COST_RATIO = 1.2
PARTS = ("collapses", "heaps", "cost", "cohesion")
HERE = os.path.dirname(os.path.abspath(__file__))


def run(command, log_file, must_pass=True):
    """Runs `command` with its output in `log_file` and returns whether it passed; stops the
    scorecard if it fails and `must_pass` (a test that fails is a measurement, not an error)."""
    with open(log_file, "w") as log:
        done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0 and must_pass:
        sys.exit(f"sand_scorecard: {' '.join(command)} failed (exit {done.returncode}); "
                 f"its output is in {log_file}")
    return done.returncode == 0


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def collapse_targets(args, geometry):
    """One row per aspect ratio and quantity: the errors over the seeds against 10%."""
    work = os.path.join(args.work, geometry)
    run(["/usr/bin/python3", os.path.join(HERE, "column_collapse_study.py"), "--geometry",
         geometry, "--dunesim", os.path.join(args.build, "dunesim"), "--ranks", str(args.ranks),
         "--seeds", args.seeds, "--work", work], os.path.join(args.work, f"{geometry}.log"))
    rows = read_csv(os.path.join(work, "column_collapse.csv"))
    law = "Lube 2004" if geometry == "axisymmetric" else "Lube 2005"
    targets = []
    for a in sorted({float(r["a"]) for r in rows}):
        for key, name in (("runout_error", "runout"), ("height_error", "height")):
            errors = [100 * float(r[key]) for r in rows if float(r["a"]) == a]
            measured = " ".join(f"{e:+.1f}" for e in errors) + "%"
            met = all(abs(e) <= COLLAPSE_PERCENT for e in errors)
            targets.append((f"{geometry} a = {a:g} {name} ({law})", measured,
                            f"within {COLLAPSE_PERCENT:g}%", met))
    return targets


def heap_targets(args):
    """The slow pour's heaps for phi = 30 and 40: the seeds' mean within 2 degrees of phi."""
    csv_file = os.path.join(args.work, "heaps.csv")
    run(["/usr/bin/python3", os.path.join(HERE, "heap_study.py"), "--pour-angle",
         os.path.join(args.build, "pour_angle"), "--ranks", str(args.ranks), "--phi", "30,40",
         "--seeds", args.seeds, "--csv", csv_file], os.path.join(args.work, "heaps.log"))
    rows = read_csv(csv_file)
    targets = []
    for phi in sorted({float(r["phi"]) for r in rows}):
        angles = [float(r["mean"]) for r in rows if float(r["phi"]) == phi]
        mean = statistics.mean(angles)
        measured = f"{mean:.1f} deg ({min(angles):.1f} to {max(angles):.1f})"
        targets.append((f"poured heap, phi = {phi:g}", measured,
                        f"within {HEAP_DEGREES:g} deg of phi", abs(mean - phi) <= HEAP_DEGREES))
    return targets


def seconds_per_step(args, water, log_file):
    command = ["mpiexec", "-n", str(args.ranks), "--oversubscribe",
               os.path.join(args.build, "bench_step"), "cases/sand_column_benchmark.toml",
               "--cell-size", "0.005", "--steps", "15", "--warmup", "10"]
    run(command + (["--as-water"] if water else []), log_file)
    with open(log_file) as log:
        found = STEPS.search(log.read())
    if not found:
        sys.exit(f"sand_scorecard: bench_step printed no seconds_per_step; see {log_file}")
    return float(found.group(1))


def cost_targets(args):
    """Sand and water steps alternating (the machine's speed drifts): each pair's ratio."""
    ratios = []
    for pair in range(args.pairs):
        sand = seconds_per_step(args, False, os.path.join(args.work, f"cost_sand_{pair}.log"))
        water = seconds_per_step(args, True, os.path.join(args.work, f"cost_water_{pair}.log"))
        ratios.append(sand / water)
        print(f"cost pair {pair + 1}: sand {sand:.4f} s, water {water:.4f} s a step, "
              f"{sand / water:.2f}", flush=True)
    measured = " ".join(f"{r:.2f}" for r in ratios) + " times water"
    return [("sand step over water step (1M particles)", measured,
             f"at most {COST_RATIO:g}", all(r <= COST_RATIO for r in ratios))]


def cut_crossing(log_file, cell=0.01):
    """Where the cut's printed curve (face displacement against c / c_crit) crosses from
    failing to standing (moving less than a cell), as text; empty without a curve."""
    with open(log_file) as log:
        curve = [(float(c), abs(float(m))) for c, m in CUT_CURVE.findall(log.read())]
    standing = [c for c, moved in curve if moved < cell]
    failing = [c for c, moved in curve if moved >= cell]
    if not standing or not failing:
        return ""
    return f", fails at {max(failing):.2f}, stands from {min(standing):.2f} c_crit"


def cohesion_targets(args):
    """The default model's Rankine brackets (the tests print each curve into the logs): a
    vertical cut on 1 and 2 ranks, a moist column on 2; met when each passes."""
    brackets = [("vertical cut", "test_sand_physics",
                 "VerticalCut.DefaultModelBracketsRankineCriticalHeight", (1, 2)),
                ("moist column", "test_wet_sand",
                 "MoistColumn.DefaultModelCohesionBracketsRankineCriticalHeight", (2,))]
    targets = []
    for name, binary, test, rank_counts in brackets:
        for ranks in rank_counts:
            log_file = os.path.join(args.work, f"{binary}_{ranks}.log")
            passed = run(["mpiexec", "-n", str(ranks), "--oversubscribe",
                          os.path.join(args.build, "tests", binary), f"--gtest_filter={test}"],
                         log_file, must_pass=False)
            measured = (f"{'bracketed' if passed else 'NOT bracketed'}"
                        f"{cut_crossing(log_file)} ({os.path.basename(log_file)})")
            targets.append((f"{name} against Rankine, {ranks} rank{'s' * (ranks > 1)}",
                            measured, "stands at 1.25, fails at 0.8 c_crit", passed))
    return targets


def print_table(targets):
    width = max(len(t[0]) for t in targets)
    measured_width = max(len(t[1]) for t in targets)
    asked_width = max(len(t[2]) for t in targets)
    for name, measured, asked, met in targets:
        print(f"{name:<{width}}  {measured:<{measured_width}}  {asked:<{asked_width}}  "
              f"{'met' if met else 'MISSED'}")
    missed = sum(not t[3] for t in targets)
    print(f"{len(targets) - missed} of {len(targets)} targets met")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--seeds", default="1", help="'1-3' or '1,2,5'")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--work", default="out/sand_scorecard")
    parser.add_argument("--skip", default="", help="comma-separated, some of: " + ",".join(PARTS))
    args = parser.parse_args()
    skip = {s for s in args.skip.split(",") if s}
    unknown = skip - set(PARTS)
    if unknown:
        sys.exit(f"sand_scorecard: --skip: unknown part(s) {', '.join(sorted(unknown))}; "
                 f"expected some of {', '.join(PARTS)}")
    # The studies read their cases relative to the repository's root.
    args.build, args.work = os.path.abspath(args.build), os.path.abspath(args.work)
    os.chdir(os.path.dirname(HERE))
    os.makedirs(args.work, exist_ok=True)
    targets = []
    if "collapses" not in skip:
        targets += collapse_targets(args, "axisymmetric") + collapse_targets(args, "slab")
    if "heaps" not in skip:
        targets += heap_targets(args)
    if "cost" not in skip:
        targets += cost_targets(args)
    if "cohesion" not in skip:
        targets += cohesion_targets(args)
    if targets:
        print_table(targets)


if __name__ == "__main__":
    main()
