// amg: MueLu smoothed aggregation (MueLu's defaults), with the matrix's near-null space as the
// "Nullspace" of the finest level and the block size as the number of PDE equations.
#include <MueLu_CreateTpetraPreconditioner.hpp>

#include "backends/trilinos/trilinos_matrix.hpp"
#include "backends/trilinos/trilinos_preconditioners.hpp"
#include "framework/core/error.hpp"

namespace kinema::la::trilinos {

namespace {

using MueLuOp = MueLu::TpetraOperator<SC, LO, GO, NO>;

class MueLuPreconditioner final : public NativePreconditioner {
 public:
  MueLuPreconditioner(std::shared_ptr<const NativeOptions> opts, bool reuseInterpolation)
      : NativePreconditioner(std::move(opts)), reuseInterpolation_(reuseInterpolation) {}

  void setup(OperatorPtr A) override {
    const TrilinosMatrix& M = requireTrilinosMatrix(A, "the amg preconditioner");
    std::vector<const Vector*> modes;
    for (const auto& m : M.nearNullSpace()) modes.push_back(m.get());
    if (!prec_.is_null() && crs_ == M.crs() && (modes == modes_ || reuseInterpolation_)) {
      // Same matrix object (a refill): set the hierarchy up again on the new values.
      try {
        MueLu::ReuseTpetraPreconditioner<SC, LO, GO, NO>(M.crs(), *prec_);
      } catch (const std::exception& e) {
        throw Error(str("amg preconditioner: MueLu re-setup failed on ", M.description(), ": ", e.what()));
      }
      return;
    }
    Teuchos::ParameterList p;
    p.set("verbosity", std::string("none"));
    p.set("number of equations", M.blockSize());
    Teuchos::ParameterList user = opts_->merged(Package::muelu);
    if (M.crs()->getComm()->getSize() > 1 && !user.isParameter("coarse: type")) {
      // Debian's Amesos2 13.2 solves wrongly when KLU2 gathers a distributed coarse matrix, so
      // on several ranks the coarsest level gets symmetric Gauss-Seidel sweeps (symmetric, so
      // the V-cycle stays a valid CG preconditioner) on a smaller coarse level instead.
      p.set("coarse: type", std::string("RELAXATION"));
      Teuchos::ParameterList& c = p.sublist("coarse: params");
      c.set("relaxation: type", std::string("Symmetric Gauss-Seidel"));
      c.set("relaxation: sweeps", 4);
      if (!user.isParameter("coarse: max size")) p.set("coarse: max size", 500);
    }
    p.setParameters(user);
    if (reuseInterpolation_ && !user.isParameter("reuse: type")) p.set("reuse: type", std::string("RP"));
    if (!modes.empty()) p.sublist("user data").set("Nullspace", nullspace(M, modes));
    prec_ = Teuchos::null;
    // MueLu prints while it validates a list (before "verbosity" applies); keep the run quiet.
    MueLu::VerboseObject::SetDefaultVerbLevel(MueLu::None);
    try {
      prec_ = MueLu::CreateTpetraPreconditioner<SC, LO, GO, NO>(Teuchos::rcp_implicit_cast<TOp>(M.crs()), p);
    } catch (const Teuchos::Exceptions::InvalidParameter& e) {
      rethrowAsInputError(e, *opts_, Package::muelu, "MueLu");
    } catch (const std::exception& e) {
      throw Error(str("amg preconditioner: MueLu setup failed on ", M.description(), ": ", e.what()));
    }
    crs_ = M.crs();
    modes_ = std::move(modes);
  }

  Teuchos::RCP<const TOp> nativeOperator() const override { return prec_; }
  std::string name() const override { return "amg"; }

 private:
  static Teuchos::RCP<TMV> nullspace(const TrilinosMatrix& M, const std::vector<const Vector*>& modes) {
    auto ns = Teuchos::rcp(new TMV(M.crs()->getRowMap(), modes.size()));
    auto view = ns->getLocalViewHost(Tpetra::Access::OverwriteAll);
    for (std::size_t j = 0; j < modes.size(); ++j) {
      KINEMA_CHECK(modes[j]->map().compatible(*M.rangeMap()),
                   "amg preconditioner: near-null-space mode ", j, " is not on the matrix's row map");
      Vector::ConstView v = modes[j]->view();
      for (LocalIndex i = 0; i < modes[j]->ownedSize(); ++i) view(static_cast<std::size_t>(i), j) = v[i];
    }
    return ns;
  }

  bool reuseInterpolation_ = false;
  Teuchos::RCP<MueLuOp> prec_;
  Teuchos::RCP<const TCrs> crs_;
  std::vector<const Vector*> modes_;
};

}  // namespace

std::unique_ptr<NativePreconditioner> makeMueLuPreconditioner(std::shared_ptr<const NativeOptions> opts,
                                                              bool reuseInterpolation) {
  return std::make_unique<MueLuPreconditioner>(std::move(opts), reuseInterpolation);
}

}  // namespace kinema::la::trilinos
