#!/usr/bin/python3
"""Slowly poured heaps of dry sand over several seeds: runs build/pour_angle (the 2D heap of
test_sand_pile) for each friction angle and seed, and prints each heap's flanks and the
mean and range per angle against phi and the angle eq. 2's flow stops on.

Usage:
  heap_study.py [--pour-angle build/pour_angle] [--ranks 2] [--phi 30,40] [--seeds 1-6]
                [--cell 0.005] [--settle-time 1] [--csv FILE] [-- EXTRA pour_angle OPTIONS]

The pour is the slow one of docs/findings/culmann_wedges_yield.md ("Poured heaps"): a
nozzle 1 cm wide, 0.2 m above a floor 0.8 m long, at 0.25 m/s for 8 s, then 1 s to settle
(0.00125 m^2/s down each flank; a sixteenth of it gives the same heap within 0.2 degrees).
A heap's angle is the mean of its two flanks' least-squares slopes (pour_angle's own). Single
heaps scatter by a degree or more with the seed; compare means over several seeds.

A heap is read --settle-time s after the pour ends whether or not it has come to rest; each
line says how far its surface moved over the last 0.5 s and flags it "still settling" when
that is more than a quarter cell (the collapse study's rest tolerance). Grains creep down
the flanks of the default model's heaps for seconds after the pour
(docs/findings/culmann_wedges_yield.md, "Sand at rest creeps"): read later, they stand lower.
"""
import argparse
import math
import re
import statistics
import subprocess
import sys

from column_collapse_study import REST_TOLERANCE_CELLS, seed_list, write_csv

SLOW_POUR = ["--length", "0.8", "--nozzle-width", "0.01", "--nozzle-height", "0.2",
             "--speed", "0.25", "--pour-time", "8"]
RESULT = re.compile(r"slopes (?P<left>[-\d.]+) / (?P<right>[-\d.]+) deg \(mean (?P<mean>[-\d.]+)\), "
                    r"top (?P<top>[-\d.]+) m, base (?P<base>[-\d.]+) m, "
                    r"max speed (?P<fastest>[-\d.]+) m/s, "
                    r"surface change (?P<surface_change>[-\d.]+) m")


def flow_angle(phi):
    """The slope on which eq. 2's friction stops a layer in simple shear, degrees."""
    return math.degrees(math.atan(math.sqrt(1.5) * math.sin(math.radians(phi))))


def pour(args, phi, seed, extra):
    command = ["mpiexec", "-n", str(args.ranks), "--oversubscribe", args.pour_angle,
               "--phi", str(phi), "--cell", str(args.cell), "--seed", str(seed),
               "--settle-time", str(args.settle_time)] + SLOW_POUR + extra
    run = subprocess.run(command, capture_output=True, text=True)
    found = RESULT.search(run.stdout)
    if run.returncode != 0 or not found:
        sys.exit(f"heap_study: {' '.join(command)} failed (exit {run.returncode}):\n"
                 f"{run.stdout[-2000:]}{run.stderr[-2000:]}")
    heap = {key: float(value) for key, value in found.groupdict().items()}
    # Settled: its surface moved by at most the collapse study's rest tolerance in 0.5 s.
    heap["settling"] = int(heap["surface_change"] > REST_TOLERANCE_CELLS * args.cell)
    return heap


def print_heap(phi, seed, heap):
    settling = ", still settling" if heap["settling"] else ""
    print(f"phi {phi:g} seed {seed}: flanks {heap['left']:.1f} / {heap['right']:.1f}, "
          f"heap {heap['mean']:.1f} degrees, top {heap['top']:.3f} m, surface moved up to "
          f"{1000 * heap['surface_change']:.1f} mm over the last 0.5 s, fastest grain "
          f"{heap['fastest']:.3f} m/s{settling}", flush=True)


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
    parser.add_argument("--settle-time", type=float, default=1.0,
                        help="s after the pour ends; the heap is read then")
    parser.add_argument("--csv", default=None)
    args = parser.parse_args(argv)
    rows = []
    for phi in [float(p) for p in args.phi.split(",")]:
        heaps = []
        for seed in seed_list(args.seeds):
            heap = pour(args, phi, seed, extra)
            heaps.append(heap)
            rows.append({"phi": phi, "seed": seed, **heap})
            print_heap(phi, seed, heap)
        means = [h["mean"] for h in heaps]
        flanks = [h["left"] for h in heaps] + [h["right"] for h in heaps]
        print(f"phi {phi:g}: heaps {statistics.mean(means):.1f} degrees over {len(means)} seeds "
              f"({min(means):.1f} to {max(means):.1f}; flanks {min(flanks):.1f} to "
              f"{max(flanks):.1f}), {statistics.mean(means) - phi:+.1f} from phi, "
              f"{statistics.mean(means) - flow_angle(phi):+.1f} from eq. 2's "
              f"{flow_angle(phi):.1f}; {sum(h['settling'] for h in heaps)} of {len(heaps)} "
              f"still settling {args.settle_time:g} s after the pour", flush=True)
    if args.csv:
        write_csv(args.csv, rows)


if __name__ == "__main__":
    main()
