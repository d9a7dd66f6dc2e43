#!/usr/bin/python3
"""Reads the frames of a dunesim run for analysis in Python (h5py and numpy only).

    import dunesim_frames

    run = dunesim_frames.open_run("out/dam")            # a run's output directory,
    run = dunesim_frames.open_run("out/dam/dam_break.xmf")  # its XDMF series,
    run = dunesim_frames.open_run(["a_000003.h5", "a_000001.h5"])  # or frame files
    for frame in run:                                   # in time order
        sand = frame.positions("sand")                  # (n, 3) array, m
        print(frame.time, frame.step, len(sand), sand[:, 2].max())
    times, tops = run.time_series(lambda f: f.positions("sand")[:, 2].max())

Particle arrays are selected by material name (None: every particle); their rows are in the
frame's order (by rank, not by id: match particles across frames with `ids()`). Run metadata
(material names and kinds, cell size, domain) comes from the frame's /run group when it has
one, otherwise from what older frames hold: the material names from
/particles/material@names, the cell size and the domain from the grid fields when the run
wrote them (`[output] grid_fields = true`), else they are unknown (None).

Every problem raises FrameError (or a subclass), whose message begins with the file's path
and says what was expected. As a command, it lists a run's frames:

    postproc/dunesim_frames.py RUN [--material NAME]

and exits with status 1 and the message on stderr when the run cannot be read.
"""
import argparse
import os
import re
import sys
import xml.etree.ElementTree as ElementTree

import h5py
import numpy as np

# A frame file: <case>_NNNNNN.h5 (the frame number, zero-padded to at least 6 digits).
FRAME_NAME = re.compile(r"(?P<case>.+)_(?P<number>\d{6,})\.h5")
# A checkpoint, checkpoint_<step>.h5: in the output directory when the case puts it there.
CHECKPOINT_NAME = re.compile(r"checkpoint_\d+\.h5")


class FrameError(Exception):
    """A run or a frame that cannot be read as asked; the message names the file."""


class UnknownMaterialError(FrameError):
    """A material name the frame does not have; the message lists the names it has."""


class CellSizeUnknownError(FrameError):
    """The cell size was needed but the frame does not record it."""


def text(value):
    """An HDF5 string attribute (bytes or str) as str."""
    return value.decode() if isinstance(value, bytes) else str(value)


def text_list(value):
    """An HDF5 list of strings (bytes, str or an object array of either) as a list of str."""
    return [text(item) for item in np.atleast_1d(value)]


class Frame:
    """One output frame, `<case>_NNNNNN.h5`.

    Its attributes and metadata are read when it is opened; particle arrays are read from
    the file on each call (nothing is kept open or cached).

    Attributes:
        path: the file.
        time: simulated time, s (float).
        step: the time step number (int).
        number: the frame number NNNNNN (int).
        particle_count: N, the particles in the frame (int).
        particle_stride: s, the frame holds the particles whose id is a multiple of s (int).
        case_name: the case's name (str).
        material_names: the materials' names (list of str; index i is the value i of the
            particles' material index).
        material_kinds: their kinds ("water", "sand", ...), or None when the frame has no
            /run group.
        cell_size: the grid's cell size, m (float), or None when the frame does not record
            it (see require_cell_size).
        cells: the number of cells along x, y, z (tuple of 3 ints), or None.
        domain: (lower, upper) corners of the domain, m (two float64 arrays of shape (3,)),
            or None.
        metadata: the /run group's attributes (dict; empty when the frame has none).
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        with open_frame_file(self.path) as f:
            require_frame_layout(self.path, f)
            try:
                self._read_attributes(f)
                run = f.get("run")
                self.metadata = dict(run.attrs) if isinstance(run, h5py.Group) else {}
                self._read_materials(f)
                self._read_grid(f)
            except (OSError, KeyError, ValueError, TypeError) as failure:
                raise FrameError(f"{self.path}: cannot read it as a dunesim frame "
                                 f"({failure})") from None

    def __repr__(self):
        return (f"Frame({self.path!r}, time={self.time:g}, step={self.step}, "
                f"particles={self.particle_count})")

    def _read_attributes(self, f):
        attributes = f.attrs
        self.time = float(attributes["time"])
        self.step = int(attributes["step"])
        self.particle_count = int(attributes.get("particle_count",
                                                 f["particles/position"].shape[0]))
        self.particle_stride = int(attributes.get("particle_stride", 1))
        self.case_name = text(attributes.get("case_name", ""))
        match = FRAME_NAME.fullmatch(os.path.basename(self.path))
        default_number = int(match["number"]) if match else -1
        self.number = int(attributes.get("frame", default_number))

    def _read_materials(self, f):
        if "material_names" in self.metadata:
            self.material_names = text_list(self.metadata["material_names"])
        elif "material" in f["particles"] and "names" in f["particles/material"].attrs:
            self.material_names = text_list(f["particles/material"].attrs["names"])
        else:
            self.material_names = []
        kinds = self.metadata.get("material_kinds")
        self.material_kinds = text_list(kinds) if kinds is not None else None

    def _read_grid(self, f):
        """The cell size, cells and domain: from /run, else from the grid fields."""
        self.cell_size, self.cells, self.domain = None, None, None
        grid = f.get("grid")
        shapes = [grid[name].shape for name in grid if isinstance(grid[name], h5py.Dataset)
                  and len(grid[name].shape) == 3] if isinstance(grid, h5py.Group) else []
        if "cell_size" in self.metadata:
            self.cell_size = float(self.metadata["cell_size"])
        elif isinstance(grid, h5py.Group) and "cell_size" in grid.attrs:
            self.cell_size = float(grid.attrs["cell_size"])
        if "cells" in self.metadata:
            self.cells = tuple(int(n) for n in self.metadata["cells"])
        elif shapes:
            self.cells = tuple(int(n) for n in reversed(shapes[0]))  # stored z, y, x
        if "domain_lower" in self.metadata and "domain_upper" in self.metadata:
            self.domain = (np.asarray(self.metadata["domain_lower"], np.float64),
                           np.asarray(self.metadata["domain_upper"], np.float64))
        elif self.cells is not None and self.cell_size is not None:
            # The grid starts at the origin (the XDMF grid series says so too).
            self.domain = (np.zeros(3), np.asarray(self.cells, np.float64) * self.cell_size)

    def require_cell_size(self):
        """The cell size in m; CellSizeUnknownError when the frame does not record it."""
        if self.cell_size is None:
            raise CellSizeUnknownError(
                f"{self.path}: the frame does not record its cell size (no /run group, no "
                "grid fields): pass the cell size yourself (the case's [domain] cell_size)")
        return self.cell_size

    def material_index(self, name):
        """The material index (the value in the particles' material array) of `name`."""
        if name not in self.material_names:
            has = ", ".join(self.material_names) if self.material_names else "none recorded"
            raise UnknownMaterialError(
                f"{self.path}: no material named '{name}' (the frame has: {has})")
        return self.material_names.index(name)

    def material_indices(self, material=None):
        """Each particle's material index, uint8 array of shape (n,)."""
        return self._read("material", material)

    def positions(self, material=None):
        """Positions x, y, z in m: array of shape (n, 3), float64 (float32 in frames
        written with `precision = "single"`), of the particles of `material` (a name, a list
        of names, or None for every particle)."""
        return self._read("position", material)

    def velocities(self, material=None):
        """Velocities in m/s: array of shape (n, 3), float64 (float32 in single precision)."""
        return self._read("velocity", material)

    def speeds(self, material=None):
        """|velocity| in m/s: float64 array of shape (n,)."""
        return np.linalg.norm(self.velocities(material).astype(np.float64), axis=1)

    def saturation(self, material=None):
        """Saturation S, float32 array of shape (n,): the share of a sand particle's pores
        that hold water (0 dry, 1 soaked), 1 for water, 0 for sand without pores."""
        return self._read("saturation", material)

    def water_content(self, material=None):
        """Water content theta, array of shape (n,) (float64, float32 in single precision):
        the volume of pore water per volume of a sand particle (S times the porosity)."""
        return self._read("water_content", material)

    def ids(self, material=None):
        """Global particle ids, int64 array of shape (n,): stable in time, unique per frame."""
        return self._read("id", material)

    def owner_ranks(self, material=None):
        """The MPI rank that owned each particle when the frame was written, int32 array of
        shape (n,) (it shows the decomposition)."""
        return self._read("rank", material)

    def selection(self, material=None):
        """Boolean mask of shape (N,) over the frame's rows: the particles of `material` (a
        name or a list of names); None (no mask) when `material` is None."""
        if material is None:
            return None
        names = [material] if isinstance(material, str) else list(material)
        if not all(isinstance(name, str) for name in names):
            raise TypeError(f"material must be a name, a list of names or None, not {material!r}")
        wanted = [self.material_index(name) for name in names]
        return np.isin(self._dataset("material"), wanted)

    def _read(self, name, material):
        mask = self.selection(material)
        values = self._dataset(name)
        return values if mask is None else values[mask]

    def _dataset(self, name):
        with open_frame_file(self.path) as f:
            if name not in f["particles"]:
                raise FrameError(f"{self.path}: no dataset /particles/{name} (damaged, or "
                                 "written by a dunesim that did not write it)")
            try:
                values = f["particles"][name][...]
            except (OSError, ValueError) as failure:
                raise FrameError(f"{self.path}: cannot read /particles/{name} "
                                 f"({failure})") from None
        if values.shape[:1] != (self.particle_count,):
            raise FrameError(f"{self.path}: /particles/{name} has shape {values.shape}, "
                             f"expected {self.particle_count} rows (particle_count)")
        return values


class Run:
    """The frames of one run, in time order: iterate it, index it, or take `len`.

    Attributes:
        frames: the Frame objects, by increasing time.
        times: their times, s (float64 array of shape (len(frames),)).
        material_names, material_kinds, cell_size, cells, domain, metadata: the first
            frame's (see Frame; frames of one run agree), cell_size the first that records
            one.
    """

    def __init__(self, frames):
        if not frames:
            raise FrameError("no frames to read")
        self.frames = sorted(frames, key=lambda frame: (frame.time, frame.number))
        self.times = np.array([frame.time for frame in self.frames])
        first = self.frames[0]
        self.material_names, self.material_kinds = first.material_names, first.material_kinds
        self.metadata = first.metadata
        known = [frame for frame in self.frames if frame.cell_size is not None]
        grid = known[0] if known else first
        self.cell_size, self.cells, self.domain = grid.cell_size, grid.cells, grid.domain

    def __iter__(self):
        return iter(self.frames)

    def __len__(self):
        return len(self.frames)

    def __getitem__(self, index):
        return self.frames[index]

    def __repr__(self):
        return f"Run({len(self.frames)} frames, t = {self.times[0]:g} to {self.times[-1]:g} s)"

    def require_cell_size(self):
        """The cell size in m; CellSizeUnknownError when no frame records it."""
        if self.cell_size is None:
            return self.frames[0].require_cell_size()
        return self.cell_size

    def frame_at(self, time):
        """The last frame at or before `time` (s; within 1e-9 s), or the first frame if
        every frame is later."""
        index = int(np.searchsorted(self.times, time + 1e-9, side="right")) - 1
        return self.frames[max(index, 0)]

    def time_series(self, reduction):
        """(times, values): the frames' times in s (float64 array of shape (F,)) and
        `reduction(frame)` of every frame, stacked with numpy (shape (F,) for numbers,
        (F, ...) for arrays)."""
        return self.times.copy(), np.array([reduction(frame) for frame in self.frames])


def open_frame_file(path):
    """The frame as an open h5py.File; FrameError when it is missing or not HDF5."""
    if not os.path.exists(path):
        raise FrameError(f"{path}: no such file (expected a dunesim frame, CASE_NNNNNN.h5)")
    if os.path.isdir(path):
        raise FrameError(f"{path}: a directory, expected a dunesim frame (CASE_NNNNNN.h5)")
    try:
        return h5py.File(path, "r")
    except OSError as failure:
        raise FrameError(f"{path}: cannot open it as HDF5 (expected a dunesim frame; "
                         f"truncated or damaged?): {failure}") from None


def require_frame_layout(path, f):
    """FrameError unless the open file looks like a frame: the root's time and step, and
    /particles/position of shape (N, 3)."""
    if text(f.attrs.get("format", "")) == "dunesim checkpoint":
        raise FrameError(f"{path}: a dunesim checkpoint, not a frame (expected an output "
                         "frame, CASE_NNNNNN.h5)")
    missing = [f"root attribute '{name}'" for name in ("time", "step") if name not in f.attrs]
    particles = f.get("particles")
    if not isinstance(particles, h5py.Group) or "position" not in particles:
        missing.append("dataset /particles/position")
    if missing:
        raise FrameError(f"{path}: not a dunesim frame (expected {', '.join(missing)})")
    shape = particles["position"].shape
    if len(shape) != 2 or shape[1] != 3:
        raise FrameError(f"{path}: /particles/position has shape {shape}, expected (N, 3)")


def frames_of_series(path, dataset=None):
    """The .h5 files an XDMF series (.xmf) refers to, in its order, each once; with
    `dataset` (e.g. "/particles/position"), only those it reads that dataset from."""
    if not os.path.isfile(path):
        raise FrameError(f"{path}: no such file (expected a dunesim XDMF series, CASE.xmf)")
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError) as failure:
        raise FrameError(f"{path}: cannot read it as an XDMF series ({failure})") from None
    files = []
    for item in root.iter("DataItem"):
        name, separator, item_dataset = (item.text or "").strip().partition(":")
        wanted = dataset is None or item_dataset == dataset
        if separator and name.endswith(".h5") and wanted:
            file = os.path.join(os.path.dirname(path), name)
            if file not in files:
                files.append(file)
    if not files:
        what = "frames" if dataset is None else f"frames' {dataset}"
        raise FrameError(f"{path}: an XDMF file that refers to no .h5 {what}")
    return files


def frames_in_directory(path):
    """The frame files CASE_NNNNNN.h5 in a run's output directory (one case; checkpoints
    there are left out)."""
    names = sorted(n for n in os.listdir(path)
                   if FRAME_NAME.fullmatch(n) and not CHECKPOINT_NAME.fullmatch(n))
    cases = sorted({FRAME_NAME.fullmatch(n)["case"] for n in names})
    if not names:
        raise FrameError(f"{path}: no frames (expected files CASE_NNNNNN.h5)")
    if len(cases) > 1:
        raise FrameError(f"{path}: frames of several cases ({', '.join(cases)}): open one "
                         "case's series (CASE.xmf) instead")
    return [os.path.join(path, name) for name in names]


def open_run(source):
    """The Run of `source`: a run's output directory, its XDMF series (CASE.xmf, or the grid
    series CASE_grid.xmf), one frame file, or a list of frame files (any order)."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if os.path.isdir(path):
            files = frames_in_directory(path)
        elif path.lower().endswith(".xmf"):
            files = frames_of_series(path)
        else:
            files = [path]
    else:
        files = [os.fspath(item) for item in source]
        if not files:
            raise FrameError("no frame files given (expected a list of CASE_NNNNNN.h5)")
    return Run([Frame(file) for file in files])


def describe(run, material):
    """The lines the command prints: the run's metadata and a line per frame."""
    cell = "unknown" if run.cell_size is None else f"{run.cell_size:g} m"
    lines = [f"materials: {', '.join(run.material_names) or 'none recorded'}; cell size {cell}"]
    if run.domain is not None:
        lower, upper = run.domain
        lines.append(f"domain: {lower.tolist()} to {upper.tolist()} m")
    what = "particles" if material is None else f"'{material}' particles"
    for frame in run:
        count = frame.particle_count if material is None else len(frame.ids(material))
        lines.append(f"frame {frame.number}: t = {frame.time:g} s, step {frame.step}, "
                     f"{count} {what}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description="Lists the frames of a dunesim run.")
    parser.add_argument("run", nargs="+", help="output directory, CASE.xmf, or frame files")
    parser.add_argument("--material", help="count only this material's particles (by name)")
    args = parser.parse_args(argv)
    try:
        run = open_run(args.run[0] if len(args.run) == 1 else args.run)
        lines = describe(run, args.material)
    except FrameError as failure:
        print(f"dunesim_frames.py: error: {failure}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
