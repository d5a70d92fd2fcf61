// Anti-locking (Algorithm 2, paper §4.1): the projected problem for the resolver. See
// anti_locking.hpp for the representable / spread design.
#include "modules/impact/anti_locking.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::impact {

std::string toString(AntiLockingMode mode) {
  switch (mode) {
    case AntiLockingMode::Off: return "off";
    case AntiLockingMode::Eager: return "eager";
    case AntiLockingMode::Lazy: return "lazy";
  }
  return "?";
}

AntiLockingMode antiLockingModeFromString(const std::string& name) {
  if (name == "off") return AntiLockingMode::Off;
  if (name == "eager") return AntiLockingMode::Eager;
  if (name == "lazy") return AntiLockingMode::Lazy;
  throw InputError(str("unknown anti-locking mode '", name, "' (expected off, eager or lazy)"));
}

LinealityResult detectSystemLineality(const ImpactSystem& system, const LinealityOptions& options) {
  return detectLineality(system.denseN(), system.denseMinv(), options);  // Algorithm 2 line 2
}

ProjectedProblem projectSystem(const ImpactSystem& system, LinealityResult lineality,
                               const LinealityOptions& options, double dropTolerance) {
  const auto t0 = std::chrono::steady_clock::now();
  ProjectedProblem out;
  out.Minv = system.denseMinv();
  const Eigen::MatrixXd N = system.denseN();
  const LinealityProjector P(lineality.E, out.Minv);
  ProjectedConstraints pc = P.projectConstraints(N, out.Minv, options.vanishTolerance);  // lines 4-7
  out.lineality = std::move(lineality);
  out.kept = std::move(pc.kept);
  out.removed = std::move(pc.removed);
  out.relNorm = std::move(pc.relNorm);
  out.N = std::move(pc.N);

  // Same bodies in the same order: identical DOF offsets, so q̇ is shared with the original.
  ImpactSystem& ps = out.system;
  for (int b = 0; b < system.numBodies(); ++b) {
    const Body& bd = system.body(b);
    switch (bd.kind) {
      case BodyKind::Ball2D: ps.addBall2D(bd.mass, bd.position.head<2>()); break;
      case BodyKind::Ball3D: ps.addBall3D(bd.mass, bd.position); break;
      case BodyKind::Rigid3D: ps.addRigidBody(bd.mass, bd.inertia, bd.position); break;
      case BodyKind::Static: ps.addStatic(bd.position); break;
    }
  }
  // Support of each kept n̄_i by body (round-off entries dropped).
  for (std::size_t c = 0; c < out.kept.size() && out.representable; ++c) {
    const auto col = out.N.col(static_cast<Eigen::Index>(c));
    const double cut = dropTolerance * col.cwiseAbs().maxCoeff();
    int bodies[2] = {-1, -1}, count = 0;
    for (int b = 0; b < system.numBodies(); ++b) {
      const Body& bd = system.body(b);
      if (bd.dofs == 0) continue;
      if (col.segment(bd.offset, bd.dofs).cwiseAbs().maxCoeff() <= cut) continue;
      if (count == 2) {
        count = 3;
        break;
      }
      bodies[count++] = b;
    }
    if (count > 2) {
      out.representable = false;
      out.firstSpread = out.kept[c];
      break;
    }
    auto block = [&](int b) -> Eigen::VectorXd {
      const Body& bd = system.body(b);
      Eigen::VectorXd g = col.segment(bd.offset, bd.dofs);
      for (Eigen::Index k = 0; k < g.size(); ++k)
        if (std::abs(g[k]) <= cut) g[k] = 0.0;
      return g;
    };
    const int idx = count == 2 ? ps.addConstraint(bodies[0], block(bodies[0]), bodies[1], block(bodies[1]))
                               : ps.addConstraint(bodies[0], block(bodies[0]));
    KINEMA_CHECK(idx == static_cast<int>(c), "anti-locking: projected constraint ", out.kept[c],
                 " was dropped by the impact system");
    out.scale.push_back(ps.constraint(idx).scale);
  }
  if (!out.representable) {
    out.system = ImpactSystem();
    out.scale.clear();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

double projectIterate(const ProjectedProblem& problem, Eigen::VectorXd& v) {
  const Eigen::MatrixXd& E = problem.lineality.E;
  if (E.cols() == 0) return 0.0;
  const double removed = 0.5 * (E.transpose() * v).squaredNorm();  // ½‖Eᵀv‖², EᵀM⁻¹E = I
  if (E.cols() >= v.size()) {
    v.setZero();  // Q̄ = {0}: P = 0 exactly (jammed box, test L11)
    return removed;
  }
  LinealityProjector(E, problem.Minv).projectVelocity(v);  // v <- v − M⁻¹E(Eᵀv)
  return removed;
}

DenseGsResult denseGaussSeidel(const ImpactSystem& system, const Eigen::MatrixXd& N, const Eigen::MatrixXd& MinvN,
                               bool relaxed, double epsilon, long maxIterations, Eigen::VectorXd& v,
                               Eigen::VectorXd& impulse) {
  DenseGsResult r;
  const Eigen::Index m = N.cols();
  const double norm0 = system.normM(v);
  double cur = norm0;
  for (long it = 0;; ++it) {
    const double tau = relaxed ? epsilon * cur : 0.0;
    Eigen::Index pick = -1;
    double s = 0.0;
    for (Eigen::Index i = 0; i < m; ++i) {  // lexicographic: the first violated (Algorithm 3)
      s = N.col(i).dot(v);
      if (s < -tau) {
        pick = i;
        break;
      }
    }
    if (pick < 0) {
      r.converged = true;
      break;
    }
    if (it >= maxIterations) break;
    const double lambda = -2.0 * s;  // eq. (1) with n̄ᵀM⁻¹n̄ = 1
    v.noalias() += lambda * MinvN.col(pick);
    impulse[pick] += lambda;
    r.iterations = it + 1;
    const double na = system.normM(v);
    if (relaxed && na > 0.0) {
      v *= norm0 / na;  // (ϵDRIFT)
      cur = norm0;
    } else {
      cur = na;
    }
  }
  return r;
}

}  // namespace kinema::impact
