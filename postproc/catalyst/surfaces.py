# Catalyst pipeline script: the surfaces of the sand and of the water, each time it runs,
# into the run's extracts directory (<output>/catalyst):
#
#   surface_sand_NNNNNN.pvtp    the sand's surface (NNNNNN = step), one piece per rank
#   surface_water_NNNNNN.pvtp   the water's (_N.vtp pieces beside them)
#   surfaces.csv                one line per material and call: step, time, material,
#                               triangles, area (m^2), enclosed volume (m^3), summed over
#                               the ranks; a restarted run keeps the lines of earlier steps
#
# It contours the channel "material_fraction" (io/README.md): the share of each cell that a
# material's particles fill, spread from the particles to the cell centres with trilinear
# weights (dunesim seeds 2 x 2 x 2 particles a cell, each counts 1/8), so 1 inside a seeded
# block, 7/8 and 1/8 at the centres either side of its face. LEVEL = 1/2 lies on the face of
# such a block, and on a wall the block rests against. The surface is one cell coarse:
# drops of fewer than about 4 particles a cell do not show. Every rank contours its own
# cells plus the first plane of its upper neighbour's, with the neighbour's values, so the
# pieces meet without a crack; walls close the surfaces, which are then closed, and their
# enclosed volumes add up over the pieces.
#
# Asks only for that channel: no copy of the particles is made for it. Needs no display.
# Named in a case file's [catalyst] scripts; dunesim runs it every interval_steps steps.
import os

import numpy as np
from paraview import catalyst
from paraview.simple import *  # noqa: F401,F403 (the ParaView pipeline vocabulary)
from vtkmodules.numpy_interface import dataset_adapter
from vtkmodules.vtkCommonCore import vtkDoubleArray
from vtkmodules.vtkParallelCore import vtkCommunicator, vtkMultiProcessController

CHANNEL = "material_fraction"
MATERIALS = ("sand", "water")
LEVEL = 0.5
SURFACES_FILE = "surfaces.csv"

fractions = TrivialProducer(registrationName=CHANNEL)
surfaces = {}
for material in MATERIALS:
    surface = Contour(registrationName=f"{material}_surface", Input=fractions,
                      ContourBy=["POINTS", material], Isosurfaces=[LEVEL],
                      ComputeNormals=1, ComputeScalars=0)
    surfaces[material] = surface
    extract = CreateExtractor("VTP", surface, registrationName=f"surface_{material}_vtp")
    extract.Trigger = "TimeStep"
    extract.Writer.FileName = f"surface_{material}_{{timestep:06d}}.pvtp"

options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
# Relative to the run's extracts directory (<output>/catalyst).
options.ExtractsOutputDirectory = "."

controller = vtkMultiProcessController.GetGlobalController()
surfaces_file_started = False


def RequestDataDescription(description):
    """Only the material_fraction channel: without this Catalyst asks the adaptor for every
    channel, and it would copy all particles for nothing (as it does at the first call,
    which imports the script)."""
    wanted = description.GetInputDescriptionByName(CHANNEL)
    wanted.AllFieldsOn()
    wanted.GenerateMeshOn()


def area_and_volume(polydata):
    """The triangles' count, their area and, by the divergence theorem, the volume they
    enclose (for a closed surface; pieces of one add up)."""
    mesh = dataset_adapter.WrapDataObject(polydata)
    if mesh.GetNumberOfCells() == 0:
        return 0, 0.0, 0.0
    points = np.asarray(mesh.Points, dtype=float)
    triangles = np.asarray(mesh.Polygons).reshape(-1, 4)[:, 1:]  # contours are triangles
    a, b, c = (points[triangles[:, n]] for n in range(3))
    normals = np.cross(b - a, c - a)
    area = 0.5 * np.linalg.norm(normals, axis=1).sum()
    volume = np.einsum("ij,ij->i", a, normals).sum() / 6.0
    return len(triangles), area, volume


def start_surfaces_file(first_step):
    """Rewrites the file with the header and the rows of steps before `first_step`."""
    kept = []
    if os.path.exists(SURFACES_FILE):
        with open(SURFACES_FILE) as old:
            for row in old.readlines()[1:]:
                step = row.split(",", 1)[0]
                if step.isdigit() and int(step) < first_step:
                    kept.append(row)
    with open(SURFACES_FILE, "w") as out:
        out.write("step,time,material,triangles,area,volume\n")
        out.writelines(kept)


def catalyst_execute(info):
    global surfaces_file_started
    # A rank whose measurement fails still joins the reduction (with NaNs), else the others
    # would wait in it for ever; every rank then raises, and the run stops on all of them.
    local, failure = [], None
    try:
        for material in MATERIALS:
            surfaces[material].UpdatePipeline(info.time)
            local.extend(area_and_volume(
                surfaces[material].GetClientSideObject().GetOutputDataObject(0)))
    except Exception as error:  # noqa: BLE001 (re-raised below, after the reduction)
        local, failure = [float("nan")] * (3 * len(MATERIALS)), error
        # ParaView shows Python errors of rank 0 only: this rank's goes to stderr itself.
        os.write(2, f"surfaces.py, rank {controller.GetLocalProcessId()}: "
                    f"{type(error).__name__}: {error}\n".encode())
    values, total = vtkDoubleArray(), vtkDoubleArray()
    for value in local:
        values.InsertNextValue(float(value))
    controller.AllReduce(values, total, vtkCommunicator.SUM_OP)
    if failure is not None:
        raise failure
    if any(np.isnan(total.GetValue(n)) for n in range(total.GetNumberOfTuples())):
        raise RuntimeError("surfaces.py: measuring the surfaces failed on another rank")
    if controller.GetLocalProcessId() != 0:
        return
    if not surfaces_file_started:
        start_surfaces_file(info.timestep)
        surfaces_file_started = True
    with open(SURFACES_FILE, "a") as out:
        for n, material in enumerate(MATERIALS):
            triangles, area, volume = (total.GetValue(3 * n + m) for m in range(3))
            # The contour's orientation is the same everywhere: the sign is dropped.
            out.write(f"{info.timestep},{info.time:.9g},{material},{int(triangles)},"
                      f"{area:.9g},{abs(volume):.9g}\n")
