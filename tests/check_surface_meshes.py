#!/usr/bin/python3
"""Checks dunesim_surface's output of one frame made on several rank counts.

Usage: check_surface_meshes.py STEM PARTICLES CELL_SIZE S_LO S_HI DIR [DIR ...]

Each DIR holds STEM.vtp (the merged surface, --merge), STEM.ply and STEM.pvtp with its pieces,
written by one run of dunesim_surface (on 1, 2, 4 ranks, ...). Requires of every DIR: the
merged surface is closed (every edge in exactly two triangles) and encloses, by the
divergence theorem, within 5% of the particles' volume PARTICLES * (CELL_SIZE / 2)^3; its
normals point the way its triangles face; the .ply holds the same mesh and the .pvtp loads
with one piece per rank and the same triangles; the vertices carry the particles' saturation,
within the particles' range [S_LO, S_HI] and reaching near both ends. Across the DIRs: the
same vertices (sorted) within 1e-9 of the surface's size, with the same saturation. Prints the measured numbers; exits 1 on any failure.
Needs VTK's Python modules (Debian: /usr/bin/python3 with python3-paraview) and numpy.
"""
import os
import sys

import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonCore import vtkCommand, vtkObject
from vtkmodules.vtkIOPLY import vtkPLYReader
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader, vtkXMLPPolyDataReader

failures = []


def check(condition, message):
    print(("ok:   " if condition else "FAIL: ") + message)
    if not condition:
        failures.append(message)


def read(reader_class, path):
    """The reader's output; a VTK error or warning while reading counts as a failure."""
    errors = []
    reader = reader_class()
    for event in (vtkCommand.ErrorEvent, vtkCommand.WarningEvent):
        reader.AddObserver(event, lambda obj, ev: errors.append(ev))
    reader.SetFileName(path)
    reader.Update()
    check(os.path.exists(path) and not errors, f"{path} reads without errors")
    return reader.GetOutput()


def triangles(mesh):
    cells = vtk_to_numpy(mesh.GetPolys().GetConnectivityArray()).astype(np.int64)
    offsets = vtk_to_numpy(mesh.GetPolys().GetOffsetsArray())
    if len(offsets) > 1 and not np.all(np.diff(offsets) == 3):
        return None
    return cells.reshape(-1, 3)


def open_edges(tris):
    edges = np.sort(np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]]), axis=1)
    _, counts = np.unique(edges, axis=0, return_counts=True)
    return int(np.sum(counts != 2))


def enclosed_volume(points, tris):
    a, b, c = points[tris[:, 0]], points[tris[:, 1]], points[tris[:, 2]]
    return float(np.sum(np.einsum("ij,ij->i", a, np.cross(b, c))) / 6)


def normals_agree(mesh, points, tris):
    """Share of vertices whose normal points the way their triangles face."""
    face = np.cross(points[tris[:, 1]] - points[tris[:, 0]], points[tris[:, 2]] - points[tris[:, 0]])
    summed = np.zeros_like(points)
    for corner in range(3):
        np.add.at(summed, tris[:, corner], face)
    normals = vtk_to_numpy(mesh.GetPointData().GetNormals())
    return float(np.mean(np.einsum("ij,ij->i", normals, summed) > 0))


def vertex_saturation(mesh, directory, bounds):
    """The "saturation" point array, which must lie in [lo, hi] = bounds (the particles' own
    range) and reach near both ends (within 0.05): the wet column's two layers show."""
    array = mesh.GetPointData().GetArray("saturation")
    check(array is not None, f"{directory}: the surface carries the particles' saturation")
    if array is None:
        return np.zeros(mesh.GetNumberOfPoints())
    values = vtk_to_numpy(array).astype(np.float64)
    lo, hi = bounds
    check(values.min() >= lo - 1e-12 and values.max() <= hi + 1e-12
          and values.min() <= lo + 0.05 and values.max() >= hi - 0.05,
          f"{directory}: vertex saturation in [{values.min():.4f}, {values.max():.4f}], "
          f"the particles' range [{lo}, {hi}]")
    return values


def check_merged(directory, stem, particle_volume, saturation_bounds):
    mesh = read(vtkXMLPolyDataReader, os.path.join(directory, stem + ".vtp"))
    points = vtk_to_numpy(mesh.GetPoints().GetData()).astype(np.float64)
    saturation = vertex_saturation(mesh, directory, saturation_bounds)
    points = np.column_stack([points, saturation])  # compared across ranks with the vertices
    tris = triangles(mesh)
    check(tris is not None and len(tris) > 0, f"{directory}: merged surface of triangles")
    if tris is None or len(tris) == 0:
        return points, 0
    check(open_edges(tris) == 0, f"{directory}: closed ({open_edges(tris)} open edges)")
    ratio = enclosed_volume(points[:, :3], tris) / particle_volume
    check(abs(ratio - 1) <= 0.05, f"{directory}: enclosed / particle volume = {ratio:.4f}")
    agree = normals_agree(mesh, points[:, :3], tris)
    check(agree > 0.99, f"{directory}: {agree:.2%} of the normals face as their triangles")
    ply = read(vtkPLYReader, os.path.join(directory, stem + ".ply"))
    check(ply.GetNumberOfPoints() == len(points) and ply.GetNumberOfPolys() == len(tris)
          and ply.GetPointData().GetNormals() is not None,
          f"{directory}: the .ply has the same {len(points)} vertices (with normals) and triangles")
    return points, len(tris)


def check_pieces(directory, stem, triangle_count):
    pieces = [f for f in os.listdir(directory) if f.startswith(stem + "_") and f.endswith(".vtp")]
    reader = vtkXMLPPolyDataReader()
    reader.SetFileName(os.path.join(directory, stem + ".pvtp"))
    reader.UpdateInformation()
    check(reader.GetNumberOfPieces() == len(pieces),
          f"{directory}: the .pvtp names its {len(pieces)} pieces")
    whole = read(vtkXMLPPolyDataReader, os.path.join(directory, stem + ".pvtp"))
    check(whole.GetNumberOfPolys() == triangle_count
          and whole.GetPointData().GetNormals() is not None,
          f"{directory}: the .pvtp loads, {whole.GetNumberOfPolys()} triangles with normals")


def main():
    if len(sys.argv) < 7:
        sys.exit(__doc__)
    stem, particles, cell_size = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    saturation_bounds = (float(sys.argv[4]), float(sys.argv[5]))
    directories = sys.argv[6:]
    vtkObject.GlobalWarningDisplayOff()
    particle_volume = particles * (cell_size / 2) ** 3
    sorted_vertices = []
    for directory in directories:
        points, triangle_count = check_merged(directory, stem, particle_volume,
                                              saturation_bounds)
        check_pieces(directory, stem, triangle_count)
        sorted_vertices.append(points[np.lexsort(points.T[::-1])])  # (x, y, z, saturation)
    reference = sorted_vertices[0]
    size = float(np.max(reference.max(axis=0) - reference.min(axis=0)))
    for directory, vertices in zip(directories[1:], sorted_vertices[1:]):
        same_count = len(vertices) == len(reference)
        difference = float(np.max(np.abs(vertices - reference))) / size if same_count else np.inf
        check(same_count and difference <= 1e-9,
              f"{directory}: {len(vertices)} vertices against {len(reference)} in "
              f"{directories[0]}, largest difference {difference:.3g} of the surface's size")
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
