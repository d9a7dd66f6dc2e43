#!/usr/bin/python3
"""Slowly poured conical heaps of dry sand over several seeds: the three-dimensional sibling
of heap_study.py, whose heaps are 2D (a slab 4 cells thick).

Usage:
  cone_heap_study.py [--phi 30,40] [--seeds 1-3] [--cell-size 0.005] [--pour-time 48]
                     [--settle-time 2] [--material-line 'KEY = VALUE' ...] [--ranks 2]
                     [--dunesim build/dunesim] [--work out/cone_heap_study]

A quarter heap: a nozzle one cell square in the corner x = y = 0, whose walls are
frictionless symmetry planes, 0.19 m above a rough floor (mu 0.6), pours dry sand (rho 1600)
downwards at 0.25 m/s for --pour-time s (a quarter of a 1 cm nozzle's stream at 5 mm cells),
and the heap settles for --settle-time s. Its flank's slope is fitted to the ring tops (the
highest grain in rings one cell wide, plus a quarter cell) between 20% and 80% of the
summit's height outside the summit's ring (the stream digs a crater on the axis while it
pours, whose rim is the summit). Each heap prints its summit, its flank and how far its ring
tops moved over the last 0.5 s; each angle ends with the mean and range against phi and the
angle eq. 2's flow stops on. A conical heap's flowing layer spreads as it runs down, where
the slab's does not; a Coulomb material's heap stands at the same angle either way.

Needs /usr/bin/python3 with numpy and h5py.
"""
import argparse
import math
import os
import statistics
import sys

import numpy as np

import dunesim_frames
from column_collapse_study import seed_list
from cone_slump import QUARTER_DOMAIN, flank_slope, ring_tops
from heap_study import flow_angle
from run_dunesim import run_dunesim

NOZZLE_HEIGHT = 0.19  # m, the nozzle's lower edge
NOZZLE_SPEED = 0.25  # m/s, downwards
REACH = 0.3  # m, the domain's side along x and y

CASE = QUARTER_DOMAIN + """[seeding]
seed = {seed}
[[material]]
name = "sand"
kind = "sand"
density = 1600.0
friction_angle = {phi}
{material_lines}
[[source]]
material = "sand"
shape = "block"
min = [0.0, 0.0, {nozzle_low}]
max = [{dx}, {dx}, {nozzle_high}]
velocity = [0.0, 0.0, -{speed}]
emit_until = {pour_time}
"""


def summit_and_flank(tops, dx):
    """The highest ring top (m) and the flank's slope (degrees) through the ring tops outside it
    (cone_slump.flank_slope)."""
    peak = int(np.argmax(tops))
    return float(tops[peak]), flank_slope(tops, dx, tops[peak], beyond=peak)


def moved(before, after):
    """The largest change of a ring's top between two frames, m."""
    n = max(len(before), len(after))
    a, b = np.zeros(n), np.zeros(n)
    a[: len(before)], b[: len(after)] = before, after
    return float(np.abs(b - a).max())


def pour(args, phi, seed):
    work = os.path.join(os.path.abspath(args.work), f"phi{phi:g}_seed{seed}")
    os.makedirs(work, exist_ok=True)
    case = os.path.join(work, "case.toml")
    with open(case, "w") as f:
        f.write(CASE.format(name="cone_heap", interval=0.5, reach=REACH,
                            top=NOZZLE_HEIGHT + 2 * args.cell_size + 0.01, dx=args.cell_size,
                            end=args.pour_time + args.settle_time,
                            output=os.path.join(work, "frames"), seed=seed, phi=phi,
                            material_lines="\n".join(args.material_line),
                            nozzle_low=NOZZLE_HEIGHT,
                            nozzle_high=NOZZLE_HEIGHT + 2 * args.cell_size,
                            speed=NOZZLE_SPEED, pour_time=args.pour_time))
    run_dunesim(args.dunesim, args.ranks, case, "cone_heap_study.py")
    frames = list(dunesim_frames.open_run(os.path.join(work, "frames")))
    last, before = frames[-1], frames[-2]
    dx = args.cell_size
    tops = ring_tops(last.positions("sand"), dx)
    summit, slope = summit_and_flank(tops, dx)
    return {"summit": summit, "slope": slope, "time": last.time,
            "moved": moved(ring_tops(before.positions("sand"), dx), tops)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--phi", default="30,40")
    parser.add_argument("--seeds", default="1-3")
    parser.add_argument("--cell-size", type=float, default=0.005)
    parser.add_argument("--pour-time", type=float, default=48.0)
    parser.add_argument("--settle-time", type=float, default=2.0)
    parser.add_argument("--material-line", action="append", default=[])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--dunesim", default="build/dunesim")
    parser.add_argument("--work", default="out/cone_heap_study")
    args = parser.parse_args()
    try:
        for phi in [float(p) for p in args.phi.split(",")]:
            slopes = []
            for seed in seed_list(args.seeds):
                heap = pour(args, phi, seed)
                flank = f"flank {heap['slope']:.1f} degrees"
                if math.isnan(heap["slope"]):
                    flank = "no flank (under 3 rings between 20% and 80% of the summit)"
                else:
                    slopes.append(heap["slope"])
                print(f"phi {phi:g} seed {seed}: summit {heap['summit']:.4f} m, {flank} at t = "
                      f"{heap['time']:.1f} s (ring tops moved {1000 * heap['moved']:.1f} mm in "
                      f"the last 0.5 s)", flush=True)
            if not slopes:
                sys.exit(f"cone_heap_study.py: no heap of phi {phi:g} had a flank to measure; "
                         "pour longer or at finer cells")
            print(f"phi {phi:g}: flank mean {statistics.mean(slopes):.1f} degrees (range "
                  f"{min(slopes):.1f} to {max(slopes):.1f}, {len(slopes)} heaps); phi {phi:g}, "
                  f"eq. 2's flow stops at {flow_angle(phi):.1f}", flush=True)
    except dunesim_frames.FrameError as failure:
        sys.exit(f"cone_heap_study.py: error: {failure}")


if __name__ == "__main__":
    main()
