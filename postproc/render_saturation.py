"""Renders one frame of a wet-sand run: sand coloured by saturation (dry tan, moist brown,
muddy dark), free water in blue.

    xvfb-run -a pvbatch postproc/render_saturation.py OUT/CASE.xmf picture.png [--time T]

The last frame is drawn unless --time picks another (the nearest frame at or before T).
The sand and the water are the frame's materials of those kinds (by name, "sand" and "water",
in frames that do not record kinds); --sand and --water name others (or give their index).
A frame whose materials have no names is drawn with water 0 and sand 1.
"""
import argparse
import math
import os
import sys

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetColorTransferFunction, GetScalarBar,
                             OpenDataFile, Render, SaveScreenshot, Show, Threshold)

# The frame reader lies beside this script; pvbatch does not put the script's folder on the path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dunesim_frames  # noqa: E402


def threshold_material(source, material):
    selected = Threshold(Input=source)
    selected.Scalars = ["POINTS", "material"]
    selected.LowerThreshold = material
    selected.UpperThreshold = material
    return selected


def show_sand(sand, view):
    """Sand as points coloured by saturation, with its colour bar."""
    display = Show(sand, view)
    display.SetRepresentationType("Points")
    display.PointSize = 3
    ColorBy(display, ("POINTS", "saturation"))
    colours = GetColorTransferFunction("saturation")
    # dry (S = 0) tan, moist (S ~ 0.4) brown, soaked (S = 1) dark mud.
    colours.RGBPoints = [0.0, 0.93, 0.84, 0.62, 0.4, 0.62, 0.45, 0.25, 1.0, 0.25, 0.18, 0.12]
    colours.RescaleTransferFunction(0.0, 1.0)
    colours.AutomaticRescaleRangeMode = "Never"
    display.SetScalarBarVisibility(view, True)
    bar = GetScalarBar(colours, view)
    bar.Title = "sand saturation S"
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0.1, 0.1, 0.1]


def show_water(water, view):
    """Free water as blue points."""
    display = Show(water, view)
    display.SetRepresentationType("Points")
    display.PointSize = 3
    ColorBy(display, None)
    display.AmbientColor = display.DiffuseColor = [0.2, 0.45, 0.9]


def material_index(frame, given, kind, unnamed_index):
    """The material index to draw as `kind`: `given` (a name, or an index) if set, else the
    frame's material of that kind, or named so; unnamed_index when the frame names no
    materials; None when it names them and none fits."""
    if given is not None:
        return int(given) if given.isdigit() else frame.material_index(given)
    if frame.material_kinds and kind in frame.material_kinds:
        return frame.material_kinds.index(kind)
    if kind in frame.material_names:
        return frame.material_names.index(kind)
    return None if frame.material_names else unnamed_index


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("series", help="the run's .xmf file")
    parser.add_argument("picture", help="PNG to write")
    parser.add_argument("--time", type=float, help="simulated time of the frame (s)")
    parser.add_argument("--water", help="name (or index) of the water's material "
                        "(default: the frame's water)")
    parser.add_argument("--sand", help="name (or index) of the sand's material "
                        "(default: the frame's sand)")
    parser.add_argument("--elevation", type=float, default=11.0,
                        help="camera height above the horizon, degrees")
    args = parser.parse_args()

    try:
        run = dunesim_frames.open_run(args.series)
    except dunesim_frames.FrameError as failure:
        sys.exit(f"render_saturation.py: error: {failure}")
    frames = OpenDataFile(os.path.abspath(args.series))
    times = list(frames.TimestepValues) if frames.TimestepValues else [0.0]
    time = times[-1] if args.time is None else max(t for t in times if t <= args.time + 1e-9)
    try:
        frame = run.frame_at(time)
        water = material_index(frame, args.water, "water", 0)
        sand = material_index(frame, args.sand, "sand", 1)
    except dunesim_frames.FrameError as failure:
        sys.exit(f"render_saturation.py: error: {failure}")

    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [1200, 800]
    view.ViewTime = time
    view.UseColorPaletteForBackground = 0
    view.Background = [1, 1, 1]
    view.OrientationAxesVisibility = 0

    if sand is not None:
        show_sand(threshold_material(frames, sand), view)
    if water is not None:
        show_water(threshold_material(frames, water), view)

    view.ResetCamera()
    rise = math.radians(args.elevation)
    view.CameraPosition = [view.CameraFocalPoint[0],
                           view.CameraFocalPoint[1] - 3.0 * math.cos(rise),
                           view.CameraFocalPoint[2] + 3.0 * math.sin(rise)]
    view.CameraViewUp = [0, 0, 1]
    view.ResetCamera()
    Render(view)
    SaveScreenshot(args.picture, view, ImageResolution=[1200, 800])
    print(f"{args.picture}: {args.series} at t = {time:g} s")


if __name__ == "__main__":
    main()
