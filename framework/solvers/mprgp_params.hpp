#pragma once
// MPRGP's parameters under a prefix (e.g. "der.optimize.mprgp"): gamma, alpha_rule, alpha_factor,
// alpha_fixed, power_iterations, rtol, atol, max_iterations; each bound once with default, range,
// help and the MprgpOptions field it fills (framework/core/param_binding.hpp, docs/solvers/mprgp.md).
#include <string>

#include "framework/core/config.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/solvers/mprgp.hpp"

namespace kinema::solvers {

// The bindings: a module's own bindings can nest them under a key of theirs.
const ParamBindings<MprgpOptions>& mprgpBindings();


}  // namespace kinema::solvers
