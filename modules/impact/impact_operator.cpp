#include "modules/impact/impact_operator.hpp"

#include "modules/impact/gauss_seidel.hpp"
#include "modules/impact/generalized_reflections.hpp"
#include "modules/impact/jacobi.hpp"

namespace kinema::impact {

Eigen::VectorXd applyOnce(ImpactOperator& op, const ImpactSystem& system, Eigen::VectorXd& qdot,
                          long iteration, double threshold) {
  Eigen::VectorXd lambda(system.numConstraints());
  StepContext ctx;
  ctx.iteration = iteration;
  ctx.threshold = threshold;
  op.apply(system, qdot, ctx, lambda);
  return lambda;
}

NamedRegistry<ImpactOperatorEntry>& impactOperators() {
  static NamedRegistry<ImpactOperatorEntry> registry = [] {
    NamedRegistry<ImpactOperatorEntry> r("impact operator");
    auto gs = [](Selection s) {
      return [s](const OperatorOptions& o) -> ImpactOperatorPtr {
        return std::make_unique<PairwiseGaussSeidel>(s, o.seed);
      };
    };
    r.add({"gs-lexicographic", "pairwise Gauss-Seidel (eq. 1), smallest violated index first",
           gs(Selection::Lexicographic)});
    r.add({"gs-random", "pairwise Gauss-Seidel (eq. 1), a uniformly random violated constraint (seeded)",
           gs(Selection::Random)});
    r.add({"gs-most-violated", "pairwise Gauss-Seidel (eq. 1), the most negative n_i^T qdot first",
           gs(Selection::MostViolated)});
    r.add({"gs-cyclic", "pairwise Gauss-Seidel (eq. 1), cyclic sweeps over the constraints",
           gs(Selection::CyclicSweep)});
    r.add({"jacobi-naive",
           "all violated reflections from one velocity, summed; breaks KIN (negative example, README decision 5)",
           [](const OperatorOptions&) -> ImpactOperatorPtr { return std::make_unique<NaiveJacobi>(); }});
    r.add({"jacobi-colored",
           "simultaneous reflections within one colour of body-disjoint constraints (= a GS sequence)",
           [](const OperatorOptions&) -> ImpactOperatorPtr { return std::make_unique<ColoredJacobi>(); }});
    r.add({"gr", "Generalized Reflections: one QP over all violated constraints (Smith et al. 2012)",
           [](const OperatorOptions& o) -> ImpactOperatorPtr {
             return std::make_unique<GeneralizedReflections>(o);
           }});
    return r;
  }();
  return registry;
}

ImpactOperatorPtr makeImpactOperator(const std::string& name, const OperatorOptions& options) {
  return impactOperators().get(name).make(options);
}

}  // namespace kinema::impact
