#include "backends/petsc/petsc_solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include <yaml-cpp/yaml.h>

#include "backends/petsc/petsc_pc.hpp"
#include "backends/petsc/petsc_preconditioner.hpp"

namespace kinema::la::petsc {

namespace {

std::string nativeOptionsOf(const LinearSolverOptions& o) {
  const auto it = o.native.find("petsc");
  if (it == o.native.end()) return "";
  const YAML::Node p = YAML::Load(it->second);
  if (!p.IsDefined() || p.IsNull()) return "";
  if (!p.IsScalar())
    throw InputError(str("native.petsc of the solver with prefix '", o.prefix,
                         "' must be a string of PETSc options (e.g. \"-ksp_monitor -pc_gamg_threshold 0.02\")"));
  return p.as<std::string>();
}

std::string nativeSource(const LinearSolverOptions& o) {
  return str("native.petsc of the solver with prefix '", o.prefix, "'");
}

bool sameLayout(const Operator& a, const Operator& b) {
  return a.domainMap()->compatible(*b.domainMap()) && a.rangeMap()->compatible(*b.rangeMap());
}

}  // namespace

void setOutcome(SolverStats& s, KSPConvergedReason r) {
  switch (r) {
    case KSP_DIVERGED_ITS:
      s.reason = SolverOutcome::MaxIterations;
      return;
    case KSP_DIVERGED_BREAKDOWN:
    case KSP_DIVERGED_BREAKDOWN_BICG:
    case KSP_DIVERGED_INDEFINITE_PC:
    case KSP_DIVERGED_NANORINF:
      s.reason = SolverOutcome::Breakdown;
      return;
    case KSP_DIVERGED_INDEFINITE_MAT:
      s.reason = SolverOutcome::Indefinite;
      return;
    default:
      break;
  }
  const char* name = KSPConvergedReasons[r];
  s.reason = SolverOutcome::Native;
  s.native = str(r < 0 ? "diverged:" : "converged:", name ? name : std::to_string(static_cast<int>(r)).c_str());
}

PetscLinearSolver::PetscLinearSolver(LinearSolverOptions opts, std::string backendOptions, PreconditionerPtr pc)
    : opts_(std::move(opts)), backendOptions_(std::move(backendOptions)) {
  direct_ = opts_.type == "direct";
  KINEMA_CHECK(direct_ || opts_.type == "cg" || opts_.type == "gmres" || opts_.type == "minres",
               "petsc backend: unknown solver type '", opts_.type, "'");
  checkReusePolicy(opts_.reusePreconditioner, "petsc linear solver");
  reuse_ = PreconditionerReuse(opts_.reusePreconditioner);
  nativeOptions_ = nativeOptionsOf(opts_);
  // Malformed strings fail here, before any work (the backend checked backend.petsc.options).
  validateOptions(nativeOptions_, nativeSource(opts_));
  setPreconditioner(std::move(pc));
}

PetscLinearSolver::~PetscLinearSolver() {
  if (!alive()) return;
  if (ksp_) KSPDestroy(&ksp_);
  if (t_) VecDestroy(&t_);
  if (w_) VecDestroy(&w_);
}

void PetscLinearSolver::setPreconditioner(PreconditionerPtr P) {
  if (!P) P = std::make_shared<IdentityPreconditioner>();
  if (const auto* native = dynamic_cast<const PetscPreconditioner*>(P.get())) {
    pcName_ = native->name();
    pc_.reset();
  } else if (dynamic_cast<const IdentityPreconditioner*>(P.get())) {
    pcName_ = "none";
    pc_.reset();
  } else {
    pcName_.clear();
    pc_ = std::move(P);
  }
  if (ksp_) {  // rebuild the KSP so the new preconditioner's defaults sit below the user's options
    KINEMA_PETSC_CHECK(KSPDestroy(&ksp_));
    shellPc_.reset();
    if (op_.bound()) {
      createKsp(op_.op()->rangeMap()->comm());
      setUp();
    }
  }
}

void PetscLinearSolver::createKsp(const Comm& comm) {
  try {
    configureKsp(comm);
  } catch (...) {  // no half-configured KSP survives: the next setOperator starts again
    if (ksp_) KSPDestroy(&ksp_);
    shellPc_.reset();
    throw;
  }
}

void PetscLinearSolver::configureKsp(const Comm& comm) {
  const int ranks = comm.size();
  db_ = std::make_unique<OptionsDb>();
  if (direct_)
    insertPcDefaults(*db_, opts_.prefix, "direct", ranks);
  else if (!pcName_.empty())
    insertPcDefaults(*db_, opts_.prefix, pcName_, ranks);
  db_->insert(opts_.prefix, backendOptions_, "backend.petsc.options");
  db_->insert(opts_.prefix, nativeOptions_, nativeSource(opts_));

  OptionsDb::Scope scope(*db_);
  KINEMA_PETSC_CHECK(KSPCreate(comm.raw(), &ksp_));
  KINEMA_PETSC_CHECK(PetscObjectSetOptions(reinterpret_cast<PetscObject>(ksp_), db_->raw()));
  if (!opts_.prefix.empty()) KINEMA_PETSC_CHECK(KSPSetOptionsPrefix(ksp_, opts_.prefix.c_str()));
  if (direct_) {
    KINEMA_PETSC_CHECK(KSPSetType(ksp_, KSPPREONLY));
  } else {
    KINEMA_PETSC_CHECK(KSPSetType(ksp_, opts_.type == "cg" ? KSPCG : opts_.type == "gmres" ? KSPGMRES : KSPMINRES));
    KINEMA_PETSC_CHECK(KSPSetInitialGuessNonzero(ksp_, PETSC_TRUE));
    if (opts_.type == "gmres") KINEMA_PETSC_CHECK(KSPGMRESSetRestart(ksp_, opts_.restart));
  }
  KINEMA_PETSC_CHECK(KSPSetTolerances(ksp_, opts_.rtol, opts_.atol, PETSC_DEFAULT, opts_.maxIterations));
  configurePreconditioner();
  if (!direct_ && pcName_ == "amg" && opts_.reusePreconditioner == "interpolation") {
    // GAMG keeps its prolongators on a refill with the same nonzero pattern and recomputes the
    // Galerkin coarse operators (a new pattern, SAME_NONZERO_PATTERN false, rebuilds). Options
    // (-pc_gamg_reuse_interpolation) still override it.
    PC pc = nullptr;
    KINEMA_PETSC_CHECK(KSPGetPC(ksp_, &pc));
    KINEMA_PETSC_CHECK(PCGAMGSetReuseInterpolation(pc, PETSC_TRUE));
  }
  reuse_.forget();

  if (KSPSetFromOptions(ksp_) != 0)
    throw InputError(str("PETSc rejected the options of the solver with prefix '", opts_.prefix,
                         "' (backend.petsc.options \"", backendOptions_, "\", native.petsc \"", nativeOptions_,
                         "\"): ", takeLastError()));
  if (explicitTolerances_) applyTolerances();  // setTolerances() wins over -ksp_rtol / -ksp_atol

  // The layer's choices where the options did not say otherwise.
  KSPType type = nullptr;
  KINEMA_PETSC_CHECK(KSPGetType(ksp_, &type));
  const std::string t = type ? type : "";
  const bool userNorm = db_->has(opts_.prefix, "-ksp_norm_type") || db_->has(opts_.prefix, "-ksp_pc_side");
  if (!userNorm) {
    if (t == KSPCG) {
      KINEMA_PETSC_CHECK(KSPSetNormType(ksp_, KSP_NORM_UNPRECONDITIONED));
    } else if (t == KSPGMRES || t == KSPFGMRES) {
      KINEMA_PETSC_CHECK(KSPSetPCSide(ksp_, PC_RIGHT));
      KINEMA_PETSC_CHECK(KSPSetNormType(ksp_, KSP_NORM_UNPRECONDITIONED));
    }
  }
  if (t == KSPPREONLY) KINEMA_PETSC_CHECK(KSPSetInitialGuessNonzero(ksp_, PETSC_FALSE));
  if (t == KSPCG) KINEMA_PETSC_CHECK(KSPSetComputeEigenvalues(ksp_, PETSC_TRUE));
  // A framework preconditioner set in code is not replaced by a -pc_type from the options.
  if (pcName_.empty() && !direct_) shellPc_->install([&] {
    PC pc = nullptr;
    KINEMA_PETSC_CHECK(KSPGetPC(ksp_, &pc));
    return pc;
  }());
  KINEMA_PETSC_CHECK(KSPSetConvergenceTest(ksp_, &PetscLinearSolver::convergenceTest, this, nullptr));
}

void PetscLinearSolver::configurePreconditioner() {
  PC pc = nullptr;
  KINEMA_PETSC_CHECK(KSPGetPC(ksp_, &pc));
  const int ranks = op_.op()->rangeMap()->comm().size();
  if (direct_) {
    configurePc(pc, "direct", ranks);
  } else if (!pcName_.empty()) {
    configurePc(pc, pcName_, ranks);
  } else {
    if (!shellPc_ || shellPc_->preconditioner() != pc_)
      shellPc_ = std::make_unique<ShellPreconditioner>(pc_, *op_.op()->domainMap());
    shellPc_->install(pc);
  }
}

void PetscLinearSolver::setOperator(OperatorPtr A) {
  KINEMA_CHECK(A != nullptr, "petsc linear solver: setOperator without an operator");
  if (!A->domainMap()->compatible(*A->rangeMap()))
    throw Error(str("petsc linear solver: operator '", A->description(),
                    "' is not square (domain and range maps differ)"));
  const bool rebuild = !ksp_ || !sameLayout(*op_.op(), *A);
  const bool newShell = pcName_.empty() && !direct_ && op_.op() != A;
  op_.bind(std::move(A));
  if (rebuild) {
    if (ksp_) KINEMA_PETSC_CHECK(KSPDestroy(&ksp_));
    shellPc_.reset();
    if (t_) KINEMA_PETSC_CHECK(VecDestroy(&t_));
    if (w_) KINEMA_PETSC_CHECK(VecDestroy(&w_));
    r_.reset();
    createKsp(op_.op()->rangeMap()->comm());
  } else if (newShell) {
    shellPc_ = std::make_unique<ShellPreconditioner>(pc_, *op_.op()->domainMap());
    PC pc = nullptr;
    KINEMA_PETSC_CHECK(KSPGetPC(ksp_, &pc));
    shellPc_->install(pc);
  }
  setUp();
}

void PetscLinearSolver::setUp() {
  OptionsDb::Scope scope(*db_);
  Mat m = op_.mat();
  // Policy "full" on a refill of the same matrix and pattern: the PC set up before is kept
  // (KSPSetReusePreconditioner; PETSc would otherwise set it up again because the values changed).
  const bool keep = !direct_ && reuse_.keep(op_.op());
  KINEMA_PETSC_CHECK(KSPSetReusePreconditioner(ksp_, keep ? PETSC_TRUE : PETSC_FALSE));
  KINEMA_PETSC_CHECK(KSPSetOperators(ksp_, m, m));
  PC pc = nullptr;
  KINEMA_PETSC_CHECK(KSPGetPC(ksp_, &pc));
  if (keep) {
    if (!r_) r_ = op_.op()->createRangeVector();
    if (!t_) KINEMA_PETSC_CHECK(MatCreateVecs(m, &t_, &w_));
    return;
  }
  reuse_.record(op_.op());
  if (pc_ && !direct_) {
    PCType type = nullptr;
    KINEMA_PETSC_CHECK(PCGetType(pc, &type));
    if (type && std::strcmp(type, PCSHELL) == 0) pc_->setup(op_.op());
  }
  preparePcSetup(pc, op_, description());
  KINEMA_PETSC_CHECK(KSPSetUp(ksp_));
  KINEMA_PETSC_CHECK(KSPSetUpOnBlocks(ksp_));
  if (!r_) r_ = op_.op()->createRangeVector();
  if (!t_) KINEMA_PETSC_CHECK(MatCreateVecs(m, &t_, &w_));
}

double PetscLinearSolver::trueResidual(const Vector& b, const Vector& x) {
  op_.op()->apply(x, *r_);
  r_->axpby(1.0, b, -1.0);
  return r_->norm2();
}

PetscErrorCode PetscLinearSolver::convergenceTest(KSP ksp, PetscInt /*it*/, PetscReal rnorm,
                                                  KSPConvergedReason* reason, void* ctx) {
  auto* self = static_cast<PetscLinearSolver*>(ctx);
  *reason = KSP_CONVERGED_ITERATING;
  if (!std::isfinite(rnorm)) {
    *reason = KSP_DIVERGED_NANORINF;
    return 0;
  }
  // A recurrence norm of the unpreconditioned residual is only a trigger; the true one decides.
  if (!self->trueEveryIteration_ && !(rnorm <= self->tol_)) return 0;
  Vec res = nullptr;
  PetscErrorCode ierr = KSPBuildResidual(ksp, self->t_, self->w_, &res);
  if (ierr) return ierr;
  PetscReal trueNorm = 0;
  ierr = VecNorm(res, NORM_2, &trueNorm);
  if (ierr) return ierr;
  if (!std::isfinite(trueNorm))
    *reason = KSP_DIVERGED_NANORINF;
  else if (trueNorm <= self->tol_)
    *reason = self->atolWins_ ? KSP_CONVERGED_ATOL : KSP_CONVERGED_RTOL;
  return 0;
}

SolverStats PetscLinearSolver::solve(const Vector& b, Vector& x) {
  const SolverStats s = solveOnce(b, x);
  reuse_.solved(s.iterations);
  return s;
}

namespace {

// The outcome of a KSPSolve from PETSc's reason and whether the true residual `meets` the
// tolerance (reached as `target`); `direct` for a direct solve or preonly, `kspType` the options' type.
void setSolveOutcome(SolverStats& s, KSPConvergedReason reason, bool meets, SolverOutcome target, bool direct,
                     const std::string& kspType) {
  if (direct) {
    s.iterations = std::max(s.iterations, 1);
    s.converged = meets && reason > 0;
    if (reason < 0)
      setOutcome(s, reason);
    else
      s.reason = SolverOutcome::Direct;
  } else if (meets && (reason > 0 || reason == KSP_DIVERGED_ITS)) {
    s.converged = true;
    s.reason = target;
  } else if (reason > 0) {
    s.reason = SolverOutcome::TrueResidualAboveTolerance;  // e.g. the recurrence drifted from the true residual
  } else if (reason == KSP_DIVERGED_INDEFINITE_MAT && kspType == "minres") {
    s.reason = SolverOutcome::Breakdown;  // PETSc's MINRES flags a preconditioner that is not positive definite
  } else {
    setOutcome(s, reason);
  }
}

}  // namespace

SolverStats PetscLinearSolver::solveOnce(const Vector& b, Vector& x) {
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if (!op_.bound()) throw Error(str(description(), ": solve() called before setOperator()"));
  const PetscVector& pb = asPetsc(b, "petsc linear solver (right-hand side)");
  PetscVector& px = asPetsc(x, "petsc linear solver (solution)");
  KINEMA_CHECK(&b != &x, "petsc linear solver: b and x must be distinct vectors");
  const Operator& A = *op_.op();
  if (!b.map().compatible(*A.rangeMap()))
    throw Error(str(description(), ": the right-hand side is not on the range map of operator '", A.description(), "'"));
  if (!x.map().compatible(*A.domainMap()))
    throw Error(str(description(), ": the solution vector is not on the domain map of operator '", A.description(), "'"));

  SolverStats s;
  s.rhsNorm = b.norm2();
  s.initialResidual = trueResidual(b, x);
  s.finalResidual = s.initialResidual;
  if (settledWithoutIterating(s, x)) {
    s.seconds = seconds();
    return s;
  }
  PetscReal rtol = 0, atol = 0, dtol = 0;
  PetscInt maxit = 0;
  KINEMA_PETSC_CHECK(KSPGetTolerances(ksp_, &rtol, &atol, &dtol, &maxit));
  atolWins_ = atol > rtol * s.rhsNorm;
  tol_ = std::max(rtol * s.rhsNorm, static_cast<double>(atol));
  const SolverOutcome target = atolWins_ ? SolverOutcome::Atol : SolverOutcome::Rtol;
  if (!direct_ && s.initialResidual <= tol_) {
    s.converged = true;
    s.reason = target;
    s.seconds = seconds();
    return s;
  }
  KSPNormType normType = KSP_NORM_DEFAULT;
  KINEMA_PETSC_CHECK(KSPGetNormType(ksp_, &normType));
  trueEveryIteration_ = normType != KSP_NORM_UNPRECONDITIONED;

  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
  PetscInt its = 0;
  {
    OptionsDb::Scope scope(*db_);
    KINEMA_PETSC_CHECK(KSPSolve(ksp_, pb.vec(), px.vec()));
    KINEMA_PETSC_CHECK(KSPGetIterationNumber(ksp_, &its));
    KINEMA_PETSC_CHECK(KSPGetConvergedReason(ksp_, &reason));
  }
  s.iterations = static_cast<int>(its);
  s.finalResidual = trueResidual(b, x);
  const bool meets = std::isfinite(s.finalResidual) && s.finalResidual <= tol_;

  KSPType type = nullptr;
  KINEMA_PETSC_CHECK(KSPGetType(ksp_, &type));
  setSolveOutcome(s, reason, meets, target, direct_ || std::strcmp(type, KSPPREONLY) == 0, opts_.type);
  // PETSc's CG notices negative curvature only when its sign changes; the Ritz values (the
  // eigenvalues of CG's Lanczos matrix) are all positive exactly when every p'Ap was.
  if (std::strcmp(type, KSPCG) == 0 && its > 0 && reason != KSP_DIVERGED_INDEFINITE_MAT) {
    if (ritzRe_.size() < static_cast<std::size_t>(its)) {
      ritzRe_.resize(static_cast<std::size_t>(its));
      ritzIm_.resize(static_cast<std::size_t>(its));
    }
    PetscInt neig = 0;
    KINEMA_PETSC_CHECK(KSPComputeEigenvalues(ksp_, its, ritzRe_.data(), ritzIm_.data(), &neig));
    for (PetscInt k = 0; k < neig; ++k)
      if (!(ritzRe_[static_cast<std::size_t>(k)] > 0.0)) {
        s.converged = false;
        s.reason = SolverOutcome::Indefinite;
        break;
      }
  }
  s.seconds = seconds();
  return s;
}

std::string PetscLinearSolver::description() const {
  std::string kspType = direct_ ? "preonly" : opts_.type;
  std::string pcType = direct_ ? "lu" : (pcName_.empty() ? (pc_ ? pc_->name() + " (shell)" : "?") : pcName_);
  if (ksp_) {
    KSPType t = nullptr;
    PC pc = nullptr;
    PCType pt = nullptr;
    if (KSPGetType(ksp_, &t) == 0 && t) kspType = t;
    if (KSPGetPC(ksp_, &pc) == 0 && PCGetType(pc, &pt) == 0 && pt)
      pcType = (pcName_.empty() && !direct_ && pc_) ? str(pc_->name(), " (", pt, ")") : std::string(pt);
  }
  std::string d = str("petsc ", kspType, " + ", pcType, " (rtol ", opts_.rtol, ", atol ", opts_.atol, ", max ",
                      opts_.maxIterations, " iterations");
  if (opts_.type == "gmres") d += str(", restart ", opts_.restart);
  if (!opts_.prefix.empty()) d += str(", options prefix ", opts_.prefix);
  return d + ")";
}

void PetscLinearSolver::setTolerances(double rtol, double atol) {
  opts_.rtol = rtol;
  opts_.atol = atol;
  explicitTolerances_ = true;
  if (ksp_) applyTolerances();
}

void PetscLinearSolver::applyTolerances() {
  PetscReal r = 0, a = 0, dtol = 0;
  PetscInt maxit = 0;
  KINEMA_PETSC_CHECK(KSPGetTolerances(ksp_, &r, &a, &dtol, &maxit));
  KINEMA_PETSC_CHECK(KSPSetTolerances(ksp_, opts_.rtol, opts_.atol, dtol, maxit));
}

}  // namespace kinema::la::petsc
