"""Renders one frame of a wet-sand run: sand coloured by saturation (dry tan, moist brown,
muddy dark), free water in blue.

    xvfb-run -a pvbatch postproc/render_saturation.py OUT/CASE.xmf picture.png [--time T]

The last frame is drawn unless --time picks another (the nearest frame at or before T).
"""
import argparse
import math
import os

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetColorTransferFunction, GetScalarBar,
                             OpenDataFile, Render, SaveScreenshot, Show, Threshold)


def threshold_material(source, material):
    selected = Threshold(Input=source)
    selected.Scalars = ["POINTS", "material"]
    selected.LowerThreshold = material
    selected.UpperThreshold = material
    return selected


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("series", help="the run's .xmf file")
    parser.add_argument("picture", help="PNG to write")
    parser.add_argument("--time", type=float, help="simulated time of the frame (s)")
    parser.add_argument("--water", type=int, default=0, help="material index of the water")
    parser.add_argument("--sand", type=int, default=1, help="material index of the sand")
    parser.add_argument("--elevation", type=float, default=11.0,
                        help="camera height above the horizon, degrees")
    args = parser.parse_args()

    frames = OpenDataFile(os.path.abspath(args.series))
    times = list(frames.TimestepValues) if frames.TimestepValues else [0.0]
    time = times[-1] if args.time is None else max(t for t in times if t <= args.time + 1e-9)

    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [1200, 800]
    view.ViewTime = time
    view.UseColorPaletteForBackground = 0
    view.Background = [1, 1, 1]
    view.OrientationAxesVisibility = 0

    sand = Show(threshold_material(frames, args.sand), view)
    sand.SetRepresentationType("Points")
    sand.PointSize = 3
    ColorBy(sand, ("POINTS", "saturation"))
    colours = GetColorTransferFunction("saturation")
    # dry (S = 0) tan, moist (S ~ 0.4) brown, soaked (S = 1) dark mud.
    colours.RGBPoints = [0.0, 0.93, 0.84, 0.62, 0.4, 0.62, 0.45, 0.25, 1.0, 0.25, 0.18, 0.12]
    colours.RescaleTransferFunction(0.0, 1.0)
    colours.AutomaticRescaleRangeMode = "Never"
    sand.SetScalarBarVisibility(view, True)
    bar = GetScalarBar(colours, view)
    bar.Title = "sand saturation S"
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0.1, 0.1, 0.1]

    water = Show(threshold_material(frames, args.water), view)
    water.SetRepresentationType("Points")
    water.PointSize = 3
    ColorBy(water, None)
    water.AmbientColor = water.DiffuseColor = [0.2, 0.45, 0.9]

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
