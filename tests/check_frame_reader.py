#!/usr/bin/python3
"""Checks postproc/dunesim_frames.py against the raw datasets of a real run's frames.

Usage: check_frame_reader.py POSTPROC_DIR RUN_DIR

RUN_DIR holds the frames of tests/check_frame_reader.sh's case: "wet", materials water (0)
and sand (1, S = 0.3 at the start), 0.02 m cells in a 0.16 x 0.08 x 0.12 m box, grid fields
written, frames at 0, 0.05 and 0.1 s. Prints every failed check and exits 1 if there is one.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

FAILURES = []
MATERIALS = ["water", "sand"]
CELL_SIZE = 0.02
DOMAIN_UPPER = [0.16, 0.08, 0.12]
FRAMES = 3
# The /run group newer frames carry, with names other than the frame's @names and a cell size
# other than its grid's, so that the checks tell which one the reader took.
RUN_GROUP = {"dunesim_version": "0.0-test", "source_revision": "abc123", "ranks": 2,
             "case_file": "wet.toml", "case_text": "[case]\nname = \"wet\"\n",
             "cell_size": 0.04, "cells": [4, 2, 3], "domain_lower": [-0.08, 0.0, 0.0],
             "domain_upper": [0.08, 0.08, 0.12], "gravity": [0.0, 0.0, -9.81],
             "material_names": ["liquid", "grains"], "material_kinds": ["water", "sand"]}


def check(condition, message):
    if not condition:
        FAILURES.append(message)
    return condition


def raw(path):
    """A frame's datasets as h5py gives them, the material names from @names."""
    with h5py.File(path, "r") as f:
        group = f["particles"]
        data = {name: group[name][...] for name in
                ("position", "velocity", "saturation", "water_content", "id", "material",
                 "rank")}
        data["names"] = [n.decode() if isinstance(n, bytes) else n
                         for n in group["material"].attrs["names"]]
        data["time"] = float(f.attrs["time"])
    return data


def check_opening(frames, run_dir):
    """The directory, the series and a shuffled list of files give the same frames."""
    by_directory = frames.open_run(run_dir)
    by_series = frames.open_run(os.path.join(run_dir, "wet.xmf"))
    paths = sorted(os.path.join(run_dir, n) for n in os.listdir(run_dir) if n.endswith(".h5"))
    by_list = frames.open_run(paths[::-1])
    names = [[os.path.basename(f.path) for f in run] for run in (by_directory, by_series,
                                                                 by_list)]
    check(names[0] == names[1] == names[2],
          f"the directory, the series and the list give different frames: {names}")
    check(len(by_directory) == FRAMES, f"{len(by_directory)} frames, expected {FRAMES}")
    check(np.all(np.diff(by_directory.times) > 0), f"times not increasing: {by_directory.times}")
    steps = [f.step for f in by_directory]
    check(steps == sorted(steps) and steps[0] == 0, f"steps {steps}")
    check(names[0] == sorted(names[0]), f"frames not in frame order: {names[0]}")
    return by_directory


def check_frame_against_raw(frame):
    """Counts, and each accessor by material name against the raw rows of that index."""
    data = raw(frame.path)
    where = os.path.basename(frame.path)
    check(frame.material_names == data["names"] == MATERIALS,
          f"{where}: materials {frame.material_names}, raw {data['names']}")
    check(frame.particle_count == len(data["id"]),
          f"{where}: particle_count {frame.particle_count}, {len(data['id'])} rows")
    check(frame.time == data["time"], f"{where}: time {frame.time}, raw {data['time']}")
    accessors = {"position": frame.positions, "velocity": frame.velocities,
                 "saturation": frame.saturation, "water_content": frame.water_content,
                 "id": frame.ids, "rank": frame.owner_ranks}
    for index, name in enumerate(MATERIALS):
        rows = data["material"] == index
        check(rows.any(), f"{where}: no {name} particles in the raw data")
        for dataset, read in accessors.items():
            check(np.array_equal(read(name), data[dataset][rows]),
                  f"{where}: {read.__name__}('{name}') differs from /particles/{dataset} "
                  f"where material == {index}")
    for dataset, read in accessors.items():
        check(np.array_equal(read(), data[dataset]),
              f"{where}: {read.__name__}() differs from /particles/{dataset}")
    both = frame.ids(MATERIALS)
    check(np.array_equal(np.sort(both), np.sort(data["id"])),
          f"{where}: ids of every material by a list of names differ from all ids")


def check_first_frame_physics(run):
    """At t = 0 the sand is at S = 0.3 and the water at S = 1: names pick the right rows."""
    first = run[0]
    check(np.allclose(first.saturation("sand"), 0.3, atol=1e-6),
          f"saturation('sand') at t = 0 is not 0.3: {np.unique(first.saturation('sand'))}")
    check(np.all(first.saturation("water") == 1.0),
          f"saturation('water') at t = 0 is not 1: {np.unique(first.saturation('water'))}")
    sand_x = first.positions("sand")[:, 0]
    check(sand_x.max() < 0.08, f"sand at x up to {sand_x.max()} m, its block ends at 0.08 m")


def check_written_run_group(run):
    """What dunesim itself records in /run: the case's names, kinds, grid and its writer."""
    check(run.material_names == MATERIALS, f"written /run: names {run.material_names}")
    check(run.material_kinds == ["water", "sand"], f"written /run: kinds {run.material_kinds}")
    check(run.cell_size == CELL_SIZE and run.cells == (8, 4, 6),
          f"written /run: cell size {run.cell_size}, cells {run.cells}")
    lower, upper = run.domain
    check(np.allclose(lower, 0) and np.allclose(upper, DOMAIN_UPPER),
          f"written /run: domain {lower} to {upper}, expected 0 to {DOMAIN_UPPER}")
    meta = run.metadata
    check(int(meta.get("ranks", 0)) == 2 and meta.get("dunesim_version") and
          'name = "wet"' in str(meta.get("case_text", "")),
          f"written /run: ranks, version or case text missing from {sorted(meta)}")


def without_run_group(source, work, name):
    """A copy of a frame as frames were before they recorded /run."""
    path = os.path.join(work, name)
    shutil.copy(source, path)
    with h5py.File(path, "a") as f:
        if "run" in f:
            del f["run"]
    return path


def check_fallback_metadata(run):
    """Frames without /run: names from @names, cell size and domain from the grid."""
    check(run.cell_size == CELL_SIZE, f"cell size {run.cell_size}, expected {CELL_SIZE}")
    check(run.require_cell_size() == CELL_SIZE, "require_cell_size() with grid fields")
    check(run.cells == (8, 4, 6), f"cells {run.cells}, expected (8, 4, 6)")
    lower, upper = run.domain
    check(np.allclose(lower, 0) and np.allclose(upper, DOMAIN_UPPER),
          f"domain {lower} to {upper}, expected 0 to {DOMAIN_UPPER}")
    check(run.material_kinds is None and run.metadata == {},
          f"kinds {run.material_kinds}, metadata {run.metadata} without a /run group")


def check_time_series(run):
    times, counts = run.time_series(lambda frame: len(frame.ids("sand")))
    check(np.array_equal(times, run.times), f"time_series times {times}, run {run.times}")
    expected = [np.count_nonzero(raw(f.path)["material"] == 1) for f in run]
    check(counts.tolist() == expected, f"sand counts {counts.tolist()}, raw {expected}")
    _, tops = run.time_series(lambda frame: frame.positions("water").max(axis=0))
    check(tops.shape == (FRAMES, 3), f"a time series of 3-vectors has shape {tops.shape}")
    check(run.frame_at(0.06) is run[1] and run.frame_at(1.0) is run[-1],
          "frame_at does not pick the last frame at or before the time")


def add_run_group(path):
    with h5py.File(path, "a") as f:
        if "run" in f:
            del f["run"]
        group = f.create_group("run")
        for name, value in RUN_GROUP.items():
            if isinstance(value, list) and isinstance(value[0], str):
                group.attrs.create(name, value, dtype=h5py.string_dtype())
            elif isinstance(value, list):
                group.attrs[name] = np.array(value, np.int64 if name == "cells" else np.float64)
            else:
                group.attrs[name] = value


def check_run_group(frames, source, work):
    """A copy with /run: its names, kinds, cell size and domain win over the fallbacks."""
    path = os.path.join(work, "with_run_000002.h5")
    shutil.copy(source, path)
    add_run_group(path)
    frame = frames.Frame(path)
    data = raw(path)
    check(frame.material_names == ["liquid", "grains"],
          f"/run: material names {frame.material_names}")
    check(frame.material_kinds == ["water", "sand"], f"/run: kinds {frame.material_kinds}")
    check(np.array_equal(frame.positions("grains"), data["position"][data["material"] == 1]),
          "/run: positions('grains') are not the rows of material 1")
    check(frame.cell_size == 0.04 and frame.cells == (4, 2, 3),
          f"/run: cell size {frame.cell_size}, cells {frame.cells}")
    lower, upper = frame.domain
    check(lower.tolist() == RUN_GROUP["domain_lower"], f"/run: domain lower {lower}")
    check(upper.tolist() == RUN_GROUP["domain_upper"], f"/run: domain upper {upper}")
    check(frame.metadata.get("dunesim_version") == "0.0-test",
          f"/run: metadata {frame.metadata}")
    expect_error(frames.UnknownMaterialError, lambda: frame.positions("water"),
                 [path, "no material named 'water'", "liquid, grains"])
    return path


def check_without_grid(frames, source, work):
    """No /run and no grid fields: no cell size, and asking for it says to pass it; with
    /particles/connectivity gone as well, the particles still read."""
    path = without_run_group(source, work, "no_grid_000002.h5")
    with h5py.File(path, "a") as f:
        del f["grid"]
        del f["particles/connectivity"]
    frame = frames.Frame(path)
    check(frame.cell_size is None and frame.domain is None and frame.cells is None,
          f"without grid: cell size {frame.cell_size}, domain {frame.domain}")
    expect_error(frames.CellSizeUnknownError, frame.require_cell_size,
                 [path, "does not record its cell size", "pass the cell size"])
    check(len(frame.positions("sand")) == np.count_nonzero(raw(path)["material"] == 1),
          "without connectivity: positions('sand') wrong")
    add_run_group(path)
    check(frames.Frame(path).require_cell_size() == 0.04, "without grid, with /run: cell size")


def expect_error(kind, action, phrases):
    """action() must raise `kind` whose message holds every phrase."""
    try:
        action()
    except kind as error:
        missing = [p for p in phrases if p not in str(error)]
        check(not missing, f"{kind.__name__} '{error}' lacks {missing}")
        return
    except Exception as error:  # noqa: BLE001: any other exception is the failure reported
        check(False, f"expected {kind.__name__} with {phrases}, got {type(error).__name__}: "
                     f"{error}")
        return
    check(False, f"expected {kind.__name__} with {phrases}, nothing was raised")


def check_errors(frames, run, work):
    """Missing files, files that are not frames, unknown names: FrameError naming them."""
    missing = os.path.join(work, "missing_000001.h5")
    expect_error(frames.FrameError, lambda: frames.open_run(missing), [missing, "no such file"])
    text_file = os.path.join(work, "text_000001.h5")
    with open(text_file, "w") as f:
        f.write("not HDF5\n")
    expect_error(frames.FrameError, lambda: frames.Frame(text_file),
                 [text_file, "cannot open it as HDF5", "expected a dunesim frame"])
    other = os.path.join(work, "other_000001.h5")
    with h5py.File(other, "w") as f:
        f["data"] = np.zeros(3)
    expect_error(frames.FrameError, lambda: frames.Frame(other),
                 [other, "not a dunesim frame", "root attribute 'time'",
                  "/particles/position"])
    empty = os.path.join(work, "empty")
    os.makedirs(empty)
    expect_error(frames.FrameError, lambda: frames.open_run(empty), [empty, "no frames"])
    # A checkpoint beside the frames (a case's [checkpoint] directory may be the output's).
    with h5py.File(os.path.join(empty, "checkpoint_000000020.h5"), "w") as f:
        f.attrs["format"] = "dunesim checkpoint"
    expect_error(frames.FrameError, lambda: frames.open_run(empty), [empty, "no frames"])
    checkpoint = os.path.join(empty, "checkpoint_000000020.h5")
    expect_error(frames.FrameError, lambda: frames.Frame(checkpoint),
                 [checkpoint, "a dunesim checkpoint, not a frame"])
    expect_error(frames.UnknownMaterialError, lambda: run[0].positions("mud"),
                 [run[0].path, "no material named 'mud'", "water, sand"])
    return missing


def check_command(postproc, run_dir, missing):
    """The command line: the frames listed, and errors on stderr with status 1."""
    script = os.path.join(postproc, "dunesim_frames.py")

    def command(*args):
        return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)

    listed = command(run_dir, "--material", "sand")
    check(listed.returncode == 0 and listed.stdout.count("'sand' particles") == FRAMES,
          f"dunesim_frames.py RUN --material sand: status {listed.returncode}, "
          f"{listed.stdout!r} {listed.stderr!r}")
    for args, phrase in (([missing], f"{missing}: no such file"),
                         ([run_dir, "--material", "mud"], "no material named 'mud'")):
        failed = command(*args)
        check(failed.returncode == 1 and phrase in failed.stderr,
              f"dunesim_frames.py {' '.join(args)}: status {failed.returncode}, "
              f"stderr {failed.stderr!r}, expected 1 and '{phrase}'")


def main(postproc, run_dir):
    sys.path.insert(0, postproc)
    import dunesim_frames as frames

    run = check_opening(frames, run_dir)
    for frame in run:
        check_frame_against_raw(frame)
    check_first_frame_physics(run)
    check_written_run_group(run)
    check_time_series(run)
    with tempfile.TemporaryDirectory() as work:
        old_layout = [without_run_group(f.path, work, f"old_{n:06d}.h5") for n, f in
                      enumerate(run)]
        check_fallback_metadata(frames.open_run(old_layout))
        check_run_group(frames, run[-1].path, work)
        check_without_grid(frames, run[-1].path, work)
        missing = check_errors(frames, run, work)
        check_command(postproc, run_dir, missing)
    for failure in FAILURES:
        print(f"FAIL: {failure}")
    if not FAILURES:
        counts = ", ".join(f"{len(run[-1].ids(n))} {n}" for n in MATERIALS)
        print(f"PASS: {len(run)} frames, t = {run.times.tolist()} s; last frame {counts}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    sys.exit(main(*sys.argv[1:]))
