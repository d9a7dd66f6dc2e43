// A scene as read from a case file (TOML, SI units). See cases/README.md for every key.
#pragma once
#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "decomposition/vec3.hpp"
#include "io/catalyst_channels.hpp"
#include "src/sand/sand_parameters.hpp"
#include "src/wet/wet_parameters.hpp"

namespace dunesim {

class MeshShape;  // io/triangle_mesh.hpp

// A user error in a case file: names the file, the key and what was expected.
class CaseError : public std::runtime_error {
 public:
  CaseError(const std::string& file, const std::string& key, const std::string& problem)
      : std::runtime_error(file + ": " + (key.empty() ? "" : "key '" + key + "': ") + problem),
        file_(file),
        key_(key) {}
  const std::string& file() const { return file_; }
  const std::string& key() const { return key_; }

 private:
  std::string file_, key_;
};

enum class MaterialKind { Water, Sand };

// How a material's particles and the grid exchange velocities: PIC/FLIP blended by
// flip_ratio, or the affine particle-in-cell method (Jiang et al. 2015), whose particles
// carry a velocity gradient and take the grid's velocity without FLIP's noise; RPIC, from
// the same paper, carries only the gradient's rotation (angular momentum, not strain).
enum class Transfer { Flip, Apic, Rpic };

struct MaterialSpec {
  std::string name;
  MaterialKind kind = MaterialKind::Water;
  double density = 1000.0;  // kg/m^3
  Transfer transfer = Transfer::Flip;
  double flip_ratio = 0.95;  // transfer = flip: 1 = pure FLIP, 0 = pure PIC
  // Sand only (ignored for water).
  double friction_angle_deg = 30.0;
  double cohesion = 0.0;  // Pa; the dry cohesion c_dry when the sand holds water
  SandRheology rheology;
  WetSandSpec wet;  // porosity 0: the sand never holds water
};

// A shape: an axis-aligned block, a sphere, an upright cylinder, a triangle mesh read from
// a file, or a heightfield.
struct ShapeSpec {
  enum class Kind { Block, Sphere, Cylinder, Mesh, Heightfield } kind = Kind::Block;
  Vec3 min{0, 0, 0}, max{0, 0, 0};  // block corners, m
  Vec3 center{0, 0, 0};             // sphere centre, or the centre of the cylinder's base, m
  double radius = 0;                // sphere or cylinder radius, m
  double height = 0;                // cylinder: it rises from center along z by this, m
  std::string mesh_file;            // mesh: the OBJ file, resolved against the case's directory
  double scale = 1;                 // mesh: p_world = scale * p_file + translate
  Vec3 translate{0, 0, 0};          // mesh, m
  std::shared_ptr<const MeshShape> mesh;  // mesh: the transformed triangles and distance grid
  // heightfield: everything from the floor up to a piecewise-linear height h(x) between the
  // profile's points (x increasing, m), extruded along y (dunes, heaps, terrain).
  std::vector<double> profile_x, profile_height;

  bool contains(const Vec3& p) const;
  // {lower corner, upper corner} of a box outside which contains() is false (unbounded
  // along the axes where the shape gives none: a heightfield's y).
  std::array<Vec3, 2> bounding_box() const;
  // Negative inside, positive outside, in metres (exact for the sphere and the cylinder,
  // exact outside and a max-norm inside for the block, interpolated from a grid for a mesh,
  // the vertical distance to the surface for a heightfield).
  double signed_distance(const Vec3& p) const;
};

// Material that fills a shape at the start and, with emit_until, keeps pouring in: until
// then every step refills the shape's empty cells (a nozzle, a hopper outlet).
struct SourceSpec {
  int material = 0;  // index into CaseConfig::materials
  ShapeSpec shape;
  Vec3 velocity{0, 0, 0};  // velocity of the particles it creates, m/s
  double emit_until = 0;   // s; 0 = fills the shape at the start only
  double saturation = 0;   // sand: S of the particles it creates (default: the material's)
  // Water only: > 0 makes this a rain source, m/s of water depth falling on the block's
  // horizontal area until emit_until; drops appear at random points of the block.
  double rain_rate = 0;
  bool is_rain() const { return rain_rate > 0; }
};

// A static solid obstacle inside the domain box (the box walls are always solid).
struct ColliderSpec {
  ShapeSpec shape;
  double friction = 0.0;  // Coulomb coefficient mu at this collider (sand)
};

struct OutputSpec {
  std::string directory = "output";  // relative paths are relative to the working dir
  double interval = 0.04;            // simulated seconds between frames; 0 = every step
  bool grid_fields = false;          // also write pressure and fluid mask
  bool single_precision = false;     // precision = "single": float32 positions and velocities
  int64_t particle_stride = 1;       // write the particles whose id is a multiple of this
};

// In situ visualisation: ParaView Catalyst pipeline scripts run during the run.
struct CatalystSpec {
  std::vector<std::string> scripts;  // resolved against the case file's directory; empty = off
  int64_t interval_steps = 10;       // run the scripts after every this many steps
  // Catalyst's particle channel holds the particles whose id this divides (1 = all): at a
  // hundred million particles a full copy into VTK would take ~100 bytes each.
  int64_t particle_stride = 1;
  // The channels offered to the scripts ("input": the particles, "grid": the pressure,
  // "material_fraction": the sand's and water's share of each cell). Catalyst asks for every
  // offered channel at its first call, before it has read the scripts, so a channel left out
  // here is never copied into VTK: at 1e8 particles the two grid channels cost ~9 bytes a
  // particle of peak memory.
  std::vector<std::string> channels{kCatalystChannels.begin(), kCatalystChannels.end()};
};

// Checkpoints for restarts: written every so many steps and/or wall-clock seconds, and when
// the run is asked to stop (SIGTERM, SIGUSR1).
struct CheckpointSpec {
  int64_t interval_steps = 0;   // 0 = no step trigger
  double interval_seconds = 0;  // wall-clock s; 0 = no time trigger
  int keep = 3;                 // newest checkpoints kept
  std::string directory;        // empty = <output directory>/checkpoints
};

// Where the pressure's free-surface condition p = 0 holds: at the centre of the first air
// cell (first order), or where the particles' smoothed surface crosses the line between a
// fluid and an air cell centre (ghost fluid, src/pressure/free_surface.hpp).
enum class FreeSurface { FirstOrder, GhostFluid };

struct PressureSolverSpec {
  double rtol = 1e-6;
  int max_iterations = 500;
  std::string petsc_options;  // e.g. "-pc_type gamg", added to PETSc's options
  FreeSurface free_surface = FreeSurface::FirstOrder;
};

// Dynamic load balancing: every interval_steps the ranks measure their work (particles,
// sand ones weighted) and, when the busiest rank has more than `threshold` times the mean,
// re-cut the blocks.
struct LoadBalanceSpec {
  int interval_steps = 20;  // 0 = never after the start
  double threshold = 1.1;   // max / mean work per rank that triggers a re-cut
  // Work of a sand particle relative to a water particle (the sand stages' share of a
  // step); see cases/README.md for how the default was measured.
  double sand_particle_work = 1.2;
};

struct CaseConfig {
  std::string file;            // path the case was read from
  std::string name;            // [case] name, defaults to the file's stem
  Vec3 domain_size{1, 1, 1};   // m; the domain is [0, size] on each axis
  double cell_size = 0.05;     // m
  double wall_friction = 0.0;  // Coulomb mu of the box walls (sand only)
  // Box walls without friction, whatever wall_friction says: symmetry planes (a quarter of
  // an axisymmetric scene in a corner). Indexed by wall_index: x-, x+, y-, y+, z-, z+.
  std::array<bool, 6> frictionless_wall{};
  std::array<int, 3> cells{20, 20, 20};  // derived: round(size / cell_size)
  Vec3 gravity{0, 0, -9.81};             // m/s^2 (z is up by convention)
  double end_time = 1.0;                 // s
  int64_t max_steps = 0;                 // 0 = no limit
  double cfl = 1.0;                      // cells a particle may cross per step (<= 5)
  double max_dt = 0.01;                  // s
  double jitter = 1.0;                   // 0 = particles on the 2x2x2 sub-grid, 1 = full jitter
  uint64_t seed = 1;                     // seeds the jitter
  std::vector<MaterialSpec> materials;
  std::vector<SourceSpec> sources;
  std::vector<ColliderSpec> colliders;
  OutputSpec output;
  CheckpointSpec checkpoint;
  LoadBalanceSpec load_balance;
  CatalystSpec catalyst;
  PressureSolverSpec pressure;
  std::string text;  // the case file's text, kept for checkpoints
};

// Sets the cell size and the cell counts it derives (round(size / cell_size) per axis), for
// code that refines a case it has read or builds one in code. No validation: the case file
// reader checks its own values.
void set_cell_size(CaseConfig& config, double cell_size);

// A box wall by name, "x-" (x = 0) to "z+" (z = size[2]): 2 * axis + (1 on the far side),
// so wall_index("y+") is 3.
inline int wall_index(std::string_view name) { return 2 * (name[0] - 'x') + (name[1] == '+'); }

// At most this many output frames in a run. The output schedule steps to the end time one
// interval at a time, and more frames than this mean a mistyped interval or end time.
constexpr int64_t kMaxOutputFrames = 1000000;
// Why an end time and an output interval (s; 0 = every step) make no schedule ("... gives
// 2.5e+301 frames ..."), calling the end time `end_name`; empty when they do.
std::string output_schedule_problem(double end_time, double interval,
                                    const std::string& end_name = "time.end");

// Parses and validates a case file. Throws CaseError for every user mistake. Mesh files are
// read on this rank alone: for one process, or a test.
CaseConfig parse_case_text(const std::string& text, const std::string& file);
// Collective: every rank of `comm` parses the same text. Each mesh file is read on rank 0
// and its text (or why it cannot be read) sent to the others, so every rank reaches the
// same verdict and the same CaseError, even where some nodes see another file or none.
CaseConfig parse_case_text(const std::string& text, const std::string& file, MPI_Comm comm);
// Reads the file on rank 0, broadcasts the text and parses it on every rank as above.
CaseConfig load_case(const std::string& file, MPI_Comm comm);

}  // namespace dunesim
