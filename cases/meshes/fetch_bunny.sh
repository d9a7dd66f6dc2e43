#!/usr/bin/env bash
# Makes cases/meshes/bunny.obj, the Stanford bunny used by cases/sand_bunny.toml and
# cases/water_bunny.toml, from the npm package "bunny" (pinned version and checksum, so every
# machine gets the same triangles). Needs node and npm. Does nothing when bunny.obj is newer
# than this script and the converter.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=$here/bunny.obj
package=bunny@1.0.1
package_sha1=86383da45ab7a99571a5a572b7be0e3564815f9e

if [ -f "$out" ] && [ "$out" -nt "$here/fetch_bunny.sh" ] \
  && [ "$out" -nt "$here/bunny_to_obj.js" ]; then
  echo "fetch_bunny: $out is up to date"
  exit 0
fi

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "fetch_bunny: error: '$tool' is not installed (Debian: apt-get install nodejs npm)" >&2
    exit 1
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "fetch_bunny: downloading $package"
if ! (cd "$tmp" && npm pack --loglevel=warn "$package" >/dev/null); then
  echo "fetch_bunny: error: 'npm pack $package' failed (is the npm registry reachable?)" >&2
  exit 1
fi
tarball=("$tmp"/bunny-*.tgz)
if ! echo "$package_sha1  ${tarball[0]}" | sha1sum --check --status; then
  echo "fetch_bunny: error: ${tarball[0]##*/} does not have the expected SHA-1 $package_sha1" >&2
  exit 1
fi
tar -xzf "${tarball[0]}" -C "$tmp"
node "$here/bunny_to_obj.js" "$tmp/package" "$out"
