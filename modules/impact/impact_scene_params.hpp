#pragma once
// The impact module's scene and time-stepping parameters (impact.scene.*, impact.sim.*), bound once
// (framework/core/param_binding.hpp; docs/writing-a-module.md §2); the resolver's keys are
// impact_params.hpp's. Read by the module (impact_module.cpp) and by its resource estimate
// (impact_estimate.cpp), so each key is written once.
#include <cstdint>
#include <string>
#include <vector>

#include "framework/core/config.hpp"
#include "framework/core/param_binding.hpp"

namespace kinema::impact {

struct SceneParams {
  std::string type = "cradle";
  int dimension = 2;
  int count = 5;
  int rows = 5;
  double radius = 1.0, mass = 1.0, speed = 1.0;
  double angleDegrees = 10.0;
  bool symmetric = true;
  double gap = 0.0, width = 10.0, spacing = 0.05, jitter = 0.02;
  long seed = 1;
  std::vector<double> halfExtents{0.5, 0.3, 0.2}, balls, planes;
};

struct StepParams {
  double dt = 1e-3;
  long steps = 1000;
  double gravity = 0.0;
  double contactTolerance = 1e-6;  // a fraction of the smallest body size
  int closurePasses = 3;
  std::string gravityKick = "split", broadPhase = "spatial_hash";
  std::int64_t distributedIslandContacts = 0;
  double rebalanceImbalance = 1.25;
  bool rotatingSpheres = false;
};

struct ModuleParams {
  SceneParams scene;
  StepParams sim;
};

// The bindings of every key above, under kModulePrefix.
const ParamBindings<ModuleParams>& moduleBindings();
inline constexpr const char* kModulePrefix = "impact";
// moduleBindings().read(c, kModulePrefix): the scene's lists are checked as they are read.
ModuleParams readModuleParams(const Config& c);

}  // namespace kinema::impact
