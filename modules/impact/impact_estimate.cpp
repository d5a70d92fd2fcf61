// What an impact scene needs (framework/run/limits.hpp; docs/reliability.md, "Limits"), counted
// from the scene's parameters before anything is generated: the bodies, and from them the memory
// of the distributed world (bench_impact section 3: the resident growth of a 3D pile is 1.1-1.3 KB
// per ball at one rank, 1.08 GB for a million balls, and falls as 1/P per rank), plus about 70 MB
// per process; the steps; and a lower bound of the time (0.5 us per body and step, shared by the
// ranks; measured 1.6-15 us per ball-step on piles, the free fall of the first steps the cheapest).
#include <cstdio>

#include "modules/impact/impact_module.hpp"
#include "modules/impact/impact_scene_params.hpp"

namespace kinema::impact {

run::ResourceEstimate ImpactModule::estimate(const Config& c, int ranks) {
  const ModuleParams params = readModuleParams(c);  // after validation; its list checks may refuse the scene
  const SceneParams& scene = params.scene;
  const std::string& type = scene.type;
  const auto count = static_cast<double>(scene.count);
  const auto rows = static_cast<double>(scene.rows);
  double bodies = 0.0;
  if (type == "cradle" || type == "pile") bodies = count;
  else if (type == "box_drop") bodies = count + 1;
  else if (type == "pool_break") bodies = rows * (rows + 1) / 2 + 1;
  else if (type == "jammed_box") bodies = rows * rows;
  else if (type == "wedge") bodies = 1;
  else if (type == "geyser") bodies = 3;
  else bodies = static_cast<double>(scene.balls.size() / 8);
  const auto steps = static_cast<double>(params.sim.steps);
  run::ResourceEstimate e;
  e.bytes = 1.4e3 * bodies + 70e6 * ranks;
  e.steps = steps;
  e.seconds = 0.5e-6 * bodies * steps / ranks;
  char detail[160];
  std::snprintf(detail, sizeof detail, "%.4g bodies (%s), %.4g steps", bodies, type.c_str(), steps);
  e.detail = detail;
  return e;
}

}  // namespace kinema::impact
