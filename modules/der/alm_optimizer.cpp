// Algorithm 1 of the paper for one strand (see alm_optimizer.hpp and specs/der.md 2.9).
#include "modules/der/alm_optimizer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"
#include "framework/la/index_map.hpp"
#include "modules/der/rod_mass.hpp"

namespace kinema::der {

namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Free-DOF (4N-8) mass diagonal and gravity of rod_mass (computed once from the initial rest
// lengths, spec 1.7), the same M and f_ext the forward simulation uses.
void massAndGravity(const RestState& rest, const Material& m, std::vector<double>& mass, std::vector<double>& fext) {
  const std::vector<double> full = massDiagonal(rest.restLength, m);
  const std::vector<double> g = gravityForce(full, m.gravity);
  mass.assign(full.begin() + kFixedDofs, full.end());
  fext.assign(g.begin() + kFixedDofs, g.end());
}

}  // namespace

AlmOptimizer::AlmOptimizer(const std::vector<double>& q, const ReferenceFrames& frames, const Material& material,
                           const OptimizerOptions& options, const la::Backend& backend, int strandId)
    : AlmOptimizer(q, frames, material, restStateFrom(q, frames, material, true), {}, {}, options, backend, strandId) {}

AlmOptimizer::AlmOptimizer(const std::vector<double>& q, const ReferenceFrames& frames, const Material& material,
                           const RestState& initial, std::vector<double> massFree,
                           std::vector<double> externalForceFree, const OptimizerOptions& options,
                           const la::Backend& backend, int strandId)
    : options_(options),
      backend_(backend),
      strandId_(strandId),
      N_(static_cast<int>(initial.restLength.size()) + 1),
      rest0_(initial),
      model_([&] {
        if (massFree.empty() && externalForceFree.empty()) massAndGravity(initial, material, massFree, externalForceFree);
        return StrandForceModel(computeKinematics(q, frames), material.radius, initial.restLength.at(0),
                                stiffnessScale(initial), std::move(massFree), std::move(externalForceFree));
      }()),
      mprgp_(options.mprgp) {
  if (model_.vertices() != N_)
    throw InputError(str("der optimizer (strand ", strandId_, "): q has ", model_.vertices(),
                         " vertices but the rest state ", N_));
  synchronizeRestKappa(rest0_);
  options_.bounds.eta = options_.etaRatio * options_.bounds.mu;
  const double s = model_.scale();
  p0_ = toParameters(rest0_, s);
  p_ = p0_;
  w_ = parameterWeights(N_, options_.weightStiffness, options_.weightRest);
  box_ = parameterBounds(p0_, options_.bounds, options_.scheme);
  const std::size_t n = p0_.size(), m = static_cast<std::size_t>(constraintCount(N_));
  lambda_.assign(m, 0.0);
  prevDp_.assign(n, 0.0);
  f_.assign(m, 0.0);
  fTrial_.assign(m, 0.0);
  work_.assign(m, 0.0);
  pTrial_.assign(n, 0.0);
  grad_.assign(n, 0.0);
  dp_.assign(n, 0.0);
  b_.assign(n, 0.0);
  lo_.assign(n, 0.0);
  hi_.assign(n, 0.0);
  scaling_.assign(n, 1.0);
  J_.resize(N_);
  A_ = std::make_shared<BandedSymmetric>(static_cast<int>(n), kBcqpBandwidth);
  map_ = std::make_shared<la::IndexMap>(Comm::self(), static_cast<la::GlobalIndex>(n));
  op_ = std::make_shared<BandedOperator>(backend_, map_, A_);
  bVec_ = backend_.createVector(map_);
  loVec_ = backend_.createVector(map_);
  hiVec_ = backend_.createVector(map_);
  xVec_ = backend_.createVector(map_);
  prec_ = makeQpPreconditioner(options_.preconditioner, options_.qp, backend_);
  mprgp_.setPreconditioner(prec_);

  fextNorm_ = scaledNorm(std::vector<double>(model_.externalForce().begin(), model_.externalForce().end()));
  if (!(fextNorm_ > 0.0))
    throw InputError(str("der optimizer (strand ", strandId_, "): the external force is zero; the relative "
                         "residual is undefined"));
  model_.force(p_, f_);
  checkFinite(f_, "force f(p0)");
  stats_.initialResidual = stats_.residual = scaledNorm(f_) / fextNorm_;
}

void AlmOptimizer::checkFinite(const std::vector<double>& v, const char* what) const {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw Error(str("der optimizer: strand ", strandId_, ", iteration ", k_, ": ", what, " has a non-finite entry ",
                      v[i], " at index ", i));
}

double AlmOptimizer::scaledNorm(const std::vector<double>& f) const {
  const auto ism = model_.inverseSqrtMass();
  double s = 0.0;
  for (std::size_t r = 0; r < f.size(); ++r) {
    const double c = ism[r] * f[r];
    s += c * c;
  }
  return std::sqrt(s);
}

// Eq. 15: L = 1/2 ||p - p0||_W^2 + lambda^T M^-1/2 f + rho/2 ||M^-1/2 f||^2.
double AlmOptimizer::lagrangianOf(const std::vector<double>& p, const std::vector<double>& f) const {
  double R = 0.0;
  for (std::size_t a = 0; a < p.size(); ++a) {
    const double d = p[a] - p0_[a];
    R += w_[a] * d * d;
  }
  const auto ism = model_.inverseSqrtMass();
  double lc = 0.0, cc = 0.0;
  for (std::size_t r = 0; r < f.size(); ++r) {
    const double c = ism[r] * f[r];
    lc += lambda_[r] * c;
    cc += c * c;
  }
  return 0.5 * R + lc + 0.5 * options_.rho * cc;
}

double AlmOptimizer::lagrangian(const std::vector<double>& p) const {
  std::vector<double> f(f_.size());
  model_.force(p, f);
  return lagrangianOf(p, f);
}

double AlmOptimizer::relativeResidual() const { return relativeResidual(p_); }

double AlmOptimizer::relativeResidual(const std::vector<double>& p) const {
  std::vector<double> f(f_.size());
  model_.force(p, f);
  return scaledNorm(f) / fextNorm_;
}

void AlmOptimizer::assemble() {
  model_.force(p_, f_);
  checkFinite(f_, "force f");
  model_.jacobian(p_, J_);
  if (!J_.allFinite())
    throw Error(str("der optimizer: strand ", strandId_, ", iteration ", k_, ": the force Jacobian J has a "
                    "non-finite entry"));
  // Eq. 22 and Eq. 23.
  almGradient(J_, w_, p_, p0_, model_.inverseSqrtMass(), model_.inverseMass(), lambda_, options_.rho, f_, work_, grad_);
  checkFinite(grad_, "ALM gradient");
  assembleBcqpMatrix(J_, model_.inverseMass(), options_.rho, w_, *A_);
  for (std::size_t a = 0; a < p_.size(); ++a) {
    b_[a] = -grad_[a];
    lo_[a] = box_.lower[a] - p_[a];  // Delta p_min = p_min - p^k (Eq. 20)
    hi_[a] = box_.upper[a] - p_[a];
  }
}

BcqpInstance AlmOptimizer::currentBcqp(bool asSolved) {
  assemble();
  BcqpInstance qp{*A_, b_, lo_, hi_};
  if (asSolved && options_.scaleBcqp) scaleBcqp(qp);
  return qp;
}

std::vector<double> scaleBcqp(BcqpInstance& qp) {
  const int n = qp.A.size(), kd = qp.A.bandwidth();
  std::vector<double> S(static_cast<std::size_t>(n));
  for (int a = 0; a < n; ++a) S[static_cast<std::size_t>(a)] = 1.0 / std::sqrt(qp.A.at(a, a));
  for (int j = 0; j < n; ++j)
    for (int i = j; i < std::min(n, j + kd + 1); ++i) qp.A.at(i, j) *= S[static_cast<std::size_t>(i)] * S[static_cast<std::size_t>(j)];
  for (int a = 0; a < n; ++a) {
    const auto k = static_cast<std::size_t>(a);
    qp.b[k] *= S[k];
    qp.lower[k] /= S[k];
    qp.upper[k] /= S[k];
  }
  return S;
}

void AlmOptimizer::finish(const char* reason) {
  done_ = true;
  stats_.stopReason = reason;
}

bool AlmOptimizer::iterate() {
  if (done_) return true;
  if (k_ >= options_.kMax) {
    finish("k_max");
    return true;
  }
  AlmIterationStats it;
  it.iteration = k_;
  const auto t0 = Clock::now();
  assemble();
  const auto t1 = Clock::now();
  // Optional symmetric diagonal scaling: A <- S A S, b <- S b, bounds / S, x = S y with
  // S = diag(A)^-1/2 (a change of variables; the box stays a box, ASC's sweeps are unchanged).
  if (options_.scaleBcqp) {
    const int n = A_->size(), kd = A_->bandwidth();
    for (int a = 0; a < n; ++a) scaling_[a] = 1.0 / std::sqrt(A_->at(a, a));
    for (int j = 0; j < n; ++j)
      for (int i = j; i < std::min(n, j + kd + 1); ++i) A_->at(i, j) *= scaling_[i] * scaling_[j];
  }
  const bool ipm = options_.bcqpSolver == "ipm";
  const long factorizationsBefore = prec_->factorizations();
  if (!ipm) prec_->setMatrix(*A_);  // the one numeric factorisation of this BCQP (asc)
  const auto t2 = Clock::now();

  // BCQP (Eq. 20-21): b = -grad L, bounds Delta p_min/max, x0 = 0 or the previous step; by MPRGP
  // or, as the Table I baseline, by the interior-point method.
  solvers::MprgpStats ms;
  if (ipm) {
    const std::size_t n = p_.size();
    ipmB_.resize(n), ipmLo_.resize(n), ipmHi_.resize(n), ipmX_.assign(n, 0.0);
    for (std::size_t a = 0; a < n; ++a) {
      ipmB_[a] = scaling_[a] * b_[a];
      ipmLo_[a] = lo_[a] / scaling_[a];
      ipmHi_[a] = hi_[a] / scaling_[a];
    }
    const BoxQpIpmResult r = BoxQpIpm().solve(*A_, ipmB_, ipmLo_, ipmHi_, ipmX_);
    for (std::size_t a = 0; a < n; ++a) dp_[a] = scaling_[a] * std::min(std::max(ipmX_[a], ipmLo_[a]), ipmHi_[a]);
    ms.iterations = r.iterations;
    ms.converged = r.converged;
    ms.reason = r.reason;
    stats_.factorizations += r.factorizations;
  } else {
    {
      la::Vector::View bv = bVec_->view(), lv = loVec_->view(), hv = hiVec_->view(), xv = xVec_->view();
      for (std::size_t a = 0; a < p_.size(); ++a) {
        const double sa = scaling_[a];
        const auto i = static_cast<la::LocalIndex>(a);
        bv[i] = sa * b_[a];
        lv[i] = lo_[a] / sa;
        hv[i] = hi_[a] / sa;
        xv[i] = options_.warmStart ? std::min(std::max(prevDp_[a] / sa, lv[i]), hv[i]) : 0.0;
      }
    }
    mprgp_.setOperator(op_);
    ms = mprgp_.solve(*bVec_, *loVec_, *hiVec_, *xVec_);
    la::Vector::ConstView xv = xVec_->constView();
    for (std::size_t a = 0; a < p_.size(); ++a) dp_[a] = scaling_[a] * xv[static_cast<la::LocalIndex>(a)];
  }
  checkFinite(dp_, "Newton step dp");
  const auto t3 = Clock::now();
  it.mprgpIterations = ms.iterations;
  it.mprgpConverged = ms.converged;
  it.mprgpReason = ms.reason;
  double dpNorm = 0.0;
  for (double v : dp_) dpNorm += v * v;
  dpNorm = std::sqrt(dpNorm);
  it.stepNorm = dpNorm;

  ++stats_.newtonIterations;
  stats_.mprgpIterations += ms.iterations;
  if (!ms.converged) ++stats_.mprgpNotConverged;
  stats_.factorizations += prec_->factorizations() - factorizationsBefore;

  bool accepted = false;
  if (dpNorm > options_.epsP) {
    // Backtracking line search (spec 2.8): halve t until L(p + t dp, lambda^k) < L(p, lambda^k).
    // The trial point is clamped to the box, which only removes round-off of p + (pmin - p) and
    // keeps every iterate exactly feasible (E1); kbar is synchronised by construction (p holds
    // kbar_0, kbar_1 only, the force model uses (k0, k1, k0, k1)).
    const double L0 = lagrangianOf(p_, f_);
    it.lagrangianBefore = L0;
    double t = 1.0;
    while (true) {
      for (std::size_t a = 0; a < p_.size(); ++a)
        pTrial_[a] = std::min(std::max(p_[a] + t * dp_[a], box_.lower[a]), box_.upper[a]);
      model_.force(pTrial_, fTrial_);
      const double Lt = lagrangianOf(pTrial_, fTrial_);
      if (Lt < L0) {
        accepted = true;
        it.lagrangianAfter = Lt;
        it.stepLength = t;
        break;
      }
      if (it.halvings >= options_.lineSearchMaxHalvings || t * 0.5 < options_.lineSearchMinStep) break;
      t *= 0.5;
      ++it.halvings;
    }
  }
  const auto t4 = Clock::now();
  stats_.lineSearchHalvings += it.halvings;

  if (accepted) {
    p_.swap(pTrial_);
    f_.swap(fTrial_);
    checkFinite(p_, "parameters p");
    checkFinite(f_, "force f");
    if (options_.scheme == Scheme::Alm) {  // Eq. 13 with c = M^-1/2 f
      const auto ism = model_.inverseSqrtMass();
      for (std::size_t r = 0; r < lambda_.size(); ++r) lambda_[r] += options_.rho * ism[r] * f_[r];
    }
    prevDp_ = dp_;
    ++k_;
  }
  stats_.residual = scaledNorm(f_) / fextNorm_;
  it.residual = stats_.residual;
  for (std::size_t a = 0; a < p_.size(); ++a)
    if (box_.lower[a] != box_.upper[a] && (p_[a] == box_.lower[a] || p_[a] == box_.upper[a])) ++it.activeBounds;
  it.assemblySeconds = seconds(t0, t1);
  it.factorSeconds = seconds(t1, t2);
  it.mprgpSeconds = seconds(t2, t3);
  it.lineSearchSeconds = seconds(t3, t4);
  stats_.assemblySeconds += it.assemblySeconds;
  stats_.factorSeconds += it.factorSeconds;
  stats_.mprgpSeconds += it.mprgpSeconds;
  stats_.lineSearchSeconds += it.lineSearchSeconds;
  stats_.history.push_back(std::move(it));

  if (dpNorm <= options_.epsP) finish("step_small");
  else if (!accepted) finish("line_search");
  else if (k_ >= options_.kMax) finish("k_max");
  return done_;
}

const AlmStats& AlmOptimizer::run() {
  while (!iterate()) {
  }
  return stats_;
}

AlmState AlmOptimizer::state() const {
  AlmState s;
  s.p = p_;
  s.lambda = lambda_;
  s.previousStep = prevDp_;
  s.k = k_;
  s.done = done_;
  s.stats = stats_;
  return s;
}

void AlmOptimizer::restore(const AlmState& s) {
  if (s.p.size() != p_.size() || s.lambda.size() != lambda_.size() || s.previousStep.size() != prevDp_.size())
    throw InputError(str("der optimizer (strand ", strandId_, "): the saved state has ", s.p.size(), " parameters and ",
                         s.lambda.size(), " multipliers; this strand has ", p_.size(), " and ", lambda_.size()));
  p_ = s.p;
  lambda_ = s.lambda;
  prevDp_ = s.previousStep;
  k_ = s.k;
  done_ = s.done;
  stats_ = s.stats;
  model_.force(p_, f_);
}

RestState AlmOptimizer::restState() const {
  RestState r = rest0_;
  fromParameters(p_, model_.scale(), r);
  return r;
}

RestState AlmOptimizer::initialRestState() const {
  RestState r = rest0_;
  fromParameters(p0_, model_.scale(), r);
  return r;
}

}  // namespace kinema::der
