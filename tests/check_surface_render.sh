#!/usr/bin/env bash
# Usage: check_surface_render.sh DUNESIM_EXE DUNESIM_SURFACE_EXE PVBATCH RENDER_SCRIPT CASE
#
# postproc/render_frames.py (RENDER_SCRIPT) under the real pvbatch, without DISPLAY (the script
# starts its own virtual X server), on a frame from the real simulator (CASE,
# tests/cases/surface_sand_column.toml, on 2 ranks) and on that frame's surface from
# dunesim_surface (2 ranks):
# - every frame by speed and the last one's surface, with --movie: exit status 0, the PNGs of
#   the asked size and not blank, and an MP4 that ffprobe reads as H.264 of that size with
#   one video frame per picture;
# - a missing frame before a good one, by material: exit status 1, the missing file named on
#   stderr, and the good frame's PNG written all the same.
# "Not blank": decoded here with Python's zlib (no VTK, no PIL), the picture has more than a
# few colours, and the middle, where the domain is fitted, shows data (in colour, unlike the
# grey background, outline and text).
# Without pvbatch, xvfb-run, ffmpeg or ffprobe (setup.sh installs paraview, xvfb and ffmpeg)
# it exits 77 (skipped), or fails when CI=true: CI must run it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/timeouts.sh"

if [ "$#" -ne 5 ]; then
  echo "usage: $0 DUNESIM_EXE DUNESIM_SURFACE_EXE PVBATCH RENDER_SCRIPT CASE" >&2
  exit 2
fi
dunesim=$1
surface=$2
pvbatch=$3
render=$4
case_file=$5

for tool in "$pvbatch" xvfb-run ffmpeg ffprobe; do
  if ! command -v "$tool" > /dev/null; then
    if [ "${CI:-}" = true ]; then
      echo "FAIL: $tool not found; CI=true requires this test: install paraview, xvfb and ffmpeg" >&2
      exit 1
    fi
    echo "SKIP: $tool not found: install paraview, xvfb and ffmpeg to run this test"
    exit 77
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
limit=$(scaled 120)  # s, for each run
cd "$work"

timeout "$limit" mpiexec -n 2 --oversubscribe "$dunesim" run "$case_file" --output run --quiet
frames=(run/*.h5)
last=${frames[-1]}
stem=$(basename "$last" .h5)
# Into run/surf, so that the renderer finds the surface's frame (for its time) one folder up.
timeout "$limit" mpiexec -n 2 --oversubscribe "$surface" "$last" --out run/surf

# check_png PNG WIDTH HEIGHT: the size from the header, then "not blank" from the pixels.
check_png() {
  /usr/bin/python3 - "$@" <<'PY'
import struct
import sys
import zlib
from collections import Counter

path, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit(f"FAIL: {path} is not a PNG")
chunks, at = [], 8
while at < len(data):
    length, kind = struct.unpack(">I4s", data[at:at + 8])
    chunks.append((kind, data[at + 8:at + 8 + length]))
    at += 12 + length
w, h, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
print(f"{path}: {w} x {h}, bit depth {depth}, colour type {colour_type}")
if (w, h) != (width, height):
    sys.exit(f"FAIL: {path} is {w} x {h}, asked for {width} x {height}")
channels = {2: 3, 6: 4}.get(colour_type)
if depth != 8 or channels is None or interlace:
    sys.exit(f"FAIL: {path}: this check reads 8-bit RGB(A) PNGs without interlace only")

# The scanlines: one filter byte, then the row; undo the filters (PNG spec, section 9).
raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
stride = w * channels
rows, previous = [], bytearray(stride)
for y in range(h):
    start = y * (stride + 1)
    kind, row = raw[start], bytearray(raw[start + 1:start + 1 + stride])
    for i in range(stride):
        a = row[i - channels] if i >= channels else 0
        b = previous[i]
        c = previous[i - channels] if i >= channels else 0
        if kind == 1:
            row[i] = (row[i] + a) & 255
        elif kind == 2:
            row[i] = (row[i] + b) & 255
        elif kind == 3:
            row[i] = (row[i] + (a + b) // 2) & 255
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(row))
    previous = row

colours = Counter(row[i:i + 3] for row in rows for i in range(0, stride, channels))
# The middle half in both directions lies inside the fitted domain, away from the legend and
# the clock. Background, outline and text are grey; particles and surfaces are in colour.
middle = [rows[y][x * channels:x * channels + 3]
          for y in range(h // 4, 3 * h // 4) for x in range(w // 4, 3 * w // 4)]
drawn = sum(max(pixel) - min(pixel) > 24 for pixel in middle) / len(middle)
print(f"  {len(colours)} colours; {100 * drawn:.1f}% of the middle in colour")
if len(colours) <= 16:
    sys.exit(f"FAIL: {path} has only {len(colours)} colours: blank")
if drawn < 0.05:
    sys.exit(f"FAIL: {path}: nothing drawn in colour in the middle of the picture")
PY
}

# ---- every frame by speed and the last one's surface, with a movie ----
unset DISPLAY
status=0
timeout "$limit" "$pvbatch" "$render" "${frames[@]}" "run/surf/$stem.pvtp" --out pictures \
  --color speed --size 320x200 --movie pictures/series.mp4 > render.out 2> render.err || status=$?
cat render.out render.err
if [ "$status" -ne 0 ]; then
  echo "FAIL: render_frames.py exited with $status" >&2
  exit 1
fi
for frame in "${frames[@]}"; do check_png "pictures/$(basename "$frame" .h5).png" 320 200; done
check_png "pictures/${stem}_surface.png" 320 200
pictures=$(( ${#frames[@]} + 1 ))
# The stream as ffprobe decodes it: codec, size and the frames it counts by decoding them.
probe=$(ffprobe -v error -select_streams v:0 -count_frames \
  -show_entries stream=codec_name,width,height,nb_read_frames -of csv=p=0 pictures/series.mp4) ||
  { echo "FAIL: ffprobe cannot read pictures/series.mp4" >&2; exit 1; }
echo "pictures/series.mp4: $probe (codec, width, height, frames); $pictures pictures"
[ "$probe" = "h264,320,200,$pictures" ] || {
  echo "FAIL: the movie is $probe, expected h264,320,200,$pictures" >&2; exit 1; }

# ---- a missing frame before a good one, by material ----
status=0
timeout "$limit" "$pvbatch" "$render" missing.h5 "${frames[0]}" --out partial --color material \
  --size 240x160 > partial.out 2> partial.err || status=$?
cat partial.out partial.err
if [ "$status" -ne 1 ]; then
  echo "FAIL: with a missing input render_frames.py exited with $status, expected 1" >&2
  exit 1
fi
grep -q "missing.h5: no such file" partial.err || {
  echo "FAIL: stderr does not name missing.h5" >&2; exit 1; }
check_png "partial/$(basename "${frames[0]}" .h5).png" 240 160
echo PASS
