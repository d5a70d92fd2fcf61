// Belos solvers and the Tpetra::Operator wrappers of framework operators and preconditioners.
#include "backends/trilinos/trilinos_belos.hpp"

#include <BelosLinearProblem.hpp>
#include <BelosSolverFactory.hpp>
#include <BelosSolverFactory_Tpetra.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Teuchos_oblackholestream.hpp>

#include <chrono>
#include <cmath>

#include "backends/trilinos/trilinos_matrix.hpp"
#include "backends/trilinos/trilinos_preconditioners.hpp"
#include "backends/trilinos/trilinos_vector.hpp"
#include "framework/core/error.hpp"
#include "framework/la/solve_support.hpp"

namespace kinema::la::trilinos {

namespace {

using BelosSolverMgr = Belos::SolverManager<SC, TMV, TOp>;
using BelosProblem = Belos::LinearProblem<SC, TMV, TOp>;

// la::Vector views of the columns of Tpetra multivectors Belos hands to a wrapped operator.
// A view is made the first time a column's storage is seen and reused after (Belos keeps its
// work vectors for the whole solve), so applies inside the iteration do not allocate. Views keep
// their storage alive; clear() drops them at the end of each solve.
class ColumnViews {
 public:
  explicit ColumnViews(LayoutPtr layout)
      : layout_(std::move(layout)), ghosted_(!layout_->map->ghosts().empty()) {}

  // Column j of X as a vector on the layout's map (read only).
  const Vector& in(const TMV& X, std::size_t j) {
    if (!ghosted_) return viewOf(X, j);
    if (!inBuf_) inBuf_ = std::make_unique<TrilinosVector>(layout_);
    copyColumn(X, j, *inBuf_);
    return *inBuf_;
  }
  // Column j of Y to write; commit() after writing.
  Vector& out(TMV& Y, std::size_t j) {
    if (!ghosted_) return viewOf(Y, j);
    if (!outBuf_) outBuf_ = std::make_unique<TrilinosVector>(layout_);
    copyColumn(Y, j, *outBuf_);
    return *outBuf_;
  }
  void commit(TMV& Y, std::size_t j, const Vector& v) {
    if (!ghosted_) return;
    auto h = Y.getLocalViewHost(Tpetra::Access::ReadWrite);
    Vector::ConstView src = v.view();
    for (std::size_t i = 0; i < h.extent(0); ++i) h(i, j) = src[static_cast<LocalIndex>(i)];
  }
  void clear() { views_.clear(); }

 private:
  TrilinosVector& viewOf(const TMV& X, std::size_t j) {
    const double* p = nullptr;
    {
      auto h = X.getLocalViewHost(Tpetra::Access::ReadOnly);
      p = h.data() + j * X.getStride();
    }
    for (auto& [q, v] : views_)
      if (q == p) return *v;
    if (views_.size() >= 128) views_.clear();  // bounded; Belos rarely has this many columns
    Teuchos::RCP<TVec> col = const_cast<TMV&>(X).getVectorNonConst(j);
    views_.emplace_back(p, std::make_unique<TrilinosVector>(layout_, col));
    return *views_.back().second;
  }
  static void copyColumn(const TMV& X, std::size_t j, TrilinosVector& v) {
    auto h = X.getLocalViewHost(Tpetra::Access::ReadOnly);
    Vector::View dst = v.view();
    for (std::size_t i = 0; i < h.extent(0); ++i) dst[static_cast<LocalIndex>(i)] = h(i, j);
  }

  LayoutPtr layout_;
  bool ghosted_;
  std::vector<std::pair<const double*, std::unique_ptr<TrilinosVector>>> views_;
  std::unique_ptr<TrilinosVector> inBuf_, outBuf_;
};

// Y = alpha op(X) + beta Y for a framework object whose apply is y = f(x).
class WrappedOperator : public TOp {
 public:
  WrappedOperator(LayoutPtr domain, LayoutPtr range, std::string what)
      : domain_(domain), range_(range), in_(domain), out_(range), what_(std::move(what)) {}
  Teuchos::RCP<const TMap> getDomainMap() const override { return domain_->owned; }
  Teuchos::RCP<const TMap> getRangeMap() const override { return range_->owned; }
  void apply(const TMV& X, TMV& Y, Teuchos::ETransp mode, SC alpha, SC beta) const override {
    if (mode != Teuchos::NO_TRANS)
      throw Error(str(what_, ": a framework operator has no transpose apply"));
    KINEMA_CHECK(X.getNumVectors() == Y.getNumVectors(), what_, ": X and Y have different column counts");
    for (std::size_t j = 0; j < X.getNumVectors(); ++j) {
      const Vector& x = in_.in(X, j);
      Vector& y = out_.out(Y, j);
      if (alpha == 1.0 && beta == 0.0) {
        call(x, y);
      } else {
        if (!tmp_) tmp_ = std::make_unique<TrilinosVector>(range_);
        call(x, *tmp_);
        y.axpby(alpha, *tmp_, beta);
      }
      out_.commit(Y, j, y);
    }
  }
  void clear() {
    in_.clear();
    out_.clear();
  }

 protected:
  virtual void call(const Vector& x, Vector& y) const = 0;

 private:
  LayoutPtr domain_, range_;
  mutable ColumnViews in_, out_;
  mutable std::unique_ptr<TrilinosVector> tmp_;
  std::string what_;
};

class OperatorAdapter final : public WrappedOperator {
 public:
  OperatorAdapter(OperatorPtr A, LayoutPtr domain, LayoutPtr range)
      : WrappedOperator(std::move(domain), std::move(range), "operator '" + A->description() + "'"),
        A_(std::move(A)) {}

 protected:
  void call(const Vector& x, Vector& y) const override { A_->apply(x, y); }

 private:
  OperatorPtr A_;
};

class PreconditionerAdapter final : public WrappedOperator {
 public:
  PreconditionerAdapter(PreconditionerPtr P, LayoutPtr layout)
      : WrappedOperator(layout, layout, "preconditioner '" + P->name() + "'"), P_(std::move(P)) {}

 protected:
  void call(const Vector& x, Vector& y) const override { P_->apply(x, y); }

 private:
  PreconditionerPtr P_;
};

std::string belosName(const std::string& type) {
  if (type == "cg") return "PSEUDOBLOCK CG";
  if (type == "minres") return "MINRES";
  if (type == "gmres") return "PSEUDOBLOCK GMRES";
  throw InputError(str("trilinos backend: unknown linear solver type '", type,
                       "' (available: cg, minres, gmres, direct)"));
}

class Clock {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

class BelosSolver final : public LinearSolver {
 public:
  BelosSolver(LinearSolverOptions opts, std::shared_ptr<const NativeOptions> native, PreconditionerPtr pc)
      : opts_(std::move(opts)),
        native_(std::move(native)),
        pc_(std::move(pc)),
        name_(belosName(opts_.type)),
        reuse_(opts_.reusePreconditioner) {
    if (!pc_) pc_ = std::make_shared<IdentityPreconditioner>();
    checkReusePolicy(opts_.reusePreconditioner, "trilinos linear solver");
    Belos::SolverFactory<SC, TMV, TOp> factory;
    solver_ = factory.create(name_, Teuchos::null);
    const Teuchos::ParameterList& valid = *solver_->getValidParameters();
    const std::string what = "Belos solver '" + name_ + "'";

    // The layer's options first, then the user's Belos list (backend-wide, then this solver's).
    params_ = Teuchos::parameterList();
    maxIters_ = opts_.maxIterations;
    params_->set("Maximum Iterations", maxIters_);
    params_->set("Convergence Tolerance", std::max(opts_.rtol, 1e-300));
    scaleByRhs_ = valid.isParameter("Implicit Residual Scaling");
    if (scaleByRhs_) params_->set("Implicit Residual Scaling", std::string("Norm of RHS"));
    if (valid.isParameter("Explicit Residual Scaling"))
      params_->set("Explicit Residual Scaling", std::string("Norm of RHS"));
    if (opts_.type == "gmres") {
      params_->set("Num Blocks", opts_.restart);
      params_->set("Maximum Restarts", std::max(opts_.maxIterations, 1));
    }
    Teuchos::ParameterList user = native_->merged(Package::belos);
    widenToValidTypes(user, valid);
    checkNames(*native_, Package::belos, user, valid, what);
    if (!user.isParameter("Verbosity") && !user.isParameter("Output Stream") && valid.isParameter("Output Stream"))
      params_->set("Output Stream", Teuchos::rcp_implicit_cast<std::ostream>(Teuchos::rcp(new Teuchos::oblackholestream)));
    params_->setParameters(user);
    if (user.isParameter("Maximum Iterations")) maxIters_ = user.get<int>("Maximum Iterations");
    userTol_ = user.isParameter("Convergence Tolerance");
    try {
      solver_->setParameters(params_);
    } catch (const std::exception& e) {
      rethrowAsInputError(e, *native_, Package::belos, what);
    }
  }

  void setOperator(OperatorPtr A) override {
    KINEMA_CHECK(A != nullptr, description(), ": setOperator(null)");
    if (const auto* M = dynamic_cast<const TrilinosMatrix*>(A.get())) {
      op_ = M->crs();
      domain_ = M->colLayout();
      adapter_ = Teuchos::null;
    } else {
      // A matrix-free operator: its vectors tell its layouts (and that it is ours).
      auto d = A->createDomainVector();
      auto r = A->createRangeVector();
      domain_ = asTrilinos(*d, "the linear solver (operator's domain vector)").layout();
      LayoutPtr range = asTrilinos(*r, "the linear solver (operator's range vector)").layout();
      adapter_ = Teuchos::rcp(new OperatorAdapter(A, domain_, range));
      op_ = adapter_;
    }
    if (!r_ || !r_->map().compatible(*A->rangeMap())) r_ = A->createRangeVector();
    A_ = std::move(A);
    if (reuse_.keep(A_)) return;  // same matrix and pattern, policy "full": keep the set-up
    setupPreconditioner();
  }

  void setPreconditioner(PreconditionerPtr P) override {
    pc_ = P ? std::move(P) : std::make_shared<IdentityPreconditioner>();
    reuse_.forget();
    if (A_) setupPreconditioner();
  }

  SolverStats solve(const Vector& b, Vector& x) override {
    const SolverStats s = solveOnce(b, x);
    reuse_.solved(s.iterations);
    return s;
  }

 private:
  SolverStats solveOnce(const Vector& b, Vector& x) {
    Clock clock;
    if (!A_) throw Error(str(description(), ": solve() called before setOperator()"));
    const TrilinosVector& tb = asTrilinos(b, "linear solver (b)");
    TrilinosVector& tx = asTrilinos(x, "linear solver (x)");
    checkSolveArguments(*A_, b, x, name_);

    SolverStats s;
    s.rhsNorm = b.norm2();
    // From a zero initial guess the residual is b: skip the SpMV (it matters for AMG solves of
    // ten iterations or so).
    s.initialResidual = x.normInf() == 0.0 ? s.rhsNorm : residual(b, x);
    s.finalResidual = s.initialResidual;
    if (settledWithoutIterating(s, x)) {
      s.seconds = clock.seconds();
      return s;
    }
    const double rel = opts_.rtol * s.rhsNorm;
    const double tol = std::max(rel, opts_.atol);
    const SolverOutcome met = rel >= opts_.atol ? SolverOutcome::Rtol : SolverOutcome::Atol;
    if (s.initialResidual <= tol) {
      s.converged = true;
      s.reason = met;
      s.seconds = clock.seconds();
      return s;
    }

    Teuchos::RCP<TMV> X = tx.ownedPtr();
    Teuchos::RCP<const TMV> B = tb.ownedPtr();
    auto problem = Teuchos::rcp(new BelosProblem(op_, X, B));
    if (!prec_.is_null()) {
      if (opts_.type == "gmres")
        problem->setRightPrec(prec_);
      else
        problem->setLeftPrec(prec_);
    }
    int total = 0;
    double r = s.initialResidual, tighten = 1.0;
    for (int attempt = 0;; ++attempt) {
      const int remaining = maxIters_ - total;
      if (remaining <= 0) {
        s.reason = SolverOutcome::MaxIterations;
        break;
      }
      params_->set("Maximum Iterations", remaining);
      if (!userTol_) params_->set("Convergence Tolerance", tighten * tol / (scaleByRhs_ ? s.rhsNorm : r));
      solver_->setParameters(params_);
      problem->setProblem();
      solver_->setProblem(problem);
      Belos::ReturnType ret = Belos::Unconverged;
      bool threw = false;
      try {
        ret = solver_->solve();
        total += solver_->getNumIters();
      } catch (const std::exception& e) {
        // Belos CG stops on p^T A p <= 0 (A not positive definite) or r^T M r < 0 (M not).
        threw = true;
        s.reason = std::string(e.what()).find("p^H*A*p") != std::string::npos ? SolverOutcome::Indefinite
                                                                                : SolverOutcome::Breakdown;
      }
      r = residual(b, x);
      if (!std::isfinite(r)) {
        s.reason = SolverOutcome::Breakdown;
        break;
      }
      if (r <= tol) {
        s.converged = true;
        s.reason = met;
        break;
      }
      if (threw) break;
      if (ret != Belos::Converged) {
        s.reason = total >= maxIters_ ? SolverOutcome::MaxIterations : SolverOutcome::Breakdown;
        break;
      }
      // Belos met its tolerance on its own residual estimate, the true residual did not.
      if (userTol_) {
        s.reason = SolverOutcome::BelosTolerance;  // the native "Convergence Tolerance" the user gave
        break;
      }
      if (attempt >= 6) {
        s.reason = SolverOutcome::Breakdown;  // no progress towards the true-residual target
        break;
      }
      tighten *= 0.5;
    }
    if (adapter_) adapter_->clear();
    if (precAdapter_) precAdapter_->clear();
    s.iterations = total;
    s.finalResidual = r;
    s.seconds = clock.seconds();
    return s;
  }

 public:
  void setTolerances(double rtol, double atol) override {
    opts_.rtol = rtol;
    opts_.atol = atol;
    userTol_ = false;  // the caller's tolerances win over a Belos "Convergence Tolerance"
  }
  std::string description() const override {
    std::string d = str(opts_.type, " + ", pc_->name(), " (trilinos Belos ", name_, "; rtol ", opts_.rtol,
                        ", atol ", opts_.atol, ", max ", maxIters_, " iterations");
    if (opts_.type == "gmres") d += str(", restart ", opts_.restart);
    return d + ")";
  }

 private:
  double residual(const Vector& b, const Vector& x) { return trueResidual(*A_, b, x, *r_); }

  void setupPreconditioner() {
    pc_->setup(A_);
    reuse_.record(A_);
    precAdapter_ = Teuchos::null;
    prec_ = Teuchos::null;
    if (dynamic_cast<const IdentityPreconditioner*>(pc_.get())) return;
    if (const auto* n = dynamic_cast<const NativePreconditioner*>(pc_.get()))
      prec_ = n->nativeOperator();
    if (prec_.is_null()) {  // a framework preconditioner (or a native one's framework fallback)
      precAdapter_ = Teuchos::rcp(new PreconditionerAdapter(pc_, domain_));
      prec_ = precAdapter_;
    }
  }

  LinearSolverOptions opts_;
  std::shared_ptr<const NativeOptions> native_;
  PreconditionerPtr pc_;
  std::string name_;
  Teuchos::RCP<BelosSolverMgr> solver_;
  Teuchos::RCP<Teuchos::ParameterList> params_;
  int maxIters_ = 0;
  bool scaleByRhs_ = true;
  bool userTol_ = false;

  OperatorPtr A_;
  LayoutPtr domain_;
  Teuchos::RCP<const TOp> op_, prec_;
  Teuchos::RCP<OperatorAdapter> adapter_;
  Teuchos::RCP<PreconditionerAdapter> precAdapter_;
  VectorPtr r_;
  PreconditionerReuse reuse_;  // LinearSolverOptions::reusePreconditioner
};

}  // namespace

std::unique_ptr<LinearSolver> makeBelosSolver(const LinearSolverOptions& opts,
                                              std::shared_ptr<const NativeOptions> native,
                                              PreconditionerPtr preconditioner) {
  return std::make_unique<BelosSolver>(opts, std::move(native), std::move(preconditioner));
}

}  // namespace kinema::la::trilinos
