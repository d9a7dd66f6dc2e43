#include "src/sand/sand_model.hpp"

#include "src/sand/models/elastic_plastic_model.hpp"
#include "src/sand/models/mu_of_i_model.hpp"
#include "src/sand/models/rigid_plastic_model.hpp"
#include "src/sand/models/zhu_bridson_model.hpp"
#include "src/sand/wall_friction.hpp"

namespace dunesim {

std::unique_ptr<SandModel> make_sand_model(const MaterialSpec& sand) {
  switch (sand.rheology.kind) {
    case SandRheology::Kind::ZhuBridson: return std::make_unique<ZhuBridsonModel>(sand);
    case SandRheology::Kind::MuOfI: return std::make_unique<MuOfIModel>(sand);
    case SandRheology::Kind::ElasticPlastic: return std::make_unique<ElasticPlasticModel>(sand);
    case SandRheology::Kind::RigidPlastic: return std::make_unique<RigidPlasticModel>(sand);
  }
  throw std::logic_error("make_sand_model: a rheology without a model");
}

void apply_sand_wall_friction(const SandStage& stage, double dt,
                              const Array3<uint8_t>& sliding_cells) {
  MacGrid& g = stage.grid;
  const Box near_sand = neighbourhood(g.sand_region, 2, stage.topo.local(Stagger::Cell));
  normal_speed_from_wall_pressure(g, dt, stage.gravity, near_sand, stage.walls,
                                  g.wall_normal_speed);
  apply_wall_friction(stage.topo, stage.halo, g, sliding_cells, g.wall_mu, g.wall_normal_speed,
                      stage.walls, &g.rigid);
}

}  // namespace dunesim
