"""Open a dunesim XDMF series with ParaView's own reader and check what ParaView sees.

Usage (with ParaView's Python, not the system one):
  pvpython check_xdmf_in_paraview.py OUTPUT/CASE.xmf [--points N] [--arrays a,b,...]
                                     [--times t0,t1,...] [--time-tolerance T]

Prints, for every time step the reader offers, the time, the number of points and cells,
and the point arrays with their component counts. Then checks the expectations given:
  --points N      every time step has exactly N points (the particles)
  --arrays a,b    every time step has at least these point arrays
  --times t0,...  the reader's time values are exactly these, within --time-tolerance
Every time step must also have as many cells as points (one vertex per particle): without
them filters and renderers see no geometry. Exits 1 on any mismatch.
"""
import argparse
import os
import sys

from paraview.simple import OpenDataFile


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("series", help="the .xmf file a run wrote")
    parser.add_argument("--points", type=int, help="expected points in every time step")
    parser.add_argument("--arrays", default="", help="comma-separated expected point arrays")
    parser.add_argument("--times", default="", help="comma-separated expected time values")
    parser.add_argument("--time-tolerance", type=float, default=1e-9,
                        help="absolute tolerance for --times (default 1e-9)")
    return parser.parse_args()


def split_list(text):
    return [item for item in text.split(",") if item]


def main():
    args = parse_arguments()
    # A bare relative name makes the Xdmf3 reader look for a mangled HDF5 path and abort.
    path = os.path.abspath(args.series)
    if not os.path.isfile(path):
        print(f"FAIL: no such file: {path}")
        return 1
    reader = OpenDataFile(path)
    if reader is None:
        print(f"FAIL: ParaView has no reader for {path}")
        return 1
    print(f"{path}: read by {reader.GetXMLName()}")

    failures = []
    times = list(reader.TimestepValues) if reader.TimestepValues else [0.0]
    expected_arrays = split_list(args.arrays)
    for t in times:
        # simple.UpdatePipeline(time=0.0) would drop the time (0.0 is false): ask the proxy.
        reader.UpdatePipeline(t)
        info = reader.GetDataInformation()
        points, cells = info.GetNumberOfPoints(), info.GetNumberOfCells()
        point_info = reader.PointData
        arrays = {name: point_info[name].GetNumberOfComponents() for name in point_info.keys()}
        listed = ", ".join(f"{name}({components})" for name, components in sorted(arrays.items()))
        print(f"  t = {t:.9g}: {points} points, {cells} cells, point arrays: {listed}")
        if args.points is not None and points != args.points:
            failures.append(f"t = {t:.9g}: {points} points, expected {args.points}")
        if cells != points:
            failures.append(f"t = {t:.9g}: {cells} cells for {points} points")
        missing = [name for name in expected_arrays if name not in arrays]
        if missing:
            failures.append(f"t = {t:.9g}: missing point arrays {', '.join(missing)}")

    if args.times:
        expected_times = [float(v) for v in split_list(args.times)]
        matches = len(times) == len(expected_times) and all(
            abs(a - b) <= args.time_tolerance for a, b in zip(times, expected_times))
        if not matches:
            failures.append(f"time values {[f'{t:.9g}' for t in times]}, "
                            f"expected {[f'{t:.9g}' for t in expected_times]}")

    for failure in failures:
        print(f"FAIL: {failure}")
    if not failures:
        print(f"PASS: {len(times)} time steps")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
