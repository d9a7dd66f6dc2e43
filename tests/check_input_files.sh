#!/usr/bin/env bash
# Usage: check_input_files.sh DUNESIM_EXE
#
# Files that are not what dunesim expects: a case "file" that is a device, a pipe, a
# directory or far too large, a mesh path that names a directory, and `dunesim info` on a
# directory. Each must end quickly on 2 ranks (the first also on 1), every rank with the error status, and
# say what the path is.
set -u
. "$(dirname "$0")/bad_input_common.sh"
take_dunesim_argument "$@"
enter_temporary_directory

# /dev/zero never ends and a pipe with no writer would block the open.
expect_failure 2 "/dev/zero: cannot open the case file: it is a character device" \
  "$exe" check /dev/zero
mkfifo pipe.toml
expect_failure 2 "pipe.toml: cannot open the case file: it is a pipe" "$exe" check pipe.toml
mkdir folder.toml
expect_failure 2 "folder.toml: cannot open the case file: it is a directory" \
  "$exe" check folder.toml
truncate -s 17M huge.toml
expect_failure 2 "huge.toml: cannot open the case file: it is 17 MiB, more than the 16 MiB allowed" \
  "$exe" check huge.toml

mkdir mesh.obj
cat > mesh_dir.toml <<'EOF_CASE'
[domain]
size = [0.2, 0.2, 0.2]
cell_size = 0.02
[time]
end = 0.1
[[material]]
name = "water"
kind = "water"
[[source]]
material = "water"
shape = "mesh"
file = "mesh.obj"
EOF_CASE
expect_failure 2 "key 'source[0].file': mesh mesh.obj: cannot open: it is a directory" \
  "$exe" check mesh_dir.toml

expect_failure 3 "folder.toml: is a directory; give a frame or a checkpoint (.h5)" \
  "$exe" info folder.toml
echo "PASS"
