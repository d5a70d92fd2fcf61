#pragma once
// The avi module's parameters (README decisions 4 and 57), each
// declared once under `avi.` with type, default, range and a line of help (DESIGN: "every
// parameter is declared once"), and read back into the EngineOptions the engine and the domain
// use. The scene itself is under `avi.scene.` (scene_params.hpp).
//
// Keys: avi.end_time, avi.frame_dt; avi.integrator.{c_safe, restitution, friction,
// tau_min_factor, max_layer, mode, brute_force_layers, debug_invariant, restart_clocks,
// uniform_step, dyadic_base}; avi.broad_phase.{method, margin}; avi.scene.* (scene_params.hpp).
#include <string>

#include "framework/core/config.hpp"
#include "framework/core/params.hpp"
#include "modules/avi/engine_options.hpp"
#include "modules/avi/scene.hpp"

namespace kinema::avi {

// Where the scene's keys are (scene_params.hpp): avi.scene.generator, avi.scene.<generator>.*.
inline constexpr const char* kSceneGroup = "avi.scene";

struct AviParams {
  EngineOptions engine;   // every avi.integrator.* and avi.broad_phase.* key
  std::string mode = "certificates";  // avi.integrator.mode as given (engine.bruteForce follows it)
  double endTime = 1.0;   // simulated end
  double frameDt = 0.01;  // one runner step: diagnostics row (and frame) at the common times n frameDt
  long steps = 0;         // ceil(endTime / frameDt): the runner steps
  bool dyadicSteps = true;  // avi.integrator.dyadic_steps: round every step to the dyadic lattice
};

// Declares every `avi.*` key, including `avi.scene.*` (declareSceneParams).
void declareAviParams(ParamSchema& schema);
// Reads a validated config. Cross-key checks (brute_force_layers without brute_force mode,
// restart_clocks with brute_force, brute_force_layers > max_layer, too many frames) throw
// InputErrors naming the key and where it was set.
AviParams readAviParams(const Config& config);

// The common time of runner step n (1..steps): n frameDt, and exactly endTime for the last step.
double frameTime(const AviParams& p, long n);

// The dyadic base a run uses when avi.integrator.dyadic_base is 0 (the
// Domain needs commensurate steps, README decision 57, step 1; README decision "dyadic default"):
// uniform_step if it is set, else the largest step of the run, max(largest material / gravity step
// h^i of the scene, layer-1 step h_1 = C_safe sqrt(m / (4k)) of the heaviest free vertex), so that
// rounding down to base 2^-m shortens no step by a factor 2 or more. Falls back to frameDt for a
// scene with neither forces nor free vertices.
double defaultDyadicBase(const Scene& scene, const EngineOptions& options, double frameDt);

}  // namespace kinema::avi
