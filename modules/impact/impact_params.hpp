#pragma once
// The impact resolver's parameters, declared once with type, default, range and help (DESIGN:
// "every parameter is declared once"), read back into the option structs of the resolver, the
// operators, restitution and friction. The simulator's scene schema includes these under a prefix.
#include <string>

#include "framework/core/config.hpp"
#include "framework/core/param_binding.hpp"
#include "modules/impact/friction.hpp"
#include "modules/impact/resolver.hpp"

namespace kinema::impact {

// ResolverOptions with anti-locking on (lazy, K = 1000; README decision 18):
// Algorithm 2's guarantee at no cost when the plain loop terminates within K iterations, and results
// identical to Algorithms 1/3/4 whenever I = ∅ (resolver.hpp, anti_locking.hpp). The default of the
// scene parameters (ImpactParams, the schema); ResolverOptions{} itself stays off so that library
// callers get Algorithms 1/3/4 unless they ask. Where I ≠ ∅ lazy changes the trajectory: it removes
// the locked energy instead of cycling to the cap (geyser.yaml and jammed_box.yaml set it off to
// show the cycle).
inline ResolverOptions defaultSafeResolverOptions() {
  ResolverOptions o;
  o.antiLocking = AntiLockingMode::Lazy;
  return o;
}

struct ImpactParams {
  std::string op = "gr";       // a name in impactOperators()
  OperatorOptions operatorOptions;
  // Anti-locking lazy by default (README decision 18), see defaultSafeResolverOptions.
  ResolverOptions resolver = defaultSafeResolverOptions();
  double restitution = 1.0;    // c_r of the paper's section 6.2 blend
  FrictionOptions friction;
};

// Keys under `prefix.`: operator, seed, arithmetic, epsilon, renormalise, max_iterations,
// detect_cycles, cycle_window, cycle_tolerance, stop_on_cycle, qp_tolerance, mprgp_tolerance,
// qp_max_iterations, polish_max_size, restitution, friction.mu, friction.sweeps, anti_locking,
// lazy_iterations, lineality.method, lineality.lp_tolerance, lineality.rank_tolerance,
// lineality.vanish_tolerance, lineality.certificate. The operator choices are the
// operators registered when this is called.
const ParamBindings<ImpactParams>& impactBindings();

}  // namespace kinema::impact
