#include "modules/impact/impact_params.hpp"

namespace kinema::impact {

void declareImpactParams(ParamSchema& schema, const std::string& prefix, const ImpactParams& d) {
  const std::string p = prefix.empty() ? "" : prefix + ".";
  schema.addChoice(p + "operator", d.op, impactOperators().names(),
                   "impact operator R applied until the velocity is feasible (paper Algorithm 1)");
  schema.addInt(p + "seed", static_cast<long long>(d.operatorOptions.seed), Range::atLeast(0),
                "seed of the random selection rule (gs-random)");
  schema.addChoice(p + "arithmetic", d.resolver.arithmetic == Arithmetic::Exact ? "exact" : "relaxed",
                   {"exact", "relaxed"},
                   "relaxed: Algorithms 3/4 (n_i^T qdot >= -epsilon |qdot|_M, renormalised); exact: Algorithm 1");
  schema.addReal(p + "epsilon", d.resolver.epsilon, Range{0.0, 1.0, false, true},
                 "relative feasibility tolerance of the relaxed mode (a fraction of |qdot|_M)");
  schema.addBool(p + "renormalise", d.resolver.renormalise,
                 "relaxed mode: rescale to the initial |qdot_0|_M after every step (epsilon-DRIFT)");
  schema.addInt(p + "max_iterations", d.resolver.maxIterations, Range::atLeast(0),
                "iteration cap; reaching it is reported with a cycle/lineality diagnosis");
  schema.addBool(p + "detect_cycles", d.resolver.detectCycles, "report revisited velocities (non-termination)");
  schema.addInt(p + "cycle_window", d.resolver.cycleWindow, Range::atLeast(1), "longest cycle period detected");
  schema.addReal(p + "cycle_tolerance", d.resolver.cycleTolerance, Range::nonNegative(),
                 "a velocity within this times |qdot_0|_M of an earlier one is a revisit");
  schema.addBool(p + "stop_on_cycle", d.resolver.stopOnCycle,
                 "stop at the first revisit (memoryless operators) instead of running to the cap");
  schema.addReal(p + "qp_tolerance", d.operatorOptions.qpTolerance, Range::positive(),
                 "GR / inelastic QP: KKT residual relative to |qdot|_M");
  schema.addReal(p + "mprgp_tolerance", d.operatorOptions.mprgpTolerance, Range::positive(),
                 "MPRGP's projected-gradient tolerance before the active-set polish");
  schema.addInt(p + "qp_max_iterations", d.operatorOptions.qpMaxIterations, Range::atLeast(1),
                "MPRGP iteration cap per QP");
  schema.addInt(p + "polish_max_size", d.operatorOptions.polishMaxSize, Range::atLeast(0),
                "largest free set the dense KKT polish of a QP factorises");
  schema.addReal(p + "restitution", d.restitution, Range::closed(0.0, 1.0),
                 "coefficient of restitution c_r of the inelastic/elastic blend (paper section 6.2)");
  schema.addChoice(p + "anti_locking", toString(d.resolver.antiLocking), {"off", "eager", "lazy"},
                   "Algorithm 2 (lineality detection and projection): eager = before every resolution (one LP "
                   "when there is no lineality), lazy = only after lazy_iterations plain iterations or a cycle, "
                   "off = Algorithm 1/3/4 alone (implicit equalities then run to the cap); identical results "
                   "whenever there is no implicit equality");
  schema.addInt(p + "lazy_iterations", d.resolver.lazyIterations, Range::atLeast(0),
                "lazy anti-locking: plain iterations before lineality detection (K)");
  schema.addChoice(p + "lineality.method", toString(d.resolver.lineality.method), {"lp1", "lp2", "support_and_shave"},
                   "lineality LPs: lp1 (LP-1 then LP-2/Support & Shave; 1 LP without lineality), lp2 (exact only), "
                   "support_and_shave");
  schema.addReal(p + "lineality.lp_tolerance", d.resolver.lineality.lpTolerance, Range::positive(),
                 "LP round-off margin added to epsilon in the lineality test");
  schema.addReal(p + "lineality.rank_tolerance", d.resolver.lineality.rankTolerance, Range::positive(),
                 "rank tolerance of the lineality basis E");
  schema.addReal(p + "lineality.vanish_tolerance", d.resolver.lineality.vanishTolerance, Range::positive(),
                 "a projected gradient below this (relative M^-1 norm) is removed (Algorithm 2 line 6)");
  schema.addBool(p + "lineality.certificate", d.resolver.certificateFromLineality,
                 "check LP-1's certificate k_w over the iterations (diagnostics only)");
  schema.addReal(p + "friction.mu", d.friction.mu, Range::nonNegative(),
                 "Coulomb coefficient of the one-way friction pass (0: frictionless)");
  schema.addInt(p + "friction.sweeps", d.friction.sweeps, Range::atLeast(1),
                "Gauss-Seidel passes of the friction solve over the contacts");
}

ImpactParams readImpactParams(const Config& config, const std::string& prefix) {
  const std::string p = prefix.empty() ? "" : prefix + ".";
  ImpactParams o;
  o.op = config.getString(p + "operator");
  o.operatorOptions.seed = static_cast<std::uint64_t>(config.getInt(p + "seed"));
  o.resolver.arithmetic = config.getString(p + "arithmetic") == "exact" ? Arithmetic::Exact : Arithmetic::Relaxed;
  o.resolver.epsilon = config.getReal(p + "epsilon");
  o.resolver.renormalise = config.getBool(p + "renormalise");
  o.resolver.maxIterations = static_cast<long>(config.getInt(p + "max_iterations"));
  o.resolver.detectCycles = config.getBool(p + "detect_cycles");
  o.resolver.cycleWindow = static_cast<int>(config.getInt(p + "cycle_window"));
  o.resolver.cycleTolerance = config.getReal(p + "cycle_tolerance");
  o.resolver.stopOnCycle = config.getBool(p + "stop_on_cycle");
  o.operatorOptions.qpTolerance = config.getReal(p + "qp_tolerance");
  o.operatorOptions.mprgpTolerance = config.getReal(p + "mprgp_tolerance");
  o.operatorOptions.qpMaxIterations = static_cast<int>(config.getInt(p + "qp_max_iterations"));
  o.operatorOptions.polishMaxSize = static_cast<int>(config.getInt(p + "polish_max_size"));
  o.resolver.antiLocking = antiLockingModeFromString(config.getString(p + "anti_locking"));
  o.resolver.lazyIterations = static_cast<long>(config.getInt(p + "lazy_iterations"));
  o.resolver.lineality.method = linealityMethodFromString(config.getString(p + "lineality.method"));
  o.resolver.lineality.lpTolerance = config.getReal(p + "lineality.lp_tolerance");
  o.resolver.lineality.rankTolerance = config.getReal(p + "lineality.rank_tolerance");
  o.resolver.lineality.vanishTolerance = config.getReal(p + "lineality.vanish_tolerance");
  o.resolver.certificateFromLineality = config.getBool(p + "lineality.certificate");
  o.restitution = config.getReal(p + "restitution");
  o.friction.mu = config.getReal(p + "friction.mu");
  o.friction.sweeps = static_cast<int>(config.getInt(p + "friction.sweeps"));
  return o;
}

}  // namespace kinema::impact
