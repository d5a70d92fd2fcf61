#include "modules/bdem/constrained_formulations.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "framework/core/error.hpp"
#include "framework/solvers/manifold_euclidean.hpp"
#include "framework/solvers/newton_psd.hpp"
#include "modules/bdem/bond_energy.hpp"
#include "modules/bdem/contact_energy.hpp"

namespace kinema::bdem {

namespace {

using Mat7 = Eigen::Matrix<double, 7, 7>;
using Vec7 = Eigen::Matrix<double, 7, 1>;

// ---------------------------------------------------------------------------------------------
// Euclidean (7 per particle) evaluation of Phi (Eq. 6) plus sum_a lambda_a C_a + 1/2 kappa_a C_a^2
// (Eqs. 36-38). The state of a non-free particle is read from System::P, as in
// IncrementalPotential.
class EuclideanForm {
 public:
  EuclideanForm(IncrementalPotential& phi, int stride) : phi_(phi), s_(phi.system()), stride_(stride) {
    lambda_.assign(s_.P.size(), 0.0);
    kappa_.assign(s_.P.size(), 0.0);
  }
  std::vector<double>& lambda() { return lambda_; }
  std::vector<double>& kappa() { return kappa_; }
  bool free(std::size_t a) const { return s_.P.dof[a] == Dof::Free; }
  Vec3 p(const double* X, std::size_t a) const {
    if (!free(a)) return s_.P.p[a];
    const double* b = X + stride_ * a;
    return Vec3(b[0], b[1], b[2]);
  }
  Vec4 q(const double* X, std::size_t a) const {
    if (!free(a)) return s_.P.q[a];
    const double* b = X + stride_ * a;
    return Vec4(b[3], b[4], b[5], b[6]);
  }
  static double C(const Vec4& q) { return 0.5 * (q.squaredNorm() - 1.0); }  // Eq. 54

  double energy(const double* X) const {
    double f = 0;
    const double idt2 = 1.0 / (phi_.dt() * phi_.dt());
    for (std::size_t a = 0; a < s_.P.numOwned; ++a) {
      if (!free(a)) continue;
      const Vec3 pa = p(X, a);
      const Vec4 qa = q(X, a);
      f += 0.5 * idt2 * (s_.P.m[a] * (pa - phi_.pHat()[a]).squaredNorm() +
                         s_.P.rotationalMass(a) * (qa - phi_.qHat()[a]).squaredNorm());
      f -= s_.P.m[a] * s_.gravity.dot(pa);
      if (a < s_.load.size()) f -= s_.load[a].dot(pa);  // external load (loads.hpp), like gravity
      for (const Obstacle& o : s_.obstacles) f += obstacleContactEnergy(phi_.kc(), o, phi_.timeNext(), s_.P.r[a], pa);
      const double c = C(qa);
      f += lambda_[a] * c + 0.5 * kappa_[a] * c * c;
    }
    for (const Bond& b : s_.bonds) {
      if (!b.alive) continue;
      const auto i = static_cast<std::size_t>(b.i), j = static_cast<std::size_t>(b.j);
      f += bondEnergy(b, s_.model, p(X, i), q(X, i), p(X, j), q(X, j)).total();
    }
    for (const ContactCandidate& c : phi_.candidates()) {
      const auto i = static_cast<std::size_t>(c.i), j = static_cast<std::size_t>(c.j);
      f += pairContactEnergy(phi_.kec(), s_.P.r[i], s_.P.r[j], p(X, i), p(X, j));
    }
    return phi_.comm().sum(f);
  }

  // Euclidean gradient into G (stride per block, first 7 entries), local blocks incl. ghosts.
  // Also sums the magnitudes of the terms acting on free particles (torques over r), the force
  // scale of measure() (the relative residual of IncrementalPotential::convergenceMeasure).
  void gradient(const double* X, double* G) const {
    const double idt2 = 1.0 / (phi_.dt() * phi_.dt());
    forceSum_ = 0;
    freeCount_ = 0;
    auto add7 = [&](std::size_t a, const Vec3& gp, const Vec4& gq) {  // an element's share on a
      for (int k = 0; k < 3; ++k) G[stride_ * a + k] += gp[k];
      for (int k = 0; k < 4; ++k) G[stride_ * a + 3 + k] += gq[k];
      if (free(a)) forceSum_ += gp.norm() + gq.norm() / s_.P.r[a];
    };
    for (std::size_t a = 0; a < s_.P.numOwned; ++a) {
      if (!free(a)) continue;
      freeCount_ += 1;
      const Vec3 pa = p(X, a);
      const Vec4 qa = q(X, a);
      const Vec3 gInertia = s_.P.m[a] * idt2 * (pa - phi_.pHat()[a]);
      const Vec3 gGravity = -s_.P.m[a] * s_.gravity;
      Vec3 gp = gInertia + gGravity;
      double terms = gInertia.norm() + gGravity.norm();
      if (a < s_.load.size()) {  // external load (loads.hpp): -f, like gravity
        gp -= s_.load[a];
        terms += s_.load[a].norm();
      }
      for (const Obstacle& o : s_.obstacles) {
        Vec3 go = Vec3::Zero();
        obstacleContactEnergy(phi_.kc(), o, phi_.timeNext(), s_.P.r[a], pa, &go);
        gp += go;
        terms += go.norm();
      }
      const Vec4 gq = s_.P.rotationalMass(a) * idt2 * (qa - phi_.qHat()[a]) + (lambda_[a] + kappa_[a] * C(qa)) * qa;
      add7(a, gp, gq);
      forceSum_ += terms - gp.norm();  // the terms one by one instead of their sum
    }
    for (const Bond& b : s_.bonds) {
      if (!b.alive) continue;
      const auto i = static_cast<std::size_t>(b.i), j = static_cast<std::size_t>(b.j);
      Vec14 g = Vec14::Zero();
      bondEnergy(b, s_.model, p(X, i), q(X, i), p(X, j), q(X, j), &g);
      add7(i, g.segment<3>(0), g.segment<4>(3));
      add7(j, g.segment<3>(7), g.segment<4>(10));
    }
    for (const ContactCandidate& c : phi_.candidates()) {
      const auto i = static_cast<std::size_t>(c.i), j = static_cast<std::size_t>(c.j);
      Vec6 g = Vec6::Zero();
      pairContactEnergy(phi_.kec(), s_.P.r[i], s_.P.r[j], p(X, i), p(X, j), &g);
      add7(i, g.segment<3>(0), Vec4::Zero());
      add7(j, g.segment<3>(3), Vec4::Zero());
    }
    for (std::size_t a = 0; a < s_.P.size(); ++a)
      if (!free(a))
        for (int k = 0; k < 7; ++k) G[stride_ * a + k] = 0.0;
  }

  // Hessian as 7 x 7 blocks sink(I, J, block); element blocks PSD-projected when `project`.
  template <class Sink>
  void hessian(const double* X, bool project, Sink&& sink) const {
    const double idt2 = 1.0 / (phi_.dt() * phi_.dt());
    for (std::size_t a = 0; a < s_.P.numOwned; ++a) {
      const GlobalId I = s_.P.gid[a];
      if (!free(a)) {
        sink(I, I, Mat7::Identity().eval());
        continue;
      }
      const Vec3 pa = p(X, a);
      const Vec4 qa = q(X, a);
      Mat7 D = Mat7::Zero();
      D.block<3, 3>(0, 0).diagonal().setConstant(s_.P.m[a] * idt2);
      for (const Obstacle& o : s_.obstacles) {
        Mat3 ho = Mat3::Zero();
        obstacleContactEnergy(phi_.kc(), o, phi_.timeNext(), s_.P.r[a], pa, nullptr, &ho);
        D.block<3, 3>(0, 0) += ho;
      }
      // Constraint terms: grad (lambda + kappa C) q, Hessian (lambda + kappa C) I4 + kappa q q^T.
      Eigen::Matrix4d Hq = (s_.P.rotationalMass(a) * idt2 + lambda_[a] + kappa_[a] * C(qa)) * Eigen::Matrix4d::Identity() +
                           kappa_[a] * qa * qa.transpose();
      if (project) solvers::projectPSD<4>(Hq);
      D.block<4, 4>(3, 3) = Hq;
      sink(I, I, D);
    }
    for (const Bond& b : s_.bonds) {
      if (!b.alive) continue;
      const auto i = static_cast<std::size_t>(b.i), j = static_cast<std::size_t>(b.j);
      Mat14 h = Mat14::Zero();
      bondEnergy(b, s_.model, p(X, i), q(X, i), p(X, j), q(X, j), nullptr, &h);
      element2(i, j, h, project, sink);
    }
    for (const ContactCandidate& c : phi_.candidates()) {
      const auto i = static_cast<std::size_t>(c.i), j = static_cast<std::size_t>(c.j);
      Mat6 hc = Mat6::Zero();
      if (pairContactEnergy(phi_.kec(), s_.P.r[i], s_.P.r[j], p(X, i), p(X, j), nullptr, &hc) <= 0) continue;
      Mat14 h = Mat14::Zero();
      h.block<3, 3>(0, 0) = hc.block<3, 3>(0, 0);
      h.block<3, 3>(0, 7) = hc.block<3, 3>(0, 3);
      h.block<3, 3>(7, 0) = hc.block<3, 3>(3, 0);
      h.block<3, 3>(7, 7) = hc.block<3, 3>(3, 3);
      element2(i, j, h, false, sink);
    }
  }

  // Relative force residual on a Euclidean gradient (as IncrementalPotential::convergenceMeasure):
  // max_a max(|g_p|, |g_q| / r) over the mean summed term magnitude of the last gradient().
  double measure(const double* G) const {
    double res = 0;
    for (std::size_t a = 0; a < s_.P.numOwned; ++a) {
      if (!free(a)) continue;
      const double* b = G + stride_ * a;
      const double gp = Eigen::Map<const Eigen::Vector3d>(b).norm();
      const double gq = Eigen::Map<const Eigen::Vector4d>(b + 3).norm();
      res = std::max({res, gp, gq / s_.P.r[a]});
      if (!std::isfinite(gp + gq)) res = std::numeric_limits<double>::infinity();
    }
    const double n = phi_.comm().sum(freeCount_);
    const double scale = std::max(n > 0 ? phi_.comm().sum(forceSum_) / n : 0.0, phi_.forceScaleFloor());
    return phi_.comm().max(res) / scale;
  }
  double maxViolation(const double* X) const {
    double c = 0;
    for (std::size_t a = 0; a < s_.P.numOwned; ++a)
      if (free(a)) c = std::max(c, std::abs(C(q(X, a))));
    return phi_.comm().max(c);
  }

 private:
  template <class Sink>
  void element2(std::size_t i, std::size_t j, Mat14 h, bool project, Sink&& sink) const {
    const bool fi = free(i), fj = free(j);
    if (!fi && !fj) return;
    if (!fi) {
      h.topRows<7>().setZero();
      h.leftCols<7>().setZero();
    }
    if (!fj) {
      h.bottomRows<7>().setZero();
      h.rightCols<7>().setZero();
    }
    if (project) solvers::projectPSD<14>(h);
    const std::array<GlobalId, 2> I{s_.P.gid[i], s_.P.gid[j]};
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) sink(I[a], I[b], h.block<7, 7>(7 * a, 7 * b).eval());
  }

  IncrementalPotential& phi_;
  const System& s_;
  int stride_;
  std::vector<double> lambda_, kappa_;
  mutable double forceSum_ = 0, freeCount_ = 0;  // force scale of the last gradient()
};

// Penalty / augmented Lagrangian as a Euclidean NewtonProblem (block 7).
class PenaltyProblem final : public solvers::NewtonProblem {
 public:
  PenaltyProblem(EuclideanForm& form) : form_(form) {}
  double energy(const la::Vector& x) override {
    la::Vector::ConstView r = x.constView();
    return form_.energy(r.data());
  }
  void gradient(const la::Vector& x, la::Vector& g) override {
    {
      la::Vector::ConstView r = x.constView();
      la::Vector::View w = g.view();
      std::fill(w.all().begin(), w.all().end(), 0.0);
      form_.gradient(r.data(), w.data());
    }
    g.accumulateGhosts();
  }
  void hessian(const la::Vector& x, solvers::ReducedHessian& H) override {
    la::Vector::ConstView r = x.constView();
    form_.hessian(r.data(), true, [&](GlobalId I, GlobalId J, const Mat7& b) { H.addBlock(I, J, b); });
  }
  double convergenceMeasure(const la::Vector& x, const la::Vector& g) override {
    (void)x;
    la::Vector::ConstView r = g.constView();
    return form_.measure(r.data());
  }

 private:
  EuclideanForm& form_;
};

void normaliseQuaternions(la::Vector& x, int stride, const System& s) {
  {
    la::Vector::View w = x.view();
    for (std::size_t a = 0; a < s.P.size(); ++a) {
      Eigen::Map<Eigen::Vector4d> q(w.data() + stride * a + 3);
      if (s.P.dof[a] == Dof::Free && q.norm() > 0) q.normalize();
    }
  }
  x.updateGhosts();
}

// ---------------------------------------------------------------------------------------------
// Lagrange formulation (Eq. 37): KKT unknowns z in blocks of 8, (p, q, lambda) per particle.

// z = (x, lambda_0 = 0) from the point vector x (block 7).
void packKkt(const la::Vector& x, la::Vector& z, std::size_t n) {
  la::Vector::ConstView xr = x.constView();
  la::Vector::View w = z.view();
  for (std::size_t a = 0; a < n; ++a) {
    for (int k = 0; k < 7; ++k) w[static_cast<la::LocalIndex>(8 * a + k)] = xr[static_cast<la::LocalIndex>(7 * a + k)];
    w[static_cast<la::LocalIndex>(8 * a + 7)] = 0.0;  // lambda_0
  }
}

// The point vector x (block 7) from z, the multipliers dropped.
void unpackKkt(const la::Vector& z, la::Vector& x, std::size_t n) {
  la::Vector::ConstView zr = z.constView();
  la::Vector::View w = x.view();
  for (std::size_t a = 0; a < n; ++a)
    for (int k = 0; k < 7; ++k) w[static_cast<la::LocalIndex>(7 * a + k)] = zr[static_cast<la::LocalIndex>(8 * a + k)];
}

// Residual of the KKT conditions (Eq. 37): (grad Phi + lambda q, C(q)); lambda read from z.
void kktResidual(EuclideanForm& form, const System& s, std::size_t n, la::Vector& Z, la::Vector& R) {
  la::Vector::ConstView zr = Z.constView();
  for (std::size_t a = 0; a < n; ++a) form.lambda()[a] = zr[static_cast<la::LocalIndex>(8 * a + 7)];
  la::Vector::View rw = R.view();
  std::fill(rw.all().begin(), rw.all().end(), 0.0);
  form.gradient(zr.data(), rw.data());
  for (std::size_t a = 0; a < n; ++a)
    rw[static_cast<la::LocalIndex>(8 * a + 7)] = s.P.dof[a] == Dof::Free ? EuclideanForm::C(form.q(zr.data(), a)) : 0.0;
}

// The KKT matrix at z: the Hessian of Phi (unprojected) bordered by the constraint gradients q.
la::MatrixPtr assembleKkt(const EuclideanForm& form, const System& s, std::size_t n, const la::Vector& z,
                          la::MatrixAssembler& asmb) {
  using Mat8 = Eigen::Matrix<double, 8, 8>;
  asmb.begin();
  {
    la::Vector::ConstView zr = z.constView();
    form.hessian(zr.data(), false, [&](GlobalId I, GlobalId J, const Mat7& b) {
      Mat8 B = Mat8::Zero();
      B.topLeftCorner<7, 7>() = b;
      asmb.addBlock(I, J, B);
    });
    for (std::size_t a = 0; a < n; ++a) {  // the constraint rows/columns [0, q; q^T, 0]
      Mat8 B = Mat8::Zero();
      if (s.P.dof[a] == Dof::Free) {
        const Vec4 qa = form.q(zr.data(), a);
        B.block<4, 1>(3, 7) = qa;
        B.block<1, 4>(7, 3) = qa.transpose();
      } else {
        B(7, 7) = 1.0;
      }
      asmb.addBlock(s.P.gid[a], s.P.gid[a], B);
    }
  }
  return asmb.end();
}

// The linear solver of the KKT systems: bdem.kkt_solver, no preconditioner, rtol kKktRtol.
la::LinearSolverPtr createKktSolver(const la::Backend& backend, const IntegratorOptions& opt) {
  la::LinearSolverOptions lo = opt.newton.linear;
  lo.type = opt.kktSolver;
  lo.preconditioner = "none";
  lo.rtol = kKktRtol;  // type, preconditioner and rtol: reported at set-up when they differ from the user's
  return backend.createLinearSolver(lo);
}

// Whether the KKT iteration stops before step k (res.reason set): non-finite, converged or out of iterations.
bool kktStops(VariantResult& res, const IntegratorOptions& opt, int k) {
  if (!std::isfinite(res.measure)) {
    res.reason = SolverOutcome::NonFinite;
    return true;
  }
  if (res.measure <= opt.tolerance && res.constraintViolation <= opt.constraintTolerance) {
    res.converged = true;
    res.reason = SolverOutcome::Gtol;
    return true;
  }
  if (k >= opt.newton.maxIterations) {
    res.reason = SolverOutcome::MaxIterations;
    return true;
  }
  return false;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
VariantResult solveFirstOrder(IncrementalPotential& phi, const solvers::RigidManifold& manifold,
                              const la::Backend& backend, const IntegratorOptions& opt, la::Vector& x,
                              const IterationObserver& observer) {
  VariantResult res;
  const System& s = phi.system();
  const la::IndexMapPtr tmap = manifold.tangentMap(x.mapPtr());
  la::VectorPtr g = backend.createVector(tmap), y = backend.createVector(tmap);
  la::VectorPtr xt = x.clone();
  const double dt2 = phi.dt() * phi.dt();
  const solvers::NewtonOptions& no = opt.newton;
  x.updateGhosts();
  double f = phi.energy(x);
  double alphaPrev = 1.0;
  for (int k = 0;; ++k) {
    phi.gradient(x, *g);
    res.measure = phi.convergenceMeasure(x, *g);
    if (!std::isfinite(f) || !std::isfinite(res.measure)) {
      res.reason = SolverOutcome::NonFinite;
      break;
    }
    if (res.measure <= opt.tolerance) {
      res.converged = true;
      res.reason = SolverOutcome::Gtol;
      break;
    }
    if (k >= opt.maxFirstOrderIterations) {
      res.reason = SolverOutcome::MaxIterations;
      break;
    }
    {  // y = -M^{-1} g_red, M the reduced inertia (the kinetic metric)
      la::Vector::ConstView gr = g->constView();
      la::Vector::View yw = y->view();
      std::fill(yw.all().begin(), yw.all().end(), 0.0);
      for (std::size_t a = 0; a < s.P.numOwned; ++a) {
        if (s.P.dof[a] != Dof::Free) continue;
        const double sp = dt2 / s.P.m[a], sy = dt2 / s.P.rotationalMass(a);
        for (int c = 0; c < 3; ++c) {
          yw[static_cast<la::LocalIndex>(6 * a + c)] = -sp * gr[static_cast<la::LocalIndex>(6 * a + c)];
          yw[static_cast<la::LocalIndex>(6 * a + 3 + c)] = -sy * gr[static_cast<la::LocalIndex>(6 * a + 3 + c)];
        }
      }
    }
    const double slope = g->dot(*y);
    double alpha = std::min({1.0, 2.0 * alphaPrev, manifold.maxStep(*y)});
    bool accepted = false;
    double ft = f;
    for (int t = 0; t < no.maxLineSearch; ++t, alpha *= no.shrink) {
      xt->copy(x);
      manifold.retract(*xt, *y, alpha);
      ft = phi.energy(*xt);
      ++res.lineSearchTrials;
      const double slack = no.energyNoise * std::max(std::abs(f), std::abs(ft));
      if (std::isfinite(ft) && ft - f <= no.armijoC1 * alpha * slope + slack) {
        accepted = true;
        break;
      }
    }
    if (!accepted) {
      res.reason = SolverOutcome::LineSearchFailed;
      break;
    }
    alphaPrev = alpha;
    x.copy(*xt);
    x.updateGhosts();
    f = ft;
    res.iterations = k + 1;
    if (observer) observer(k + 1, f);
  }
  return res;
}

VariantResult solvePenalty(IncrementalPotential& phi, const la::Backend& backend, const IntegratorOptions& opt,
                           bool augmented, la::Vector& x, const IterationObserver& observer) {
  VariantResult res;
  res.outerIterations = 0;
  const System& s = phi.system();
  EuclideanForm form(phi, 7);
  const double idt2 = 1.0 / (phi.dt() * phi.dt());
  for (std::size_t a = 0; a < s.P.size(); ++a) form.kappa()[a] = opt.penaltyKappa * s.P.rotationalMass(a) * idt2;
  solvers::EuclideanManifold manifold(7);
  solvers::NewtonOptions no = opt.newton;
  no.gtolAbs = opt.tolerance;
  no.gtolRel = 0.0;
  solvers::NewtonSolver newton(backend, manifold, no);
  int total = 0;
  if (observer)
    newton.setObserver([&](int k, const la::Vector& xk, const solvers::NewtonStats&) {
      la::Vector::ConstView r = xk.constView();
      observer(total + k, form.energy(r.data()));
    });
  PenaltyProblem problem(form);
  const int outerMax = augmented ? std::max(1, opt.maxOuterIterations) : 1;
  for (int outer = 0; outer < outerMax; ++outer) {
    const solvers::NewtonStats st = newton.solve(problem, x);
    total += st.iterations;
    res.iterations += st.iterations;
    res.linearIterations += st.linearIterations;
    res.lineSearchTrials += st.lineSearchTrials;
    res.measure = st.finalMeasure;
    res.reason = st.reason;
    ++res.outerIterations;
    {
      la::Vector::ConstView r = x.constView();
      res.constraintViolation = form.maxViolation(r.data());
    }
    res.converged = st.converged && (!augmented || res.constraintViolation <= opt.constraintTolerance);
    if (!st.converged || !augmented || res.converged) break;
    la::Vector::ConstView r = x.constView();  // Eq. 38 multiplier update lambda += kappa C
    for (std::size_t a = 0; a < s.P.numOwned; ++a)
      if (s.P.dof[a] == Dof::Free) form.lambda()[a] += form.kappa()[a] * EuclideanForm::C(form.q(r.data(), a));
  }
  if (augmented && !res.converged && res.reason == SolverOutcome::Gtol) res.reason = SolverOutcome::ConstraintNotMet;
  normaliseQuaternions(x, 7, s);  // q normalised only for output (§6.2, Eqs. 36-38)
  return res;
}

VariantResult solveLagrange(IncrementalPotential& phi, const la::Backend& backend, const IntegratorOptions& opt,
                            la::Vector& x, const IterationObserver& observer) {
  const Comm& comm = phi.comm();
  if (comm.size() > 1)
    throw InputError(str("bdem: the 'lagrange' solver (Eq. 37, KKT system) runs on one rank only; got ", comm.size(),
                         " ranks (use newton, first_order, penalty or augmented_lagrangian)"));
  VariantResult res;
  System& s = phi.system();
  const std::size_t n = s.P.size();
  auto map8 = std::make_shared<const la::IndexMap>(comm, static_cast<la::GlobalIndex>(n),
                                                   std::vector<la::GlobalIndex>{}, 8);
  la::VectorPtr z = backend.createVector(map8), zt = backend.createVector(map8), r = backend.createVector(map8),
                dz = backend.createVector(map8), rhs = backend.createVector(map8);
  packKkt(x, *z, n);
  EuclideanForm form(phi, 8);
  auto residual = [&](la::Vector& Z, la::Vector& R) { kktResidual(form, s, n, Z, R); };
  auto measure = [&](la::Vector& Z, la::Vector& R) {
    la::Vector::ConstView rr = R.constView();
    la::Vector::ConstView zr = Z.constView();
    res.constraintViolation = form.maxViolation(zr.data());
    return form.measure(rr.data());
  };
  std::unique_ptr<la::MatrixAssembler> asmb = backend.createAssembler(map8, map8);
  la::LinearSolverPtr solver = createKktSolver(backend, opt);
  residual(*z, *r);
  for (int k = 0;; ++k) {
    res.measure = measure(*z, *r);
    if (kktStops(res, opt, k)) break;
    la::MatrixPtr K = assembleKkt(form, s, n, *z, *asmb);
    solver->setOperator(K);
    rhs->copy(*r);
    rhs->scale(-1.0);
    dz->set(0.0);
    const la::SolverStats ls = solver->solve(*rhs, *dz);
    res.linearIterations += ls.iterations;
    // Backtracking on the residual norm (a saddle point: no energy to decrease).
    const double r0 = r->norm2();
    double alpha = 1.0;
    bool accepted = false;
    for (int t = 0; t < opt.newton.maxLineSearch; ++t, alpha *= 0.5) {
      zt->copy(*z);
      zt->axpy(alpha, *dz);
      residual(*zt, *r);
      ++res.lineSearchTrials;
      const double rt = r->norm2();
      if (std::isfinite(rt) && rt <= (1.0 - 1e-4 * alpha) * r0) {
        accepted = true;
        break;
      }
    }
    if (!accepted) {
      residual(*z, *r);
      res.reason = SolverOutcome::LineSearchFailed;
      break;
    }
    z->copy(*zt);
    res.iterations = k + 1;
    if (observer) {
      la::Vector::ConstView zr = z->constView();
      observer(k + 1, form.energy(zr.data()));
    }
  }
  unpackKkt(*z, x, n);
  normaliseQuaternions(x, 7, s);
  return res;
}

}  // namespace kinema::bdem
