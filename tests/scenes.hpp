// Scenes built in code for the tests: a box domain with one water block.
#pragma once
#include "io/case_config.hpp"

namespace dunesim::test {

inline CaseConfig water_box_case(Vec3 domain, double cell, Vec3 water_min, Vec3 water_max,
                                 double jitter = 1.0) {
  CaseConfig c;
  c.file = "<test>";
  c.name = "test";
  c.domain_size = domain;
  set_cell_size(c, cell);
  c.jitter = jitter;
  MaterialSpec water;
  water.name = "water";
  c.materials.push_back(water);
  SourceSpec s;
  s.material = 0;
  s.shape.kind = ShapeSpec::Kind::Block;
  s.shape.min = water_min;
  s.shape.max = water_max;
  c.sources.push_back(s);
  c.pressure.rtol = 1e-10;
  c.output.directory = "test_output";
  return c;
}

}  // namespace dunesim::test
