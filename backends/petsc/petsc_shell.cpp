#include "backends/petsc/petsc_shell.hpp"

#include "backends/petsc/petsc_base.hpp"
#include "backends/petsc/petsc_vector.hpp"

namespace kinema::la::petsc {

IndexMapPtr withoutGhosts(const IndexMap& map) {
  return std::make_shared<const IndexMap>(map.comm(), map.ownedBlocks(), std::vector<GlobalIndex>{},
                                          map.blockSize());
}

ShellMatrix::ShellMatrix(OperatorPtr op) : op_(std::move(op)) {
  KINEMA_CHECK(op_ != nullptr, "petsc shell matrix: no operator");
  const IndexMap& d = *op_->domainMap();
  const IndexMap& r = *op_->rangeMap();
  requireIndexRange(d);
  requireIndexRange(r);
  domain_ = withoutGhosts(d);
  range_ = withoutGhosts(r);
  KINEMA_PETSC_CHECK(MatCreateShell(r.comm().raw(), idx(r.ownedSize()), idx(d.ownedSize()), idx(r.globalSize()),
                                    idx(d.globalSize()), this, &mat_));
  KINEMA_PETSC_CHECK(MatShellSetOperation(mat_, MATOP_MULT, reinterpret_cast<void (*)(void)>(&ShellMatrix::mult)));
  if (op_->hasDiagonal())
    KINEMA_PETSC_CHECK(MatShellSetOperation(mat_, MATOP_GET_DIAGONAL,
                                            reinterpret_cast<void (*)(void)>(&ShellMatrix::getDiagonal)));
  if (d.blockSize() == r.blockSize()) KINEMA_PETSC_CHECK(MatSetBlockSize(mat_, d.blockSize()));
}

ShellMatrix::~ShellMatrix() {
  if (mat_ && alive()) MatDestroy(&mat_);
}

PetscErrorCode ShellMatrix::mult(Mat A, Vec x, Vec y) {
  void* ctx = nullptr;
  PetscErrorCode ierr = MatShellGetContext(A, &ctx);
  if (ierr) return ierr;
  auto* self = static_cast<ShellMatrix*>(ctx);
  return callbackGuard([&] {
    const PetscVector xv(self->domain_, x, PetscVector::Borrow{});
    PetscVector yv(self->range_, y, PetscVector::Borrow{});
    self->op_->apply(xv, yv);
  });
}

PetscErrorCode ShellMatrix::getDiagonal(Mat A, Vec d) {
  void* ctx = nullptr;
  PetscErrorCode ierr = MatShellGetContext(A, &ctx);
  if (ierr) return ierr;
  auto* self = static_cast<ShellMatrix*>(ctx);
  return callbackGuard([&] {
    PetscVector dv(self->range_, d, PetscVector::Borrow{});
    self->op_->diagonal(dv);
  });
}

void BoundOperator::bind(OperatorPtr A) {
  KINEMA_CHECK(A != nullptr, "petsc backend: no operator given");
  if (A == op_) return;  // same object (values may have changed; the Mat sees them)
  if (const auto* m = dynamic_cast<const PetscMatrix*>(A.get())) {
    matrix_ = m;
    shell_.reset();
  } else {
    matrix_ = nullptr;
    shell_ = std::make_unique<ShellMatrix>(A);
  }
  op_ = std::move(A);
}

ShellPreconditioner::ShellPreconditioner(PreconditionerPtr P, const IndexMap& map)
    : P_(std::move(P)), map_(withoutGhosts(map)) {}

void ShellPreconditioner::install(PC pc) {
  KINEMA_PETSC_CHECK(PCSetType(pc, PCSHELL));
  KINEMA_PETSC_CHECK(PCShellSetContext(pc, this));
  KINEMA_PETSC_CHECK(PCShellSetApply(pc, &ShellPreconditioner::apply));
  KINEMA_PETSC_CHECK(PCShellSetName(pc, P_->name().c_str()));
}

PetscErrorCode ShellPreconditioner::apply(PC pc, Vec r, Vec z) {
  void* ctx = nullptr;
  PetscErrorCode ierr = PCShellGetContext(pc, &ctx);
  if (ierr) return ierr;
  auto* self = static_cast<ShellPreconditioner*>(ctx);
  return callbackGuard([&] {
    const PetscVector rv(self->map_, r, PetscVector::Borrow{});
    PetscVector zv(self->map_, z, PetscVector::Borrow{});
    self->P_->apply(rv, zv);
  });
}

}  // namespace kinema::la::petsc
