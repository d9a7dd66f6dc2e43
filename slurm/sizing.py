#!/usr/bin/env python3
"""Sizing of a dunesim run from its case and measured per-particle costs (submit.py --plan
and --project; postproc/scaling.py --project-dune).

Estimates the particles the case's sources seed, the grid, the steps per simulated second,
the memory per rank and the time of a step from the costs measured on the dune and a
communication model (halo bytes by the surface of a block, message latencies, the pressure
solve's reductions). The costs are measured; the network and the message counts are
assumptions. It is a model, not a measurement: see slurm/README.md.

Standard library only; any python3 >= 3.6.
"""
import argparse
import ast
import math
import re
import sys

NUMBER = r"[-+0-9.eE_]+"
SECTION_RE = re.compile(r"^\s*\[+\s*([A-Za-z_.]+)\s*\]+")
SIZE_RE = re.compile(r"^\s*size\s*=\s*\[\s*({0})\s*,\s*({0})\s*,\s*({0})\s*\]".format(NUMBER))
CELL_SIZE_RE = re.compile(r"^(\s*cell_size\s*=\s*)({0})(.*)$".format(NUMBER))

# ---- Sizing (--plan): measured costs ----
# Measured with the dune (cases/dune.toml: dry sand, 8 particles per filled cell) on a
# 2-core machine, from the runs' timing.json (peak_rss_bytes, particle_steps_per_second).

# Peak resident memory of all the ranks together: (particles, ranks, bytes), from
# tests/benchmarks/dune_at_size.sh (Catalyst included) with the default sand model: the
# dune's 20-step runs on 2 ranks at about 1e6, 1e7 and 1e8 particles, and the restarts of
# their checkpoints on 1 rank (the 1e8 run with the build whose multigrid sweeps its coarse
# levels 4 times, its restart on 1 rank with the build that maps large allocations
# and frees the multigrid's vectors for the sort, the 1e7 runs with earlier builds, the 1e6
# runs earlier still; docs/findings/memory.md). Memory is
# modelled as bytes per particle x particles + bytes per rank x ranks, fitted to these by
# least squares (see memory_model()), so a new measurement is one more line.
MEASURED_PEAK_MEMORY = [
    (992430, 2, 0.932e9),
    (992430, 1, 0.537e9),
    (10047275, 2, 2.29e9),
    (10047275, 1, 1.79e9),
    (99986200, 2, 14.74e9),
    (99986200, 1, 14.15e9),
]
# The compute model, per stage: the 1e8 dune with the default model on 2 ranks
# (tests/benchmarks/dune_at_size.sh 1e8, its 20-step run: 8.09e6 particle-steps/s with a
# frame, a checkpoint and Catalyst, 6.05 CG iterations a first solve, which a sand step stops
# at 1e-5), each stage's seconds a step on
# the slowest rank (timing.json). A rank held 5.0e7 particles and, at 8 particles a filled
# cell, 6.25e6 fluid cells. The particle stages scale with the particles of a rank, the sand
# stages with its sand cells (the same ratio), and the two pressure solves with its fluid
# cells times the CG iterations; the stages not listed go with the particles. Frames,
# checkpoints and Catalyst are left out, as in a plan's other figures.
MEASURED_PARTICLES_PER_RANK = 99986200 / 2
MEASURED_CG_ITERATIONS = 6.05
PARTICLE_STAGE_SECONDS = {"particles_to_grid": 2.404, "grid_to_particles_and_advect": 1.212,
                          "migrate_particles": 0.198, "sort_particles": 0.274}
SAND_STAGE_SECONDS = {"sand_plasticity": 1.016, "rigid_clusters": 0.845,
                      "extrapolate_velocity": 0.292}
SOLVE_STAGE_SECONDS = {"project_pressure": 3.463, "reproject_pressure": 1.651}
OTHER_STAGE_SECONDS = 0.081  # saving the grid velocity, gravity, boundaries, load balance
MEASURED_STEP_SECONDS = (sum(PARTICLE_STAGE_SECONDS.values()) + sum(SAND_STAGE_SECONDS.values())
                         + sum(SOLVE_STAGE_SECONDS.values()) + OTHER_STAGE_SECONDS)
PARTICLES_PER_CELL = 8

# ---- Sizing: the communication model ----
# Halo bytes a rank sends per step per cell of a face of its block, all ghost layers: the
# 1e7 dune on 2 ranks sent 43.9 MB per step and rank (halo_bytes_sent) through its one face
# of 424 x 106 cells (the two ranks halve the domain in y), 977 bytes: about 41 arrays of 8
# bytes x 3 ghost layers. The multigrid's exchanges are a separate halo, not in this count.
HALO_BYTES_PER_FACE_CELL = 43.9e6 / (424 * 106)
# Counted in src/: the halo fills and sums of a dry sand step outside the CG iterations.
GRID_EXCHANGES_PER_STEP = 14
PROJECTIONS_PER_STEP = 2          # the pressure projection, and again after plasticity
CG_REDUCTIONS_PER_ITERATION = 2   # its two dot products
# One CG iteration's V-cycle (src/pressure/multigrid_preconditioner.cpp): one fill for the matrix
# product; on the finest level 2 x 4 smoothing fills (2 sweeps of two half-sweeps before and
# after), on the levels below it 2 x 8 (4 sweeps), 2 more and the sum that restricts to the
# next; the coarsest gathered onto every rank (one allreduce of its cells) when it has at
# most 32768 cells, else swept with 41 fills. Levels halve the blocks until one would be
# thinner than 2 cells. One layer of 8-byte values per fill.
MG_FILLS_PER_LEVEL = 10
MG_FILLS_PER_COARSE_LEVEL = 18
MG_COARSEST_FILLS = 41
MG_MAX_GATHERED_CELLS = 32768
MG_MIN_BLOCK_CELLS = 2
MG_MAX_LEVELS = 12
# An interior rank of a 3D layout, the one that sets the pace: 6 face neighbours, 26 in all.
FACES_3D, NEIGHBOURS_3D = 6, 26
# At most this many vertical lines sample the sources' volume (about 0.1 s of Python).
MAX_VOLUME_COLUMNS = 20000
TOKEN_RE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\],]|[^\s\[\],]+')
SIZE_SUFFIX = {"": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}
GIB = 2.0 ** 30

# ---- Limits: dunesim's own, and those of the model ----
# io/case_config.cpp (read_domain): 4 to kMaxCellsPerAxis cells per axis, the domain a whole
# number of cells (to 1e-6 of its size), at most kMaxCells in all.
MIN_CELLS_PER_AXIS = 4
MAX_CELLS_PER_AXIS = 1.0e6
MAX_CELLS = 1.0e10
# src/driver/physics_budget.hpp (kMaxSteps): dunesim refuses a case that needs more steps
# to its end; a --flow-speed that would need more is no run dunesim makes either.
MAX_STEPS = 1e8
# Particle ids are 64-bit signed integers.
MAX_PARTICLES = 2.0 ** 63
# The network a plan may assume: 1 MB/s to 100 TB/s per link, 1 ns to 1 s per message.
BANDWIDTH_RANGE = (1e-3, 1e5)   # GB/s
LATENCY_RANGE = (1e-3, 1e6)     # microseconds
# Exit status of a refused input (dunesim's own for a bad case or option).
EXIT_USAGE = 2


def refuse(message):
    """Prints `submit.py: message` and exits with EXIT_USAGE."""
    print("submit.py: " + message, file=sys.stderr)
    sys.exit(EXIT_USAGE)


def memory_size(text):
    """Bytes of a size written as Slurm writes memory: 256G, 512M, 1T (binary units)."""
    match = re.match(r"^\s*([0-9.]+)\s*([KMGT]?)i?B?\s*$", text, re.IGNORECASE)
    if not match:
        raise argparse.ArgumentTypeError("not a memory size (e.g. 256G): " + text)
    return float(match.group(1)) * SIZE_SUFFIX[match.group(2).upper()]


def rank_list(text):
    try:
        ranks = [int(word) for word in text.split(",") if word.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("not a list of rank counts (e.g. 64,256,1024): " + text)
    if not ranks or min(ranks) < 1:
        raise argparse.ArgumentTypeError("rank counts must be at least 1: " + text)
    return ranks


def add_sizing_options(parser):
    sizing = parser.add_argument_group(
        "sizing (--plan, --project; nothing is submitted and Slurm is not needed)")
    sizing.add_argument("--plan", action="store_true",
                        help="print the run's size, memory, speed and projected parallel "
                             "efficiency, and exit")
    sizing.add_argument("--project", nargs="?", const=[64, 256, 1024], type=rank_list,
                        metavar="P,P,...", help="as --plan, at each of these rank counts "
                                                "(default 64,256,1024)")
    sizing.add_argument("--particles", type=float, metavar="N",
                        help="the particle count, instead of the estimate from the sources")
    sizing.add_argument("--flow-speed", type=float, default=1.0, metavar="V",
                        help="the fastest flow assumed, m/s, which sets the time step; "
                             "default 1")
    sizing.add_argument("--memory-per-node", type=memory_size, default=memory_size("256G"),
                        metavar="SIZE", help="memory the ranks of a node may use; default 256G")
    sizing.add_argument("--ranks-per-node", type=int, default=64, metavar="N",
                        help="ranks on a node (a node is the efficiency's reference); "
                             "default 64")
    sizing.add_argument("--bandwidth", type=float, default=12.5, metavar="GBPS",
                        help="network bandwidth per link, GB/s; default 12.5 (100 Gb/s "
                             "InfiniBand)")
    sizing.add_argument("--latency", type=float, default=2.0, metavar="US",
                        help="network latency per message, microseconds; default 2")
    sizing.add_argument("--cg-iterations", type=float, default=MEASURED_CG_ITERATIONS,
                        metavar="N",
                        help="CG iterations per first pressure solve; default 6.05 (measured "
                             "on the dune over 20 steps at 1e8; a step with sand solves first "
                             "to 1e-5, a case of water alone to its rtol, 7 iterations at "
                             "1e-6 on the dam break)")


def check_sizing_values(parser, args):
    positive = {"--cell-size": args.cell_size, "--particles": args.particles,
                "--memory-per-node": args.memory_per_node, "--bandwidth": args.bandwidth,
                "--latency": args.latency, "--cg-iterations": args.cg_iterations}
    for name, value in positive.items():
        # `not value > 0` also refuses nan; inf is no size either.
        if value is not None and (not value > 0 or math.isinf(value)):
            parser.error("{} must be a positive finite number, got {}".format(name, value))
    if not args.flow_speed >= 0 or math.isinf(args.flow_speed):
        parser.error("--flow-speed must be a finite speed >= 0, got {}".format(args.flow_speed))
    if args.ranks_per_node < 1 or (args.nodes is not None and args.nodes < 1):
        parser.error("--ranks-per-node and --nodes must be at least 1")
    if args.particles is not None and args.particles > MAX_PARTICLES:
        parser.error("--particles must be at most {:.4g} (64-bit particle ids), got "
                     "{:g}".format(MAX_PARTICLES, args.particles))
    for name, value, (low, high), unit in (("--bandwidth", args.bandwidth, BANDWIDTH_RANGE, "GB/s"),
                                           ("--latency", args.latency, LATENCY_RANGE, "us")):
        if not low <= value <= high:
            parser.error("{} must be between {:g} and {:g} {}, got {:g}".format(
                name, low, high, unit, value))


def check_grid(size, cell_size, what):
    """The cell counts of the domain at `cell_size`, refused (naming `what`: the key or the
    option that set it) where dunesim's read_domain would refuse them."""
    if not (math.isfinite(cell_size) and cell_size > 0):
        refuse("{}: expected a finite cell size > 0, got {!r}".format(what, cell_size))
    cells = []
    for axis, length in zip("xyz", size):
        along = " along {} (size {:g} m)".format(axis, length)
        count = length / cell_size  # inf where it overflows: refused below, never rounded
        if not count <= MAX_CELLS_PER_AXIS + 0.5:
            refuse("{}: {:g} m gives {:.4g} cells{}; at most {:g} are allowed".format(
                what, cell_size, count, along, MAX_CELLS_PER_AXIS))
        count = int(round(count))
        if count < MIN_CELLS_PER_AXIS:
            refuse("{}: {:g} m gives {} cell(s){}; at least {} are needed".format(
                what, cell_size, count, along, MIN_CELLS_PER_AXIS))
        if not abs(count * cell_size - length) < 1e-6 * length:
            refuse("{}: {:g} m does not divide the domain into whole cells: {:g} m{} is "
                   "{:.6g} cells".format(what, cell_size, length, along.split(" (")[0],
                                        length / cell_size))
        cells.append(count)
    total = float(cells[0]) * cells[1] * cells[2]
    if total > MAX_CELLS:
        refuse("{}: {:g} m gives {} x {} x {} = {:.4g} cells; at most {:g} are allowed".format(
            what, cell_size, cells[0], cells[1], cells[2], total, MAX_CELLS))
    return cells


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
        try:
            match = SIZE_RE.match(line)
            if match:
                size = [float(match.group(i).replace("_", "")) for i in (1, 2, 3)]
            match = CELL_SIZE_RE.match(line)
            if match:
                cell_size = float(match.group(2).replace("_", ""))
                cell_line = index
        except ValueError:
            refuse("{}: line {}: not a number: {}".format(case_file, index + 1, line.strip()))
    if size is None or cell_size is None:
        refuse("{}: needs [domain] size = [x, y, z] and cell_size = h, each on one "
               "line".format(case_file))
    for axis, length in zip("xyz", size):
        if not (math.isfinite(length) and length > 0):
            refuse("{}: key 'domain.size': expected finite sizes > 0, got {!r} along "
                   "{}".format(case_file, length, axis))
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


# ---- Sizing: reading the case ----

def strip_comment(line):
    """The line without its comment: the first # outside a string."""
    quoted = False
    for index, char in enumerate(line):
        if char == '"' and (index == 0 or line[index - 1] != "\\"):
            quoted = not quoted
        elif char == "#" and not quoted:
            return line[:index]
    return line


def toml_value(text):
    """A number, string, boolean or array of them, as Python values."""
    words = {"true": "True", "false": "False"}
    return ast.literal_eval(" ".join(words.get(token, token) for token in TOKEN_RE.findall(text)))


def simple_toml(text):
    """The part of TOML that case files use: [table], [[array of tables]] and key = value,
    an array possibly over several lines. For a Python without tomllib (before 3.11)."""
    data, pending = {}, ""
    table = data
    for number, raw in enumerate(text.splitlines(), 1):
        line = (pending + " " + strip_comment(raw)).strip()
        if "=" in line and line.count("[") > line.count("]"):
            pending = line  # an array that goes on below
            continue
        pending = ""
        if not line:
            continue
        if line.startswith("[["):
            table = {}
            data.setdefault(line.strip("[] "), []).append(table)
        elif line.startswith("["):
            table = data.setdefault(line.strip("[] "), {})
        else:
            key, _, value = line.partition("=")
            try:
                table[key.strip()] = toml_value(value)
            except (ValueError, SyntaxError):
                raise ValueError("line {}: cannot read the value of {}".format(number,
                                                                               key.strip()))
    return data


def read_case(path):
    try:
        import tomllib
    except ImportError:
        tomllib = None
    try:
        if tomllib is not None:
            with open(path, "rb") as f:
                return tomllib.load(f)
        with open(path) as f:
            return simple_toml(f.read())
    except (OSError, ValueError) as error:  # tomllib's TOMLDecodeError is a ValueError
        refuse("{}: {}".format(path, error))


# ---- submit.py's own rules on the case, where no dunesim is at hand ----

def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def non_finite_key(value, key):
    """The first key (dunesim's spelling: material[0].porosity) holding nan or inf."""
    if isinstance(value, dict):
        for name, item in value.items():
            found = non_finite_key(item, name if not key else key + "." + name)
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            tables = isinstance(item, dict)
            found = non_finite_key(item, "{}[{}]".format(key, index) if tables else key)
            if found:
                return found
    elif isinstance(value, float) and not math.isfinite(value):
        return key, value
    return None


def check_case_values(case, case_file):
    """A subset of `dunesim check`: every number finite, and the values the sizing reads of
    the right type and range (the time step's, the materials' and the shapes'), so that
    sizing a case dunesim would refuse ends in a message naming the key, not a traceback.
    """
    def fail(key, expected, value):
        refuse("{}: key '{}': expected {}, got {!r}".format(case_file, key, expected, value))

    def number(table, name, prefix, positive=True, required=False):
        if name not in table:
            if required:
                refuse("{}: key '{}{}' is required".format(case_file, prefix, name))
            return
        value = table[name]
        if not is_number(value):
            fail(prefix + name, "a number", value)
        if positive and not value > 0:
            fail(prefix + name, "a value > 0", value)

    def vector(table, name, prefix, length=3, required=True):
        if name not in table:
            if required:
                refuse("{}: key '{}{}' is required".format(case_file, prefix, name))
            return
        value = table[name]
        if not (isinstance(value, list) and all(is_number(v) for v in value) and
                (length is None or len(value) == length)):
            fail(prefix + name, "{} numbers".format(length or "a list of"), value)

    found = non_finite_key(case, "")
    if found:
        fail(found[0], "a finite number", found[1])
    for name in ("time", "physics", "domain"):
        if not isinstance(case.get(name, {}), dict):
            fail(name, "a table", case[name])
    time = case.get("time", {})
    number(time, "end", "time.", required=True)
    number(time, "cfl", "time.")
    number(time, "max_dt", "time.")
    vector(case.get("physics", {}), "gravity", "physics.", required=False)
    for kind in ("material", "source", "collider"):
        tables = case.get(kind, [])
        if not (isinstance(tables, list) and all(isinstance(t, dict) for t in tables)):
            fail(kind, "an array of tables ([[{}]])".format(kind), tables)
    for index, material in enumerate(case.get("material", [])):
        prefix = "material[{}].".format(index)
        number(material, "density", prefix)
        number(material, "shear_modulus", prefix)
    for kind in ("source", "collider"):
        for index, shape in enumerate(case.get(kind, [])):
            prefix = "{}[{}].".format(kind, index)
            if shape.get("rain_rate"):
                continue
            name = shape.get("shape")
            if name == "block":
                vector(shape, "min", prefix)
                vector(shape, "max", prefix)
            elif name in ("sphere", "cylinder"):
                vector(shape, "center", prefix)
                number(shape, "radius", prefix, required=True)
                if name == "cylinder":
                    number(shape, "height", prefix, required=True)
            elif name == "heightfield":
                vector(shape, "profile_x", prefix, length=None)
                vector(shape, "profile_height", prefix, length=len(shape["profile_x"]))
                xs = shape["profile_x"]
                if len(xs) < 2 or any(not b > a for a, b in zip(xs, xs[1:])):
                    fail(prefix + "profile_x", "at least 2 increasing x", xs)
            elif name != "mesh":
                fail(prefix + "shape", "block, sphere, cylinder, heightfield or mesh", name)


# ---- Sizing: the volume the sources fill ----

def footprint(shape, size):
    """(x0, x1, y0, y1): the shape seen from above."""
    kind = shape["shape"]
    if kind == "block":
        return shape["min"][0], shape["max"][0], shape["min"][1], shape["max"][1]
    if kind in ("sphere", "cylinder"):
        (x, y, _), r = shape["center"], shape["radius"]
        return x - r, x + r, y - r, y + r
    if kind == "heightfield":
        return shape["profile_x"][0], shape["profile_x"][-1], 0.0, size[1]
    raise ValueError("no footprint for a " + kind)


def profile_height(xs, heights, x):
    for i in range(1, len(xs)):
        if x <= xs[i]:
            t = (x - xs[i - 1]) / (xs[i] - xs[i - 1])
            return heights[i - 1] + t * (heights[i] - heights[i - 1])
    return heights[-1]


def column_interval(shape, x, y):
    """The (z0, z1) the shape fills on the vertical line through (x, y), or None."""
    kind = shape["shape"]
    if kind == "block":
        lo, hi = shape["min"], shape["max"]
        inside = lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1]
        return (lo[2], hi[2]) if inside else None
    if kind == "heightfield":
        xs = shape["profile_x"]
        if not xs[0] <= x <= xs[-1]:
            return None
        return 0.0, profile_height(xs, shape["profile_height"], x)
    (cx, cy, cz), r = shape["center"], shape["radius"]
    left = r * r - (x - cx) ** 2 - (y - cy) ** 2
    if left < 0:
        return None
    if kind == "cylinder":
        return cz, cz + shape["height"]
    half = math.sqrt(left)
    return cz - half, cz + half


def merged(intervals):
    """The union of (z0, z1) intervals as sorted, disjoint intervals."""
    out = []
    for z0, z1 in sorted(i for i in intervals if i[1] > i[0]):
        if out and z0 <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], z1))
        else:
            out.append((z0, z1))
    return out


def overlap(a, b):
    return sum(max(0.0, min(a1, b1) - max(a0, b0)) for a0, a1 in a for b0, b1 in b)


def filled_volume(sources, solids, size, cell_size):
    """The volume the sources fill inside the domain and outside the solids (m^3).

    Summed over vertical lines on a grid over the sources' footprint, at most
    MAX_VOLUME_COLUMNS of them and no closer than the particles (half a cell): exact in z,
    a midpoint rule in x and y. Overlapping sources count once.
    """
    boxes = [footprint(s, size) for s in sources]
    x0, x1 = max(0.0, min(b[0] for b in boxes)), min(size[0], max(b[1] for b in boxes))
    y0, y1 = max(0.0, min(b[2] for b in boxes)), min(size[1], max(b[3] for b in boxes))
    if x1 <= x0 or y1 <= y0:
        return 0.0
    spacing = max(cell_size / 2, math.sqrt((x1 - x0) * (y1 - y0) / MAX_VOLUME_COLUMNS))
    nx, ny = int(math.ceil((x1 - x0) / spacing)), int(math.ceil((y1 - y0) / spacing))
    dx, dy = (x1 - x0) / nx, (y1 - y0) / ny
    length = 0.0
    for i in range(nx):
        x = x0 + (i + 0.5) * dx
        for j in range(ny):
            y = y0 + (j + 0.5) * dy
            filled = merged((max(0.0, z[0]), min(size[2], z[1])) for z in
                            (column_interval(s, x, y) for s in sources) if z)
            if filled and solids:
                solid = merged(z for z in (column_interval(s, x, y) for s in solids) if z)
                length -= overlap(filled, solid)
            length += sum(z1 - z0 for z0, z1 in filled)
    return length * dx * dy


def estimate_particles(case, size, cell_size, case_file):
    """(particles, notes): 8 particles per cell that the sources fill at the start."""
    notes = []
    sources = [s for s in case.get("source", []) if not s.get("rain_rate")]
    if len(sources) < len(case.get("source", [])):
        notes.append("rain makes its particles as it falls: not counted")
    if any(s.get("emit_until") for s in sources):
        notes.append("pouring sources add particles after the start: only their first fill "
                     "is counted")
    meshes = [i for i, s in enumerate(case.get("source", [])) if s.get("shape") == "mesh"]
    if meshes:
        refuse("{}: source {} is a mesh, whose volume this estimate cannot tell; give the "
               "particle count with --particles N".format(case_file, meshes[0]))
    solids = [c for c in case.get("collider", []) if c.get("shape") != "mesh"]
    if len(solids) < len(case.get("collider", [])):
        notes.append("mesh colliders are not subtracted: the count is an upper bound")
    if not sources:
        return 0, notes
    volume = filled_volume(sources, solids, size, cell_size)
    return PARTICLES_PER_CELL * volume / cell_size ** 3, notes


# ---- Sizing: time step, memory, step time ----

def steps_per_second(case, cell_size, flow_speed, elastic=True, gravity=True):
    """Steps per simulated second, dunesim's stable_dt() at the assumed flow speed (without
    the elastic sands' limit, or the flow's, for check_step_count)."""
    time = case.get("time", {})
    dt = time.get("max_dt", 0.01)
    if gravity:
        g = math.sqrt(sum(g * g for g in case.get("physics", {}).get("gravity", [0, 0, -9.81])))
        speed = flow_speed + math.sqrt(g * cell_size)
        if speed > 0:
            dt = min(dt, time.get("cfl", 1.0) * cell_size / speed)
    for material in case.get("material", []) if elastic else []:
        if material.get("rheology") == "elastic_plastic":
            wave_speed = math.sqrt(material.get("shear_modulus", 2e5) /
                                   material.get("density", 1600.0))
            dt = min(dt, 0.4 * cell_size / wave_speed)  # kElasticCourant
    return 1.0 / dt


def memory_model():
    """(bytes per particle, bytes per rank): least squares over MEASURED_PEAK_MEMORY."""
    snn = sum(n * n for n, r, _ in MEASURED_PEAK_MEMORY)
    snr = sum(n * r for n, r, _ in MEASURED_PEAK_MEMORY)
    srr = sum(r * r for n, r, _ in MEASURED_PEAK_MEMORY)
    sny = sum(n * b for n, _, b in MEASURED_PEAK_MEMORY)
    sry = sum(r * b for _, r, b in MEASURED_PEAK_MEMORY)
    det = snn * srr - snr * snr
    return (sny * srr - sry * snr) / det, (snn * sry - snr * sny) / det


def memory_per_rank(particles, ranks):
    per_particle, per_rank = memory_model()
    return per_particle * particles / ranks + per_rank


def multigrid_levels(block_side):
    levels = 1
    while levels < MG_MAX_LEVELS and block_side / 2 ** levels >= MG_MIN_BLOCK_CELLS:
        levels += 1
    return levels


def vcycle_exchanges(levels, gathered):
    """Per level, (halo exchanges, face size relative to level 0) of one CG iteration."""
    out = []
    for level in range(levels):
        if level == 0 and levels > 1:
            count = MG_FILLS_PER_LEVEL
        elif level < levels - 1:
            count = MG_FILLS_PER_COARSE_LEVEL
        else:
            count = 1 if gathered else MG_COARSEST_FILLS
        # Level 0: the matrix product's fill; a coarser level: the restriction's sum.
        out.append((count + 1, 0.25 ** level))
    return out


def compute_seconds(particles_per_rank, cg_iterations):
    """A rank's compute seconds a step: the measured stages scaled to its particles, the
    pressure solves also to the CG iterations."""
    solves = sum(SOLVE_STAGE_SECONDS.values())
    rest = MEASURED_STEP_SECONDS - solves
    scale = particles_per_rank / MEASURED_PARTICLES_PER_RANK
    return scale * (rest + solves * cg_iterations / MEASURED_CG_ITERATIONS)


def step_seconds(particles, cells, ranks, args):
    """The modelled seconds of one step on `ranks` ranks, by part, and the halo bytes.

    compute: the measured stages (compute_seconds). halo: the bytes an interior rank sends (its six faces,
    cubic blocks) over the bandwidth. latency: one latency per message, every exchange
    sending one to each of 26 neighbours. reductions: log2(ranks) latencies each (and the
    coarsest multigrid level's bytes when it is gathered).
    """
    parts = {"compute": compute_seconds(particles / ranks, args.cg_iterations),
             "halo": 0.0, "latency": 0.0, "reductions": 0.0, "halo_bytes": 0.0}
    if ranks == 1:
        return parts
    bandwidth, latency = args.bandwidth * 1e9, args.latency * 1e-6
    side = (cells / ranks) ** (1.0 / 3.0)
    levels = multigrid_levels(side)
    coarsest = cells / 8.0 ** (levels - 1)
    gathered = coarsest <= MG_MAX_GATHERED_CELLS
    per_iteration = vcycle_exchanges(levels, gathered)
    iterations = PROJECTIONS_PER_STEP * args.cg_iterations
    solver_bytes = iterations * 8 * sum(n * face for n, face in per_iteration)
    parts["halo_bytes"] = (min(FACES_3D, ranks - 1) * side ** 2 *
                           (HALO_BYTES_PER_FACE_CELL + solver_bytes))
    parts["halo"] = parts["halo_bytes"] / bandwidth
    # The multigrid set-up exchanges once per coarse level and projection.
    exchanges = (GRID_EXCHANGES_PER_STEP + PROJECTIONS_PER_STEP * (levels - 1) +
                 iterations * sum(n for n, _ in per_iteration))
    parts["latency"] = min(NEIGHBOURS_3D, ranks - 1) * exchanges * latency
    hops = math.ceil(math.log2(ranks))
    parts["reductions"] = iterations * CG_REDUCTIONS_PER_ITERATION * hops * latency
    if gathered:
        parts["reductions"] += iterations * hops * (latency + 8 * coarsest / bandwidth)
    return parts


def total_seconds(parts):
    return parts["compute"] + parts["halo"] + parts["latency"] + parts["reductions"]


def efficiency(particles, cells, ranks, args):
    """E(p) = T(p0) p0 / (T(p) p) against one node, p0 = --ranks-per-node (p itself when
    smaller: within a node there is nothing to compare with)."""
    base = min(ranks, args.ranks_per_node)
    return (total_seconds(step_seconds(particles, cells, base, args)) * base /
            (total_seconds(step_seconds(particles, cells, ranks, args)) * ranks))


# ---- Sizing: the plan ----

def plan_cell_size(args, size, cell_size):
    if args.weak_from is not None:
        return weak_cell_size(size, cell_size, args.weak_from, args.ranks)[0]
    return args.cell_size if args.cell_size is not None else cell_size


def check_counts(args, cells):
    """Rank, node and iteration counts against the grid of `cells` (refused naming the
    option): dunesim gives every rank a block of at least one cell."""
    count = float(cells[0]) * cells[1] * cells[2]
    grid = "the grid has {} x {} x {} = {:.4g} cells, and every rank needs at least one".format(
        cells[0], cells[1], cells[2], count)
    for name, value in (("--ranks", args.ranks), ("--nodes", args.nodes),
                        ("--ranks-per-node", args.ranks_per_node)):
        if value is not None and value > count:
            refuse("{} {}: more than the grid's cells; {}".format(name, value, grid))
    for ranks in args.project or []:
        if ranks > count:
            refuse("--project: {} ranks: more than the grid's cells; {}".format(ranks, grid))
    if args.nodes is not None and args.ranks is not None and args.nodes > args.ranks:
        refuse("--nodes {} is more than --ranks {}: every node runs at least one rank".format(
            args.nodes, args.ranks))
    if args.cg_iterations > count:
        refuse("--cg-iterations {:g}: more than the grid's {:.4g} cells (CG's bound in exact "
               "arithmetic)".format(args.cg_iterations, count))


def choose_layout(particles, args):
    """(ranks, nodes): as given, or the fewest nodes whose memory holds the run, every
    rank of them used."""
    if args.ranks is not None:
        nodes = args.nodes or int(math.ceil(args.ranks / args.ranks_per_node))
        return args.ranks, nodes
    if args.nodes is not None:
        return args.nodes * args.ranks_per_node, args.nodes
    per_particle, per_rank = memory_model()
    room = args.memory_per_node - per_rank * args.ranks_per_node
    if room <= 0:
        refuse("--memory-per-node {:.4g} GiB: {} ranks (--ranks-per-node) need {:.1f} GiB a "
               "node before any particle".format(args.memory_per_node / GIB,
                                                 args.ranks_per_node,
                                                 per_rank * args.ranks_per_node / GIB))
    nodes = max(1, int(math.ceil(per_particle * particles / room)))
    return nodes * args.ranks_per_node, nodes


def check_figures(args, figures):
    """Refuses a plan whose figures overflowed (the checks on the options are meant to keep
    them finite): names what did and the options behind it."""
    bad = sorted(name for name, value in figures.items() if not math.isfinite(value))
    if bad:
        refuse("{}: the plan's {} came out as {}: the options (--particles {}, --flow-speed {:g}, "
               "--bandwidth {:g}, --latency {:g}, --cg-iterations {:g}) are beyond what the model "
               "can size".format(args.case, ", ".join(bad), figures[bad[0]], args.particles,
                                 args.flow_speed, args.bandwidth, args.latency,
                                 args.cg_iterations))


def print_plan(args, run):
    particles, cell_count = run["particles"], run["cell_count"]
    ranks, nodes = choose_layout(particles, args)
    if ranks > cell_count:
        why = ("--nodes {} x --ranks-per-node {}".format(nodes, args.ranks_per_node)
               if args.nodes is not None else
               "{}: {:.4g} particles need {} nodes of {} ranks (--memory-per-node {:.4g} "
               "GiB)".format(args.case, particles, nodes, args.ranks_per_node,
                             args.memory_per_node / GIB))
        refuse("{}: {} ranks, more than the grid's {:.4g} cells; every rank needs at least "
               "one".format(why, ranks, cell_count))
    parts = step_seconds(particles, cell_count, ranks, args)
    step = total_seconds(parts)
    memory = memory_per_rank(particles, ranks)
    budget = args.memory_per_node / int(math.ceil(ranks / nodes))
    per_particle, per_rank = memory_model()
    wall = step * run["steps"]
    end = run["end"]
    check_figures(args, {"seconds per step": step, "memory per rank": memory,
                         "wall seconds": wall * (end or 1.0),
                         "efficiency": efficiency(particles, cell_count, ranks, args)})
    print("Sizing of {} (a model from measured costs, not a measurement)".format(args.case))
    print("  cell size            {:.6g} m".format(run["cell_size"]))
    print("  grid                 {} x {} x {} = {:.4g} cells".format(*run["cells"], cell_count))
    print("  particles            {:.4g} ({})".format(
        particles, "8 per cell the sources fill" if run["estimated"] else "--particles"))
    print("  ranks                {} on {} node(s)".format(ranks, nodes))
    print("  memory per rank      {:.2f} GiB of {:.2f} GiB{} ({:.0f} B a particle + {:.2f} GiB "
          "a rank)".format(memory / GIB, budget / GIB, "" if memory <= budget else
                           ": DOES NOT FIT", per_particle, per_rank / GIB))
    print("  steps per sim. s     {:.4g} (flow speed {:g} m/s)".format(run["steps"],
                                                                       args.flow_speed))
    print("  seconds per step     {:.4g} (compute {:.4g}, halo {:.3g}, latency {:.3g}, "
          "reductions {:.3g})".format(step, parts["compute"], parts["halo"], parts["latency"],
                                      parts["reductions"]))
    print("  wall s per sim. s    {:.4g}{}".format(wall, "" if end is None else
                                                  " ({:.3g} h for the case's {:g} s)".format(
                                                      wall * end / 3600, end)))
    communication = 1 - parts["compute"] / step
    print("  parallel efficiency  {:.3f} against {} ranks (one node); communication {:.1%} of "
          "a step".format(efficiency(particles, cell_count, ranks, args),
                          min(ranks, args.ranks_per_node), communication))
    notes = list(run["notes"])
    if communication > 0.5:
        notes.append("communication is most of a step: fewer ranks (--ranks) waste less")
    for note in notes:
        print("  note: " + note)


def print_projection(args, run):
    particles, cell_count = run["particles"], run["cell_count"]
    print("\nProjected strong scaling ({:.4g} particles, {:.4g} cells; {:g} GB/s, {:g} us, "
          "{:g} CG iterations a solve):".format(particles, cell_count, args.bandwidth,
                                                args.latency, args.cg_iterations))
    print("{:>7} {:>6} {:>12} {:>10} {:>10} {:>10} {:>11} {:>12} {:>10} {:>11}".format(
        "ranks", "nodes", "part./rank", "GiB/rank", "s/step", "compute s", "comm. s",
        "halo MB/step", "efficiency", "wall s/s"))
    for ranks in args.project:
        parts = step_seconds(particles, cell_count, ranks, args)
        step = total_seconds(parts)
        check_figures(args, {"seconds per step at {} ranks".format(ranks): step,
                             "wall seconds at {} ranks".format(ranks): step * run["steps"]})
        print("{:>7} {:>6} {:>12.4g} {:>10.2f} {:>10.4g} {:>10.4g} {:>11.3g} {:>12.4g} "
              "{:>10.3f} {:>11.4g}".format(
                  ranks, int(math.ceil(ranks / args.ranks_per_node)), particles / ranks,
                  memory_per_rank(particles, ranks) / GIB, step, parts["compute"],
                  step - parts["compute"], parts["halo_bytes"] / 1e6,
                  efficiency(particles, cell_count, ranks, args), step * run["steps"]))


def check_step_count(args, case, cell_size, steps):
    """dunesim's bound on the steps to the case's end (kMaxSteps, as its
    check_physics_budget counts them: the step of a fall from rest, and each elastic sand's
    own limit), then the same bound for the steps the plan assumes at --flow-speed."""
    end = case.get("time", {}).get("end", 1.0)
    at_rest = steps_per_second(case, cell_size, 0.0, elastic=False)
    for index, material in enumerate(case.get("material", [])):
        if material.get("rheology") != "elastic_plastic":
            continue
        modulus = material.get("shear_modulus", 2e5)
        elastic = steps_per_second({"material": [material], "time": {"max_dt": math.inf}},
                                   cell_size, 0.0, gravity=False)
        if elastic > at_rest and end * elastic > MAX_STEPS:
            refuse("{}: key 'material[{}].shear_modulus': {:g} Pa takes {:.4g} steps to the "
                   "end of {:g} s at cell size {:g} m (at most {:g})".format(
                       args.case, index, modulus, end * elastic, end, cell_size, MAX_STEPS))
    if end * at_rest > MAX_STEPS:
        refuse("{}: key 'time.end': {:g} s takes {:.4g} steps at cell size {:g} m (at most "
               "{:g})".format(args.case, end, end * at_rest, cell_size, MAX_STEPS))
    if end * steps > MAX_STEPS:
        refuse("--flow-speed {:g}: a flow that fast takes {:.4g} steps to the case's end of "
               "{:g} s at cell size {:g} m; dunesim runs at most {:g}".format(
                   args.flow_speed, end * steps, end, cell_size, MAX_STEPS))


def size_run(args, case, size, cell_size, cells):
    """What --plan needs to know of the case: grid, particles, steps per simulated second.
    `case`, `size`, `cell_size` (the one planned) and `cells` have been checked."""
    steps = steps_per_second(case, cell_size, args.flow_speed)
    check_step_count(args, case, cell_size, steps)
    run = {"cell_size": cell_size, "cells": cells, "cell_count": float(cells[0]) * cells[1] *
           cells[2], "notes": [], "steps": steps, "end": case.get("time", {}).get("end")}
    if args.particles is not None:
        run["particles"], run["estimated"] = args.particles, False
    else:
        run["particles"], notes = estimate_particles(case, size, cell_size, args.case)
        run["notes"] += notes
        run["estimated"] = True
    if run["particles"] <= 0:
        refuse("{}: no source fills anything at the start; give --particles N".format(args.case))
    return run


def plan(args, case, size, cell_size, cells):
    run = size_run(args, case, size, cell_size, cells)
    print_plan(args, run)
    if args.project:
        print_projection(args, run)
