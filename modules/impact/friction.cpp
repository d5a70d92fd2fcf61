#include "modules/impact/friction.hpp"

#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::impact {

namespace {
// Unit tangents orthogonal to ν: one in 2D (all dynamic bodies are planar balls), two in 3D.
int tangents(const Eigen::Vector3d& nu, bool planar, Eigen::Vector3d t[2]) {
  if (planar) {
    t[0] = Eigen::Vector3d(-nu.y(), nu.x(), 0.0).normalized();
    return 1;
  }
  const Eigen::Vector3d helper = std::abs(nu.x()) < 0.9 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitY();
  t[0] = nu.cross(helper).normalized();
  t[1] = nu.cross(t[0]);
  return 2;
}
}  // namespace

FrictionResult applyFriction(const ImpactSystem& system, const Eigen::VectorXd& qdot,
                             const Eigen::VectorXd& normalImpulse, const FrictionOptions& options) {
  const int m = system.numConstraints();
  if (!(options.mu >= 0.0) || !std::isfinite(options.mu))
    throw InputError(str("friction: mu must be a finite number >= 0, got ", options.mu));
  if (options.sweeps < 1) throw InputError(str("friction: sweeps must be >= 1, got ", options.sweeps));
  if (normalImpulse.size() != m || qdot.size() != system.dofs())
    throw InputError(str("friction: sizes do not match (normal impulses ", normalImpulse.size(), ", m = ", m,
                         "; velocity ", qdot.size(), ", d = ", system.dofs(), ")"));
  FrictionResult r;
  r.qdot = qdot;
  r.tangentialImpulse.assign(m, Eigen::Vector2d::Zero());
  const double e0 = system.kineticEnergy(qdot);
  using TBlock = Eigen::Matrix<double, kMaxBodyDofs, 2>;
  for (int sweep = 0; sweep < options.sweeps; ++sweep) {
    r.sticking = 0;
    for (int k = 0; k < m; ++k) {
      const Constraint& c = system.constraint(k);
      const double Pn = normalImpulse[k] / c.scale;  // physical normal impulse
      if (!c.geometry.valid || !(Pn > 0.0) || options.mu == 0.0) continue;
      bool planar = true;
      for (int s = 0; s < 2; ++s)
        if (c.body[s] >= 0 && system.body(c.body[s]).kind != BodyKind::Ball2D) planar = false;
      Eigen::Vector3d t[2];
      const int nt = tangents(c.geometry.normal, planar, t);
      TBlock G[2], MG[2];
      Eigen::Vector2d u = Eigen::Vector2d::Zero();
      Eigen::Matrix2d W = Eigen::Matrix2d::Zero();
      for (int s = 0; s < 2; ++s) {
        G[s].setZero();
        MG[s].setZero();
        if (c.body[s] < 0) continue;
        const Body& b = system.body(c.body[s]);
        for (int j = 0; j < nt; ++j) G[s].col(j) = system.contactBlock(c.body[s], c.side[s], c.geometry.point, t[j]);
        MG[s] = b.Minv * G[s];
        u += G[s].topRows(b.dofs).transpose() * r.qdot.segment(b.offset, b.dofs);
        W += G[s].transpose() * MG[s];
      }
      if (nt == 1) W(1, 1) = 1.0, u[1] = 0.0;
      const Eigen::Vector2d fOld = r.tangentialImpulse[k];
      Eigen::Vector2d fNew = fOld - W.ldlt().solve(u);  // stick
      const double bound = options.mu * Pn, len = fNew.norm();
      if (len > bound) fNew *= bound / len;  // radial scaling into the Coulomb disk
      else ++r.sticking;
      const Eigen::Vector2d df = fNew - fOld;
      r.tangentialImpulse[k] = fNew;
      for (int s = 0; s < 2; ++s) {
        if (c.body[s] < 0) continue;
        const Body& b = system.body(c.body[s]);
        r.qdot.segment(b.offset, b.dofs) += MG[s].topRows(b.dofs) * df;
      }
    }
  }
  r.energyChange = system.kineticEnergy(r.qdot) - e0;
  return r;
}

}  // namespace kinema::impact
