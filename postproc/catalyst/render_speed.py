# Catalyst pipeline script: renders the particles coloured by speed, inside the domain's
# outline, to <extracts>/speed_NNNNNN.png (NNNNNN = time step) each time it runs.
#
# Named in a case file's [catalyst] scripts; dunesim runs it every interval_steps steps.
# Rendering needs an X display on every rank (Debian's ParaView has no EGL or OSMesa); without
# one run under `xvfb-run -a -s "-noreset -screen 0 1280x1024x24" mpiexec -x DISPLAY ...`.
import os

from paraview import catalyst
from paraview.simple import *  # noqa: F401,F403 (the ParaView pipeline vocabulary)
from vtkmodules.vtkCommonCore import vtkDoubleArray
from vtkmodules.vtkParallelCore import vtkCommunicator, vtkMultiProcessController

if not os.environ.get("DISPLAY"):
    raise RuntimeError(
        "render_speed.py needs an X display on every rank: run under "
        "`xvfb-run -a -s \"-noreset -screen 0 1280x1024x24\"` and pass DISPLAY to the ranks "
        "(mpiexec -x DISPLAY ...)")

IMAGE_SIZE = [960, 540]

# The channels that dunesim's adaptor fills: particles ("input") and grid pressure ("grid").
particles = TrivialProducer(registrationName="input")
grid = TrivialProducer(registrationName="grid")

view = CreateView("RenderView")
view.ViewSize = IMAGE_SIZE
view.OrientationAxesVisibility = 0
view.Background = [1.0, 1.0, 1.0]
# Without this ParaView's default palette may override the white background.
view.UseColorPaletteForBackground = 0

particle_display = Show(particles, view)
particle_display.Representation = "Points"
particle_display.PointSize = 2.0
ColorBy(particle_display, ("POINTS", "speed"))
speed_colours = GetColorTransferFunction("speed")
speed_colours.ApplyPreset("Turbo", True)
# Rescaled in catalyst_execute: under Catalyst the automatic modes keep the first range.
speed_colours.AutomaticRescaleRangeMode = "Never"
particle_display.SetScalarBarVisibility(view, True)
speed_bar = GetScalarBar(speed_colours, view)
speed_bar.Title = "speed (m/s)"
speed_bar.ComponentTitle = ""
speed_bar.TitleColor = speed_bar.LabelColor = [0.0, 0.0, 0.0]

domain_outline = Show(Outline(Input=grid), view)
domain_outline.AmbientColor = domain_outline.DiffuseColor = [0.2, 0.2, 0.2]

clock = Text(registrationName="clock")
clock_display = Show(clock, view)
clock_display.WindowLocation = "Upper Left Corner"
clock_display.Color = [0.0, 0.0, 0.0]
clock_display.FontSize = 14

png = CreateExtractor("PNG", view, registrationName="speed_png")
png.Trigger = "TimeStep"
png.Writer.FileName = "speed_{timestep:06d}.png"
png.Writer.ImageResolution = IMAGE_SIZE

options = catalyst.Options()
options.GlobalTrigger = "TimeStep"
# Relative to the run's extracts directory (<output>/catalyst).
options.ExtractsOutputDirectory = "."

controller = vtkMultiProcessController.GetGlobalController()


def RequestDataDescription(description):
    """Only the particles and the grid: without this Catalyst asks the adaptor for every channel (after the
    first call, which imports the script and gets them all anyway)."""
    for channel in ("input", "grid"):
        wanted = description.GetInputDescriptionByName(channel)
        wanted.AllFieldsOn()
        wanted.GenerateMeshOn()
camera_placed = False
top_speed = 0.0


def local_piece(producer):
    """This rank's piece of a channel (data information in a script covers only that too)."""
    return producer.GetClientSideObject().GetOutputDataObject(0)


def reduce_over_ranks(values, operation):
    local, result = vtkDoubleArray(), vtkDoubleArray()
    for value in values:
        local.InsertNextValue(value)
    controller.AllReduce(local, result, operation)
    return [result.GetValue(i) for i in range(result.GetNumberOfTuples())]


def catalyst_execute(info):
    global camera_placed, top_speed
    clock.Text = f"t = {info.time:.3f} s   step {info.timestep}"
    # The range only grows, so a colour means the same speed in every image of a run.
    speed = local_piece(particles).GetPointData().GetArray("speed")
    local_top = speed.GetRange()[1] if speed and speed.GetNumberOfTuples() else 0.0
    top_speed = max(top_speed, reduce_over_ranks([local_top], vtkCommunicator.MAX_OP)[0])
    speed_colours.RescaleTransferFunction(0.0, max(top_speed, 1e-6))
    if not camera_placed:
        # Look at the whole domain obliquely from the front, and keep that camera so that
        # successive images compare.
        x0, x1, y0, y1, z0, z1 = local_piece(grid).GetBounds()
        x0, y0, z0 = reduce_over_ranks([x0, y0, z0], vtkCommunicator.MIN_OP)
        x1, y1, z1 = reduce_over_ranks([x1, y1, z1], vtkCommunicator.MAX_OP)
        centre = [(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2]
        view.CameraFocalPoint = centre
        view.CameraPosition = [centre[0] + 0.4 * (x1 - x0), centre[1] - 2.0 * (x1 - x0),
                               centre[2] + 0.8 * (z1 - z0)]
        view.CameraViewUp = [0.0, 0.0, 1.0]
        view.ResetCamera(False)
        view.GetActiveCamera().Dolly(1.3)  # the fit above leaves a wide margin
        camera_placed = True
