"""Renders dunesim frames, or the surfaces dunesim_surface made from them, to PNG pictures.

    pvbatch postproc/render_frames.py INPUT [INPUT ...] --out DIR [--color speed|material]
        [--size 1280x720] [--movie FILE.mp4] [--fps 10] [--frames RUN_DIR]

INPUT is a frame (`CASE_NNNNNN.h5`), a run's series (`CASE.xmf`: every frame it lists, in
order), or a surface from dunesim_surface (`DIR/CASE_NNNNNN.pvtp`, or the welded `.vtp` of
--merge). Particles are coloured by speed |velocity| or by material (--color). Surfaces get
one colour per material: surfaces of the same frame given from several folders (one
dunesim_surface run per `--material`, `--out surf/sand`, `--out surf/water`) are drawn
together, each named by its folder. Every picture is `DIR/<frame>.png` (particles) or
`DIR/<frame>_surface.png`, drawn with one fixed camera fitted to the box that holds every
frame (the domain, when the frames record their grid), a colour legend and the time.

A surface's time and domain come from its frame `<frame>.h5`, looked for in --frames, else in
the surface's folder and the two above it (dunesim_surface's files do not record them).

--movie assembles the pictures, in the order rendered, with ffmpeg when it is on PATH;
without ffmpeg it says so and the PNGs are all there is. A missing or unreadable input is
named on stderr and skipped; the others are rendered, and the exit status is then 1.

Needs an X display (Debian's ParaView renders through X only); without DISPLAY the script
runs itself again under `xvfb-run`. Run it with plain (serial) pvbatch: the data is handed to
ParaView from this process.
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The frame reader lies beside this script; pvbatch does not put the script's folder on the path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dunesim_frames  # noqa: E402

# The virtual X server: -noreset keeps it alive between connections (see render_speed.py).
XVFB_SERVER_ARGS = "-noreset -screen 0 1280x1024x24"
# Colours of the usual materials by name; other names take the palette in turn.
NAMED_COLOURS = {"sand": [0.86, 0.72, 0.47], "water": [0.22, 0.47, 0.88]}
PALETTE = [[0.55, 0.35, 0.2], [0.3, 0.65, 0.35], [0.75, 0.3, 0.3], [0.5, 0.4, 0.7],
           [0.9, 0.6, 0.15], [0.4, 0.6, 0.65]]
# The part of the picture the domain is fitted into (fractions of width and height): the
# legend takes the right edge, the time the top left corner.
FIT_LEFT, FIT_RIGHT, FIT_BOTTOM, FIT_TOP = 0.03, 0.80, 0.05, 0.86


class InputError(Exception):
    """An input that cannot be rendered; the message names the file."""


class Scene:
    """What one picture shows: layers [(surface label, or None for particles, vtkPolyData)],
    with the frame's time, domain box, material names and cell size where it records them."""

    def __init__(self, layers, frame):
        self.layers = layers
        self.time, self.domain = frame.get("time"), frame.get("domain")
        self.names, self.cell_size = frame.get("names", []), frame.get("cell_size")


class Overview:
    """What every picture shares: the box that holds them all, the top speed, the legend's
    material names and the particles' cell size."""

    def __init__(self):
        self.bounds, self.top_speed, self.names, self.cell_size = None, 0.0, [], None


class Picture:
    """One PNG: a particle frame, or the surfaces (one or more layers) of one frame."""

    def __init__(self, kind, stem, paths):
        self.kind = kind  # "particles" or "surface"
        self.stem = stem
        self.paths = paths  # one frame, or one surface file per layer
        self.time = None
        self.png = None


def parse_size(text):
    match = re.fullmatch(r"(\d+)x(\d+)", text)
    if not match or not all(16 <= int(n) <= 8192 for n in match.groups()):
        raise argparse.ArgumentTypeError(
            f"expected WIDTHxHEIGHT in pixels (16 to 8192), not '{text}'")
    return [int(n) for n in match.groups()]


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", metavar="INPUT",
                        help="frames (.h5), series (.xmf) or surfaces (.pvtp, .vtp)")
    parser.add_argument("--out", required=True, help="folder for the PNGs (created if missing)")
    parser.add_argument("--color", "--colour", choices=["speed", "material"], default="speed",
                        help="particle colouring (surfaces: always one colour per material)")
    parser.add_argument("--size", type=parse_size, default=[1280, 720], metavar="WxH",
                        help="picture size in pixels (default 1280x720)")
    parser.add_argument("--movie", metavar="FILE.mp4", help="also a movie of the pictures (ffmpeg)")
    parser.add_argument("--fps", type=float, default=10.0, help="movie frames per second")
    parser.add_argument("--frames", metavar="RUN_DIR", help="where the surfaces' frames (.h5) are")
    parser.add_argument("--elevation", type=float, default=25.0,
                        help="camera height above the horizon, degrees")
    parser.add_argument("--azimuth", type=float, default=-35.0,
                        help="camera bearing from the -y side towards -x, degrees")
    return parser.parse_args()


def error(message):
    print(f"render_frames.py: error: {message}", file=sys.stderr, flush=True)


def rerun_under_xvfb():
    """Debian's ParaView has no EGL or OSMesa build: it needs an X server, so give it one."""
    if os.environ.get("DISPLAY"):
        return
    xvfb, pvbatch = shutil.which("xvfb-run"), shutil.which("pvbatch")
    if os.environ.get("DUNESIM_RENDER_UNDER_XVFB") or not xvfb or not pvbatch:
        sys.exit("render_frames.py: no X display (DISPLAY is unset) and no xvfb-run to start one: "
                 "install xvfb, or run under `xvfb-run -a pvbatch postproc/render_frames.py ...`")
    os.environ["DUNESIM_RENDER_UNDER_XVFB"] = "1"  # never loop
    command = [xvfb, "-a", "-s", XVFB_SERVER_ARGS, pvbatch, os.path.abspath(sys.argv[0])]
    sys.exit(subprocess.run(command + sys.argv[1:]).returncode)


# ---- inputs: which pictures to make ----

def frames_of_series(path):
    """The particle frames an XDMF series lists, in its order."""
    try:
        return dunesim_frames.frames_of_series(path, dataset="/particles/position")
    except dunesim_frames.FrameError as failure:
        hint = "; a grid series (_grid.xmf) is not drawn" if "refers to no" in str(failure) else ""
        raise InputError(f"{failure}{hint}")


def is_piece(path):
    """A rank's piece (CASE_NNNNNN_<rank>.vtp) beside its .pvtp index: drawn through the index."""
    match = re.fullmatch(r"(.+)_\d+\.vtp", os.path.basename(path))
    return bool(match) and os.path.exists(os.path.join(os.path.dirname(path), match[1] + ".pvtp"))


def plan_pictures(inputs):
    """Pictures in the order of the inputs; a frame's surfaces from several folders share one."""
    pictures, surfaces, failures = [], {}, []
    for path in inputs:
        extension = os.path.splitext(path)[1].lower()
        stem = os.path.splitext(os.path.basename(path))[0]
        if extension == ".xmf":
            try:
                for frame in frames_of_series(path):
                    frame_stem = os.path.splitext(os.path.basename(frame))[0]
                    pictures.append(Picture("particles", frame_stem, [frame]))
            except InputError as failure:
                failures.append(str(failure))
        elif extension == ".h5":
            pictures.append(Picture("particles", stem, [path]))
        elif extension in (".pvtp", ".vtp"):
            if extension == ".vtp" and is_piece(path):
                continue
            if stem not in surfaces:
                surfaces[stem] = Picture("surface", stem, [])
                pictures.append(surfaces[stem])
            # The merged .vtp and the .pvtp of one folder are the same surface: draw it once.
            folders = [os.path.dirname(os.path.abspath(p)) for p in surfaces[stem].paths]
            if os.path.dirname(os.path.abspath(path)) not in folders:
                surfaces[stem].paths.append(path)
        else:
            failures.append(f"{path}: not a frame (.h5), series (.xmf) or surface (.pvtp, .vtp)")
    return pictures, failures


# ---- reading: every layer a vtkPolyData with a "legend" (and for particles "speed") array ----

def read_frame(path, particles_too=True):
    """A frame's time, domain box (None when the frame does not record it), cell size and,
    with particles_too, its positions, speeds, material indices and material names."""
    try:
        frame = dunesim_frames.Frame(path)
        scene = {"time": frame.time, "domain": domain_box(frame), "cell_size": frame.cell_size}
        if particles_too:
            scene.update(read_particles(frame))
    except dunesim_frames.FrameError as failure:
        raise InputError(str(failure))
    return scene


def read_particles(frame):
    import numpy as np

    material = frame.material_indices()
    # Indices beyond the names (a frame without them) still get a legend entry.
    names = frame.material_names + [f"material {i}" for i in range(
        len(frame.material_names), int(material.max(initial=0)) + 1)]
    return {"position": frame.positions().astype(np.float64), "speed": frame.speeds(),
            "material": material, "names": names}


def domain_box(frame):
    """The frame's domain as [xmin, xmax, ymin, ymax, zmin, zmax], or None."""
    if frame.domain is None:
        return None
    lower, upper = frame.domain
    return [float(value) for pair in zip(lower, upper) for value in pair]


def read_surface(path):
    from vtkmodules.vtkIOXML import vtkXMLPPolyDataReader, vtkXMLPolyDataReader

    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file")
    reader = vtkXMLPPolyDataReader() if path.lower().endswith(".pvtp") else vtkXMLPolyDataReader()
    if not reader.CanReadFile(path):
        raise InputError(f"{path}: not a VTK XML polydata file")
    # The readers neither raise nor set an error code on a damaged file or a missing piece:
    # they report it as an error event, which this observer collects (and keeps off stderr).
    complaints = []
    reader.AddObserver("ErrorEvent", lambda _object, _event: complaints.append(True))
    reader.SetFileName(path)
    reader.Update()
    if complaints:
        raise InputError(f"{path}: cannot read the surface (damaged, or a piece missing?)")
    return reader.GetOutput()


def find_frame_of_surface(picture, frames_dir):
    folder = os.path.dirname(os.path.abspath(picture.paths[0]))
    places = [frames_dir] if frames_dir else [folder, os.path.dirname(folder),
                                              os.path.dirname(os.path.dirname(folder))]
    for place in places:
        candidate = os.path.join(place, picture.stem + ".h5")
        if os.path.isfile(candidate):
            return candidate
    return None


def layer_label(path):
    """A surface layer is named by its folder (dunesim_surface --material sand --out surf/sand)."""
    return os.path.basename(os.path.dirname(os.path.abspath(path))) or "surface"


def load(picture, frames_dir, failures):
    """The picture's Scene. A surface layer that cannot be read is added to failures and left
    out (and off picture.paths, so the second pass does not name it again); InputError when
    nothing is left."""
    if picture.kind == "particles":
        frame = read_frame(picture.paths[0])
        return Scene([(None, particles_polydata(frame))], frame)
    layers = []
    for path in list(picture.paths):
        try:
            layers.append((layer_label(path), read_surface(path)))
        except InputError as failure:
            failures.append(str(failure))
            picture.paths.remove(path)
    if not layers:
        raise InputError(f"{picture.stem}: no readable surface")
    frame, frame_path = {}, find_frame_of_surface(picture, frames_dir)
    if frame_path:
        try:
            frame = read_frame(frame_path, particles_too=False)
        except InputError as failure:
            print(f"render_frames.py: note: no time for {picture.stem}: {failure}", file=sys.stderr)
    return Scene(layers, frame)


def particles_polydata(frame):
    """Points with one vertex cell each (ParaView draws cells, not bare points)."""
    import numpy as np
    from vtkmodules.util.numpy_support import numpy_to_vtk, numpy_to_vtkIdTypeArray
    from vtkmodules.vtkCommonCore import vtkPoints
    from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData

    count = len(frame["position"])
    points = vtkPoints()
    points.SetData(numpy_to_vtk(frame["position"], deep=True))
    vertices = vtkCellArray()
    vertices.SetData(numpy_to_vtkIdTypeArray(np.arange(count + 1, dtype=np.int64), deep=True),
                     numpy_to_vtkIdTypeArray(np.arange(count, dtype=np.int64), deep=True))
    polydata = vtkPolyData()
    polydata.SetPoints(points)
    polydata.SetVerts(vertices)
    for name, values in (("speed", frame["speed"]), ("material", frame["material"])):
        array = numpy_to_vtk(np.ascontiguousarray(values, dtype=np.float64 if name == "speed"
                                                  else np.int32), deep=True)
        array.SetName(name)
        polydata.GetPointData().AddArray(array)
    return polydata


# ---- the first pass: the box, the speed range and the legend over all pictures ----

def survey(pictures, frames_dir):
    """Loads every picture once (the data is read again to render it, so that only one
    picture is ever in memory); returns the readable pictures, the failures naming the others,
    and the Overview of the readable ones."""
    overview, readable, failures = Overview(), [], []
    for picture in pictures:
        try:
            scene = load(picture, frames_dir, failures)
        except InputError as failure:
            if picture.kind == "particles":  # a surface's layers are named in failures already
                failures.append(str(failure))
            continue
        readable.append(picture)
        picture.time = scene.time
        add_to_overview(overview, scene)
    return readable, failures, overview


def add_to_overview(overview, scene):
    for box in [scene.domain] + [layer.GetBounds() for _, layer in scene.layers
                                 if layer.GetNumberOfPoints()]:
        overview.bounds = union(overview.bounds, box)
    for _, layer in scene.layers:
        speed = layer.GetPointData().GetArray("speed")
        if speed is not None and speed.GetNumberOfTuples():
            overview.top_speed = max(overview.top_speed, speed.GetRange()[1])
    for name in scene.names + [label for label, _ in scene.layers if label]:
        if name not in overview.names:
            overview.names.append(name)
    if scene.cell_size and scene.layers[0][0] is None:
        overview.cell_size = min(overview.cell_size or scene.cell_size, scene.cell_size)


def union(box, other):
    if other is None:
        return box
    if box is None:
        return list(other)
    return [min(box[i], other[i]) if i % 2 == 0 else max(box[i], other[i]) for i in range(6)]


def time_decimals(pictures):
    """One number of decimals for every picture's time, so that a movie's clock does not jump:
    the fewest (2 to 6) that write every time as it is (output intervals are round numbers)."""
    times = [p.time for p in pictures if p.time is not None]
    for decimals in range(2, 7):
        if all(abs(round(t, decimals) - t) <= 1e-9 * max(1.0, abs(t)) for t in times):
            return decimals
    return 6


# ---- rendering ----

def fit_camera(view, bounds, size, elevation, azimuth):
    """A parallel projection from (elevation, azimuth) that fits the box's corners into the FIT_
    part of the picture, whatever the frame: every picture shares this camera."""
    rise, turn = math.radians(elevation), math.radians(azimuth)
    towards_camera = [math.sin(turn) * math.cos(rise), -math.cos(turn) * math.cos(rise),
                      math.sin(rise)]
    forward = [-c for c in towards_camera]
    right = normalised(cross(forward, [0.0, 0.0, 1.0]))
    up = cross(right, forward)
    centre = [(bounds[2 * i] + bounds[2 * i + 1]) / 2 for i in range(3)]
    corners = [[bounds[i], bounds[2 + j], bounds[4 + k]]
               for i in (0, 1) for j in (0, 1) for k in (0, 1)]
    across = [dot(sub(c, centre), right) for c in corners]
    upward = [dot(sub(c, centre), up) for c in corners]
    aspect = size[0] / size[1]
    half_height = max((max(upward) - min(upward)) / (2 * (FIT_TOP - FIT_BOTTOM)),
                      (max(across) - min(across)) / (2 * (FIT_RIGHT - FIT_LEFT) * aspect), 1e-9)
    # Move the focal point so that the box's middle lands in the middle of the FIT_ region.
    shift_across = ((max(across) + min(across)) / 2
                    + (0.5 - (FIT_LEFT + FIT_RIGHT) / 2) * 2 * half_height * aspect)
    shift_up = ((max(upward) + min(upward)) / 2
                + (0.5 - (FIT_BOTTOM + FIT_TOP) / 2) * 2 * half_height)
    focal = [centre[i] + shift_across * right[i] + shift_up * up[i] for i in range(3)]
    distance = 4 * math.dist(bounds[0::2], bounds[1::2]) + 1.0
    view.CameraParallelProjection = 1
    view.CameraFocalPoint = focal
    view.CameraPosition = [focal[i] + distance * towards_camera[i] for i in range(3)]
    view.CameraViewUp = up
    view.CameraParallelScale = half_height
    return half_height


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def sub(a, b):
    return [x - y for x, y in zip(a, b)]


def normalised(a):
    length = math.sqrt(dot(a, a)) or 1.0
    return [x / length for x in a]


def material_colours(names):
    colours, spare = [], iter(PALETTE * (1 + len(names) // len(PALETTE)))
    for name in names:
        colours.append(NAMED_COLOURS.get(name.lower()) or next(spare))
    return colours


class Renderer:
    """One view, legend, outline and clock for every picture; only the data changes."""

    def __init__(self, args, overview):
        from paraview import simple

        self.simple, self.args, self.names = simple, args, overview.names
        # Text and legend shrink with the picture (fixed point sizes would cover a small one),
        # though less than it (else small pictures get unreadable text): 16 points at the
        # default 1280 x 720, 11 at 640 x 360, 8 at 320 x 180.
        self.font = max(8, round(16 * math.sqrt(min(args.size[0] / 1280, args.size[1] / 720))))
        self.view = simple.CreateView("RenderView")
        self.view.ViewSize = args.size
        self.view.OrientationAxesVisibility = 0
        self.view.UseColorPaletteForBackground = 0  # else the palette may override white
        self.view.Background = [1.0, 1.0, 1.0]
        self.top_speed = overview.top_speed if overview.top_speed > 0 else 1.0
        self.speed = self.speed_legend()
        self.material = self.material_legend()
        self.show_outline(overview.bounds)
        self.clock = simple.Text()
        clock = simple.Show(self.clock, self.view)
        clock.WindowLocation = "Upper Left Corner"
        clock.Color = [0.0, 0.0, 0.0]
        clock.FontSize = self.font
        half_height = fit_camera(self.view, overview.bounds, args.size, args.elevation,
                                 args.azimuth)
        self.point_size = 3.0
        if overview.cell_size:
            # dunesim seeds 2 x 2 x 2 particles a cell: a dot as wide as the particle spacing
            # draws a packed region as a solid, at any zoom.
            pixels_per_metre = args.size[1] / (2 * half_height)
            self.point_size = min(30.0, max(2.0, overview.cell_size / 2 * pixels_per_metre))

    def speed_legend(self):
        colours = self.simple.GetColorTransferFunction("speed")
        colours.ApplyPreset("Turbo", True)
        colours.AutomaticRescaleRangeMode = "Never"
        self.style_legend(colours, "speed (m/s)")
        return colours

    def material_legend(self):
        colours = self.simple.GetColorTransferFunction("legend")
        colours.InterpretValuesAsCategories = 1
        colours.AnnotationsInitialized = 1  # the categories are set per picture (list_categories)
        self.style_legend(colours, "material")
        return colours

    def style_legend(self, colours, title):
        bar = self.simple.GetScalarBar(colours, self.view)
        bar.Title = title
        bar.ComponentTitle = ""
        bar.TitleColor = bar.LabelColor = [0.1, 0.1, 0.1]
        bar.TitleFontSize = bar.LabelFontSize = self.font
        bar.ScalarBarThickness = self.font
        bar.WindowLocation = "Lower Right Corner"
        bar.ScalarBarLength = 0.6
        bar.RangeLabelFormat = "%-#.3g"
        bar.Visibility = 0  # shown by the pictures that use it

    def show_outline(self, bounds):
        box = self.simple.Box(XLength=bounds[1] - bounds[0], YLength=bounds[3] - bounds[2],
                              ZLength=bounds[5] - bounds[4],
                              Center=[(bounds[2 * i] + bounds[2 * i + 1]) / 2 for i in range(3)])
        outline = self.simple.Show(box, self.view)
        outline.SetRepresentationType("Outline")
        outline.AmbientColor = outline.DiffuseColor = [0.35, 0.35, 0.35]

    def render(self, picture, scene, decimals):
        shown, categories = [], set()
        for label, polydata in scene.layers:
            # Particles carry their frame's material indices; a surface layer is one material.
            categories |= add_legend_array(polydata, [self.names.index(name) for name in
                                                      (scene.names if label is None else [label])])
            producer = self.simple.TrivialProducer()
            producer.GetClientSideObject().SetOutput(polydata)
            display = self.simple.Show(producer, self.view)
            if label is None:
                self.style_particles(display)
            else:
                self.style_surface(display)
            shown.append(producer)
        self.list_categories(sorted(categories))
        when = "time unknown" if picture.time is None else f"t = {picture.time:.{decimals}f} s"
        self.clock.Text = f"{when}\n{picture.stem}"
        self.simple.Render(self.view)
        self.simple.SaveScreenshot(picture.png, self.view, ImageResolution=self.args.size)
        for producer in shown:
            self.simple.Hide(producer, self.view)
            self.simple.Delete(producer)
        for colours in (self.speed, self.material):
            self.simple.GetScalarBar(colours, self.view).Visibility = 0

    def style_particles(self, display):
        display.SetRepresentationType("Points")
        display.PointSize = self.point_size
        display.RenderPointsAsSpheres = 1
        if self.args.color == "speed":
            self.simple.ColorBy(display, ("POINTS", "speed"))
            # One range for the whole series (0 to the top speed of any frame), so pictures
            # compare; set after ColorBy, which fits the range to this frame's data.
            self.speed.RescaleTransferFunction(0.0, self.top_speed)
        else:
            self.simple.ColorBy(display, ("POINTS", "legend"))
        display.SetScalarBarVisibility(self.view, True)

    def style_surface(self, display):
        display.SetRepresentationType("Surface")
        display.Specular = 0.2
        self.simple.ColorBy(display, ("POINTS", "legend"))
        display.SetScalarBarVisibility(self.view, True)

    def list_categories(self, categories):
        """The material legend lists what this picture shows; a name keeps its colour throughout."""
        colours = material_colours(self.names)
        self.material.Annotations = [text for i in categories for text in (str(i), self.names[i])]
        self.material.IndexedColors = [c for i in categories for c in colours[i]]


def add_legend_array(polydata, legend_index):
    """Adds the point array "legend": legend_index[material] of each point (material 0 where
    there is no "material" array); returns the legend indices present."""
    import numpy as np
    from vtkmodules.util.numpy_support import numpy_to_vtk, vtk_to_numpy

    count = polydata.GetNumberOfPoints()
    material = polydata.GetPointData().GetArray("material")
    local = vtk_to_numpy(material) if material is not None else np.zeros(count, np.int32)
    legend = np.asarray(legend_index, np.int32)[local]
    array = numpy_to_vtk(np.ascontiguousarray(legend), deep=True)
    array.SetName("legend")
    polydata.GetPointData().AddArray(array)
    return {int(i) for i in np.unique(legend)}


def render_all(pictures, args, overview):
    """Renders the surveyed pictures; returns the failures (a file may change in between)."""
    from paraview import simple

    try:
        return render_each(Renderer(args, overview), pictures, args)
    finally:
        # pvbatch crashes (SIGSEGV) in sys.exit while the session still holds views and
        # sources; ending the session first lets the exit status through.
        simple.Disconnect()


def render_each(renderer, pictures, args):
    decimals = time_decimals(pictures)
    failures = []
    for picture in pictures:
        try:
            scene = load(picture, args.frames, failures)
        except InputError as failure:
            if picture.kind == "particles":  # a surface's layers are in failures already
                failures.append(str(failure))
            continue
        suffix = "_surface" if picture.kind == "surface" else ""
        picture.png = os.path.join(args.out, f"{picture.stem}{suffix}.png")
        renderer.render(picture, scene, decimals)
        print(f"{picture.png}: {', '.join(picture.paths)}"
              + ("" if picture.time is None else f" at t = {picture.time:g} s"), flush=True)
    return failures


# ---- the movie ----

def make_movie(pngs, movie, fps):
    """ffmpeg's concat list, so the pictures' names need not be numbered 1, 2, 3..."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        print(f"render_frames.py: ffmpeg is not on PATH: no movie {movie}; the {len(pngs)} "
              f"pictures are written (install ffmpeg to assemble them)", flush=True)
        return True
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as listing:
        for png in pngs:
            listing.write(f"file {concat_quoted(png)}\nduration {1.0 / fps:.6f}\n")
        # The concat demuxer ignores the last entry's duration unless the entry is repeated.
        listing.write(f"file {concat_quoted(pngs[-1])}\n")
    command = [ffmpeg, "-y", "-loglevel", "error", "-f", "concat", "-safe", "0",
               "-i", listing.name, "-r", f"{fps:g}", "-c:v", "libx264", "-pix_fmt", "yuv420p",
               # one frame per picture: the repeated last entry would otherwise add one
               "-frames:v", str(len(pngs)),
               # yuv420p needs even sizes
               "-vf", "scale=trunc(iw/2)*2:trunc(ih/2)*2", movie]
    try:
        status = subprocess.run(command).returncode
    finally:
        os.unlink(listing.name)
    if status != 0:
        error(f"{movie}: ffmpeg failed with status {status}")
        return False
    print(f"{movie}: {len(pngs)} pictures at {fps:g} per second", flush=True)
    return True


def concat_quoted(path):
    """A path in single quotes for ffmpeg's concat list (a quote inside written '\\'')."""
    return "'" + os.path.abspath(path).replace("'", "'\\''") + "'"


def main():
    args = parse_arguments()
    rerun_under_xvfb()
    pictures, failures = plan_pictures(args.inputs)
    readable, unreadable, overview = survey(pictures, args.frames)
    failures += unreadable
    for failure in failures:
        error(f"{failure}; skipped")
    if not readable:
        error("nothing to render")
        return 1
    # Only empty frames and surfaces (no particles, no grid): any box will do.
    overview.bounds = overview.bounds or [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    os.makedirs(args.out, exist_ok=True)
    late = render_all(readable, args, overview)
    for failure in late:
        error(f"{failure}; skipped")
    pngs = [p.png for p in readable if p.png]
    movie_ok = make_movie(pngs, args.movie, args.fps) if args.movie and pngs else True
    if failures or late:
        error(f"{len(failures) + len(late)} input(s) could not be rendered (named above)")
    return 0 if not (failures or late) and movie_ok else 1


if __name__ == "__main__":
    sys.exit(main())
