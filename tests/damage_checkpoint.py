#!/usr/bin/python3
"""Usage: damage_checkpoint.py SOURCE TARGET KIND

Copies the checkpoint SOURCE to TARGET and damages the copy in one way (KIND):
  rank-count     ranks/particle_count[0] grows by 1000: the table no longer adds up
  rank-offset    ranks/particle_offset[1] moves back by 7 rows: ranks 0 and 1 overlap
  flip-x         one byte in the middle of the last chunk of particles/x flipped on disk,
                 as a bad sector would: the chunk's Fletcher32 checksum no longer matches
  nan-x          particles/x[5] = NaN, written through HDF5 (the checksum is valid)
  far-x          particles/x[7] = 5 m, outside the domain (the checksum is valid)
  nan-pressure   grid/pressure[0, 0, 0] = NaN (the checksum is valid)
  case-text      the stored case text's first '=' becomes '?' (the checksum is valid)
  nan-affine     particles/affine[7, 3] = NaN (APIC's affine velocity, nine columns a row)
  affine-columns particles/affine rewritten with eight columns instead of nine

Needs h5py (Debian's python3-h5py, for /usr/bin/python3).
"""
import shutil
import sys

import h5py
import numpy as np


def flip_byte_in_last_chunk(path, dataset):
    with h5py.File(path, "r") as f:
        storage = f[dataset].id
        chunk = storage.get_chunk_info(storage.get_num_chunks() - 1)
    offset = chunk.byte_offset + chunk.size // 2  # data, not the checksum at the chunk's end
    with open(path, "r+b") as raw:
        raw.seek(offset)
        byte = raw.read(1)[0]
        raw.seek(offset)
        raw.write(bytes([byte ^ 0xFF]))


def damage_through_hdf5(path, kind):
    with h5py.File(path, "r+") as f:
        if kind == "rank-count":
            f["ranks/particle_count"][0] += 1000
        elif kind == "rank-offset":
            f["ranks/particle_offset"][1] -= 7
        elif kind == "nan-x":
            f["particles/x"][5] = np.nan
        elif kind == "far-x":
            f["particles/x"][7] = 5.0
        elif kind == "nan-pressure":
            f["grid/pressure"][0, 0, 0] = np.nan
        elif kind == "nan-affine":
            f["particles/affine"][7, 3] = np.nan
        elif kind == "affine-columns":
            eight = f["particles/affine"][:, :8]
            del f["particles/affine"]
            f.create_dataset("particles/affine", data=eight)
        elif kind == "case-text":
            text = f["case_text"][:]
            text[np.argmax(text == ord("="))] = ord("?")
            f["case_text"][:] = text
        else:
            sys.exit(f"unknown kind of damage: {kind}")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, target, kind = sys.argv[1:]
    shutil.copyfile(source, target)
    if kind == "flip-x":
        flip_byte_in_last_chunk(target, "particles/x")
    else:
        damage_through_hdf5(target, kind)


if __name__ == "__main__":
    main()
