#!/usr/bin/python3
"""A cone of sand steeper than its friction angle slumps; where does its slope stop?

Usage:
  cone_slump.py [--angle 45] [--radius 0.1] [--cell-size 0.005] [--end 1.5]
                [--material-line 'transfer = "apic"' ...] [--ranks 2]
                [--dunesim build/dunesim] [--work out/cone_slump]

A quarter cone (apex on the corner's edge x = y = 0, whose walls are frictionless symmetry
planes) of base radius R and slope --angle is released on a rough floor (mu 0.6) as dry sand
of phi = 30 degrees. A Coulomb material should end with its flanks near phi: steeper, they
fail; flatter, friction stops them. Printed for every frame: the summit (the highest grain
within 2 cells of the axis, plus a quarter cell) and the flank's slope, fitted to the ring
tops between 20% and 80% of the summit's height (rings one cell wide). --material-line adds
lines to the sand material (the options of docs/findings/README.md), e.g. 'transfer = "apic"'.

Needs /usr/bin/python3 with numpy and h5py.
"""
import argparse
import math
import os
import sys

import numpy as np

import dunesim_frames
from column_collapse_study import whole_cells
from run_dunesim import run_dunesim

# A quarter domain: the corner x = y = 0 between two frictionless symmetry planes, on a
# rough floor (mu 0.6); cone_heap_study.py pours its heaps in it too.
QUARTER_DOMAIN = """[case]
name = "{name}"
[domain]
size = [{reach}, {reach}, {top}]
cell_size = {dx}
wall_friction = 0.6
frictionless_walls = ["x-", "y-"]
[time]
end = {end}
[output]
directory = "{output}"
interval = {interval}
"""

CASE = QUARTER_DOMAIN + """[[material]]
name = "sand"
kind = "sand"
density = 1600.0
friction_angle = 30.0
{material_lines}
[[source]]
material = "sand"
shape = "mesh"
file = "cone.obj"
"""


def write_quarter_cone(path, radius, height, segments=24):
    """A closed quarter cone: its base, its flank and its two faces on the symmetry planes."""
    lines = ["v 0 0 0", f"v 0 0 {height:.9g}"]
    for i in range(segments + 1):
        angle = 0.5 * math.pi * i / segments
        lines.append(f"v {radius * math.cos(angle):.9g} {radius * math.sin(angle):.9g} 0")
    for i in range(segments):
        lines += [f"f 1 {4 + i} {3 + i}", f"f 2 {3 + i} {4 + i}"]
    lines += ["f 1 3 2", f"f 1 2 {3 + segments}"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def ring_tops(position, dx):
    """The highest grain of each ring one cell wide about the axis x = y = 0, plus a quarter
    cell (from a particle's centre to the surface), m; 0 for an empty ring."""
    ring = (np.hypot(position[:, 0], position[:, 1]) / dx).astype(int)
    tops = np.zeros(ring.max() + 1)
    np.maximum.at(tops, ring, position[:, 2] + dx / 4)
    return tops


def flank_slope(tops, dx, summit, beyond=-1):
    """The least-squares slope (degrees) through the ring tops outside ring `beyond` between 20%
    and 80% of the summit's height; nan with fewer than 3 of them."""
    mids = (np.arange(len(tops)) + 0.5) * dx
    flank = (np.arange(len(tops)) > beyond) & (tops > 0.2 * summit) & (tops < 0.8 * summit)
    if flank.sum() < 3:
        return float("nan")
    return math.degrees(math.atan(-np.polyfit(mids[flank], tops[flank], 1)[0]))


def summit_and_slope(frame, dx):
    """The frame's summit (m) and flank slope (degrees) at cell size dx (m)."""
    position = frame.positions("sand")
    near_axis = np.hypot(position[:, 0], position[:, 1]) < 2 * dx
    summit = position[near_axis, 2].max() + dx / 4 if near_axis.any() else 0.0
    return summit, flank_slope(ring_tops(position, dx), dx, summit)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--angle", type=float, default=45.0)
    parser.add_argument("--radius", type=float, default=0.1)
    parser.add_argument("--cell-size", type=float, default=0.005)
    parser.add_argument("--end", type=float, default=1.5)
    parser.add_argument("--material-line", action="append", default=[])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--dunesim", default="build/dunesim")
    parser.add_argument("--work", default="out/cone_slump")
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    height = args.radius * math.tan(math.radians(args.angle))
    write_quarter_cone(os.path.join(work, "cone.obj"), args.radius, height)
    reach = whole_cells(2 * args.radius, args.cell_size)
    top = whole_cells(1.2 * height + 4 * args.cell_size, args.cell_size)
    case = os.path.join(work, "case.toml")
    with open(case, "w") as f:
        f.write(CASE.format(name="cone_slump", interval=0.1, reach=f"{reach:.9g}",
                            top=f"{top:.9g}", dx=args.cell_size, end=args.end,
                            output=os.path.join(work, "frames"),
                            material_lines="\n".join(args.material_line)))
    run_dunesim(args.dunesim, args.ranks, case, "cone_slump.py")
    try:
        run = dunesim_frames.open_run(os.path.join(work, "frames"))
        dx = run.cell_size or args.cell_size  # the frames' own where they record it
        for frame in run:
            summit, slope = summit_and_slope(frame, dx)
            print(f"t = {frame.time:.2f} s: summit {summit:.4f} m, flank {slope:.1f} degrees")
    except dunesim_frames.FrameError as failure:
        sys.exit(f"cone_slump.py: error: {failure}")


if __name__ == "__main__":
    main()
