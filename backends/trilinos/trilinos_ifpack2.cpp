// Ifpack2 preconditioners (jacobi, ssor, ic0) and what every native preconditioner shares.
#include <Ifpack2_Factory.hpp>

#include "backends/trilinos/trilinos_matrix.hpp"
#include "backends/trilinos/trilinos_preconditioners.hpp"
#include "backends/trilinos/trilinos_vector.hpp"
#include "framework/core/error.hpp"

namespace kinema::la::trilinos {

void NativePreconditioner::apply(const Vector& r, Vector& z) const {
  const TrilinosVector& tr = asTrilinos(r, "preconditioner apply (r)");
  TrilinosVector& tz = asTrilinos(z, "preconditioner apply (z)");
  if (const Preconditioner* f = fallback()) {
    f->apply(r, z);
    return;
  }
  const Teuchos::RCP<const TOp> op = nativeOperator();
  KINEMA_CHECK(!op.is_null(), name(), " preconditioner applied before setup");
  KINEMA_CHECK(&r != &z, name(), " preconditioner: r and z must be distinct vectors");
  op->apply(tr.owned(), tz.owned());
}

const TrilinosMatrix& requireTrilinosMatrix(const OperatorPtr& A, const std::string& who) {
  KINEMA_CHECK(A != nullptr, who, ": no operator");
  const auto* m = dynamic_cast<const TrilinosMatrix*>(A.get());
  if (!m)
    throw InputError(str(who, " needs a matrix assembled by the trilinos backend, but operator '",
                         A->description(),
                         "' is not one (for matrix-free operators use preconditioner jacobi, none or "
                         "a framework one, and an iterative solver)"));
  return *m;
}

namespace {

using RowMatrix = Tpetra::RowMatrix<SC, LO, GO, NO>;
using Ifpack2Prec = Ifpack2::Preconditioner<SC, LO, GO, NO>;

class Ifpack2Preconditioner final : public NativePreconditioner {
 public:
  Ifpack2Preconditioner(std::string name, std::shared_ptr<const NativeOptions> opts)
      : NativePreconditioner(std::move(opts)), name_(std::move(name)) {
    if (name_ == "jacobi") {
      type_ = "RELAXATION";
      defaults_.set("relaxation: type", std::string("Jacobi"));
    } else if (name_ == "ssor") {
      type_ = "RELAXATION";
      defaults_.set("relaxation: type", std::string("Symmetric Gauss-Seidel"));
    } else if (name_ == "ic0") {
      type_ = "RILUK";
      defaults_.set("fact: iluk level-of-fill", 0);
    } else {
      throw Error(str("trilinos backend: '", name_, "' is not an Ifpack2 preconditioner"));
    }
    if (type_ == "RELAXATION") {
      defaults_.set("relaxation: sweeps", 1);
      defaults_.set("relaxation: damping factor", 1.0);
      defaults_.set("relaxation: zero starting solution", true);
    }
  }

  void setup(OperatorPtr A) override {
    KINEMA_CHECK(A != nullptr, name_, " preconditioner: set up without an operator");
    if (name_ == "jacobi" && dynamic_cast<const TrilinosMatrix*>(A.get()) == nullptr) {
      // A matrix-free operator has a diagonal but no rows for Ifpack2.
      if (!fallback_) fallback_ = std::make_unique<JacobiPreconditioner>();
      fallback_->setup(A);
      prec_ = Teuchos::null;
      crs_ = Teuchos::null;
      return;
    }
    const TrilinosMatrix& M = requireTrilinosMatrix(A, "the " + name_ + " preconditioner");
    fallback_.reset();
    const std::string what = str("Ifpack2 ", type_, " (preconditioner ", name_, ")");
    if (prec_.is_null() || crs_ != M.crs()) {  // first setup, or the pattern was rebuilt
      prec_ = Ifpack2::Factory::create<RowMatrix>(type_, Teuchos::rcp_implicit_cast<const RowMatrix>(M.crs()));
      Teuchos::ParameterList p = defaults_;
      Teuchos::ParameterList user = opts_->merged(Package::ifpack2);
      widenToValidTypes(user, defaults_);
      p.setParameters(user);
      try {
        prec_->setParameters(p);
      } catch (const std::exception& e) {
        prec_ = Teuchos::null;
        rethrowAsInputError(e, *opts_, Package::ifpack2, what);
      }
      prec_->initialize();
      crs_ = M.crs();
    }
    try {
      prec_->compute();  // the matrix's current values
    } catch (const std::exception& e) {
      throw Error(str(what, " failed on ", M.description(), ": ", e.what()));
    }
    if (name_ == "jacobi") checkDiagonal(M);
  }

  Teuchos::RCP<const TOp> nativeOperator() const override { return prec_; }
  std::string name() const override { return name_; }

 protected:
  const Preconditioner* fallback() const override { return fallback_.get(); }

 private:
  // Ifpack2 Jacobi silently replaces a zero diagonal entry; the layer's jacobi refuses it.
  void checkDiagonal(const TrilinosMatrix& M) const {
    TVec d(M.crs()->getRowMap());
    M.crs()->getLocalDiagCopy(d);
    GlobalIndex bad = -1;
    {
      auto v = d.getLocalViewHost(Tpetra::Access::ReadOnly);
      for (std::size_t i = 0; i < v.extent(0); ++i)
        if ((v(i, 0) == 0.0 || !std::isfinite(v(i, 0))) && bad < 0)
          bad = static_cast<GlobalIndex>(M.crs()->getRowMap()->getGlobalElement(static_cast<LO>(i)));
    }
    const std::int64_t first = M.rangeMap()->comm().min(bad < 0 ? std::int64_t{INT64_MAX} : std::int64_t{bad});
    if (first != INT64_MAX)
      throw Error(str("jacobi preconditioner: ", M.description(),
                      " has a zero or non-finite diagonal entry at row ", first,
                      "; use another preconditioner (none, ssor) or fix the operator"));
  }

  std::string name_, type_;
  Teuchos::ParameterList defaults_;
  Teuchos::RCP<Ifpack2Prec> prec_;
  Teuchos::RCP<const TCrs> crs_;
  std::unique_ptr<JacobiPreconditioner> fallback_;
};

}  // namespace

std::unique_ptr<NativePreconditioner> makeIfpack2Preconditioner(const std::string& name,
                                                                std::shared_ptr<const NativeOptions> opts) {
  return std::make_unique<Ifpack2Preconditioner>(name, std::move(opts));
}

}  // namespace kinema::la::trilinos
