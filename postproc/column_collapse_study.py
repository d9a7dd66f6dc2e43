#!/usr/bin/python3
"""Collapse of dry sand columns against Lube et al. (2004, axisymmetric; 2005, plane): runs
dunesim over a set of aspect ratios a = H0/R0, measures each deposit, writes a CSV and a plot.

Usage:
  column_collapse_study.py [--geometry axisymmetric|slab]
                           [--dunesim build/dunesim] [--ranks 2] [--aspect-ratios 0.5,1,2,4,8]
                           [--cell-size 0.005] [--radius R0] [--case cases/column_collapse.toml]
                           [--work out/column_collapse_study] [--png FILE] [--csv FILE]
                           [--max-time 8] [--frame-interval 0.05] [--rest-window 1.5]
                           [--rest-tolerance 0.25] [--seed N | --seeds 1-6 [--within 10]]

Each run is the case file with its geometry rewritten: a quarter column of radius R0 (by
default 20 cells, so that H0 spans at least 10 cells for a >= 0.5: 10 cm at 5 mm, the size
of the experiments' widest cylinder; --radius fixes it, to refine the same columns) in the
corner x = y = 0 and a domain 1.4 times the runout the law predicts. With 10 cells across R0
the default's a = 4 and 8 summits ended 13-27 points and their runouts 7 points further from
the laws than with 20 (column_collapse_findings.md, "Cells across the column"). The
material and the floor's friction stay as the case file says.

Rest: the run writes a frame every --frame-interval seconds and is measured while it runs.
The deposit is at rest at t_rest when R_inf and H_inf (below) stay within --rest-tolerance
cells of their values at t_rest over a window of max(--rest-window, 2 sqrt(H0/g)) seconds;
the run is then stopped (SIGTERM: dunesim checkpoints and exits) and measured on the
window's last frame. A deposit that never holds that long runs to --max-time and is measured
on its last frame; the CSV says so (rest_time empty, at_rest 0). R_inf moves in rings of
dx/2, so a tolerance below half a cell asks the edge to keep its ring. The CSV also records
the fastest grain on the measured frame and the largest change of R_inf and H_inf over the
last window, and whether sand reached the domain's far walls (within a cell; then R_inf
cannot grow, and a deposit spreading into a sheet looks at rest).

Seeds: a single deposit's edge moves by a ring or two with the particles' jitter (at 5 mm the
plane a = 1 from +8 to +19% over six seeds). --seeds 1-6 runs every column at each seed
(folders seedN_aA; each keeps only its measured frame, so its .xmf names frames that are
gone), puts the seed in the CSV and ends with each aspect ratio's mean and range of errors
and how many seeds lie within --within percent of the laws. The CSV is written after every
column, so a run that fails keeps the rows before it.

The laws (Lube, Huppert, Sparks & Hallworth 2004, J. Fluid Mech. 508, 175-199):
  runout        (R_inf - R0)/R0 = 1.24 a        for a < 1.7,  1.6 a^(1/2) above;
  final height  H_inf/R0        = a             for a < 0.74, 0.88 a^(1/6) above
                (the top of a short column is never disturbed).

Measured on a frame (see Rest), from the sand particles' distance r to the column's axis:
  R_inf  the outer edge of the deposit: the outermost ring (width dx/2) in which the sand,
         spread over the ring's area, is at least half a particle layer thick (dx/4, with a
         particle standing for dx^3/8 of sand). Single grains that bounced ahead do not count.
         runout_between_rings in the CSV is the same edge without the rings' steps: where
         the rings' thickness, taken at their mid-radii and interpolated linearly, falls to
         dx/4 (to compare refinements finer than a ring; the errors use R_inf).
  H_inf  the top of the central cone: the highest particle within 2 dx of the axis plus dx/4
         (half a particle spacing, from a particle's centre to the surface).
  cone_fill  the deposit's volume (the column's) over the volume of the cone through its
         summit and edge, 3 a / (R_inf/R0)^2 (H_inf/R0): 1 for a straight cone, below 1 for a
         concave deposit (a summit cone and a thin apron), above 1 for a convex one. The laws'
         deposits fill 1.14 of their cone at a = 0.5 (a frustum: the top is not disturbed),
         0.68 at a = 1 and 0.57-0.63 from a = 2 to 8, so a model whose deposits are straight
         cones meets at most one of the two laws.
  at the flow's end  R_inf and H_inf on the first frame after the grains' mean kinetic
         energy peaked at which it has fallen below 1% of that peak (runout_at_flow_end,
         flow_end_time in the CSV; hollow markers in the plot). Laboratory collapses stop
         abruptly; what R_inf gains after this frame is the model's creep.

--geometry slab collapses a plane column instead (cases/column_collapse_slab.toml): a
block of length R0 (L0 in the papers) against the frictionless wall x = 0, in a slab 4 cells
thick between frictionless walls. R_inf is then measured along x, in strips of dx/2 across
the slab, and cone_fill is the deposit's area over the triangle's, 2 a / ((R_inf/R0) H_inf/R0).
The laws (Lube, Huppert, Sparks & Freundt 2005, Phys. Rev. E 72, 041301, as quoted in the
literature; not yet checked against the paper itself):
  runout        (R_inf - R0)/R0 = 1.2 a         for a < 2.3,  1.9 a^(2/3) above;
  final height  H_inf/R0        = a             for a < 1.15, a^(2/5) above.
The runout's branches do not meet (20% apart at a = 2.3, within the fits' 1.8-2.8
transition), and Balmforth & Kerswell 2005 (J. Fluid Mech. 538) found the constants depend
on the material and the channel's width: a guide within tens of percent, not a tolerance.

Needs /usr/bin/python3 with numpy, h5py and matplotlib (Debian: python3-h5py, -matplotlib).
"""
import argparse
import collections
import csv
import glob
import math
import os
import re
import shutil
import subprocess
import sys

import numpy as np

import dunesim_frames
from run_dunesim import dunesim_command

# The collapse has ended when the grains' mean kinetic energy has fallen below this share of
# its peak (flow_end).
FLOW_END_ENERGY = 0.01

# Cells: how far a deposit's edge and top may move over the rest window and still be at rest
# (--rest-tolerance's default; heap_study.py reads its heaps' rest with it too).
REST_TOLERANCE_CELLS = 0.25

# One frame's measurements (measure_deposit): R_inf, H_inf, the fastest grain's speed, the
# frame's time, the outermost grain's r, its largest x or y (to tell a deposit that reached
# the domain's far walls), R_inf between rings, the grains' mean kinetic energy per unit mass.
Deposit = collections.namedtuple(
    "Deposit", "edge top fastest time outermost farthest edge_between kinetic_energy")


class Axisymmetric:
    """A quarter cylinder in the corner x = y = 0 (Lube et al. 2004)."""
    default_case = "cases/column_collapse.toml"
    source, length, title = "Lube et al. 2004", "R", "Axisymmetric collapse of dry sand columns"

    @staticmethod
    def runout_law(a):
        return 1.24 * a if a < 1.7 else 1.6 * math.sqrt(a)

    @staticmethod
    def height_law(a):
        return a if a < 0.74 else 0.88 * a ** (1.0 / 6.0)

    @staticmethod
    def cone_fill(a, runout, height):
        """The column's volume over the cone through the deposit's summit and edge."""
        return 3 * a / ((1 + runout) ** 2 * height)

    @staticmethod
    def case_lines(a, radius, cell_size, reach, top):
        """The case lines that place the column and size the domain, as (pattern, line)."""
        return [(r"(?m)^size = .*$", f"size = [{reach:.6g}, {reach:.6g}, {top:.6g}]"),
                (r"(?m)^radius = .*$", f"radius = {radius:g}"),
                (r"(?m)^height = .*$", f"height = {a * radius:g}")]

    @staticmethod
    def distance(position):
        """Each particle's distance from the column's axis."""
        return np.hypot(position[:, 0], position[:, 1])

    @staticmethod
    def band_area(inner, ring, cell_size):
        """The floor area of the rings [inner, inner + ring): quarter rings."""
        return math.pi / 4 * ((inner + ring) ** 2 - inner ** 2)


class Slab:
    """A plane column against the wall x = 0, SLAB_CELLS thick (Lube et al. 2005)."""
    SLAB_CELLS = 4
    default_case = "cases/column_collapse_slab.toml"
    source, length, title = "Lube et al. 2005", "L", "Plane collapse of dry sand columns"

    @staticmethod
    def runout_law(a):
        return 1.2 * a if a < 2.3 else 1.9 * a ** (2.0 / 3.0)

    @staticmethod
    def height_law(a):
        return a if a < 1.15 else a ** 0.4

    @staticmethod
    def cone_fill(a, runout, height):
        """The column's area over the triangle through the deposit's summit and edge."""
        return 2 * a / ((1 + runout) * height)

    @staticmethod
    def case_lines(a, radius, cell_size, reach, top):
        width = Slab.SLAB_CELLS * cell_size
        return [(r"(?m)^size = .*$", f"size = [{reach:.6g}, {width:.6g}, {top:.6g}]"),
                (r"(?m)^max = .*$", f"max = [{radius:g}, {width:.6g}, {a * radius:g}]")]

    @staticmethod
    def distance(position):
        return position[:, 0]

    @staticmethod
    def band_area(inner, ring, cell_size):
        """Strips across the slab."""
        return ring * Slab.SLAB_CELLS * cell_size * np.ones(len(inner))


GEOMETRIES = {"axisymmetric": Axisymmetric, "slab": Slab}


def column_radius(a, cell_size):
    """R0 spanning 20 cells, and more where H0 = a R0 would span fewer than 10."""
    return max(20 * cell_size, 10 * cell_size / a)


def whole_cells(length, cell_size):
    return math.ceil(length / cell_size - 1e-9) * cell_size


def domain_reach(geometry, a, radius, cell_size):
    """The domain's reach from the wall or axis: 1.4 times the runout the law predicts."""
    return whole_cells(1.4 * radius * (1 + geometry.runout_law(a)), cell_size)


def case_text(geometry, template, a, radius, cell_size, output, end, interval, seed=None):
    """The template case with this run's geometry, end time, frame interval and output, and
    the particles' jitter seeded by `seed` where given."""
    reach = domain_reach(geometry, a, radius, cell_size)
    top = whole_cells(1.2 * a * radius + 4 * cell_size, cell_size)
    replacements = geometry.case_lines(a, radius, cell_size, reach, top) + [
        (r"(?m)^name = \"column_collapse\"$", f'name = "column_collapse_a{a:g}"'),
        (r"(?m)^cell_size = .*$", f"cell_size = {cell_size:g}"),
        (r"(?m)^end = .*$", f"end = {end:.3f}"),
        (r"(?m)^interval = .*$", f"interval = {interval:.4f}"),
        (r"(?m)^directory = .*$", f'directory = "{output}"'),
    ]
    text = template
    for pattern, value in replacements:
        text, count = re.subn(pattern, value, text)
        if count != 1:
            sys.exit(f"column_collapse_study: the case template has {count} lines matching "
                     f"{pattern!r}, expected exactly 1")
    if seed is not None:
        if re.search(r"(?m)^\[seeding\]", text):
            sys.exit("column_collapse_study: the case template has a [seeding] table; "
                     "--seed would be a second one")
        text += f"\n[seeding]\nseed = {seed}\n"
    return text


def measure_deposit(geometry, path, cell_size):
    """The Deposit of the frame at `path`, measured in cells of the frame's own size where it
    records one, else of `cell_size` (m, the case's)."""
    try:
        frame = dunesim_frames.Frame(path)
        position, speed = frame.positions(), frame.speeds()
    except dunesim_frames.FrameError as failure:
        sys.exit(f"column_collapse_study: {failure}")
    cell_size = frame.cell_size or cell_size
    time = frame.time
    r = geometry.distance(position)
    ring = cell_size / 2
    counts = np.bincount((r / ring).astype(int))
    inner = np.arange(len(counts)) * ring
    thickness = counts * cell_size ** 3 / 8 / geometry.band_area(inner, ring, cell_size)
    threshold = cell_size / 4
    thick_enough = np.nonzero(thickness >= threshold)[0]
    edge = (thick_enough[-1] + 1) * ring if len(thick_enough) else 0.0
    near_axis = r < 2 * cell_size
    top = position[near_axis, 2].max() + cell_size / 4 if near_axis.any() else 0.0
    return Deposit(edge, top, float(speed.max()), time, float(r.max()),
                   float(position[:, :2].max()), edge_between_rings(thickness, ring, threshold),
                   float(0.5 * np.mean(speed ** 2)))


def edge_between_rings(thickness, ring, threshold):
    """Where the thickness, taken at the rings' mid-radii and interpolated linearly, falls
    to `threshold` past the outermost ring that reaches it: R_inf without the rings' steps."""
    thick_enough = np.nonzero(thickness >= threshold)[0]
    if not len(thick_enough):
        return 0.0
    last = thick_enough[-1]
    inside = thickness[last]
    outside = thickness[last + 1] if last + 1 < len(thickness) else 0.0
    return (last + 0.5 + (inside - threshold) / (inside - outside)) * ring


def rest_window(args, a, radius):
    """The time over which a deposit must hold still: the option, or 2 sqrt(H0/g) if longer."""
    return max(args.rest_window, 2 * math.sqrt(a * radius / 9.81))


def find_rest(history, window, tolerance):
    """The first frame at which the deposit is at rest, given the (time, R, H) of the frames
    so far in time order: R and H stay within `tolerance` of that frame's over `window`
    seconds after it. Returns (index of the rest frame, index of the window's last frame),
    or None while no frame qualifies yet."""
    times = [h[0] for h in history]
    for start, (t0, r0, h0) in enumerate(history):
        end = next((n for n, t in enumerate(times) if t >= t0 + window - 1e-9), None)
        if end is None:
            return None
        held = all(abs(r - r0) <= tolerance and abs(h - h0) <= tolerance
                   for _, r, h in history[start:end + 1])
        if held:
            return start, end
    return None


def last_window_drift(history, window):
    """The largest change of R_inf and of H_inf over the last `window` seconds of frames."""
    t_last = history[-1][0]
    recent = [h for h in history if h[0] >= t_last - window - 1e-9]
    return (max(h[1] for h in recent) - min(h[1] for h in recent),
            max(h[2] for h in recent) - min(h[2] for h in recent))


def flow_end(deposits):
    """The first of the measured deposits (in time order) after the kinetic energy's peak
    at which the grains' kinetic energy has fallen below FLOW_END_ENERGY of that peak: the
    end of the collapse itself. What R_inf gains after it is creep, which laboratory sand,
    whose motion stops abruptly, does not show."""
    peak = max(range(len(deposits)), key=lambda n: deposits[n].kinetic_energy)
    for deposit in deposits[peak:]:
        if deposit.kinetic_energy < FLOW_END_ENERGY * deposits[peak].kinetic_energy:
            return deposit
    return deposits[-1]


def write_case(args, a, radius, folder, seed):
    """Writes FOLDER/case.toml for this aspect ratio and seed and returns its path."""
    os.makedirs(folder, exist_ok=True)
    for old in glob.glob(os.path.join(folder, "column_collapse_a*_*.h5")):
        os.remove(old)  # frames of an earlier run would look like this one's
    case_file = os.path.join(folder, "case.toml")
    with open(args.case) as f:
        template = f.read()
    with open(case_file, "w") as f:
        f.write(case_text(args.shape, template, a, radius, args.cell_size, os.path.abspath(folder),
                          args.max_time, args.frame_interval, seed))
    return case_file


def keep_measured_frame_only(folder, measured, time):
    """Deletes a run's frames but the one measured at `time`, and its checkpoints: six seeds
    of the five columns at 5 mm would otherwise keep about 20 GB."""
    kept = {frame for frame, deposit in measured.items() if deposit.time == time}
    for frame in glob.glob(os.path.join(folder, "column_collapse_a*_*.h5")):
        if frame not in kept:
            os.remove(frame)
    shutil.rmtree(os.path.join(folder, "checkpoints"), ignore_errors=True)


def run_case(args, a, seed):
    """Runs one column (its particles' jitter seeded by `seed`; None: the case's) until its
    deposit is at rest or --max-time. Returns a dict with R0,
    the measured frame's (edge, top, fastest, time, outermost), the rest time (None if it
    never came to rest) and the last window's drift of R and H."""
    radius = args.radius or column_radius(a, args.cell_size)
    folder = os.path.join(args.work, f"seed{seed}_a{a:g}" if args.seeds else f"a{a:g}")
    case_file = write_case(args, a, radius, folder, seed)
    command = dunesim_command(args.dunesim, args.ranks, case_file)
    window = rest_window(args, a, radius)
    tolerance = args.rest_tolerance * args.cell_size
    print(f"a = {a:g}: R0 = {radius:g} m, H0 = {a * radius:g} m, rest window {window:.2f} s: "
          f"{' '.join(command)}", flush=True)
    process = subprocess.Popen(command)
    measured, history, rest = {}, [], None
    while True:
        finished = process.poll() is not None
        frames = sorted(glob.glob(os.path.join(folder, "column_collapse_a*_*.h5")))
        # A frame still being written is read on the next pass (the newest is skipped while
        # the run goes on).
        for frame in frames if finished else frames[:-1]:
            if frame not in measured:
                measured[frame] = measure_deposit(args.shape, frame, args.cell_size)
                deposit = measured[frame]
                history.append((deposit.time, deposit.edge, deposit.top))
        history.sort()
        rest = find_rest(history, window, tolerance) if history else None
        if rest or finished:
            break
        subprocess.run(["sleep", "2"])
    if rest and process.poll() is None:
        process.terminate()
    if process.wait() not in (0, -15) and not rest:
        sys.exit(f"column_collapse_study: the run in {folder} failed")
    if not history:
        sys.exit(f"column_collapse_study: the run in {folder} wrote no frames")
    by_time = {m.time: m for m in measured.values()}
    last = history[rest[1]] if rest else history[-1]
    if args.seeds:
        keep_measured_frame_only(folder, measured, last[0])
    return {"radius": radius, "deposit": by_time[last[0]],
            "flow_end": flow_end([by_time[h[0]] for h in history[:history.index(last) + 1]]),
            "rest_time": history[rest[0]][0] if rest else None,
            "drift": last_window_drift(history[:rest[1] + 1] if rest else history, window),
            "window": window}


def plot(geometry, rows, png):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a_line = np.geomspace(0.3, 12, 200)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    a = [row["a"] for row in rows]
    length = geometry.length
    panels = ((left, geometry.runout_law, "runout", f"({length}_inf - {length}0) / {length}0"),
              (right, geometry.height_law, "height", f"H_inf / {length}0"))
    for axes, law, key, ylabel in panels:
        values = np.array([law(x) for x in a_line])
        axes.fill_between(a_line, 0.85 * values, 1.15 * values, color="0.85", label="law +-15%")
        axes.loglog(a_line, values, "k-", label=geometry.source)
        axes.loglog(a, [row[key] for row in rows], "o", color="tab:orange", label="dunesim")
        if key == "runout":
            axes.loglog(a, [row["runout_at_flow_end"] for row in rows], "o", mfc="none",
                        color="tab:orange", label="dunesim at the flow's end")
        axes.set_xlabel(f"a = H0 / {length}0")
        axes.set_ylabel(ylabel)
        axes.grid(True, which="both", alpha=0.3)
        axes.legend()
    fig.suptitle(geometry.title)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def measure_column(args, a, seed):
    """Runs the column of aspect ratio `a` with the particles' jitter seeded by `seed` (None:
    the case's) and returns its CSV row, printing a line of it."""
    geometry = args.shape
    run = run_case(args, a, seed)
    radius = run["radius"]
    edge, top, fastest, time, outermost, farthest, edge_between, _ = run["deposit"]
    end = run["flow_end"]
    end_edge, end_top, end_time = end.edge, end.top, end.time
    row = {"a": a, "seed": "" if seed is None else seed, "R0": radius,
           "cell_size": args.cell_size,
           "runout": (edge - radius) / radius, "runout_law": geometry.runout_law(a),
           "runout_between_rings": (edge_between - radius) / radius,
           "height": top / radius, "height_law": geometry.height_law(a),
           "outermost_grain_runout": (outermost - radius) / radius,
           "fastest_grain": fastest, "measured_time": time,
           "at_rest": int(run["rest_time"] is not None),
           "rest_time": "" if run["rest_time"] is None else run["rest_time"],
           "rest_window": run["window"],
           "window_drift_R": run["drift"][0], "window_drift_H": run["drift"][1],
           "reached_wall": int(farthest >= domain_reach(geometry, a, radius, args.cell_size)
                               - args.cell_size)}
    row["runout_error"] = row["runout"] / row["runout_law"] - 1
    row["height_error"] = row["height"] / row["height_law"] - 1
    row["cone_fill"] = geometry.cone_fill(a, row["runout"], row["height"])
    row["cone_fill_law"] = geometry.cone_fill(a, row["runout_law"], row["height_law"])
    row["flow_end_time"] = end_time
    row["runout_at_flow_end"] = (end_edge - radius) / radius
    row["height_at_flow_end"] = end_top / radius
    row["runout_error_at_flow_end"] = row["runout_at_flow_end"] / row["runout_law"] - 1
    print_row(row, run)
    return row


def print_row(row, run):
    """One column's line: its deposit against the laws, its rest, its flow's end."""
    wall = ", sand at the domain's far walls" if row["reached_wall"] else ""
    rest = (f"at rest from t = {run['rest_time']:.2f} s" if row["at_rest"] else
            f"NOT at rest by t = {row['measured_time']:.2f} s (last {run['window']:.2f} s: R "
            f"moved {1000 * run['drift'][0]:.1f} mm, H {1000 * run['drift'][1]:.1f} mm)")
    label = f"a = {row['a']:g}" + (f", seed {row['seed']}" if row["seed"] != "" else "")
    print(f"{label}: runout {row['runout']:.3f} (law {row['runout_law']:.3f}, "
          f"{100 * row['runout_error']:+.1f}%), height {row['height']:.3f} (law "
          f"{row['height_law']:.3f}, {100 * row['height_error']:+.1f}%), cone fill "
          f"{row['cone_fill']:.2f} (law {row['cone_fill_law']:.2f}), fastest grain "
          f"{row['fastest_grain']:.3f} m/s at t = {row['measured_time']:.2f} s, {rest}{wall}; "
          f"at the flow's end (t = {row['flow_end_time']:.2f} s) runout "
          f"{row['runout_at_flow_end']:.3f} ({100 * row['runout_error_at_flow_end']:+.1f}%)",
          flush=True)


def write_csv(csv_file, rows):
    """The rows (dicts with the same keys) as a CSV file with a header."""
    with open(csv_file, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def seed_list(text):
    """'1-6' or '1,3,5' -> a list of seeds."""
    if "-" in text:
        first, last = text.split("-")
        return list(range(int(first), int(last) + 1))
    return [int(s) for s in text.split(",")]


def print_over_seeds(rows, within):
    """Each aspect ratio's errors over the seeds: mean, range and how many seeds lie within
    `within` (a fraction) of the laws."""
    for a in sorted({row["a"] for row in rows}):
        mine = [row for row in rows if row["a"] == a]
        parts = []
        for key in ("runout_error", "height_error"):
            errors = [100 * row[key] for row in mine]
            inside = sum(abs(e) <= 100 * within for e in errors)
            parts.append(f"{key.split('_')[0]} {sum(errors) / len(errors):+.1f}% "
                         f"({min(errors):+.1f} to {max(errors):+.1f}; within "
                         f"{100 * within:g}% at {inside} of {len(errors)})")
        print(f"a = {a:g} over {len(mine)} seeds: {', '.join(parts)}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dunesim", default="build/dunesim")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--aspect-ratios", default="0.5,1,2,4,8")
    parser.add_argument("--cell-size", type=float, default=0.005)
    parser.add_argument("--geometry", choices=list(GEOMETRIES), default="axisymmetric",
                        help="a quarter cylinder, or a plane slab (module doc)")
    parser.add_argument("--case", default=None,
                        help="default: cases/column_collapse.toml, or column_collapse_slab.toml "
                             "for the slab")
    parser.add_argument("--radius", type=float, default=None,
                        help="m; R0 of every column (default: 20 cells, more where H0 would "
                             "span fewer than 10); fixing it makes --cell-size a refinement")
    parser.add_argument("--work", default="out/column_collapse_study")
    parser.add_argument("--csv", default=None, help="default: WORK/column_collapse.csv")
    parser.add_argument("--png", default=None, help="default: WORK/column_collapse.png")
    parser.add_argument("--max-time", type=float, default=8.0,
                        help="s; a deposit not at rest by then is measured there")
    parser.add_argument("--frame-interval", type=float, default=0.05, help="s")
    parser.add_argument("--rest-window", type=float, default=1.5,
                        help="s; at least 2 sqrt(H0/g)")
    seeding = parser.add_mutually_exclusive_group()
    seeding.add_argument("--seed", type=int, default=None,
                         help="seed of the particles' jitter (default: the case's, 1)")
    seeding.add_argument("--seeds", default=None,
                         help="'1-6' or '1,3,5': every column at each seed, then each aspect "
                              "ratio's mean and range over them")
    parser.add_argument("--within", type=float, default=10.0,
                        help="%%; with --seeds, count the seeds within this of the laws")
    parser.add_argument("--rest-tolerance", type=float, default=REST_TOLERANCE_CELLS,
                        help="cells; how far R_inf and H_inf may move over the window")
    args = parser.parse_args()
    args.shape = GEOMETRIES[args.geometry]
    args.case = args.case or args.shape.default_case
    csv_file = args.csv or os.path.join(args.work, "column_collapse.csv")
    png_file = args.png or os.path.join(args.work, "column_collapse.png")

    seeds = seed_list(args.seeds) if args.seeds else [args.seed]
    rows = []
    for seed in seeds:
        for a in args.aspect_ratios.split(","):
            rows.append(measure_column(args, float(a), seed))
            write_csv(csv_file, rows)  # so far: a run that fails later loses none of these
    if args.seeds:
        print_over_seeds(rows, args.within / 100)
    plot(args.shape, rows, png_file)
    print(f"wrote {csv_file} and {png_file}")


if __name__ == "__main__":
    main()
