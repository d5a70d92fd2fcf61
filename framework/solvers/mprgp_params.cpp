// MPRGP's parameters bound once (framework/core/param_binding.hpp); see mprgp_params.hpp.
#include "framework/solvers/mprgp_params.hpp"

namespace kinema::solvers {

const ParamBindings<MprgpOptions>& mprgpBindings() {
  static const ParamBindings<MprgpOptions> b = [] {
    using O = MprgpOptions;
    ParamBindings<O> r;
    r.real("gamma", &O::gamma, Range::positive(), "Gamma of the proportioning test ||beta||^2 <= Gamma^2 phit.phi");
    r.choice("alpha_rule", &O::alphaRule, {"power", "fixed"},
             "expansion step length alpha_bar: power (alpha_factor / (1.01 x power-iteration "
             "estimate of ||A||)) or fixed (alpha_fixed)");
    r.real("alpha_factor", &O::alphaFactor, Range::leftOpen(0.0, 2.0),
           "alpha_bar = alpha_factor / ||A|| for the rule power, in (0, 2]");
    r.real("alpha_fixed", &O::alphaFixed, Range::nonNegative(), "alpha_bar for the rule fixed; must be in (0, 2/||A||]");
    r.integer("power_iterations", &O::powerIterations, Range::atLeast(1), "power iterations for the ||A|| estimate");
    r.real("rtol", &O::rtol, Range{0.0, 1.0, false, true}, "relative tolerance: ||g^P|| <= max(atol, rtol ||g^P(x0)||)");
    r.real("atol", &O::atol, Range::nonNegative(), "absolute tolerance on ||g^P||");
    r.integer("max_iterations", &O::maxIterations, Range::atLeast(0), "iteration limit; reaching it is reported, not an error");
    return r;
  }();
  return b;
}



}  // namespace kinema::solvers
