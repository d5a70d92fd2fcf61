// Lineality detection (paper §4; README decisions 7-9) and the anti-locking projection (§4.1). See
// lineality.hpp for the formulations and the tolerance model.
#include "modules/impact/lineality.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>

#include "framework/core/error.hpp"
#include "framework/solvers/linear_program.hpp"

namespace kinema::impact {

using solvers::LinearProgram;
using solvers::LpResult;
using solvers::LpSense;
using solvers::LpStatus;

std::string toString(LinealityMethod method) {
  switch (method) {
    case LinealityMethod::lp1ThenLp2: return "lp1";
    case LinealityMethod::lp2: return "lp2";
    case LinealityMethod::supportAndShave: return "support_and_shave";
  }
  return "?";
}

LinealityMethod linealityMethodFromString(const std::string& name) {
  if (name == "lp1") return LinealityMethod::lp1ThenLp2;
  if (name == "lp2") return LinealityMethod::lp2;
  if (name == "support_and_shave") return LinealityMethod::supportAndShave;
  throw InputError(str("unknown lineality method '", name,
                       "' (expected lp1, lp2 or support_and_shave)"));
}

namespace {

constexpr double inf = LinearProgram::inf;

// M⁻¹ = L Lᵀ, factored block by block: M⁻¹ is block diagonal in practice (one block per body,
// block diagonal), so the blocks are the connected components of its nonzero pattern and a dense
// Cholesky of the whole d x d matrix (O(d³)) is avoided. Lower-triangular L within each block.
class BlockCholesky {
 public:
  // Returns false if a block is not positive definite.
  bool compute(const Eigen::MatrixXd& Minv) {
    const Eigen::Index d = Minv.rows();
    // Union-find over the nonzero pattern (path halving).
    std::vector<Eigen::Index> parent(static_cast<std::size_t>(d));
    auto up = [&parent](Eigen::Index k) -> Eigen::Index& { return parent[static_cast<std::size_t>(k)]; };
    for (Eigen::Index i = 0; i < d; ++i) up(i) = i;
    auto find = [&up](Eigen::Index i) {
      while (up(i) != i) i = up(i) = up(up(i));
      return i;
    };
    for (Eigen::Index j = 0; j < d; ++j)
      for (Eigen::Index i = j + 1; i < d; ++i)
        if (Minv(i, j) != 0.0 || Minv(j, i) != 0.0) up(find(i)) = find(j);
    std::vector<Eigen::Index> blockOf(static_cast<std::size_t>(d), -1);
    blocks_.clear();
    for (Eigen::Index i = 0; i < d; ++i) {
      const Eigen::Index root = find(i);
      if (blockOf[static_cast<std::size_t>(root)] < 0) {
        blockOf[static_cast<std::size_t>(root)] = static_cast<Eigen::Index>(blocks_.size());
        blocks_.emplace_back();
      }
      blocks_[static_cast<std::size_t>(blockOf[static_cast<std::size_t>(root)])].idx.push_back(i);
    }
    for (Block& b : blocks_) {
      const auto n = static_cast<Eigen::Index>(b.idx.size());
      Eigen::MatrixXd A(n, n);
      for (Eigen::Index c = 0; c < n; ++c)
        for (Eigen::Index r = 0; r < n; ++r)
          A(r, c) = Minv(b.idx[static_cast<std::size_t>(r)], b.idx[static_cast<std::size_t>(c)]);
      Eigen::LLT<Eigen::MatrixXd> llt(A);
      if (llt.info() != Eigen::Success) return false;
      b.L = llt.matrixL();
    }
    return true;
  }
  // X <- Lᵀ X (rows of X indexed like M⁻¹).
  void applyLt(Eigen::MatrixXd& X) const { apply(X, true, false); }
  // X <- L X.
  void applyL(Eigen::MatrixXd& X) const { apply(X, false, false); }
  // X <- L⁻ᵀ X.
  void solveLt(Eigen::MatrixXd& X) const { apply(X, true, true); }

 private:
  struct Block {
    std::vector<Eigen::Index> idx;
    Eigen::MatrixXd L;
  };
  void apply(Eigen::MatrixXd& X, bool transpose, bool inverse) const {
    Eigen::MatrixXd sub;
    for (const Block& b : blocks_) {
      const auto n = static_cast<Eigen::Index>(b.idx.size());
      sub.resize(n, X.cols());
      for (Eigen::Index r = 0; r < n; ++r) sub.row(r) = X.row(b.idx[static_cast<std::size_t>(r)]);
      const auto L = b.L.triangularView<Eigen::Lower>();
      if (inverse) {
        if (transpose) b.L.transpose().triangularView<Eigen::Upper>().solveInPlace(sub);
        else L.solveInPlace(sub);
      } else {
        sub = transpose ? Eigen::MatrixXd(b.L.transpose().triangularView<Eigen::Upper>() * sub)
                        : Eigen::MatrixXd(L * sub);
      }
      for (Eigen::Index r = 0; r < n; ++r) X.row(b.idx[static_cast<std::size_t>(r)]) = sub.row(r);
    }
  }
  std::vector<Block> blocks_;
};

// Validated, whitened problem data: M⁻¹ = L Lᵀ and Ñ = Lᵀ N with unit columns.
struct Whitened {
  BlockCholesky chol;
  Eigen::MatrixXd Nt;  // d x m, ‖ñ_i‖_2 = 1
};

void checkOptions(const LinealityOptions& o) {
  auto nonneg = [](double v, const char* name) {
    if (!(std::isfinite(v) && v >= 0.0))
      throw InputError(str("lineality option ", name, " = ", v, " must be finite and >= 0"));
  };
  nonneg(o.epsilon, "epsilon");
  nonneg(o.lpTolerance, "lpTolerance");
  nonneg(o.rankTolerance, "rankTolerance");
  nonneg(o.vanishTolerance, "vanishTolerance");
  if (o.epsilon + o.lpTolerance >= 1.0)
    throw InputError(str("lineality threshold epsilon + lpTolerance = ", o.epsilon + o.lpTolerance,
                         " must be < 1 (the LP-1 value of unit gradients is at most 1)"));
}

// Checks M⁻¹ (square, finite, symmetric, positive definite) and factors it.
void checkAndFactorMinv(const Eigen::MatrixXd& Minv, BlockCholesky& chol) {
  const Eigen::Index d = Minv.rows();
  if (Minv.cols() != d || d == 0)
    throw InputError(str("M^-1 must be square and non-empty, got ", Minv.rows(), " x ", Minv.cols()));
  double maxAbs = 0.0;
  for (Eigen::Index j = 0; j < d; ++j)
    for (Eigen::Index i = 0; i < d; ++i) {
      if (!std::isfinite(Minv(i, j)))
        throw InputError(str("M^-1 entry (", i, ", ", j, ") is ", Minv(i, j)));
      maxAbs = std::max(maxAbs, std::abs(Minv(i, j)));
    }
  // A numerically inverted block is symmetric to rounding; 1e-10 relative flags real asymmetry.
  for (Eigen::Index j = 0; j < d; ++j)
    for (Eigen::Index i = j + 1; i < d; ++i)
      if (std::abs(Minv(i, j) - Minv(j, i)) > 1e-10 * maxAbs)
        throw InputError(str("M^-1 is not symmetric: entries (", i, ", ", j, ") = ", Minv(i, j),
                             " and (", j, ", ", i, ") = ", Minv(j, i)));
  if (!chol.compute(Minv))
    throw InputError("M^-1 is not positive definite (Cholesky factorisation failed); static bodies "
                     "carry no degrees of freedom and must be left out of the system");
}

Whitened whiten(const Eigen::MatrixXd& N, const Eigen::MatrixXd& Minv) {
  Whitened w;
  checkAndFactorMinv(Minv, w.chol);
  const Eigen::Index d = Minv.rows();
  if (N.rows() != d)
    throw InputError(str("constraint gradients N have ", N.rows(), " rows but M^-1 is ", d, " x ", d));
  for (Eigen::Index j = 0; j < N.cols(); ++j) {
    for (Eigen::Index k = 0; k < d; ++k)
      if (!std::isfinite(N(k, j)))
        throw InputError(str("constraint ", j, ": gradient entry ", k, " is ", N(k, j)));
    if (N.col(j).isZero(0.0))
      throw InputError(str("constraint ", j, " has a zero gradient (n_", j,
                           "^T M^-1 n_", j, " = 0): drop static-static contacts before detection"));
  }
  // ñ = Lᵀ n, then unit columns (the normalisation (norm) of paper §2, in whitened form).
  w.Nt = N;
  w.chol.applyLt(w.Nt);
  for (Eigen::Index j = 0; j < N.cols(); ++j) {
    const double nrm = w.Nt.col(j).norm();
    if (!(nrm > 0.0 && std::isfinite(1.0 / nrm)))
      throw InputError(str("constraint ", j, " has a gradient of M^-1-norm ", nrm,
                           " (zero or not representable after normalisation)"));
    w.Nt.col(j) /= nrm;
  }
  return w;
}

// Solves the LPs through the framework interface (never a library header), counting them. Every LP
// here is feasible (u = 0 / λ = 0) and bounded, so anything but `optimal` is numerical: it is
// retried once with the other simplex algorithm (counted in lpRetries), then an Error naming the LP.
class LpRunner {
 public:
  explicit LpRunner(const solvers::LpOptions& options)
      : options_(options), primary_(solvers::makeLpSolver(options)) {}

  LpResult solve(const LinearProgram& lp, const std::string& what, LinealityResult& res) {
    LpResult r = primary_->solve(lp);
    ++res.lpSolves;
    res.lpIterations += r.iterations;
    if (r.status == LpStatus::optimal) return r;
    if (!fallback_) {
      solvers::LpOptions o = options_;
      o.algorithm = options_.algorithm == "primal" ? "dual" : "primal";
      fallback_ = solvers::makeLpSolver(o);
    }
    LpResult again = fallback_->solve(lp);
    ++res.lpRetries;
    res.lpIterations += again.iterations;
    if (again.status == LpStatus::optimal) return again;
    throw Error(str("lineality detection: ", what, " (", lp.numVariables(), " variables, ",
                    lp.numRows(), " rows) ended ", solvers::toString(r.status), " (", r.message,
                    "), and ", solvers::toString(again.status), " with the other simplex (",
                    again.message, ")"));
  }

 private:
  solvers::LpOptions options_;
  std::unique_ptr<solvers::LpSolver> primary_, fallback_;
};

// Adds, for every constraint i, the row  lower <= ñ_iᵀu − t <= upper  (u = variables 0..d-1,
// t = variable tIndex; tIndex < 0: no t). Exact zeros of Ñ are skipped (N is sparse in practice),
// and so are rounding-level entries (|ñ_ki| <= kRoundoffEntry; the columns are unit vectors):
// they change no value by more than ~d·1e-15, far below θ, but a 6e-17 coefficient (the cos 90° of
// a right-angle wedge) makes Clp report a scaled-optimal, unscaled dual-infeasible LP-1.
constexpr double kRoundoffEntry = 1e-14;
void addGradientRows(LinearProgram& lp, const Eigen::MatrixXd& Nt, int tIndex, double lower,
                     double upper) {
  const int d = static_cast<int>(Nt.rows());
  std::vector<int> idx;
  std::vector<double> val;
  idx.reserve(d + 1);
  val.reserve(d + 1);
  for (int i = 0; i < Nt.cols(); ++i) {
    idx.clear();
    val.clear();
    for (int k = 0; k < d; ++k)
      if (std::abs(Nt(k, i)) > kRoundoffEntry) {
        idx.push_back(k);
        val.push_back(Nt(k, i));
      }
    if (tIndex >= 0) {
      idx.push_back(tIndex);
      val.push_back(-1.0);
    }
    lp.addRow(idx, val, lower, upper, str("constraint ", i));
  }
}

// LP-1 (README decisions 7-8): maximize t s.t. ñ_iᵀu >= t, |u_k| <= 1, t <= 1. Returns t* and u*.
double solveLp1(LpRunner& solver, const Eigen::MatrixXd& Nt, Eigen::VectorXd& u,
                LinealityResult& res) {
  const int d = static_cast<int>(Nt.rows());
  LinearProgram lp(LpSense::maximize);
  lp.addVariables(d, -1.0, 1.0, 0.0);
  // t* >= 0 always (u = 0); the lower bound -1 only keeps every variable boxed.
  const int t = lp.addVariable(-1.0, 1.0, 1.0, "t");
  addGradientRows(lp, Nt, t, 0.0, inf);
  const LpResult r = solver.solve(lp, "LP-1", res);
  u = Eigen::Map<const Eigen::VectorXd>(r.x.data(), d);
  res.lp1Solved = true;
  res.lp1Value = r.x[static_cast<std::size_t>(t)];
  return res.lp1Value;
}

// LP-2 (README decision 8), with an ℓ1 slack for round-off:
//   maximize Σ s_i  s.t.  s_i <= λ_i, 0 <= s_i <= 1, λ >= 0,
//                         −r_k <= (Ñλ)_k <= r_k, r >= 0, Σ_k r_k <= θ Σ_i s_i.
// For θ = 0 this is Ñλ = 0, whose solution set is a convex cone, so one λ has λ_i >= 1 on all of
// I: the optimum is |I| with s = 1 on I; I = { i : s_i > 1/2 }. The slack budget θ Σ s_i grows
// with the count, not with λ: a budget θ 1ᵀλ would be useless, since an exact zero-sum
// combination scaled up would absorb any other constraint. With the budget, s = 1 on I_θ is
// feasible (sum the ℓ1-near combinations of its members), and any s_j > 1/2 implies
// v_j <= ‖Ñλ‖_1/λ_j <= 2mθ: LP-2 returns I_θ up to constraints with v_j within a factor 2m of θ.
// Used with θ = lpTolerance only (epsilon = 0), where that band is LP round-off; without the slack
// Clp returns exact vertices and would miss a rounding-level lineality that LP-1 reports.
std::vector<int> solveLp2(LpRunner& solver, const Eigen::MatrixXd& Nt, double theta,
                          LinealityResult& res) {
  const int d = static_cast<int>(Nt.rows()), m = static_cast<int>(Nt.cols());
  LinearProgram lp(LpSense::maximize);
  const int lam = lp.addVariables(m, 0.0, inf, 0.0);
  const int s = lp.addVariables(m, 0.0, 1.0, 1.0);
  const int r = lp.addVariables(d, 0.0, inf, 0.0);
  for (int i = 0; i < m; ++i) lp.addRow({s + i, lam + i}, {1.0, -1.0}, -inf, 0.0);
  std::vector<int> idx;
  std::vector<double> val;
  for (int k = 0; k < d; ++k) {
    idx.clear();
    val.clear();
    for (int i = 0; i < m; ++i)
      if (Nt(k, i) != 0.0) {
        idx.push_back(lam + i);
        val.push_back(Nt(k, i));
      }
    if (idx.empty()) continue;  // a coordinate no constraint touches: r_k = 0 is optimal
    idx.push_back(r + k);
    val.push_back(-1.0);
    lp.addRow(idx, val, -inf, 0.0);  // (Ñλ)_k − r_k <= 0
    val.back() = 1.0;
    lp.addRow(idx, val, 0.0, inf);   // (Ñλ)_k + r_k >= 0
  }
  idx.clear();
  val.clear();
  for (int k = 0; k < d; ++k) {
    idx.push_back(r + k);
    val.push_back(1.0);
  }
  for (int i = 0; i < m; ++i) {
    idx.push_back(s + i);
    val.push_back(-theta);
  }
  lp.addRow(idx, val, -inf, 0.0, "l1 slack budget");
  const LpResult sol = solver.solve(lp, "LP-2", res);
  std::vector<int> I;
  for (int i = 0; i < m; ++i)
    if (sol.x[static_cast<std::size_t>(s + i)] > 0.5) I.push_back(i);
  return I;
}

// Support & Shave (README decision 9; after López 2011, reconstructed). One LP of size d, re-used
// with the objective ñ_iᵀu for each undecided i:
//     v_i = max{ ñ_iᵀu : Ñᵀu >= 0, ‖u‖_∞ <= 1 } = min_{y >= 0} ‖ñ_i + Ñy‖_1     (LP duality)
// and i ∈ I_θ ⟺ v_i <= θ ("−n_i ∈ pos(N)" up to θ in the whitened ℓ1 norm; θ = 0: exactly I).
//   v_i <= θ : i is implicit ("support"), and so is every k with dual multiplier y_k >= 1, since
//              ‖ñ_k + (ñ_i + Σ_{j≠k} y_j ñ_j)/y_k‖_1 <= θ / y_k <= θ;
//   every k with ñ_kᵀu* > θ at the (feasible) optimum u* has v_k > θ: not implicit ("shave").
// Each LP decides at least i, so at most m LPs follow LP-1 (the paper's bound is 2m). The rows of
// shaved constraints stay in the LP: for θ > 0 a shaved column may still matter to another
// constraint's ℓ1 distance.
std::vector<int> supportAndShave(LpRunner& solver, const Eigen::MatrixXd& Nt, double theta,
                                 LinealityResult& res) {
  const int d = static_cast<int>(Nt.rows()), m = static_cast<int>(Nt.cols());
  enum class State { undecided, implicit, shaved };
  std::vector<State> state(static_cast<std::size_t>(m), State::undecided);
  LinearProgram lp(LpSense::maximize);
  lp.addVariables(d, -1.0, 1.0, 0.0);
  addGradientRows(lp, Nt, -1, 0.0, inf);
  Eigen::VectorXd u(d);
  for (int i = 0; i < m; ++i) {
    if (state[static_cast<std::size_t>(i)] != State::undecided) continue;
    for (int k = 0; k < d; ++k) lp.setCost(k, Nt(k, i));
    const LpResult r = solver.solve(lp, str("Support & Shave LP for constraint ", i), res);
    u = Eigen::Map<const Eigen::VectorXd>(r.x.data(), d);
    if (r.objective > theta) {
      state[static_cast<std::size_t>(i)] = State::shaved;
    } else {
      state[static_cast<std::size_t>(i)] = State::implicit;
      // Maximize: an active lower row bound has dual <= 0 (lp_solver.hpp), so y_k = −dual_k.
      for (int k = 0; k < m; ++k)
        if (-r.duals[static_cast<std::size_t>(k)] >= 1.0 &&
            state[static_cast<std::size_t>(k)] == State::undecided)
          state[static_cast<std::size_t>(k)] = State::implicit;
    }
    for (int k = 0; k < m; ++k)
      if (state[static_cast<std::size_t>(k)] == State::undecided && Nt.col(k).dot(u) > theta)
        state[static_cast<std::size_t>(k)] = State::shaved;
  }
  std::vector<int> I;
  for (int i = 0; i < m; ++i)
    if (state[static_cast<std::size_t>(i)] == State::implicit) I.push_back(i);
  return I;
}

}  // namespace

LinealityResult detectLineality(const Eigen::MatrixXd& N, const Eigen::MatrixXd& Minv,
                                const LinealityOptions& opts) {
  const auto start = std::chrono::steady_clock::now();
  checkOptions(opts);
  if (opts.method == LinealityMethod::lp2 && opts.epsilon > 0.0)
    throw InputError("lineality method lp2 detects exact implicit equalities only (epsilon = 0); use "
                     "lp1 or support_and_shave for approximate ones (epsilon > 0)");
  const Whitened w = whiten(N, Minv);
  const int d = static_cast<int>(N.rows()), m = static_cast<int>(N.cols());

  LinealityResult res;
  res.method = opts.method;
  res.threshold = opts.epsilon + opts.lpTolerance;
  res.E.resize(d, 0);
  const double theta = res.threshold;
  auto finish = [&]() {
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
  };
  if (m == 0) return finish();

  LpRunner solver(opts.lp);
  std::vector<int> I;
  if (opts.method == LinealityMethod::lp2) {
    I = solveLp2(solver, w.Nt, theta, res);
  } else {
    Eigen::VectorXd u;
    const double t = solveLp1(solver, w.Nt, u, res);
    if (t > theta) {
      // Common case (paper §4: "a single LP solve"): a strictly feasible certificate w = L u.
      // Sound: any i with v_i <= θ gives t* <= θ (λ = (e_i + y)/(1 + 1ᵀy) in LP-1's dual).
      Eigen::MatrixXd wc = u;
      w.chol.applyL(wc);
      res.certificate = wc.col(0);
      res.certificateMargin = (w.Nt.transpose() * u).minCoeff() / u.norm();
      return finish();
    }
    I = opts.method == LinealityMethod::lp1ThenLp2 && opts.epsilon == 0.0
            ? solveLp2(solver, w.Nt, theta, res)
            : supportAndShave(solver, w.Nt, theta, res);
    res.narrowCone = I.empty();
  }
  res.implicitEqualities = I;
  if (I.empty()) return finish();

  // Basis of L: pivoted QR of the unit columns ñ_i (i ∈ I); E = L⁻ᵀQ_r is M⁻¹-orthonormal
  // (EᵀM⁻¹E = Q_rᵀ L⁻¹ L Lᵀ L⁻ᵀ Q_r = I).
  Eigen::MatrixXd NI(d, static_cast<Eigen::Index>(I.size()));
  for (std::size_t c = 0; c < I.size(); ++c) NI.col(static_cast<Eigen::Index>(c)) = w.Nt.col(I[c]);
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(NI);
  const Eigen::Index kmax = std::min<Eigen::Index>(d, NI.cols());
  Eigen::Index r = 0;
  while (r < kmax && std::abs(qr.matrixQR()(r, r)) > opts.rankTolerance) ++r;
  const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(d, r);
  res.E = Q;
  w.chol.solveLt(res.E);
  // ‖Pᵀn_i‖_{M⁻¹} = ‖ñ_i − Q Qᵀñ_i‖ for the unit ñ_i (diagnostic of the rank cut).
  for (Eigen::Index c = 0; c < NI.cols(); ++c)
    res.maxImplicitResidual =
        std::max(res.maxImplicitResidual, (NI.col(c) - Q * (Q.transpose() * NI.col(c))).norm());
  return finish();
}

// ------------------------------------------------------------------------------------------------

LinealityProjector::LinealityProjector(const Eigen::MatrixXd& E, const Eigen::MatrixXd& Minv)
    : E_(E) {
  if (Minv.rows() != Minv.cols() || Minv.rows() != E.rows())
    throw InputError(str("lineality projector: E is ", E.rows(), " x ", E.cols(), " but M^-1 is ",
                         Minv.rows(), " x ", Minv.cols()));
  MinvE_ = Minv * E;
  coeff_.resize(E.cols());
}

void LinealityProjector::projectVelocity(Eigen::Ref<Eigen::VectorXd> qdot) const {
  if (E_.cols() == 0) return;
  coeff_.noalias() = E_.transpose() * qdot;  // Eᵀq̇
  qdot.noalias() -= MinvE_ * coeff_;         // q̇ − M⁻¹E(Eᵀq̇)
}

void LinealityProjector::projectCovector(Eigen::Ref<Eigen::VectorXd> n) const {
  if (E_.cols() == 0) return;
  coeff_.noalias() = MinvE_.transpose() * n;  // EᵀM⁻¹n (M⁻¹ symmetric)
  n.noalias() -= E_ * coeff_;                 // n − E(EᵀM⁻¹n)
}

ProjectedConstraints LinealityProjector::projectConstraints(const Eigen::MatrixXd& N,
                                                            const Eigen::MatrixXd& Minv,
                                                            double vanishTolerance) const {
  if (N.rows() != E_.rows() || Minv.rows() != E_.rows() || Minv.cols() != E_.rows())
    throw InputError(str("lineality projector of dimension ", E_.rows(), ": N is ", N.rows(), " x ",
                         N.cols(), ", M^-1 is ", Minv.rows(), " x ", Minv.cols()));
  const Eigen::Index d = N.rows(), m = N.cols();
  ProjectedConstraints out;
  out.relNorm.assign(static_cast<std::size_t>(m), 0.0);
  Eigen::MatrixXd Nbar = N;
  Eigen::VectorXd tmp(d);
  std::vector<double> norms(static_cast<std::size_t>(m));
  for (Eigen::Index j = 0; j < m; ++j) {
    tmp.noalias() = Minv * N.col(j);
    const double n0 = std::sqrt(std::max(0.0, N.col(j).dot(tmp)));  // ‖n_j‖_{M⁻¹}
    projectCovector(Nbar.col(j));                                   // Algorithm 2 line 5
    tmp.noalias() = Minv * Nbar.col(j);
    const double n1 = std::sqrt(std::max(0.0, Nbar.col(j).dot(tmp)));
    norms[static_cast<std::size_t>(j)] = n1;
    const double rel = n0 > 0.0 ? n1 / n0 : 0.0;
    out.relNorm[static_cast<std::size_t>(j)] = rel;
    if (rel <= vanishTolerance || !(n1 > 0.0))
      out.removed.push_back(static_cast<int>(j));  // line 6
    else
      out.kept.push_back(static_cast<int>(j));
  }
  out.N.resize(d, static_cast<Eigen::Index>(out.kept.size()));
  for (std::size_t c = 0; c < out.kept.size(); ++c)  // line 7, normalised in the M⁻¹ metric (norm)
    out.N.col(static_cast<Eigen::Index>(c)) =
        Nbar.col(out.kept[c]) / norms[static_cast<std::size_t>(out.kept[c])];
  return out;
}

AntiLocking applyAntiLocking(const Eigen::MatrixXd& N, const Eigen::MatrixXd& Minv,
                             const Eigen::VectorXd& qdot, const LinealityOptions& opts) {
  if (qdot.size() != N.rows())
    throw InputError(str("anti-locking: velocity has ", qdot.size(), " entries but N has ", N.rows(),
                         " rows"));
  for (Eigen::Index k = 0; k < qdot.size(); ++k)
    if (!std::isfinite(qdot(k))) throw InputError(str("anti-locking: velocity entry ", k, " is ", qdot(k)));
  AntiLocking out;
  out.lineality = detectLineality(N, Minv, opts);                  // line 2
  const LinealityProjector P(out.lineality.E, Minv);
  out.energyRemoved = 0.5 * (out.lineality.E.transpose() * qdot).squaredNorm();
  out.qdot0 = qdot;
  P.projectVelocity(out.qdot0);                                     // line 3
  out.constraints = P.projectConstraints(N, Minv, opts.vanishTolerance);  // lines 4-7
  return out;
}

Eigen::VectorXd projectVelocity(const Eigen::MatrixXd& E, const Eigen::MatrixXd& Minv,
                                const Eigen::VectorXd& qdot) {
  Eigen::VectorXd v = qdot;
  LinealityProjector(E, Minv).projectVelocity(v);
  return v;
}

Eigen::VectorXd projectCovector(const Eigen::MatrixXd& E, const Eigen::MatrixXd& Minv,
                                const Eigen::VectorXd& n) {
  Eigen::VectorXd v = n;
  LinealityProjector(E, Minv).projectCovector(v);
  return v;
}

}  // namespace kinema::impact
