// Surface meshes on disk: VTK XML poly data (.vtp) and its parallel index (.pvtp) for
// ParaView, binary PLY with vertex normals for renderers. Each writer throws
// std::runtime_error naming the file when it cannot write it: something other than a regular
// file at the path (a directory) is refused before writing, and a writer that reports no
// error (VTK's Write() returns success on a file it could not open) must have left a
// non-empty regular file there.
#pragma once
#include <vtkPolyData.h>

#include <string>
#include <vector>

namespace dunesim {

// Throws naming `path` if something that is not a regular file is there (a directory).
void refuse_non_regular(const std::string& path, const char* what);
// Throws naming `path` unless a regular, non-empty file is there now.
void require_written(const std::string& path, const char* what);

// The mesh's points, point normals ("Normals") and triangles, appended binary data.
void write_vtp(vtkPolyData* mesh, const std::string& path);

// Binary little-endian PLY: per vertex x, y, z and nx, ny, nz (float), per face its three
// vertex indices. Without normals in the mesh the normals are written as zeros.
void write_ply(vtkPolyData* mesh, const std::string& path);

// A .pvtp file that makes the pieces `piece_files` (names relative to it, each written by
// write_vtp from zero_level_mesh: Float64 points and Float64 "Normals") one dataset.
void write_pvtp(const std::vector<std::string>& piece_files, const std::string& path);

}  // namespace dunesim
