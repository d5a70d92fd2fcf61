// Amesos2: the direct solver type and the direct preconditioner.
#include "backends/trilinos/trilinos_direct.hpp"

#include <Amesos2.hpp>

#include <chrono>
#include <cmath>

#include "backends/trilinos/trilinos_matrix.hpp"
#include "backends/trilinos/trilinos_preconditioners.hpp"
#include "backends/trilinos/trilinos_vector.hpp"
#include "framework/core/error.hpp"
#include "framework/la/solve_support.hpp"

namespace kinema::la::trilinos {

namespace {

using Amesos2Solver = Amesos2::Solver<TCrs, TMV>;

std::string defaultSolverName() {
  if (Amesos2::query("KLU2")) return "KLU2";
  throw Error("trilinos backend: this Trilinos has no Amesos2 direct solver (not even KLU2)");
}

// The solver the user's "Solver Name" asks for (taken out of `user`), else the default.
std::string requestedSolverName(Teuchos::ParameterList& user, const NativeOptions& opts) {
  std::string name = defaultSolverName();
  if (user.isParameter("Solver Name")) {
    name = user.get<std::string>("Solver Name");
    user.remove("Solver Name");
    if (!Amesos2::query(name))
      throw InputError(str(opts.origin(Package::amesos2, "Solver Name"), ": Amesos2 has no solver '", name,
                           "' in this Trilinos (KLU2 is always there)"));
  }
  return name;
}

// A^{-1} as a Tpetra operator, for Belos.
class InverseOperator final : public TOp {
 public:
  explicit InverseOperator(const Amesos2Factorization& f) : f_(f) {}
  Teuchos::RCP<const TMap> getDomainMap() const override { return map_; }
  Teuchos::RCP<const TMap> getRangeMap() const override { return map_; }
  void apply(const TMV& X, TMV& Y, Teuchos::ETransp mode, SC alpha, SC beta) const override {
    KINEMA_CHECK(mode == Teuchos::NO_TRANS && alpha == 1.0 && beta == 0.0,
                 "direct preconditioner: only Y = A^{-1} X is supported");
    f_.solve(X, Y);
  }
  void setMap(Teuchos::RCP<const TMap> m) { map_ = std::move(m); }

 private:
  const Amesos2Factorization& f_;
  Teuchos::RCP<const TMap> map_;
};

}  // namespace

struct Amesos2Factorization::Impl {
  Teuchos::RCP<Amesos2Solver> solver;  // on A (one rank) or on rank 0's serial copy (several)
  Teuchos::RCP<const TCrs> crs;        // the matrix factorised (its pattern identity)
  std::string name;
  Teuchos::RCP<InverseOperator> inverse;
  bool ready = false;
  // Several ranks: Debian's Amesos2 13.2 returns wrong solutions when KLU2 (or Tacho) gathers
  // a distributed matrix itself, so the backend gathers it: an Import of every row to rank 0,
  // a serial copy there on MPI_COMM_SELF, and the right-hand side / solution moved the same way.
  bool gathered = false;
  Teuchos::RCP<const TImport> importer;  // owned rows -> all rows on rank 0
  Teuchos::RCP<TMV> bRoot, xRoot;        // on the rooted map
  Teuchos::RCP<TMV> bSer, xSer;          // rank 0's serial vectors
  Teuchos::RCP<TCrs> serial;

  // Several ranks: gathers every row of A to rank 0 (collective) and makes rank 0's serial copy
  // and vectors; returns the matrix to factorise there, null on the other ranks.
  Teuchos::RCP<const TCrs> gatherToRoot(const TrilinosMatrix& A);
  // Creates and sets up the solver `name` on `target` (when fresh) and factorises its current
  // values; the failure's message, empty if none. Throws InputError for parameters it refuses.
  std::string factorize(const Teuchos::RCP<const TCrs>& target, bool fresh, const Teuchos::ParameterList& user,
                        const NativeOptions& opts);
};

Amesos2Factorization::Amesos2Factorization() : impl_(std::make_unique<Impl>()) {}
Amesos2Factorization::~Amesos2Factorization() = default;

namespace {
// Rank 0's serial copy of the rows gathered there.
Teuchos::RCP<TCrs> serialCopy(const TCrs& rooted) {
  const auto selfComm = teuchosComm(MPI_COMM_SELF);
  const auto n = rooted.getGlobalNumRows();
  auto map = Teuchos::rcp(new TMap(n, static_cast<size_t>(n), GO{0}, selfComm));
  std::vector<size_t> counts(static_cast<std::size_t>(rooted.getNodeNumRows()));
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = rooted.getNumEntriesInLocalRow(static_cast<LO>(i));
  auto S = Teuchos::rcp(new TCrs(map, Teuchos::ArrayView<const size_t>(counts)));
  const auto colMap = rooted.getColMap();
  const auto rowMap = rooted.getRowMap();
  std::vector<GO> cols;
  std::vector<SC> vals;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    TCrs::local_inds_host_view_type inds;
    TCrs::values_host_view_type v;
    rooted.getLocalRowView(static_cast<LO>(i), inds, v);
    cols.resize(inds.extent(0));
    vals.resize(inds.extent(0));
    for (std::size_t k = 0; k < inds.extent(0); ++k) {
      cols[k] = colMap->getGlobalElement(inds(k));
      vals[k] = v(k);
    }
    S->insertGlobalValues(rowMap->getGlobalElement(static_cast<LO>(i)), Teuchos::ArrayView<const GO>(cols),
                          Teuchos::ArrayView<const SC>(vals));
  }
  S->fillComplete();
  return S;
}
}  // namespace

Teuchos::RCP<const TCrs> Amesos2Factorization::Impl::gatherToRoot(const TrilinosMatrix& A) {
  const auto comm = A.crs()->getComm();
  const auto rowMap = A.crs()->getRowMap();
  const auto n = rowMap->getGlobalNumElements();
  auto rooted = Teuchos::rcp(new TMap(n, comm->getRank() == 0 ? static_cast<size_t>(n) : 0, GO{0}, comm));
  if (importer.is_null() || !importer->getSourceMap()->isSameAs(*rowMap))
    importer = Teuchos::rcp(new TImport(rowMap, rooted));
  rooted = Teuchos::rcp_const_cast<TMap>(importer->getTargetMap());
  auto R = Tpetra::importAndFillCompleteCrsMatrix<TCrs>(A.crs(), *importer, rooted, rooted);
  bRoot = Teuchos::rcp(new TMV(rooted, 1));
  xRoot = Teuchos::rcp(new TMV(rooted, 1));
  gathered = true;
  serial = Teuchos::null;
  if (comm->getRank() == 0) {
    serial = serialCopy(*R);
    bSer = Teuchos::rcp(new TMV(serial->getRowMap(), 1));
    xSer = Teuchos::rcp(new TMV(serial->getRowMap(), 1));
    return serial;
  }
  return Teuchos::null;
}

std::string Amesos2Factorization::Impl::factorize(const Teuchos::RCP<const TCrs>& target, bool fresh,
                                                  const Teuchos::ParameterList& user, const NativeOptions& opts) {
  std::string failure;
  bool badInput = false;
  try {
    if (fresh) {
      solver = Teuchos::null;
      solver = Amesos2::create<TCrs, TMV>(name, target);
      auto p = Teuchos::rcp(new Teuchos::ParameterList("Amesos2"));
      p->setParameters(user);
      try {
        solver->setParameters(p);
      } catch (const std::exception& e) {
        badInput = true;
        throw;
      }
      solver->symbolicFactorization();
    }
    solver->numericFactorization();  // the matrix's current values
  } catch (const std::exception& e) {
    failure = e.what();
    if (badInput) {
      solver = Teuchos::null;
      rethrowAsInputError(e, opts, Package::amesos2, "Amesos2 " + name);
    }
  }
  return failure;
}

void Amesos2Factorization::compute(const TrilinosMatrix& A, const NativeOptions& opts, const std::string& who) {
  Impl& m = *impl_;
  const auto comm = A.crs()->getComm();
  const bool gather = comm->getSize() > 1;
  const bool fresh = m.solver.is_null() || m.crs != A.crs() || gather;
  m.ready = false;
  Teuchos::ParameterList user = opts.merged(Package::amesos2);
  const std::string name = requestedSolverName(user, opts);
  m.name = name;
  // Collective part first (every rank), so a failure on rank 0 is reported after it.
  Teuchos::RCP<const TCrs> target = A.crs();
  if (gather)
    target = m.gatherToRoot(A);
  else
    m.gathered = false;
  std::string failure;
  if (!target.is_null()) failure = m.factorize(target, fresh, user, opts);
  if (gather) {  // rank 0's outcome for every rank
    int bad = failure.empty() ? 0 : 1;
    comm->broadcast(0, sizeof(int), reinterpret_cast<char*>(&bad));
    if (bad && failure.empty()) failure = "(reported by rank 0)";
  }
  if (!failure.empty()) {
    m.solver = Teuchos::null;
    m.crs = Teuchos::null;
    throw Error(str(who, ": the Amesos2 ", name, " factorisation of ", A.description(),
                    " failed (the matrix is singular or numerically singular): ", failure));
  }
  m.crs = A.crs();
  m.ready = true;
  if (m.inverse.is_null()) m.inverse = Teuchos::rcp(new InverseOperator(*this));
  m.inverse->setMap(A.crs()->getDomainMap());
}

void Amesos2Factorization::solve(const TMV& b, TMV& x) const {
  KINEMA_CHECK(ready(), "Amesos2 solve before the factorisation");
  Impl& m = *impl_;
  if (!m.gathered) {
    m.solver->solve(Teuchos::ptrFromRef(x), Teuchos::ptrFromRef(b));
    return;
  }
  KINEMA_CHECK(b.getNumVectors() == 1 && x.getNumVectors() == 1, "Amesos2 solve: one right-hand side at a time");
  m.bRoot->doImport(b, *m.importer, Tpetra::INSERT);
  if (!m.solver.is_null()) {
    {
      auto src = m.bRoot->getLocalViewHost(Tpetra::Access::ReadOnly);
      auto dst = m.bSer->getLocalViewHost(Tpetra::Access::OverwriteAll);
      for (std::size_t i = 0; i < src.extent(0); ++i) dst(i, 0) = src(i, 0);
    }
    m.solver->solve(m.xSer.ptr(), m.bSer.ptr());
    auto src = m.xSer->getLocalViewHost(Tpetra::Access::ReadOnly);
    auto dst = m.xRoot->getLocalViewHost(Tpetra::Access::OverwriteAll);
    for (std::size_t i = 0; i < src.extent(0); ++i) dst(i, 0) = src(i, 0);
  }
  x.doExport(*m.xRoot, *m.importer, Tpetra::INSERT);
}

bool Amesos2Factorization::ready() const { return impl_->ready; }
std::string Amesos2Factorization::solverName() const { return impl_->name.empty() ? defaultSolverName() : impl_->name; }
Teuchos::RCP<const TOp> Amesos2Factorization::inverseOperator() const { return impl_->inverse; }

// ---- the direct preconditioner -----------------------------------------------------------------

namespace {

class Amesos2Preconditioner final : public NativePreconditioner {
 public:
  using NativePreconditioner::NativePreconditioner;
  void setup(OperatorPtr A) override {
    const TrilinosMatrix& M = requireTrilinosMatrix(A, "the direct preconditioner");
    fact_.compute(M, *opts_, "direct preconditioner");
  }
  Teuchos::RCP<const TOp> nativeOperator() const override {
    return fact_.ready() ? fact_.inverseOperator() : Teuchos::null;
  }
  std::string name() const override { return "direct"; }

 private:
  Amesos2Factorization fact_;
};

// ---- the direct solver ---------------------------------------------------------------------------

class DirectSolver final : public LinearSolver {
 public:
  DirectSolver(LinearSolverOptions opts, std::shared_ptr<const NativeOptions> native)
      : opts_(std::move(opts)), native_(std::move(native)) {}

  void setOperator(OperatorPtr A) override {
    const TrilinosMatrix& M = requireTrilinosMatrix(A, "the direct solver");
    fact_.compute(M, *native_, "direct solver");
    if (!r_ || !r_->map().compatible(*A->rangeMap())) r_ = A->createRangeVector();
    A_ = std::move(A);
  }
  // A direct solve needs no preconditioner; accepted for the interface and not used.
  void setPreconditioner(PreconditionerPtr) override {}

  SolverStats solve(const Vector& b, Vector& x) override {
    const auto t0 = std::chrono::steady_clock::now();
    if (!A_) throw Error("direct solver: solve() called before setOperator()");
    const TrilinosVector& tb = asTrilinos(b, "direct solver (b)");
    TrilinosVector& tx = asTrilinos(x, "direct solver (x)");
    checkSolveArguments(*A_, b, x, "direct solver");
    auto residual = [&] { return trueResidual(*A_, b, x, *r_); };
    SolverStats s;
    s.rhsNorm = b.norm2();
    s.initialResidual = residual();
    if (!settledByZeroRhs(s, x)) {
      fact_.solve(tb.owned(), tx.owned());
      s.iterations = 1;
      s.finalResidual = residual();
      const double tol = std::max(opts_.rtol * s.rhsNorm, opts_.atol);
      s.converged = std::isfinite(s.finalResidual) && s.finalResidual <= tol;
      s.reason = SolverOutcome::Direct;
    }
    s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return s;
  }

  void setTolerances(double rtol, double atol) override {
    opts_.rtol = rtol;
    opts_.atol = atol;
  }
  std::string description() const override {
    return str("direct (trilinos Amesos2 ", fact_.solverName(), ")");
  }

 private:
  LinearSolverOptions opts_;
  std::shared_ptr<const NativeOptions> native_;
  OperatorPtr A_;
  Amesos2Factorization fact_;
  VectorPtr r_;
};

}  // namespace

std::unique_ptr<NativePreconditioner> makeAmesos2Preconditioner(std::shared_ptr<const NativeOptions> opts) {
  return std::make_unique<Amesos2Preconditioner>(std::move(opts));
}

std::unique_ptr<LinearSolver> makeDirectSolver(const LinearSolverOptions& opts,
                                               std::shared_ptr<const NativeOptions> native) {
  return std::make_unique<DirectSolver>(opts, std::move(native));
}

}  // namespace kinema::la::trilinos
