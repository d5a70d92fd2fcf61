#include "modules/impact/delassus_qp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"

namespace kinema::impact {

namespace {

// One backend per name and thread, made on first use and kept (never destroyed: a backend may not
// outlive its library's finalisation). Creating one validates a small configuration, which cost
// more than the inelastic QP of a small island: a settling pile spent 70 % of its resolution there
// (bench_impact section 3: 245 -> 92 ms per step at 10,000 balls, one rank).
const la::Backend& sharedBackend(const std::string& name) {
  thread_local auto* cache = new std::map<std::string, la::BackendPtr>();
  la::BackendPtr& b = (*cache)[name];
  if (!b) b = la::createBackend(name);
  return *b;
}

}  // namespace

DelassusQp::DelassusQp(const OperatorOptions& options) : options_(options) {
  if (!(options_.qpTolerance > 0.0))
    throw InputError(str("impact QP: qp tolerance must be > 0, got ", options_.qpTolerance));
  if (options_.polishMaxSize < 0)
    throw InputError(str("impact QP: polish max size must be >= 0, got ", options_.polishMaxSize));
  if (options_.qpMaxIterations < 1)
    throw InputError(str("impact QP: qp max iterations must be >= 1, got ", options_.qpMaxIterations));
}

DelassusQp::~DelassusQp() = default;

void DelassusQp::applyA(const ImpactSystem& system, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  w_.setZero();
  system.addMinvN(x, w_);  // w = M⁻¹N x
  system.NT(w_, y);        // y = Nᵀ w
}

void DelassusQp::setup(const ImpactSystem& system) {
  m_ = system.numConstraints();
  d_ = system.dofs();
  current_ = &system;
  xe_.setZero(m_);
  ye_.setZero(m_);
  g_.setZero(m_);
  w_.setZero(d_);
  if (m_ == 0) return;
  if (!backend_) backend_ = &sharedBackend(options_.backend);
  map_ = std::make_shared<const la::IndexMap>(Comm::self(), m_);
  A_ = std::make_shared<la::FunctionOperator>(
      *backend_, map_, map_,
      [this](const la::Vector& x, la::Vector& y) {
        {
          auto xv = x.constView();
          for (int i = 0; i < m_; ++i) xe_[i] = xv[i];
        }
        applyA(*current_, xe_, ye_);
        auto yv = y.view();
        for (int i = 0; i < m_; ++i) yv[i] = ye_[i];
      },
      "impact Delassus operator N^T M^-1 N",
      [](la::Vector& dg) { dg.set(1.0); });  // unit diagonal by (norm)
  solvers::MprgpOptions mo;
  mo.rtol = 0.0;
  mo.atol = std::max(options_.qpTolerance, options_.mprgpTolerance);
  mo.maxIterations = options_.qpMaxIterations;
  mprgp_ = std::make_unique<solvers::Mprgp>(mo);
  mprgp_->setOperator(A_);
  b_ = backend_->createVector(map_);
  lower_ = backend_->createVector(map_);
  upper_ = backend_->createVector(map_);
  x_ = backend_->createVector(map_);
}

double DelassusQp::kktResidual(const ImpactSystem& system, const Eigen::VectorXd& c,
                               const std::vector<char>& active, const Eigen::VectorXd& lambda) {
  applyA(system, lambda, g_);
  double r = 0.0;
  for (int i = 0; i < m_; ++i) {
    if (!active[i]) continue;
    const double gi = g_[i] + c[i];
    r = std::max(r, std::abs(std::min(lambda[i], gi)));
  }
  return r;
}

// Active-set refinement: solve A_FF λ_F = −c_F exactly on the free set F, add the most violated
// dual index, drop negative primal ones; keep the result only if the KKT residual improves.
bool DelassusQp::polish(const ImpactSystem& system, const Eigen::VectorXd& c, const std::vector<char>& active,
                        Eigen::VectorXd& lambda, double tol) {
  std::vector<int> F;
  for (int i = 0; i < m_; ++i)
    if (active[i] && lambda[i] > 0.0) F.push_back(i);
  Eigen::VectorXd trial = lambda;
  double best = kktResidual(system, c, active, lambda);
  bool improved = false;
  for (int step = 0; step < 2 * m_ + 4 && best > tol; ++step) {
    const int nf = static_cast<int>(F.size());
    if (nf > options_.polishMaxSize) break;
    trial.setZero();
    if (nf > 0) {
      Eigen::MatrixXd AFF(nf, nf);
      Eigen::VectorXd rhs(nf);
      for (int a = 0; a < nf; ++a) {
        rhs[a] = -c[F[a]];
        for (int b = 0; b < nf; ++b) AFF(a, b) = system.delassus(F[a], F[b]);
      }
      // A_FF may be singular (dependent normals): minimum-norm least-squares solution.
      Eigen::VectorXd sol = AFF.completeOrthogonalDecomposition().solve(rhs);
      bool negative = false;
      for (int a = 0; a < nf; ++a) {
        if (sol[a] < 0.0) negative = true;
        trial[F[a]] = std::max(sol[a], 0.0);
      }
      if (negative) {  // drop the negative ones and retry
        std::vector<int> keep;
        for (int a = 0; a < nf; ++a)
          if (sol[a] > 0.0) keep.push_back(F[a]);
        F.swap(keep);
        continue;
      }
    }
    const double r = kktResidual(system, c, active, trial);
    if (r < best) best = r, lambda = trial, improved = true;
    // g_ now holds Aλ_trial; add the most negative reduced gradient outside F.
    int add = -1;
    double worst = -tol;
    for (int i = 0; i < m_; ++i)
      if (active[i] && trial[i] == 0.0 && g_[i] + c[i] < worst) worst = g_[i] + c[i], add = i;
    if (add < 0) break;
    F.push_back(add);
  }
  return improved;
}

QpStats DelassusQp::solve(const ImpactSystem& system, const Eigen::VectorXd& c, const std::vector<char>& active,
                          double scale, Eigen::VectorXd& lambda) {
  if (system.numConstraints() != m_ || system.dofs() != d_ || &system != current_) setup(system);
  KINEMA_CHECK(c.size() == m_ && static_cast<int>(active.size()) == m_, "impact QP: sizes do not match m = ", m_);
  QpStats st;
  lambda.setZero(m_);
  if (m_ == 0) {
    st.converged = true;
    return st;
  }
  const double tol = options_.qpTolerance * std::max(scale, std::numeric_limits<double>::min());
  const double inv = 1.0 / std::max(scale, std::numeric_limits<double>::min());
  {
    auto bv = b_->view();
    auto lv = lower_->view();
    auto uv = upper_->view();
    auto xv = x_->view();
    for (int i = 0; i < m_; ++i) {
      bv[i] = -c[i] * inv;  // MPRGP minimises ½xᵀAx − bᵀx
      lv[i] = 0.0;
      uv[i] = active[i] ? std::numeric_limits<double>::infinity() : 0.0;
      xv[i] = 0.0;
    }
  }
  // MPRGP on the scaled problem (λ/scale, c/scale), so one absolute tolerance set at setup is
  // the relative KKT tolerance; the polish below makes complementarity exact.
  const solvers::MprgpStats ms = mprgp_->solve(*b_, *lower_, *upper_, *x_);
  st.mprgpIterations = ms.iterations;
  st.mprgpReason = ms.reason;
  {
    auto xv = x_->constView();
    for (int i = 0; i < m_; ++i) lambda[i] = active[i] ? scale * std::max(0.0, xv[i]) : 0.0;
  }
  st.kktResidual = kktResidual(system, c, active, lambda);
  if (st.kktResidual > tol) {
    if (polish(system, c, active, lambda, tol)) st.polishSteps = 1;
    st.kktResidual = kktResidual(system, c, active, lambda);
  }
  st.converged = st.kktResidual <= tol;
  return st;
}

}  // namespace kinema::impact
