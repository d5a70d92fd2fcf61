#include "modules/impact/restitution.hpp"

#include "framework/core/error.hpp"

namespace kinema::impact {

InelasticResult solveInelastic(const ImpactSystem& system, const Eigen::VectorXd& qdotMinus,
                               const OperatorOptions& options) {
  if (qdotMinus.size() != system.dofs())
    throw InputError(str("inelastic impact: the velocity has ", qdotMinus.size(), " entries, d = ", system.dofs()));
  const int m = system.numConstraints();
  InelasticResult r;
  Eigen::VectorXd c(m);
  system.NT(qdotMinus, c);  // linear term N_Aᵀq̇⁻ (GR has 2N_Vᵀq̇)
  std::vector<char> active(m, 1);
  DelassusQp qp(options);
  qp.setup(system);
  r.qp = qp.solve(system, c, active, system.normM(qdotMinus), r.lambda);
  r.qdot = qdotMinus;
  system.addMinvN(r.lambda, r.qdot);
  return r;
}

RestitutionResult resolveWithRestitution(const ImpactSystem& system, const Eigen::VectorXd& qdotMinus,
                                         double restitution, ImpactOperator& elasticOperator,
                                         const Resolver& resolver, const OperatorOptions& options) {
  if (!(restitution >= 0.0 && restitution <= 1.0))
    throw InputError(str("restitution: the coefficient c_r must be in [0, 1], got ", restitution));
  RestitutionResult r;
  InelasticResult in = solveInelastic(system, qdotMinus, options);
  r.inelastic = in.qdot;
  r.qp = in.qp;
  if (restitution > 0.0) {
    Resolver copy = resolver;  // resolve() is non-const only through its observer
    ResolveResult el = copy.resolve(system, elasticOperator, qdotMinus);
    r.elastic = el.qdot;
    r.elasticStats = el.stats;
    r.impulse = (1.0 - restitution) * in.lambda + restitution * el.impulse;
  } else {
    r.elastic = r.inelastic;
    r.impulse = in.lambda;
  }
  r.qdot = (1.0 - restitution) * r.inelastic + restitution * r.elastic;  // paper section 6.2
  return r;
}

}  // namespace kinema::impact
