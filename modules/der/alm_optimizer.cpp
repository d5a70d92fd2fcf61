// Algorithm 1 of the paper for one strand (see alm_optimizer.hpp and the paper's §IV-F).
#include "modules/der/alm_optimizer.hpp"

#include <algorithm>
#include <atomic>
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
// lengths, README decision 28), the same M and f_ext the forward simulation uses.
void massAndGravity(const RestState& rest, const Material& m, std::vector<double>& mass, std::vector<double>& fext) {
  const std::vector<double> full = massDiagonal(rest.restLength, m);
  const std::vector<double> g = gravityForce(full, m.gravity);
  mass.assign(full.begin() + kFixedDofs, full.end());
  fext.assign(g.begin() + kFixedDofs, g.end());
}

std::atomic<std::uint64_t> nextOptimizerId{1};

bool sameSolver(const OptimizerOptions& o, const std::string& prec, const QpPreconditionerOptions& q,
                const solvers::MprgpOptions& m) {
  const QpPreconditionerOptions& a = o.qp;
  const solvers::MprgpOptions& b = o.mprgp;
  return o.preconditioner == prec && a.pivotFloor == q.pivotFloor && a.wjacobiOmega == q.wjacobiOmega &&
         a.wjacobiSweeps == q.wjacobiSweeps && a.ssorOmega == q.ssorOmega && a.micTau == q.micTau &&
         a.micSigma == q.micSigma && b.gamma == m.gamma && b.alphaRule == m.alphaRule &&
         b.alphaFactor == m.alphaFactor && b.alphaFixed == m.alphaFixed && b.powerIterations == m.powerIterations &&
         b.rtol == m.rtol && b.atol == m.atol && b.maxIterations == m.maxIterations;
}

}  // namespace

AlmWorkspace::AlmWorkspace(const OptimizerOptions& options, const la::Backend& backend)
    : backend_(backend),
      preconditioner_(options.preconditioner),
      qpOptions_(options.qp),
      A_(std::make_shared<BandedSymmetric>()),
      prec_(makeQpPreconditioner(options.preconditioner, options.qp, backend)),
      mprgp_(options.mprgp) {
  mprgp_.setPreconditioner(prec_);
}

void AlmWorkspace::resize(int N) {
  if (N == N_) return;
  const std::size_t n = static_cast<std::size_t>(parameterCount(N)), m = static_cast<std::size_t>(constraintCount(N));
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
  J_.resize(N);
  A_->resize(static_cast<int>(n), kBcqpBandwidth);
  map_ = std::make_shared<la::IndexMap>(Comm::self(), static_cast<la::GlobalIndex>(n));
  op_ = std::make_shared<BandedOperator>(backend_, map_, A_);
  bVec_ = backend_.createVector(map_);
  loVec_ = backend_.createVector(map_);
  hiVec_ = backend_.createVector(map_);
  xVec_ = backend_.createVector(map_);
  N_ = N;
}

AlmOptimizer::AlmOptimizer(const std::vector<double>& q, const ReferenceFrames& frames, const Material& material,
                           const OptimizerOptions& options, const la::Backend& backend, int strandId,
                           std::shared_ptr<AlmWorkspace> workspace)
    : options_(options),
      backend_(backend),
      strandId_(strandId),
      q_(q),
      material_(material),
      frames_(frames),
      rest0_(restStateFrom(q, frames, material, true)),
      id_(nextOptimizerId++),
      ws_(std::move(workspace)) {
  N_ = static_cast<int>(rest0_.restLength.size()) + 1;
  init(false);
}

AlmOptimizer::AlmOptimizer(std::vector<double> q, const Material& material, const OptimizerOptions& options,
                           const la::Backend& backend, int strandId, std::shared_ptr<AlmWorkspace> workspace)
    : options_(options),
      backend_(backend),
      strandId_(strandId),
      N_(vertexCount(q)),
      q_(std::move(q)),
      material_(material),
      id_(nextOptimizerId++),
      ws_(std::move(workspace)) {
  init(true);
}

AlmOptimizer::~AlmOptimizer() {
  if (ws_ && ws_->owner_ == id_) ws_->owner_ = 0;
}

void AlmOptimizer::init(bool deferred) {
  if (!ws_) ws_ = std::make_shared<AlmWorkspace>(options_, backend_);
  if (!sameSolver(options_, ws_->preconditioner_, ws_->qpOptions_, ws_->mprgp_.options()))
    throw Error(str("der optimizer (strand ", strandId_, "): the shared workspace was made for other "
                    "preconditioner or MPRGP options"));
  options_.bounds.eta = options_.etaRatio * options_.bounds.mu;
  if (!deferred) bound();  // builds the workspace for the strand and starts the state (start())
}

// The initial state p = p0, lambda = 0 and the initial residual, from the workspace just built for
// the strand (bound() calls it on the first build, unless restore() gave the state).
void AlmOptimizer::start(const AlmWorkspace& w) const {
  p_ = w.p0_;
  lambda_.assign(static_cast<std::size_t>(constraintCount(N_)), 0.0);
  prevDp_.assign(p_.size(), 0.0);
  std::vector<double>& f = ws_->f_;
  w.model_.force(p_, f);
  checkFinite(f, "force f(p0)");
  stats_.initialResidual = stats_.residual = scaledNorm(f) / fextNorm_;
  started_ = true;
}

AlmWorkspace& AlmOptimizer::bound() const {
  AlmWorkspace& w = *ws_;
  if (w.owner_ == id_) return w;
  w.owner_ = 0;  // invalid until rebuilt (an exception below leaves it so)
  // The same functions on the same inputs as when the optimiser was constructed: bitwise the
  // same frames, initial rest state, mass, force model, p0, W and box.
  const ReferenceFrames* frames = &frames_;
  if (frames_.a1.empty()) {
    initialFrames(q_, w.frames_);
    frames = &w.frames_;
  }
  // The kinematics of (q, frames) are computed once, into the model, and the rest state (when it
  // is not given) is taken from them: bitwise restStateFrom(q, frames), which computes the same
  // kinematics (computeKinematics, 4D curvature) again.
  const RodKinematics& K = w.model_.setKinematics(q_, *frames);
  const RestState* rest0 = &rest0_;
  if (rest0_.restLength.empty()) {
    restStateFrom(K, material_, true, w.rest0_);
    rest0 = &w.rest0_;
  }
  massAndGravity(*rest0, material_, w.mass_, w.fext_);
  // The model takes the scale of the rest state as given; p0 that of the synchronised copy (README
  // decision 11), as the optimiser always did.
  w.model_.rebuild(material_.radius, rest0->restLength.at(0), stiffnessScale(*rest0), w.mass_, w.fext_);
  if (w.model_.vertices() != N_) {
    w.owner_ = 0;
    throw InputError(str("der optimizer (strand ", strandId_, "): q has ", w.model_.vertices(),
                         " vertices but the rest state ", N_));
  }
  if (rest0 != &w.rest0_) w.rest0_ = *rest0;
  synchronizeRestKappa(w.rest0_);
  w.p0_ = toParameters(w.rest0_, w.model_.scale());
  w.w_ = parameterWeights(N_, options_.weightStiffness, options_.weightRest);
  w.box_ = parameterBounds(w.p0_, options_.bounds, options_.scheme);
  w.resize(N_);
  w.owner_ = id_;
  ++w.rebuilds_;
  if (!derived_) {
    scale_ = w.model_.scale();
    fextNorm_ = scaledNorm(std::vector<double>(w.model_.externalForce().begin(), w.model_.externalForce().end()));
    if (!(fextNorm_ > 0.0))
      throw InputError(str("der optimizer (strand ", strandId_, "): the external force is zero; the relative "
                           "residual is undefined"));
    derived_ = true;
  }
  if (!started_) start(w);
  return w;
}

void AlmOptimizer::checkFinite(const std::vector<double>& v, const char* what) const {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw Error(str("der optimizer: strand ", strandId_, ", iteration ", k_, ": ", what, " has a non-finite entry ",
                      v[i], " at index ", i));
}

double AlmOptimizer::scaledNorm(const std::vector<double>& f) const {
  const AlmWorkspace& w = bound();
  const auto ism = w.model_.inverseSqrtMass();
  double s = 0.0;
  for (std::size_t r = 0; r < f.size(); ++r) {
    const double c = ism[r] * f[r];
    s += c * c;
  }
  return std::sqrt(s);
}

// Eq. 15: L = 1/2 ||p - p0||_W^2 + lambda^T M^-1/2 f + rho/2 ||M^-1/2 f||^2.
double AlmOptimizer::lagrangianOf(const std::vector<double>& p, const std::vector<double>& f) const {
  const AlmWorkspace& w = bound();
  double R = 0.0;
  for (std::size_t a = 0; a < p.size(); ++a) {
    const double d = p[a] - w.p0_[a];
    R += w.w_[a] * d * d;
  }
  const auto ism = w.model_.inverseSqrtMass();
  double lc = 0.0, cc = 0.0;
  for (std::size_t r = 0; r < f.size(); ++r) {
    const double c = ism[r] * f[r];
    lc += lambda_[r] * c;
    cc += c * c;
  }
  return 0.5 * R + lc + 0.5 * options_.rho * cc;
}

double AlmOptimizer::lagrangian(const std::vector<double>& p) const {
  const AlmWorkspace& w = bound();
  std::vector<double> f(w.f_.size());
  w.model_.force(p, f);
  return lagrangianOf(p, f);
}

double AlmOptimizer::relativeResidual() const { return relativeResidual(p_); }

double AlmOptimizer::relativeResidual(const std::vector<double>& p) const {
  const AlmWorkspace& w = bound();
  std::vector<double> f(w.f_.size());
  w.model_.force(p, f);
  return scaledNorm(f) / fextNorm_;
}

void AlmOptimizer::assemble() {
  AlmWorkspace& w = bound();
  w.model_.force(p_, w.f_);
  checkFinite(w.f_, "force f");
  w.model_.jacobian(p_, w.J_);
  if (!w.J_.allFinite())
    throw Error(str("der optimizer: strand ", strandId_, ", iteration ", k_, ": the force Jacobian J has a "
                    "non-finite entry"));
  // Eq. 22 and Eq. 23.
  almGradient(w.J_,
              {.weights = w.w_, .p = p_, .p0 = w.p0_, .invSqrtMass = w.model_.inverseSqrtMass(),
               .invMass = w.model_.inverseMass(), .lambda = lambda_, .f = w.f_, .rho = options_.rho},
              w.work_, w.grad_);
  checkFinite(w.grad_, "ALM gradient");
  assembleBcqpMatrix(w.J_, w.model_.inverseMass(), options_.rho, w.w_, *w.A_);
  for (std::size_t a = 0; a < p_.size(); ++a) {
    w.b_[a] = -w.grad_[a];
    w.lo_[a] = w.box_.lower[a] - p_[a];  // Delta p_min = p_min - p^k (Eq. 20)
    w.hi_[a] = w.box_.upper[a] - p_[a];
  }
}

BcqpInstance AlmOptimizer::currentBcqp(bool asSolved) {
  AlmWorkspace& w = bound();
  assemble();
  BcqpInstance qp{*w.A_, w.b_, w.lo_, w.hi_};
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

// Optional symmetric diagonal scaling of the assembled BCQP: A <- S A S, b <- S b, bounds / S,
// x = S y with S = diag(A)^-1/2 (a change of variables; the box stays a box, ASC's sweeps are
// unchanged). Without it S stays the identity.
void AlmOptimizer::scaleAssembled(AlmWorkspace& w) const {
  if (!options_.scaleBcqp) return;
  const int n = w.A_->size(), kd = w.A_->bandwidth();
  for (int a = 0; a < n; ++a) w.scaling_[a] = 1.0 / std::sqrt(w.A_->at(a, a));
  for (int j = 0; j < n; ++j)
    for (int i = j; i < std::min(n, j + kd + 1); ++i) w.A_->at(i, j) *= w.scaling_[i] * w.scaling_[j];
}

// The BCQP (Eq. 20-21): b = -grad L, bounds Delta p_min/max, x0 = 0 or the previous step, by MPRGP
// or, as the Table I baseline, by the interior-point method; the step lands in w.dp_ (unscaled).
solvers::MprgpStats AlmOptimizer::solveBcqp(AlmWorkspace& w) {
  solvers::MprgpStats ms;
  if (options_.bcqpSolver == "ipm") {
    const std::size_t n = p_.size();
    w.ipmB_.resize(n), w.ipmLo_.resize(n), w.ipmHi_.resize(n), w.ipmX_.assign(n, 0.0);
    for (std::size_t a = 0; a < n; ++a) {
      w.ipmB_[a] = w.scaling_[a] * w.b_[a];
      w.ipmLo_[a] = w.lo_[a] / w.scaling_[a];
      w.ipmHi_[a] = w.hi_[a] / w.scaling_[a];
    }
    const BoxQpIpmResult r = BoxQpIpm().solve(*w.A_, w.ipmB_, w.ipmLo_, w.ipmHi_, w.ipmX_);
    for (std::size_t a = 0; a < n; ++a) w.dp_[a] = w.scaling_[a] * std::min(std::max(w.ipmX_[a], w.ipmLo_[a]), w.ipmHi_[a]);
    ms.iterations = r.iterations;
    ms.converged = r.converged;
    ms.reason = r.reason;
    stats_.factorizations += r.factorizations;
    return ms;
  }
  {
    la::Vector::View bv = w.bVec_->view(), lv = w.loVec_->view(), hv = w.hiVec_->view(), xv = w.xVec_->view();
    for (std::size_t a = 0; a < p_.size(); ++a) {
      const double sa = w.scaling_[a];
      const auto i = static_cast<la::LocalIndex>(a);
      bv[i] = sa * w.b_[a];
      lv[i] = w.lo_[a] / sa;
      hv[i] = w.hi_[a] / sa;
      xv[i] = options_.warmStart ? std::min(std::max(prevDp_[a] / sa, lv[i]), hv[i]) : 0.0;
    }
  }
  w.mprgp_.setOperator(w.op_);
  ms = w.mprgp_.solve(*w.bVec_, *w.loVec_, *w.hiVec_, *w.xVec_);
  la::Vector::ConstView xv = w.xVec_->constView();
  for (std::size_t a = 0; a < p_.size(); ++a) w.dp_[a] = w.scaling_[a] * xv[static_cast<la::LocalIndex>(a)];
  return ms;
}

// Backtracking line search (§IV-F; README decision 24): halve t until L(p + t dp, lambda^k) <
// L(p, lambda^k); the accepted trial point is left in w.pTrial_ / w.fTrial_. The trial point is
// clamped to the box, which only removes round-off of p + (pmin - p) and keeps every iterate
// exactly feasible (E1); kbar is synchronised by construction (p holds kbar_0, kbar_1 only, the
// force model uses (k0, k1, k0, k1)).
bool AlmOptimizer::lineSearch(AlmWorkspace& w, AlmIterationStats& it) const {
  const double L0 = lagrangianOf(p_, w.f_);
  it.lagrangianBefore = L0;
  double t = 1.0;
  while (true) {
    for (std::size_t a = 0; a < p_.size(); ++a)
      w.pTrial_[a] = std::min(std::max(p_[a] + t * w.dp_[a], w.box_.lower[a]), w.box_.upper[a]);
    w.model_.force(w.pTrial_, w.fTrial_);
    const double Lt = lagrangianOf(w.pTrial_, w.fTrial_);
    if (Lt < L0) {
      it.lagrangianAfter = Lt;
      it.stepLength = t;
      return true;
    }
    if (it.halvings >= options_.lineSearchMaxHalvings || t * 0.5 < options_.lineSearchMinStep) return false;
    t *= 0.5;
    ++it.halvings;
  }
}

// The accepted trial point becomes the iterate; the multipliers take the step of Eq. 13 (ALM).
void AlmOptimizer::accept(AlmWorkspace& w) {
  std::copy(w.pTrial_.begin(), w.pTrial_.end(), p_.begin());  // copy, not swap: p_ stays the strand's
  w.f_.swap(w.fTrial_);
  checkFinite(p_, "parameters p");
  checkFinite(w.f_, "force f");
  if (options_.scheme == Scheme::Alm) {  // Eq. 13 with c = M^-1/2 f
    const auto ism = w.model_.inverseSqrtMass();
    for (std::size_t r = 0; r < lambda_.size(); ++r) lambda_[r] += options_.rho * ism[r] * w.f_[r];
  }
  prevDp_ = w.dp_;
  ++k_;
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
  AlmWorkspace& w = bound();  // rebuilt here if it last served another strand
  assemble();
  const auto t1 = Clock::now();
  scaleAssembled(w);
  const long factorizationsBefore = w.prec_->factorizations();
  if (options_.bcqpSolver != "ipm") w.prec_->setMatrix(*w.A_);  // the one numeric factorisation of this BCQP (asc)
  const auto t2 = Clock::now();
  const solvers::MprgpStats ms = solveBcqp(w);
  checkFinite(w.dp_, "Newton step dp");
  const auto t3 = Clock::now();
  it.mprgpIterations = ms.iterations;
  it.mprgpConverged = ms.converged;
  it.mprgpReason = ms.reason;
  double dpNorm = 0.0;
  for (double v : w.dp_) dpNorm += v * v;
  dpNorm = std::sqrt(dpNorm);
  it.stepNorm = dpNorm;

  ++stats_.newtonIterations;
  stats_.mprgpIterations += ms.iterations;
  if (!ms.converged) ++stats_.mprgpNotConverged;
  stats_.factorizations += w.prec_->factorizations() - factorizationsBefore;

  const bool accepted = dpNorm > options_.epsP && lineSearch(w, it);
  const auto t4 = Clock::now();
  stats_.lineSearchHalvings += it.halvings;
  if (accepted) accept(w);
  stats_.residual = scaledNorm(w.f_) / fextNorm_;
  it.residual = stats_.residual;
  for (std::size_t a = 0; a < p_.size(); ++a)
    if (w.box_.lower[a] != w.box_.upper[a] && (p_[a] == w.box_.lower[a] || p_[a] == w.box_.upper[a])) ++it.activeBounds;
  it.assemblySeconds = seconds(t0, t1);
  it.factorSeconds = seconds(t1, t2);
  it.mprgpSeconds = seconds(t2, t3);
  it.lineSearchSeconds = seconds(t3, t4);
  stats_.assemblySeconds += it.assemblySeconds;
  stats_.factorSeconds += it.factorSeconds;
  stats_.mprgpSeconds += it.mprgpSeconds;
  stats_.lineSearchSeconds += it.lineSearchSeconds;
  if (options_.recordHistory) stats_.history.push_back(std::move(it));

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
  started();
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
  const auto np = static_cast<std::size_t>(parameterCount(N_)), nc = static_cast<std::size_t>(constraintCount(N_));
  if (s.p.size() != np || s.lambda.size() != nc || s.previousStep.size() != np)
    throw InputError(str("der optimizer (strand ", strandId_, "): the saved state has ", s.p.size(), " parameters and ",
                         s.lambda.size(), " multipliers; this strand has ", np, " and ", nc));
  started_ = true;
  p_ = s.p;
  lambda_ = s.lambda;
  prevDp_ = s.previousStep;
  k_ = s.k;
  done_ = s.done;
  stats_ = s.stats;
}

RestState AlmOptimizer::restState() const {
  const AlmWorkspace& w = bound();
  RestState r = w.rest0_;
  fromParameters(p_, w.model_.scale(), r);
  return r;
}

RestState AlmOptimizer::initialRestState() const {
  const AlmWorkspace& w = bound();
  RestState r = w.rest0_;
  fromParameters(w.p0_, w.model_.scale(), r);
  return r;
}

}  // namespace kinema::der
