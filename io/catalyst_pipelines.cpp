// The Catalyst module (libdunesim_catalyst.so, loaded by CatalystAdaptor): copies one rank's
// particles, pressure and material fractions into VTK objects and hands them to the Catalyst
// V2 pipeline scripts through the legacy vtkCPProcessor API.
#include "io/catalyst_pipelines.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vtkCPDataDescription.h>
#include <vtkCPInputDataDescription.h>
#include <vtkCPProcessor.h>
#include <vtkCPPythonScriptV2Pipeline.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDoubleArray.h>
#include <vtkFloatArray.h>
#include <vtkIdTypeArray.h>
#include <vtkImageData.h>
#include <vtkMPI.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkTypeInt64Array.h>
#include <vtkUnsignedCharArray.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace dunesim {
namespace {

// True on every rank iff `ok` is true on every rank, so that all ranks throw together.
bool all_ranks_agree(MPI_Comm comm, bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

// A point array `name` of one value per particle, value(n) for particle n.
template <class VtkArray, class Value>
void add_point_scalars(vtkPointData* point_data, const char* name, vtkIdType n, Value&& value) {
  vtkNew<VtkArray> array;
  array->SetName(name);
  array->SetNumberOfTuples(n);
  for (vtkIdType i = 0; i < n; ++i) array->SetValue(i, value(size_t(i)));
  point_data->AddArray(array);
}

// A 3-component array `name` of (a[i], b[i], c[i]) for the first n particles.
template <class Component>
vtkSmartPointer<vtkDoubleArray> vector_array(const char* name, const Component& a,
                                             const Component& b, const Component& c,
                                             vtkIdType n) {
  auto array = vtkSmartPointer<vtkDoubleArray>::New();
  array->SetName(name);
  array->SetNumberOfComponents(3);
  array->SetNumberOfTuples(n);
  double* values = array->GetPointer(0);
  for (vtkIdType i = 0; i < n; ++i) {
    values[3 * i] = a[i];
    values[3 * i + 1] = b[i];
    values[3 * i + 2] = c[i];
  }
  return array;
}

// The particles' positions as points, with a vertex cell each: without cells, filters and
// renderers see no geometry.
vtkSmartPointer<vtkPolyData> particle_points(const Particles& p) {
  const vtkIdType n = vtkIdType(p.size());
  vtkNew<vtkIdTypeArray> offsets, connectivity;
  offsets->SetNumberOfTuples(n + 1);
  connectivity->SetNumberOfTuples(n);
  for (vtkIdType i = 0; i < n; ++i) {
    offsets->SetValue(i, i);
    connectivity->SetValue(i, i);
  }
  offsets->SetValue(n, n);
  vtkNew<vtkPoints> points;
  points->SetData(vector_array(nullptr, p.x, p.y, p.z, n));
  vtkNew<vtkCellArray> vertices;
  vertices->SetData(offsets, connectivity);
  auto polydata = vtkSmartPointer<vtkPolyData>::New();
  polydata->SetPoints(points);
  polydata->SetVerts(vertices);
  return polydata;
}

// One rank's particles with the point arrays that CatalystAdaptor::coprocess lists.
vtkSmartPointer<vtkPolyData> particles_to_vtk(const Particles& p,
                                              const std::vector<double>& material_porosity) {
  const vtkIdType n = vtkIdType(p.size());
  vtkSmartPointer<vtkPolyData> polydata = particle_points(p);
  vtkPointData* point_data = polydata->GetPointData();
  point_data->AddArray(vector_array("velocity", p.vx, p.vy, p.vz, n));
  add_point_scalars<vtkDoubleArray>(point_data, "speed", n, [&](size_t i) { return p.speed(i); });
  add_point_scalars<vtkTypeInt64Array>(point_data, "id", n, [&](size_t i) { return p.id[i]; });
  add_point_scalars<vtkUnsignedCharArray>(point_data, "material", n,
                                          [&](size_t i) { return p.material[i]; });
  add_point_scalars<vtkDoubleArray>(point_data, "water_content", n,
                                    [&](size_t i) { return p.water_of(i); });
  const std::vector<float> saturation = saturation_of(p, material_porosity);
  add_point_scalars<vtkFloatArray>(point_data, "saturation", n,
                                   [&](size_t i) { return saturation[i]; });
  return polydata;
}

// The cells `owned` of a cell-centred field as an image piece: points at cell corners, so
// the piece's point extent runs from owned.lo to owned.hi in global indices.
vtkSmartPointer<vtkImageData> cells_to_vtk(const Array3<double>& field, const Box& owned,
                                           double cell_size, const char* name) {
  auto image = vtkSmartPointer<vtkImageData>::New();
  image->SetExtent(owned.lo[0], owned.hi[0], owned.lo[1], owned.hi[1], owned.lo[2], owned.hi[2]);
  image->SetSpacing(cell_size, cell_size, cell_size);
  image->SetOrigin(0, 0, 0);
  vtkNew<vtkDoubleArray> values;
  values->SetName(name);
  values->SetNumberOfTuples(owned.volume());
  vtkIdType index = 0;
  for (int k = owned.lo[2]; k < owned.hi[2]; ++k)
    for (int j = owned.lo[1]; j < owned.hi[1]; ++j)
      for (int i = owned.lo[0]; i < owned.hi[0]; ++i) values->SetValue(index++, field(i, j, k));
  image->GetCellData()->AddArray(values);
  return image;
}

// Cell-centred fields as a vtkImageData piece whose points are the cell centres (origin at
// the centre of cell 0), so that contouring needs no cell-to-point averaging. A rank's piece
// holds its owned cells and, past each upper face inside the domain, the first cell of the
// neighbour (a ghost, equal to the owner's value): neighbouring pieces share that plane of
// points, with the same values, and their contours meet on it without a crack or an overlap.
// Where the block touches a wall the piece goes on through the wall layer (which holds what
// particles next to the wall spread into it) to one more layer of zeros, so that a contour
// of any positive level closes there.
vtkSmartPointer<vtkImageData> cell_centres_to_vtk(const std::vector<GridFieldView>& fields,
                                                  std::array<int, 3> global_cells,
                                                  double cell_size) {
  const Box& owned = fields.front().owned;
  Index3 first, last;  // the piece's points, inclusive, in global cell indices
  for (int a = 0; a < 3; ++a) {
    first[a] = owned.lo[a] == 0 ? -2 : owned.lo[a];
    last[a] = owned.hi[a] == global_cells[a] ? global_cells[a] + 1 : owned.hi[a];
  }
  auto image = vtkSmartPointer<vtkImageData>::New();
  image->SetExtent(first[0], last[0], first[1], last[1], first[2], last[2]);
  image->SetSpacing(cell_size, cell_size, cell_size);
  image->SetOrigin(0.5 * cell_size, 0.5 * cell_size, 0.5 * cell_size);
  const auto beyond_walls = [&](int i, int j, int k) {
    return i < -1 || j < -1 || k < -1 || i > global_cells[0] || j > global_cells[1] ||
           k > global_cells[2];
  };
  for (const GridFieldView& field : fields) {
    vtkNew<vtkFloatArray> values;
    values->SetName(field.name.c_str());
    values->SetNumberOfTuples(image->GetNumberOfPoints());
    vtkIdType index = 0;
    for (int k = first[2]; k <= last[2]; ++k)
      for (int j = first[1]; j <= last[1]; ++j)
        for (int i = first[0]; i <= last[0]; ++i)
          values->SetValue(index++,
                           beyond_walls(i, j, k) ? 0.0F : float((*field.array)(i, j, k)));
    image->GetPointData()->AddArray(values);
  }
  return image;
}

// Catalyst's processor with the case's pipeline scripts, fed the run's state.
class VtkCatalystPipelines final : public CatalystPipelines {
 public:
  explicit VtkCatalystPipelines(const CatalystSetup& setup);
  ~VtkCatalystPipelines() override;
  void coprocess(const Particles& particles, const GridFieldView& cell_field,
                 const std::function<std::vector<GridFieldView>()>& material_fractions,
                 double time, int64_t step) override;

 private:
  void check_wanted_channels(double time, int64_t step);

  MPI_Comm comm_;
  std::array<int, 3> global_cells_;
  double cell_size_;
  std::vector<double> material_porosity_;
  int64_t particle_stride_ = 1;
  std::vector<std::string> channels_;  // offered to the scripts
  bool scripts_imported_ = false;      // by the first CoProcess
  vtkCPProcessor* processor_ = nullptr;
};

VtkCatalystPipelines::VtkCatalystPipelines(const CatalystSetup& setup)
    : comm_(setup.comm),
      global_cells_(setup.global_cells),
      cell_size_(setup.cell_size),
      material_porosity_(setup.material_porosity),
      particle_stride_(setup.particle_stride),
      channels_(setup.channels) {
  const std::string& extracts_directory = setup.extracts_directory;
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  std::error_code error;
  if (rank == 0) std::filesystem::create_directories(extracts_directory, error);
  if (!all_ranks_agree(comm_, !error)) {
    throw std::runtime_error(
        fmt::format("catalyst: cannot create the extracts directory {}", extracts_directory));
  }

  processor_ = vtkCPProcessor::New();
  vtkMPICommunicatorOpaqueComm opaque_comm(&comm_);
  // Catalyst resolves the scripts' relative extract paths against this directory.
  const std::string working_directory = std::filesystem::absolute(extracts_directory).string();
  bool ok = processor_->Initialize(opaque_comm, working_directory.c_str()) == 1;
  if (!all_ranks_agree(comm_, ok)) {
    processor_->Delete();
    throw std::runtime_error("catalyst: vtkCPProcessor::Initialize failed");
  }
  for (const std::string& script : setup.scripts) {
    vtkNew<vtkCPPythonScriptV2Pipeline> pipeline;
    ok = pipeline->Initialize(std::filesystem::absolute(script).c_str()) &&
         processor_->AddPipeline(pipeline) == 1;
    if (!all_ranks_agree(comm_, ok)) {
      processor_->Finalize();
      processor_->Delete();
      throw std::runtime_error(
          fmt::format("catalyst: cannot load the pipeline script {}", script));
    }
  }
}

VtkCatalystPipelines::~VtkCatalystPipelines() {
  processor_->Finalize();
  processor_->Delete();
}

// Collective. Throws on every rank if a script asks for a channel the case leaves out. Until
// the first CoProcess has imported the scripts Catalyst cannot tell what they read, and asks
// for every channel it is offered.
void VtkCatalystPipelines::check_wanted_channels(double time, int64_t step) {
  vtkNew<vtkCPDataDescription> all;
  for (const char* channel : kCatalystChannels) all->AddInput(channel);
  all->SetTimeData(time, vtkIdType(step));
  std::string missing;
  if (processor_->RequestDataDescription(all) != 0) {
    for (const char* channel : kCatalystChannels) {
      const bool offered =
          std::find(channels_.begin(), channels_.end(), channel) != channels_.end();
      if (!offered && all->GetInputDescriptionByName(channel)->GetIfGridIsNecessary())
        missing += (missing.empty() ? "'" : ", '") + std::string(channel) + "'";
    }
  }
  if (!all_ranks_agree(comm_, missing.empty())) {
    throw std::runtime_error(fmt::format(
        "catalyst: a pipeline script reads the channel {} at step {}, which the case's "
        "[catalyst] channels leaves out; add it there",
        missing.empty() ? "(on another rank)" : missing, step));
  }
}

void VtkCatalystPipelines::coprocess(
    const Particles& particles, const GridFieldView& cell_field,
    const std::function<std::vector<GridFieldView>()>& material_fractions, double time,
    int64_t step) {
  if (scripts_imported_ && channels_.size() < kCatalystChannels.size())
    check_wanted_channels(time, step);
  vtkNew<vtkCPDataDescription> description;
  for (const std::string& channel : channels_) description->AddInput(channel.c_str());
  description->SetTimeData(time, vtkIdType(step));
  if (processor_->RequestDataDescription(description) == 0) return;
  const auto offered = [&](const char* channel) -> vtkCPInputDataDescription* {
    return description->GetInputDescriptionByName(channel);
  };

  vtkCPInputDataDescription* particle_input = offered(kParticleChannel);
  if (particle_input && particle_input->GetIfGridIsNecessary()) {
    const bool subset = particle_stride_ > 1;
    particle_input->SetGrid(
        particles_to_vtk(subset ? particles_with_stride(particles, particle_stride_) : particles,
                         material_porosity_));
  }
  vtkCPInputDataDescription* grid = offered(kGridChannel);
  if (grid && grid->GetIfGridIsNecessary()) {
    grid->SetGrid(
        cells_to_vtk(*cell_field.array, cell_field.owned, cell_size_, cell_field.name.c_str()));
    // Image pieces need the whole extent to be assembled into one grid.
    int whole_extent[6] = {0, global_cells_[0], 0, global_cells_[1], 0, global_cells_[2]};
    grid->SetWholeExtent(whole_extent);
  }
  vtkCPInputDataDescription* fractions = offered(kMaterialFractionChannel);
  // Every rank runs the same scripts, so all of them ask (or not) and join the collective.
  if (fractions && fractions->GetIfGridIsNecessary()) {
    fractions->SetGrid(cell_centres_to_vtk(material_fractions(), global_cells_, cell_size_));
    int whole_extent[6] = {-2, global_cells_[0] + 1, -2, global_cells_[1] + 1,
                           -2, global_cells_[2] + 1};
    fractions->SetWholeExtent(whole_extent);
  }
  bool ok = processor_->CoProcess(description) == 1;
  const bool first_call = !scripts_imported_;
  scripts_imported_ = true;
  if (!all_ranks_agree(comm_, ok)) {
    std::string hint;
    if (first_call && channels_.size() < kCatalystChannels.size()) {
      hint = fmt::format(
          " (the case offers only the channels '{}' ([catalyst] channels); a script that reads "
          "another one fails at its first call)",
          fmt::join(channels_, "', '"));
    }
    throw std::runtime_error(
        fmt::format("catalyst: a pipeline script failed at step {}; see the messages above{}",
                    step, hint));
  }
}

}  // namespace

}  // namespace dunesim

// The module's one entry point (kMakeCatalystPipelines), found by name with dlsym.
extern "C" dunesim::CatalystPipelines* dunesim_make_catalyst_pipelines(
    const dunesim::CatalystSetup& setup) {
  return new dunesim::VtkCatalystPipelines(setup);
}
