# shellcheck shell=bash
# Sourced by the test scripts: their outer timeouts, scaled to the build's speed.
#
#   scaled SECONDS    prints SECONDS times DUNESIM_TIMEOUT_SCALE (a whole number, 1 unless
#                     set; tests/CMakeLists.txt sets 4 for every test of a sanitizer build,
#                     whose programs run several times slower)
#
# The scripts wait on events (a file, a log line, a job's state), never on the clock alone: a
# timeout is only the outer bound of a wait that fails, so it is generous, and it grows with
# the build's slowdown instead of failing a correct but slower run.

if ! [[ ${DUNESIM_TIMEOUT_SCALE:-1} =~ ^[1-9][0-9]*$ ]]; then
  echo "FAIL: DUNESIM_TIMEOUT_SCALE must be a whole number of at least 1, not" \
    "'$DUNESIM_TIMEOUT_SCALE'" >&2
  exit 2
fi

scaled() {
  echo $(($1 * ${DUNESIM_TIMEOUT_SCALE:-1}))
}
