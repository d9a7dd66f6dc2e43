#!/usr/bin/python3
"""Sand draining from a flat-bottomed silo through a slot: its rate against Beverloo's law.

Usage:
  silo_study.py [--widths 0.02,0.03,0.04] [--heads 0.4,0.25] [--fill 0.6] [--silo-width 0.2]
                [--cell-size 0.005] [--end 3.5] [--material sand|water] [--ranks 2]
                [--material-line 'model = "zhu_bridson_2005"' ...]
                [--dunesim build/dunesim] [--work out/silo_study]

A plane silo --silo-width wide (x), in a slab 4 cells thick between frictionless walls, has
rough side walls (mu 0.6) and a rough plate one cell thick with a slot of each of --widths
(D) at its middle; --fill m of dry sand (phi = 30 degrees, 1600 kg/m^3) stands on it and
falls through the slot into the empty part of the domain below. From the frames (every 0.1
s): the sand above the plate as a mean fill height h (its particles spread over the silo's
floor at 8 a cell) and the mass rate W through the slot between frames, per metre of slot
(kg/(m s)). Each width's W is read where h passes each of --heads (interpolated between
frames; the first 0.3 s, while the flow starts, left out).

What granular flow through a slot does (Beverloo, Leniger & van de Velde 1961, in two
dimensions; Mankoc et al. 2007, Granular Matter 9, 407, experiments and simulations of 2D
silos): W = C rho sqrt(g) (D - k d)^(3/2), with d the grain size (absent from a continuum:
W ~ D^(3/2)), and W does not depend on h once the fill is higher than about 1.2 times the
silo's width (Hagen 1852; the weight is carried by the walls, Janssen's effect). A liquid
through the same slot drains at W ~ D h^(1/2) (Torricelli). The study prints W and C at each
head, the exponent of D between the widths at each head and the exponent of h for each width,
against 3/2 and 0 for grains and 1 and 1/2 for a liquid. --material water runs the same silo
with water for the comparison; --material-line adds lines to the material (a model or option
of cases/README.md). Findings: docs/findings/silo_discharge.md.

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

SLAB_CELLS = 4
PARTICLES_PER_CELL = 8
GRAVITY = 9.81
START = 0.3  # s: frames before this are the flow starting

CASE = """[case]
name = "silo_{label}"
[domain]
size = [{width:.9g}, {thickness:.9g}, {height:.9g}]
cell_size = {dx}
wall_friction = 0.6
frictionless_walls = ["y-", "y+"]
[time]
end = {end}
[output]
directory = "{output}"
interval = 0.1
[[material]]
name = "grains"
kind = "{kind}"
density = {density}
{material_lines}
[[collider]]
shape = "block"
min = [-1.0, -1.0, {plate:.9g}]
max = [{slot_lo:.9g}, 1.0, {plate_top:.9g}]
friction = 0.6
[[collider]]
shape = "block"
min = [{slot_hi:.9g}, -1.0, {plate:.9g}]
max = [{far:.9g}, 1.0, {plate_top:.9g}]
friction = 0.6
[[source]]
material = "grains"
shape = "block"
min = [0.0, 0.0, {plate_top:.9g}]
max = [{width:.9g}, {thickness:.9g}, {fill_top:.9g}]
"""

MATERIALS = {"sand": ("sand", 1600.0, "friction_angle = 30.0"), "water": ("water", 1000.0, "")}


def plate_height(fill, dx):
    """The plate's underside, m: below it room for all the sand to fall without reaching it."""
    return whole_cells(1.2 * fill, dx)


def case_text(args, slot, output):
    """The silo with a slot `slot` m wide in its plate."""
    dx = args.cell_size
    width = whole_cells(args.silo_width, dx)
    fill = whole_cells(args.fill, dx)
    plate = plate_height(fill, dx)
    kind, density, line = MATERIALS[args.material]
    lines = "\n".join([line] + args.material_line)
    return CASE.format(label=f"{slot:g}", width=width, thickness=SLAB_CELLS * dx,
                       height=plate + dx + fill + 4 * dx, dx=dx, end=args.end, output=output,
                       kind=kind, density=density, material_lines=lines, plate=plate,
                       plate_top=plate + dx, slot_lo=0.5 * (width - slot),
                       slot_hi=0.5 * (width + slot), far=width + 1.0, fill_top=plate + dx + fill)


def drain(run, plate_top, silo_width, dx, density):
    """Per frame after the first: (time, mean fill height h in m, rate W in kg/(m s)) from the
    frame before to this one, h at the interval's middle."""
    per_metre_of_fill = PARTICLES_PER_CELL * (silo_width / dx) * SLAB_CELLS / dx
    particle_mass = density * dx ** 3 / PARTICLES_PER_CELL
    thickness = SLAB_CELLS * dx
    rows, last = [], None
    for frame in run:
        above = int((frame.positions()[:, 2] > plate_top).sum())
        if last is not None:
            t0, n0 = last
            rate = (n0 - above) * particle_mass / ((frame.time - t0) * thickness)
            rows.append((0.5 * (t0 + frame.time), 0.5 * (n0 + above) / per_metre_of_fill, rate))
        last = (frame.time, above)
    return rows


def rate_at_head(rows, head):
    """W where the fill height falls through `head` (linear between intervals), or nan."""
    flowing = [(h, w) for t, h, w in rows if t > START]
    for (h0, w0), (h1, w1) in zip(flowing, flowing[1:]):
        if h1 <= head <= h0 and h0 > h1:
            return w0 + (w1 - w0) * (h0 - head) / (h0 - h1)
    return float("nan")


def slope(xs, ys):
    """The least-squares slope of log y on log x; nan with fewer than two finite points."""
    points = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if y > 0 and math.isfinite(y)]
    if len(points) < 2:
        return float("nan")
    return float(np.polyfit([p[0] for p in points], [p[1] for p in points], 1)[0])


def run_slot(args, slot):
    """Runs the silo with a slot `slot` m wide and returns its drain() rows."""
    folder = os.path.join(os.path.abspath(args.work), f"slot_{slot:g}")
    os.makedirs(folder, exist_ok=True)
    case = os.path.join(folder, "case.toml")
    with open(case, "w") as f:
        f.write(case_text(args, slot, os.path.join(folder, "frames")))
    run_dunesim(args.dunesim, args.ranks, case, "silo_study.py")
    run = dunesim_frames.open_run(os.path.join(folder, "frames"))
    dx = run.cell_size or args.cell_size
    plate_top = plate_height(whole_cells(args.fill, dx), dx) + dx
    return drain(run, plate_top, whole_cells(args.silo_width, dx), dx, MATERIALS[args.material][1])


def report(args, rates):
    """Prints W and Beverloo's C at each head for each slot, and the exponents of h and D."""
    widths, heads = args.widths, args.heads
    density = MATERIALS[args.material][1]
    for slot in widths:
        cells = ", ".join(
            f"h {head:g} m: W {rates[slot][head]:.2f} kg/(m s), "
            f"C {rates[slot][head] / (density * math.sqrt(GRAVITY) * slot ** 1.5):.2f}"
            for head in heads)
        exponent = slope(heads, [rates[slot][h] for h in heads])
        print(f"slot {slot:g} m ({slot / args.cell_size:.0f} cells): {cells}"
              + (f"; W ~ h^{exponent:.2f}" if len(heads) > 1 else ""))
    for head in heads if len(widths) > 1 else []:
        print(f"at h = {head:g} m: W ~ D^{slope(widths, [rates[s][head] for s in widths]):.2f}")
    print("Beverloo (grains, 2D): W ~ D^1.5, h^0 above 1.2 silo widths "
          f"({1.2 * args.silo_width:g} m); a liquid (Torricelli): W ~ D^1, h^0.5")


def check_arguments(parser, args):
    """Exits through `parser` with a message naming the option whose value cannot make a silo."""
    if args.cell_size <= 0:
        parser.error(f"--cell-size must be positive, not {args.cell_size:g}")
    if args.silo_width < 4 * args.cell_size or args.fill < 4 * args.cell_size:
        parser.error("--silo-width and --fill must span at least 4 cells each")
    for slot in args.widths:
        if not args.cell_size <= slot < args.silo_width:
            parser.error(f"--widths: a slot of {slot:g} m is not between a cell "
                         f"({args.cell_size:g} m) and the silo's width ({args.silo_width:g} m)")
    for head in args.heads:
        if not 0 < head < args.fill:
            parser.error(f"--heads: {head:g} m is not between 0 and the fill ({args.fill:g} m)")
    if args.end <= 0 or args.ranks < 1:
        parser.error("--end must be positive and --ranks at least 1")


def number_list(text):
    try:
        values = [float(x) for x in text.split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of numbers")
    if not values:
        raise argparse.ArgumentTypeError("an empty list")
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--widths", type=number_list, default=[0.02, 0.03, 0.04],
                        help="slot widths D, m")
    parser.add_argument("--heads", type=number_list, default=[0.4, 0.25],
                        help="fill heights h at which W is read, m")
    parser.add_argument("--fill", type=float, default=0.6, help="initial fill height, m")
    parser.add_argument("--silo-width", type=float, default=0.2, help="m")
    parser.add_argument("--cell-size", type=float, default=0.005, help="m")
    parser.add_argument("--end", type=float, default=3.5, help="s of drainage")
    parser.add_argument("--material", choices=sorted(MATERIALS), default="sand")
    parser.add_argument("--material-line", action="append", default=[],
                        help="a line added to the material, e.g. 'model = \"zhu_bridson_2005\"'")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--dunesim", default="build/dunesim")
    parser.add_argument("--work", default="out/silo_study")
    args = parser.parse_args()
    check_arguments(parser, args)
    rates = {}
    try:
        for slot in args.widths:
            rows = run_slot(args, slot)
            for t, h, w in rows:
                print(f"  slot {slot:g} m, t {t:.2f} s: h {h:.3f} m, W {w:.2f} kg/(m s)")
            rates[slot] = {head: rate_at_head(rows, head) for head in args.heads}
    except dunesim_frames.FrameError as failure:
        sys.exit(f"silo_study.py: error: {failure}")
    report(args, rates)


if __name__ == "__main__":
    main()
