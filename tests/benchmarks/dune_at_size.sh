#!/usr/bin/env bash
# The dune at a chosen particle count (not a test: it prints), for the figures of large runs.
#
#   tests/benchmarks/dune_at_size.sh PARTICLES [RANKS] [BUILD_DIR] [WORK_DIR]
#
# PARTICLES (e.g. 1e6, 1e8) picks the cell size: cases/dune.toml holds 1.05e9 particles at
# 1 mm, so h = 1 mm (1.05e9 / PARTICLES)^(1/3), rounded so that 0.5 m is a whole number of
# cells. Then, on RANKS ranks (default 2):
#   1. dd's streaming write speed into WORK_DIR (the disk the run writes to);
#   2. `dunesim run` for 20 steps, with the frame of t = 0, a checkpoint after step 20, and
#      Catalyst running postproc/catalyst/extract_reduced.py after steps 10 and 20 on every
#      100th particle ([catalyst] particle_stride = 100; the script keeps a tenth of those),
#      offered the particle channel only (channels = ["input"]: all the script reads);
#   3. a restart from that checkpoint for 5 steps on RANKS ranks, and on 1 rank.
# Prints particle-steps per second, seconds per step of every stage (slowest rank) and the
# bandwidth its compulsory memory traffic achieved (src/driver/stage_traffic.hpp), the peak
# resident memory of all ranks together per particle (each rank's peak from /usr/bin/time,
# summed: everything, MPI and PETSc included), and the frame's and the checkpoint's write
# speed (file size over the write_frame and write_checkpoint stages) next to dd's, and
# Catalyst's share of the run's wall time (needs a dunesim built with Catalyst). A
# checkpoint is synced to disk before it counts as written, as dd's conv=fdatasync is; a
# frame is not, so below the page cache's size its speed is the copy into memory.
# WORK_DIR defaults to a new folder under /tmp and is kept (the checkpoint is large).
set -euo pipefail
if [ "$#" -lt 1 ]; then
  sed -n '2,23p' "$0" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
particles=$1
ranks=${2:-2}
build=$(cd "${3:-$root/build}" && pwd)
work=${4:-$(mktemp -d /tmp/dune_at_size.XXXXXX)}
mkdir -p "$work"
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

cells=$(/usr/bin/python3 -c "
h = 0.001 * (1.05e9 / float('$particles')) ** (1 / 3)
print(max(1, round(0.5 / h)))")
cell_size=$(/usr/bin/python3 -c "print(repr(0.5 / $cells))")
case_file=$work/dune.toml
sed -e "s#^cell_size = .*#cell_size = $cell_size#" \
    -e "s#^end = .*#end = 100.0#" \
    -e "s#^directory = .*#directory = \"$work/frames\"#" \
    -e "s#^interval = .*#interval = 100.0#" \
    "$root/cases/dune.toml" > "$case_file"
printf '\n[checkpoint]\ninterval_steps = 20\nkeep = 1\ndirectory = "%s/checkpoints"\n' \
  "$work" >> "$case_file"
printf '\n[catalyst]\nscripts = ["%s"]\ninterval_steps = 10\nparticle_stride = 100\nchannels = ["input"]\n' \
  "$root/postproc/catalyst/extract_reduced.py" >> "$case_file"
echo "dune_at_size: about $particles particles, cell_size $cell_size m ($cells cells across 0.5 m), $ranks ranks, work $work"

echo
echo "\$ dd if=/dev/zero of=$work/dd.bin bs=1M count=2048 conv=fdatasync"
dd if=/dev/zero of="$work/dd.bin" bs=1M count=2048 conv=fdatasync 2>&1 | tail -1
rm -f "$work/dd.bin"

# Runs dunesim under /usr/bin/time on every rank; each rank's peak RSS goes to LOG.rss.RANK
# (into the shared log, two ranks' lines could interleave and one be lost).
timed_run() {
  local n=$1 log=$2
  shift 2
  rm -f "$log".rss.*
  mpiexec -n "$n" --oversubscribe bash -c \
    '/usr/bin/time -f "peak_rss_kib %M" -o "$0.rss.$OMPI_COMM_WORLD_RANK" "${@}"' "$log" \
    "$build/dunesim" run "$case_file" --quiet "$@" > "$log" 2>&1 || { cat "$log" >&2; exit 1; }
}

# Prints the figures of one run from its timing.json, its log and the files it wrote.
report() {
  /usr/bin/python3 - "$@" <<'PY'
import glob, json, os, re, sys
label, timing, log, frames, checkpoints = sys.argv[1:6]
t = json.load(open(timing))
steps = t["steps"]  # this run's own
particles = sum(r["particles"] for r in t["per_rank"])
rss_files = glob.glob(log + ".rss.*")
if len(rss_files) != t["ranks"]:
    sys.exit(f"{log}: {len(rss_files)} ranks' peak memory files, expected {t['ranks']}")
peak = sum(int(k) * 1024 for f in rss_files
           for k in re.findall(r"peak_rss_kib (\d+)", open(f).read()))
print(f"{label}: {t['ranks']} ranks, {steps} steps, {particles} particles")
print(f"  particle_steps_per_second {t['particle_steps_per_second']:.4g}")
print(f"  peak_rss_all_ranks {peak / 1e9:.2f} GB = {peak / particles:.1f} bytes per particle")
stage = {s["name"]: s["max"] for s in t["stages"]}
bandwidth = {s["name"]: s["gb_per_s"] for s in t["stages"] if "gb_per_s" in s}
for name, seconds in stage.items():
    if seconds > 0:
        gb = f", {bandwidth[name]:5.1f} GB/s" if name in bandwidth else ""
        print(f"  stage {name:28s} {seconds / max(steps, 1):9.4f} s/step (slowest rank){gb}")
def speed(kind, files, seconds):
    files = [f for f in glob.glob(files) if os.path.isfile(f)]
    if not files or seconds <= 0:
        print(f"  {kind}: none written")
        return
    size = sum(os.path.getsize(f) for f in files)
    print(f"  {kind}: {size / 1e9:.2f} GB in {seconds:.2f} s = {size / seconds / 1e6:.0f} MB/s")
if stage.get("catalyst", 0) > 0:
    share = stage["catalyst"] / t["wall_seconds"]
    print(f"  catalyst: {stage['catalyst']:.2f} s in all, {100 * share:.1f}% of the wall time")
if frames != "-":
    speed("frame write", frames, stage.get("write_frame", 0))
if checkpoints != "-":
    speed("checkpoint write", checkpoints, stage.get("write_checkpoint", 0))
PY
}

echo
echo "\$ mpiexec -n $ranks dunesim run $case_file --max-steps 20"
timed_run "$ranks" "$work/run.log" --max-steps 20 --output "$work/frames"
report "run" "$work/frames/timing.json" "$work/run.log" "$work/frames/*.h5" \
  "$work/checkpoints/*.h5"

for n in "$ranks" 1; do
  echo
  echo "\$ mpiexec -n $n dunesim run $case_file --restart latest --max-steps 25"
  timed_run "$n" "$work/restart$n.log" --restart latest --max-steps 25 --no-frames \
    --output "$work/restart$n"
  grep -m1 "restart" "$work/restart$n.log" || true
  report "restart on $n" "$work/restart$n/timing.json" "$work/restart$n.log" - -
done
