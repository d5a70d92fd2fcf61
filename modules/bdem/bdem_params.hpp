#pragma once
// The bdem module's parameters (paper §3-5; README decisions), each bound once under `bdem.` with
// type, default, range, a line of help and the field of BdemParams it fills
// (framework/core/param_binding.hpp), so the schema and the reading cannot drift apart. The
// defaults are those of BdemParams{}. The scene itself is under `bdem.scene.` (scene_params.hpp).
#include <string>

#include "framework/core/config.hpp"
#include "framework/core/params.hpp"
#include "modules/bdem/integrator_options.hpp"
#include "modules/bdem/system.hpp"

namespace kinema::bdem {

// Where the scene's keys are (scene_params.hpp): bdem.scene.generator, bdem.scene.<generator>.*.
inline constexpr const char* kSceneGroup = "bdem.scene";

struct BdemParams {
  IntegratorOptions integrator;  // integrator, solver variant, tolerance, Newton, fracture, friction
  double dt = 0;                 // 0: 0.2 T, the explicit stable step of §5.1
  long steps = 0;                // runner steps; 0: ceil(endTime / (substeps dt))
  double endTime = 0;
  int substeps = 1;              // time steps per runner step (a frame interval)
  int fragmentsEvery = 1;        // fragment count every this many runner steps (0: never)
  bool freshPattern = false;     // true: a new Hessian pattern every implicit step (README decision 12)
  BondModel model;               // shear form, bend/twist measure, tension-only fracture (README decisions 13-14, 34)
  ContactParams contact;         // applied over the scene's values only where the scene sets them:
  bool kecSet = false, kcSet = false, muSSet = false, muRSet = false, rollingSet = false;
};

// Declares every `bdem.*` key, including `bdem.newton.*` (solvers::newtonBindings()) and
// `bdem.scene.*` (declareSceneParams).
void declareBdemParams(ParamSchema& schema);
// Reads a validated config. Cross-key checks (steps and end_time both 0, ...) throw InputErrors
// naming the key and where it was set.
BdemParams readBdemParams(const Config& config);
// The contact and model switches of `p` applied to a built scene.
void applyModelParams(const BdemParams& p, System& s);

}  // namespace kinema::bdem
