#pragma once
// DerModule's parameters (der.*), bound once in der_schema.cpp (the optimiser's der.optimize.* in
// optimizer_params.cpp) and read whole by readDerParams: the module, its strand sources and its
// resource estimate take their values from here, so each key is written once.
#include <string>

#include "framework/core/config.hpp"
#include "modules/der/forward_sim.hpp"
#include "modules/der/optimizer_params.hpp"
#include "modules/der/strand.hpp"

namespace kinema::der {

// Where the strands come from (der.strands.*).
struct StrandParams {
  std::string source = "vertical";
  long vertices = 30;
  double length = 0.2;
  long count = 1;
  long seed = 1;
  double helixRadius = 0.01, helixPitch = 0.005, helixTurns = 10.0;
  std::string file;
  double scale = 1.0;
};

struct DerParams {
  StrandParams strands;
  Material material;
  bool optimize = true;
  double equilibriumTolerance = 1e-6;
  bool writeStrandFile = true;
  long frames = 0;
  double fps = 60.0;
  int stepsPerFrame = 4;
  ForwardSimOptions sim;  // newton_iterations, newton_rtol, curvature
  std::string rootMotion = "none";
  double rootAmplitude = 0.02, rootPeriod = 0.5, rootDuration = 1.0;
  OptimizerOptions optimizer;  // der.optimize.* (optimizer_params.hpp's bindings)
};

// Every der.* key of a validated config.
DerParams readDerParams(const Config& c);

}  // namespace kinema::der
