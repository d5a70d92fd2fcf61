#include "backends/petsc/petsc_preconditioner.hpp"

#include "backends/petsc/petsc_pc.hpp"

namespace kinema::la::petsc {

PetscPreconditioner::PetscPreconditioner(std::string name, std::string backendOptions)
    : name_(std::move(name)), backendOptions_(std::move(backendOptions)) {
  KINEMA_CHECK(isNativePc(name_), "petsc backend: '", name_, "' is not a native preconditioner");
}

PetscPreconditioner::~PetscPreconditioner() {
  if (pc_ && alive()) PCDestroy(&pc_);
}

void PetscPreconditioner::setup(OperatorPtr A) {
  KINEMA_CHECK(A != nullptr, name_, " preconditioner: set up without an operator");
  // A PC keeps its sizes once set up: an operator of another layout (or communicator) gets a new one.
  const bool sameLayout = op_.bound() && A->domainMap()->compatible(*op_.op()->domainMap()) &&
                          A->rangeMap()->compatible(*op_.op()->rangeMap());
  op_.bind(std::move(A));
  const Comm& comm = op_.op()->rangeMap()->comm();
  if (!pc_ || !sameLayout) {
    if (pc_) KINEMA_PETSC_CHECK(PCDestroy(&pc_));
    db_ = std::make_unique<OptionsDb>();
    insertPcDefaults(*db_, "", name_, comm.size());
    db_->insert("", backendOptions_, "backend.petsc.options");
    OptionsDb::Scope scope(*db_);
    KINEMA_PETSC_CHECK(PCCreate(comm.raw(), &pc_));
    try {
      KINEMA_PETSC_CHECK(PetscObjectSetOptions(reinterpret_cast<PetscObject>(pc_), db_->raw()));
      configurePc(pc_, name_, comm.size());
      if (PCSetFromOptions(pc_) != 0)
        throw InputError(str("the petsc backend could not apply backend.petsc.options to the ", name_,
                             " preconditioner: ", takeLastError()));
    } catch (...) {  // no half-configured PC survives
      PCDestroy(&pc_);
      throw;
    }
  }
  OptionsDb::Scope scope(*db_);
  Mat m = op_.mat();
  KINEMA_PETSC_CHECK(PCSetOperators(pc_, m, m));
  preparePcSetup(pc_, op_, str("the ", name_, " preconditioner"));
  KINEMA_PETSC_CHECK(PCSetUp(pc_));
  KINEMA_PETSC_CHECK(PCSetUpOnBlocks(pc_));
  work_.reset();
}

void PetscPreconditioner::apply(const Vector& r, Vector& z) const {
  KINEMA_CHECK(pc_ != nullptr && op_.bound(), name_, " preconditioner applied before setup");
  const PetscVector& pr = asPetsc(r, "petsc preconditioner apply");
  PetscVector& pz = asPetsc(z, "petsc preconditioner apply");
  OptionsDb::Scope scope(*db_);
  if (&r == &z) {  // PCApply needs distinct vectors
    if (!work_) work_ = r.clone();
    work_->copy(r);
    KINEMA_PETSC_CHECK(PCApply(pc_, asPetsc(*work_, "petsc preconditioner apply").vec(), pz.vec()));
    return;
  }
  KINEMA_PETSC_CHECK(PCApply(pc_, pr.vec(), pz.vec()));
}

}  // namespace kinema::la::petsc
