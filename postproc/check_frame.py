#!/usr/bin/python3
"""Summarise dunesim frame files and check that their particle datasets agree.

Usage: check_frame.py FRAME.h5 [FRAME.h5 ...]

Prints the root attributes and every dataset (shape, type) of each file, the materials and
the cell size as postproc/dunesim_frames.py reads them, then checks the particle datasets
against each other. Exits with status 1 if any file is inconsistent.
Needs h5py and numpy (on Debian: /usr/bin/python3 with python3-h5py).
"""
import sys

import h5py
import numpy as np

import dunesim_frames

PARTICLE_DATASETS = ("position", "velocity", "id", "material")


def text(value):
    return value.decode() if isinstance(value, bytes) else value


def summarise(f):
    for name, value in sorted(f.attrs.items()):
        print(f"  @{name} = {text(value)}")

    def show(name, obj):
        if isinstance(obj, h5py.Dataset):
            print(f"  /{name}: shape {obj.shape}, {obj.dtype}")
            for attr, value in obj.attrs.items():
                listed = [text(v) for v in np.atleast_1d(value)]
                print(f"    @{attr} = {listed}")

    f.visititems(show)


def frame_metadata(path):
    """The material names as the reader finds them (from /run, else the material dataset's
    @names) and a line saying them and the cell size; the names are None and the line says
    why when the reader cannot open the file."""
    try:
        frame = dunesim_frames.Frame(path)
    except dunesim_frames.FrameError as failure:
        return None, f"  reader: {failure}"
    cell = "unknown" if frame.cell_size is None else f"{frame.cell_size:g} m"
    names = ", ".join(frame.material_names) or "none recorded"
    return frame.material_names, f"  materials: {names}; cell size {cell}"


def problems(f, names):
    """Every way in which the particle datasets disagree with each other or the attributes;
    `names` are the material names (None: unknown)."""
    found = []
    if "particles" not in f:
        return ["no /particles group"]
    group = f["particles"]
    missing = [name for name in PARTICLE_DATASETS if name not in group]
    if missing:
        return [f"missing /particles/{name}" for name in missing]

    count = f.attrs.get("particle_count")
    n = group["id"].shape[0]
    if count is None:
        found.append("no particle_count attribute")
    elif int(count) != n:
        found.append(f"particle_count is {int(count)} but /particles/id has {n} rows")
    shapes = []
    for name in ("position", "velocity"):
        if group[name].shape != (n, 3):
            shapes.append(f"/particles/{name} has shape {group[name].shape}, expected ({n}, 3)")
    # connectivity (0 .. N-1, for XDMF) is checked where the frame has it.
    for name in ("material", "connectivity"):
        if name in group and group[name].shape != (n,):
            shapes.append(f"/particles/{name} has shape {group[name].shape}, expected ({n},)")
    if shapes:
        return found + shapes  # the checks below compare rows and need matching shapes

    ids = group["id"][...]
    if np.unique(ids).size != n:
        found.append(f"{n - np.unique(ids).size} duplicate particle ids")
    if "connectivity" in group and not np.array_equal(group["connectivity"][...], np.arange(n)):
        found.append("/particles/connectivity is not 0 .. N-1")
    for name in ("position", "velocity"):
        bad = np.count_nonzero(~np.isfinite(group[name][...]).all(axis=1))
        if bad:
            found.append(f"{bad} particles with non-finite {name}")
    if names and n:
        highest = int(group["material"][...].max())
        if highest >= len(names):
            found.append(f"material index {highest} but only {len(names)} material names")
    return found


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    failed = False
    for path in paths:
        print(path)
        try:
            with h5py.File(path, "r") as f:
                summarise(f)
                names, line = frame_metadata(path)
                print(line)
                found = problems(f, names)
        except OSError as error:
            found = [f"cannot read: {error}"]
        for problem in found:
            print(f"  INCONSISTENT: {problem}")
        print("  ok" if not found else f"  {len(found)} problem(s)")
        failed = failed or bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
