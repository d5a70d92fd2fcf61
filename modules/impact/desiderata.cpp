#include "modules/impact/desiderata.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"

namespace kinema::impact {

std::string DesiderataReport::describe() const {
  std::string s;
  auto add = [&](bool ok, const std::string& what) {
    if (!ok) s += (s.empty() ? "" : "; ") + what;
  };
  add(norm, str("NORM fails: residual ", normResidual));
  add(kin, str("KIN fails: relative energy change ", kinRelative));
  add(one, str("ONE fails: min lambda ", minLambda));
  add(vio, str("VIO fails: feasible constraint ", firstFeasiblePushed, " received impulse ", maxFeasibleImpulse));
  add(mod, "MOD fails: an infeasible velocity was left unchanged");
  return s.empty() ? "all desiderata hold" : s;
}

DesiderataReport checkDesiderata(const ImpactSystem& system, const Eigen::VectorXd& before,
                                 const Eigen::VectorXd& after, const Eigen::VectorXd& lambda,
                                 const DesiderataTolerances& tol) {
  const int d = system.dofs(), m = system.numConstraints();
  if (before.size() != d || after.size() != d || lambda.size() != m)
    throw InputError(str("desiderata check: sizes (", before.size(), ", ", after.size(), ", ", lambda.size(),
                         ") do not match d = ", d, ", m = ", m));
  DesiderataReport r;
  const double nb = system.normM(before);
  const double scale = nb > 0.0 ? nb : 1.0;
  Eigen::VectorXd diff = after - before;
  r.unchanged = system.normM(diff) <= tol.mod * scale;
  Eigen::VectorXd res = diff;
  system.addMinvN(-lambda, res);
  r.normResidual = system.normM(res) / scale;
  r.norm = r.normResidual <= tol.norm;
  const double e0 = system.dotM(before, before), e1 = system.dotM(after, after);
  r.kinRelative = e0 > 0.0 ? (e1 - e0) / e0 : e1;
  r.kin = std::abs(r.kinRelative) <= tol.kin;
  r.minLambda = m > 0 ? lambda.minCoeff() / scale : 0.0;
  r.one = r.minLambda >= -tol.one;
  r.wasFeasible = true;
  for (int i = 0; i < m; ++i) {
    const bool feasible = system.dot(i, before) >= -tol.epsilon * nb;
    if (!feasible) {
      r.wasFeasible = false;
      continue;
    }
    const double li = std::abs(lambda[i]) / scale;
    if (li > r.maxFeasibleImpulse) r.maxFeasibleImpulse = li;
    if (li > tol.vio && r.firstFeasiblePushed < 0) r.firstFeasiblePushed = i;
  }
  r.vio = r.firstFeasiblePushed < 0;
  r.mod = !(r.unchanged && !r.wasFeasible);
  return r;
}

double leastSquaresNormResidual(const ImpactSystem& system, const Eigen::VectorXd& before,
                                const Eigen::VectorXd& after) {
  // In the M-inner product: minimise ‖L(Δ − M⁻¹Nλ)‖ with M = LLᵀ; M is block diagonal SPD except
  // for static bodies, which have no DOFs.
  const Eigen::MatrixXd M = system.denseM();
  const Eigen::MatrixXd L = M.llt().matrixL();
  const Eigen::MatrixXd B = L.transpose() * (system.denseMinv() * system.denseN());
  const Eigen::VectorXd r = L.transpose() * (after - before);
  const Eigen::VectorXd lambda = B.completeOrthogonalDecomposition().solve(r);
  const double nb = system.normM(before);
  return (r - B * lambda).norm() / (nb > 0.0 ? nb : 1.0);
}

}  // namespace kinema::impact
