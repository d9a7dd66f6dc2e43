# Catalyst pipeline script: writes reduced data each time it runs, into the run's extracts
# directory (<output>/catalyst):
#
#   reduced_NNNNNN.pvtu   every 10th particle by id (the same particles at every step, so
#                         they can be followed), with all particle arrays; NNNNNN = step
#   statistics.csv        one line per run of the script: step, time, particles, mean and
#                         max speed, the largest x and z reached by any particle; a
#                         restarted run keeps the lines of the steps before it
#
# Needs no display. Named in a case file's [catalyst] scripts; dunesim runs it every
# interval_steps steps.
import os

import numpy as np
from paraview import catalyst
from paraview.simple import *  # noqa: F401,F403 (the ParaView pipeline vocabulary)
from vtkmodules.numpy_interface import dataset_adapter
from vtkmodules.vtkCommonCore import vtkDoubleArray
from vtkmodules.vtkParallelCore import vtkCommunicator, vtkMultiProcessController

SAMPLE_EVERY = 10
STATISTICS_FILE = "statistics.csv"

particles = TrivialProducer(registrationName="input")

id_remainder = PythonCalculator(Input=particles, Expression=f"id % {SAMPLE_EVERY}",
                                ArrayName="id_remainder")
sample = Threshold(Input=id_remainder, Scalars=["POINTS", "id_remainder"],
                   LowerThreshold=0, UpperThreshold=0)
sample = PassArrays(Input=sample, PointDataArrays=["velocity", "speed", "id", "material",
                                                   "water_content", "saturation"])

reduced = CreateExtractor("VTU", sample, registrationName="reduced_vtu")
reduced.Trigger = "TimeStep"
reduced.Writer.FileName = "reduced_{timestep:06d}.pvtu"

options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
# Relative to the run's extracts directory (<output>/catalyst).
options.ExtractsOutputDirectory = "."

controller = vtkMultiProcessController.GetGlobalController()


def RequestDataDescription(description):
    """Only the particles: without this Catalyst asks the adaptor for every channel (after the
    first call, which imports the script and gets them all anyway)."""
    for channel in ("input",):
        wanted = description.GetInputDescriptionByName(channel)
        wanted.AllFieldsOn()
        wanted.GenerateMeshOn()
statistics_started = False


def all_ranks(values, operation):
    """`values` reduced element-wise over the ranks (every rank gets the result)."""
    local = vtkDoubleArray()
    for v in values:
        local.InsertNextValue(float(v))
    total = vtkDoubleArray()
    controller.AllReduce(local, total, operation)
    return [total.GetValue(i) for i in range(total.GetNumberOfTuples())]


def start_statistics(first_step):
    """Rewrites the file with the header and the rows of steps before `first_step`: a
    restarted run continues its file, a new run drops the rows of an earlier one."""
    kept = []
    if os.path.exists(STATISTICS_FILE):
        with open(STATISTICS_FILE) as old:
            for row in old.readlines()[1:]:
                step = row.split(",", 1)[0]
                if step.isdigit() and int(step) < first_step:
                    kept.append(row)
    with open(STATISTICS_FILE, "w") as out:
        out.write("step,time,particles,mean_speed,max_speed,front_x,top_z\n")
        out.writelines(kept)


def catalyst_execute(info):
    global statistics_started
    # Each rank holds its own particles; the statistics are reduced over all ranks.
    local = dataset_adapter.WrapDataObject(
        particles.GetClientSideObject().GetOutputDataObject(0))
    n = local.GetNumberOfPoints()
    speed = np.asarray(local.PointData["speed"]) if n else np.zeros(0)
    xyz = np.asarray(local.Points) if n else np.zeros((0, 3))
    count, speed_sum = all_ranks([n, speed.sum()], vtkCommunicator.SUM_OP)
    lowest = -np.finfo(float).max
    max_speed, front_x, top_z = all_ranks(
        [speed.max(initial=lowest), xyz[:, 0].max(initial=lowest), xyz[:, 2].max(initial=lowest)],
        vtkCommunicator.MAX_OP)
    if controller.GetLocalProcessId() != 0:
        return
    if not statistics_started:
        start_statistics(info.timestep)
        statistics_started = True
    with open(STATISTICS_FILE, "a") as out:
        mean_speed = speed_sum / count if count else 0.0
        out.write(f"{info.timestep},{info.time:.9g},{int(count)},{mean_speed:.6g},"
                  f"{max_speed:.6g},{front_x:.6g},{top_z:.6g}\n")
