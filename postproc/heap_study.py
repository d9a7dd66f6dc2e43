#!/usr/bin/python3
"""Slowly poured heaps of dry sand over several seeds: runs build/pour_angle (the 2D heap of
test_sand_pile) for each friction angle and seed, and prints each heap's flanks and the
mean and range per angle against phi and the angle eq. 2's flow stops on.

Usage:
  heap_study.py [--pour-angle build/pour_angle] [--ranks 2] [--phi 30,40] [--seeds 1-6]
                [--cell 0.005] [--csv FILE] [-- EXTRA pour_angle OPTIONS]

The pour is the slow one of docs/findings/culmann_wedges_yield.md ("Poured heaps"): a
nozzle 1 cm wide, 0.2 m above a floor 0.8 m long, at 0.25 m/s for 8 s, then 1 s to settle
(0.00125 m^2/s down each flank; a sixteenth of it gives the same heap within 0.2 degrees).
A heap's angle is the mean of its two flanks' least-squares slopes (pour_angle's own). Single
heaps scatter by a degree or more with the seed; compare means over several seeds.
"""
import argparse
import csv
import math
import re
import statistics
import subprocess
import sys

from column_collapse_study import seed_list

SLOW_POUR = ["--length", "0.8", "--nozzle-width", "0.01", "--nozzle-height", "0.2",
             "--speed", "0.25", "--pour-time", "8", "--settle-time", "1"]
RESULT = re.compile(r"slopes (?P<left>[-\d.]+) / (?P<right>[-\d.]+) deg \(mean (?P<mean>[-\d.]+)\), "
                    r"top (?P<top>[-\d.]+) m, base (?P<base>[-\d.]+) m")


def flow_angle(phi):
    """The slope on which eq. 2's friction stops a layer in simple shear, degrees."""
    return math.degrees(math.atan(math.sqrt(1.5) * math.sin(math.radians(phi))))


def pour(args, phi, seed, extra):
    command = ["mpiexec", "-n", str(args.ranks), "--oversubscribe", args.pour_angle,
               "--phi", str(phi), "--cell", str(args.cell), "--seed", str(seed)] + SLOW_POUR + extra
    run = subprocess.run(command, capture_output=True, text=True)
    found = RESULT.search(run.stdout)
    if run.returncode != 0 or not found:
        sys.exit(f"heap_study: {' '.join(command)} failed (exit {run.returncode}):\n"
                 f"{run.stdout[-2000:]}{run.stderr[-2000:]}")
    return {key: float(value) for key, value in found.groupdict().items()}


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pour-angle", default="build/pour_angle")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--phi", default="30,40", help="friction angles, degrees")
    parser.add_argument("--seeds", default="1-6", help="'1-6' or '1,2,5'")
    parser.add_argument("--cell", type=float, default=0.005, help="m")
    parser.add_argument("--csv", default=None)
    args = parser.parse_args(argv)
    rows = []
    for phi in [float(p) for p in args.phi.split(",")]:
        heaps = []
        for seed in seed_list(args.seeds):
            heap = pour(args, phi, seed, extra)
            heaps.append(heap)
            rows.append({"phi": phi, "seed": seed, **heap})
            print(f"phi {phi:g} seed {seed}: flanks {heap['left']:.1f} / {heap['right']:.1f}, "
                  f"heap {heap['mean']:.1f} degrees, top {heap['top']:.3f} m", flush=True)
        means = [h["mean"] for h in heaps]
        flanks = [h["left"] for h in heaps] + [h["right"] for h in heaps]
        print(f"phi {phi:g}: heaps {statistics.mean(means):.1f} degrees over {len(means)} seeds "
              f"({min(means):.1f} to {max(means):.1f}; flanks {min(flanks):.1f} to "
              f"{max(flanks):.1f}), {statistics.mean(means) - phi:+.1f} from phi, "
              f"{statistics.mean(means) - flow_angle(phi):+.1f} from eq. 2's "
              f"{flow_angle(phi):.1f}", flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0].keys()))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
