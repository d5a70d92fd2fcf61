#pragma once
// The impact resolver's parameters, declared once with type, default, range and help (DESIGN:
// "every parameter is declared once"), read back into the option structs of the resolver, the
// operators, restitution and friction. The simulator's scene schema includes these under a prefix.
#include <string>

#include "framework/core/config.hpp"
#include "modules/impact/friction.hpp"
#include "modules/impact/resolver.hpp"

namespace kinema::impact {

// ResolverOptions with anti-locking on (lazy, K = 1000; the default-safe mode of spec 8):
// Algorithm 2's guarantee at no cost when the plain loop terminates within K iterations, and results
// identical to Algorithms 1/3/4 whenever I = ∅ (resolver.hpp, anti_locking.hpp). Not (yet) the
// default of ImpactParams / the schema, so that the simulator built on these params keeps its plain
// results bit for bit: on a settling 2D pile (120 balls, 1500 steps, the test_sim setup) some islands
// exceed K iterations and each detection there (ϵ > 0: LP-1 then Support & Shave, up to m + 1 LPs)
// costs ~15% more wall time in all (89 s vs 78 s), and where I ≠ ∅ it changes the trajectory (dissipates the
// locked energy) — a decision for the simulator's owner. Eager costs one LP per resolution.
inline ResolverOptions defaultSafeResolverOptions() {
  ResolverOptions o;
  o.antiLocking = AntiLockingMode::Lazy;
  return o;
}

struct ImpactParams {
  std::string op = "gr";       // a name in impactOperators()
  OperatorOptions operatorOptions;
  // Anti-locking defaults to off here as in ResolverOptions{} (see defaultSafeResolverOptions for
  // why the default-safe lazy mode is not the default yet).
  ResolverOptions resolver;
  double restitution = 1.0;    // c_r of the paper's section 6.2 blend
  FrictionOptions friction;
};

// Keys under `prefix.`: operator, seed, arithmetic, epsilon, renormalise, max_iterations,
// detect_cycles, cycle_window, cycle_tolerance, stop_on_cycle, qp_tolerance, mprgp_tolerance,
// qp_max_iterations, polish_max_size, restitution, friction.mu, friction.sweeps, anti_locking,
// lazy_iterations, lineality.method, lineality.lp_tolerance, lineality.rank_tolerance,
// lineality.vanish_tolerance, lineality.certificate. The operator choices are the
// operators registered when this is called.
void declareImpactParams(ParamSchema& schema, const std::string& prefix, const ImpactParams& defaults = {});
ImpactParams readImpactParams(const Config& config, const std::string& prefix);

}  // namespace kinema::impact
