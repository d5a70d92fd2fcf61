// The resolver's options bound once (framework/core/param_binding.hpp); see impact_params.hpp.
#include "modules/impact/impact_params.hpp"

#include "framework/core/param_binding.hpp"

namespace kinema::impact {

namespace {

using P = ImpactParams;

template <class T>
auto resolver(T ResolverOptions::*member) {
  return [member](P& p) -> T& { return p.resolver.*member; };
}
template <class T>
auto lineality(T LinealityOptions::*member) {
  return [member](P& p) -> T& { return p.resolver.lineality.*member; };
}

template <class E>
std::vector<std::pair<std::string, E>> named(std::initializer_list<E> values) {
  std::vector<std::pair<std::string, E>> n;
  for (E v : values) n.emplace_back(toString(v), v);
  return n;
}

}  // namespace

// The keys under the prefix, bound once.
const ParamBindings<ImpactParams>& impactBindings() {
  static const ParamBindings<P> b = [] {
    using O = OperatorOptions;
    using R = ResolverOptions;
    ParamBindings<P> r;
    // The choices are the operators registered when the schema is built (plugins add their own).
    r.custom(
        "operator",
        [](ParamSchema& s, const std::string& k, const P& d) -> ParamSpec& {
          return s.addChoice(k, d.op, impactOperators().names(),
                             "impact operator R applied until the velocity is feasible (paper Algorithm 1)");
        },
        [](const Config& c, const std::string& k, P& o) { o.op = c.getString(k); });
    r.integer("seed", field(&P::operatorOptions, &O::seed), Range::atLeast(0),
              "seed of the random selection rule (gs-random)");
    r.choiceOf("arithmetic", resolver(&R::arithmetic), {{"exact", Arithmetic::Exact}, {"relaxed", Arithmetic::Relaxed}},
               "relaxed: Algorithms 3/4 (n_i^T qdot >= -epsilon |qdot|_M, renormalised); exact: Algorithm 1");
    r.real("epsilon", resolver(&R::epsilon), Range{0.0, 1.0, false, true},
           "relative feasibility tolerance of the relaxed mode (a fraction of |qdot|_M)");
    r.boolean("renormalise", resolver(&R::renormalise),
              "relaxed mode: rescale to the initial |qdot_0|_M after every step (epsilon-DRIFT)");
    r.integer("max_iterations", resolver(&R::maxIterations), Range::atLeast(0),
              "iteration cap; reaching it is reported with a cycle/lineality diagnosis");
    r.boolean("detect_cycles", resolver(&R::detectCycles), "report revisited velocities (non-termination)");
    r.integer("cycle_window", resolver(&R::cycleWindow), Range::atLeast(1), "longest cycle period detected");
    r.real("cycle_tolerance", resolver(&R::cycleTolerance), Range::nonNegative(),
           "a velocity within this times |qdot_0|_M of an earlier one is a revisit");
    r.boolean("stop_on_cycle", resolver(&R::stopOnCycle),
              "stop at the first revisit (memoryless operators) instead of running to the cap");
    r.real("qp_tolerance", field(&P::operatorOptions, &O::qpTolerance), Range::positive(),
           "GR / inelastic QP: KKT residual relative to |qdot|_M");
    r.real("mprgp_tolerance", field(&P::operatorOptions, &O::mprgpTolerance), Range::positive(),
           "MPRGP's projected-gradient tolerance before the active-set polish");
    r.integer("qp_max_iterations", field(&P::operatorOptions, &O::qpMaxIterations), Range::atLeast(1),
              "MPRGP iteration cap per QP");
    r.integer("polish_max_size", field(&P::operatorOptions, &O::polishMaxSize), Range::atLeast(0),
              "largest free set the dense KKT polish of a QP factorises");
    r.real("restitution", &P::restitution, Range::closed(0.0, 1.0),
           "coefficient of restitution c_r of the inelastic/elastic blend (paper section 6.2)");
    r.choiceOf("anti_locking", resolver(&R::antiLocking),
               named({AntiLockingMode::Off, AntiLockingMode::Eager, AntiLockingMode::Lazy}),
               "Algorithm 2 (lineality detection and projection): eager = before every resolution (one LP "
               "when there is no lineality), lazy = only after lazy_iterations plain iterations or a cycle, "
               "off = Algorithm 1/3/4 alone (implicit equalities then run to the cap); identical results "
               "whenever there is no implicit equality");
    r.integer("lazy_iterations", resolver(&R::lazyIterations), Range::atLeast(0),
              "lazy anti-locking: plain iterations before lineality detection (K)");
    r.choiceOf("lineality.method", lineality(&LinealityOptions::method),
               named({LinealityMethod::lp1ThenLp2, LinealityMethod::lp2, LinealityMethod::supportAndShave}),
               "lineality LPs: lp1 (LP-1 then LP-2/Support & Shave; 1 LP without lineality), lp2 (exact only), "
               "support_and_shave");
    r.real("lineality.lp_tolerance", lineality(&LinealityOptions::lpTolerance), Range::positive(),
           "LP round-off margin added to epsilon in the lineality test");
    r.real("lineality.rank_tolerance", lineality(&LinealityOptions::rankTolerance), Range::positive(),
           "rank tolerance of the lineality basis E");
    r.real("lineality.vanish_tolerance", lineality(&LinealityOptions::vanishTolerance), Range::positive(),
           "a projected gradient below this (relative M^-1 norm) is removed (Algorithm 2 line 6)");
    r.boolean("lineality.certificate", resolver(&R::certificateFromLineality),
              "check LP-1's certificate k_w over the iterations (diagnostics only)");
    r.real("friction.mu", field(&P::friction, &FrictionOptions::mu), Range::nonNegative(),
           "Coulomb coefficient of the one-way friction pass (0: frictionless)");
    r.integer("friction.sweeps", field(&P::friction, &FrictionOptions::sweeps), Range::atLeast(1),
              "Gauss-Seidel passes of the friction solve over the contacts");
    return r;
  }();
  return b;
}

}  // namespace kinema::impact
