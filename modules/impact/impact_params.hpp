#pragma once
// The impact resolver's parameters, declared once with type, default, range and help (DESIGN:
// "every parameter is declared once"), read back into the option structs of the resolver, the
// operators, restitution and friction. The simulator's scene schema includes these under a prefix.
#include <string>

#include "framework/core/config.hpp"
#include "modules/impact/friction.hpp"
#include "modules/impact/resolver.hpp"

namespace kinema::impact {

struct ImpactParams {
  std::string op = "gr";       // a name in impactOperators()
  OperatorOptions operatorOptions;
  ResolverOptions resolver;
  double restitution = 1.0;    // c_r of the paper's section 6.2 blend
  FrictionOptions friction;
};

// Keys under `prefix.`: operator, seed, arithmetic, epsilon, renormalise, max_iterations,
// detect_cycles, cycle_window, cycle_tolerance, stop_on_cycle, qp_tolerance, mprgp_tolerance,
// qp_max_iterations, polish_max_size, restitution, friction.mu, friction.sweeps. The operator choices are the
// operators registered when this is called.
void declareImpactParams(ParamSchema& schema, const std::string& prefix, const ImpactParams& defaults = {});
ImpactParams readImpactParams(const Config& config, const std::string& prefix);

}  // namespace kinema::impact
