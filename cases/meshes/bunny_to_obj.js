#!/usr/bin/env node
// Converts the npm package "bunny" (the Stanford bunny as `positions` [[x, y, z], ...] and
// `cells` [[i, j, k], ...], 0-based) to a Wavefront OBJ file for dunesim's mesh shapes.
//
//   node bunny_to_obj.js PACKAGE_DIR OUT.obj
//
// The scan is y-up; dunesim is z-up, so the bunny is turned upright by (x, y, z) -> (x, -z, y)
// (a rotation), then scaled so that the largest side of its bounding box is 1 and moved so
// that the box's minimum corner is the origin.
'use strict';
const fs = require('fs');
const path = require('path');

if (process.argv.length !== 4) {
  console.error('usage: node bunny_to_obj.js PACKAGE_DIR OUT.obj');
  process.exit(2);
}
const packageDir = path.resolve(process.argv[2]);
const outFile = process.argv[3];
const bunny = require(packageDir);
const version = require(path.join(packageDir, 'package.json')).version;

const upright = bunny.positions.map(([x, y, z]) => [x, -z, y]);
const lo = [0, 1, 2].map((a) => Math.min(...upright.map((p) => p[a])));
const hi = [0, 1, 2].map((a) => Math.max(...upright.map((p) => p[a])));
const scale = 1 / Math.max(...[0, 1, 2].map((a) => hi[a] - lo[a]));
const vertices = upright.map((p) => p.map((value, a) => (value - lo[a]) * scale));
const size = [0, 1, 2].map((a) => (hi[a] - lo[a]) * scale);

for (const cell of bunny.cells) {
  if (cell.length !== 3 || cell.some((i) => !(i >= 0 && i < vertices.length))) {
    throw new Error(`bunny ${version}: unexpected cell ${JSON.stringify(cell)}`);
  }
}

const lines = [
  `# The Stanford bunny (Stanford 3D Scanning Repository), from the npm package bunny@${version}.`,
  '# Made by cases/meshes/fetch_bunny.sh; do not edit.',
  '# Turned z-up by (x, y, z) -> (x, -z, y), scaled so that the bounding box\'s largest side is 1',
  '# and moved so that its minimum corner is the origin: the box is',
  `# [0, ${size[0].toFixed(6)}] x [0, ${size[1].toFixed(6)}] x [0, ${size[2].toFixed(6)}].`,
  `# ${vertices.length} vertices, ${bunny.cells.length} triangles.`,
  ...vertices.map((p) => `v ${p.map((value) => value.toFixed(7)).join(' ')}`),
  ...bunny.cells.map(([i, j, k]) => `f ${i + 1} ${j + 1} ${k + 1}`),
];
// Written under a temporary name first, so an interrupted run leaves no partial OBJ behind
// that would later pass for an up-to-date one.
const partial = `${outFile}.partial`;
fs.writeFileSync(partial, lines.join('\n') + '\n');
fs.renameSync(partial, outFile);
console.log(`${outFile}: ${vertices.length} vertices, ${bunny.cells.length} triangles`);
