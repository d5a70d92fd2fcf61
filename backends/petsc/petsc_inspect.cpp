#include "backends/petsc/petsc_inspect.hpp"

#include "backends/petsc/petsc_base.hpp"
#include "backends/petsc/petsc_matrix.hpp"
#include "backends/petsc/petsc_solver.hpp"

namespace kinema::la::petsc::inspect {

namespace {
KSP kspOf(const LinearSolver& s) {
  const auto* p = dynamic_cast<const PetscLinearSolver*>(&s);
  if (!p) throw Error("petsc inspect: not a solver of the petsc backend");
  if (!p->ksp()) throw Error("petsc inspect: the solver has no KSP yet (call setOperator first)");
  return p->ksp();
}
Mat matOf(const Matrix& A) {
  const auto* p = dynamic_cast<const PetscMatrix*>(&A);
  if (!p) throw Error("petsc inspect: not a matrix of the petsc backend");
  return p->mat();
}
}  // namespace

std::string kspType(const LinearSolver& s) {
  KSPType t = nullptr;
  KINEMA_PETSC_CHECK(KSPGetType(kspOf(s), &t));
  return t ? t : "";
}

std::string pcType(const LinearSolver& s) {
  PC pc = nullptr;
  PCType t = nullptr;
  KINEMA_PETSC_CHECK(KSPGetPC(kspOf(s), &pc));
  KINEMA_PETSC_CHECK(PCGetType(pc, &t));
  return t ? t : "";
}

std::string optionsPrefix(const LinearSolver& s) {
  const char* p = nullptr;
  KINEMA_PETSC_CHECK(KSPGetOptionsPrefix(kspOf(s), &p));
  return p ? p : "";
}

int maxIterations(const LinearSolver& s) {
  PetscReal rtol = 0, atol = 0, dtol = 0;
  PetscInt maxit = 0;
  KINEMA_PETSC_CHECK(KSPGetTolerances(kspOf(s), &rtol, &atol, &dtol, &maxit));
  return static_cast<int>(maxit);
}

std::string matType(const Matrix& A) {
  MatType t = nullptr;
  KINEMA_PETSC_CHECK(MatGetType(matOf(A), &t));
  return t ? t : "";
}

int matBlockSize(const Matrix& A) {
  PetscInt bs = 0;
  KINEMA_PETSC_CHECK(MatGetBlockSize(matOf(A), &bs));
  return static_cast<int>(bs);
}

int nearNullSpaceSize(const Matrix& A) {
  MatNullSpace nsp = nullptr;
  KINEMA_PETSC_CHECK(MatGetNearNullSpace(matOf(A), &nsp));
  if (!nsp) return -1;
  PetscBool hasConst = PETSC_FALSE;
  PetscInt n = 0;
  const Vec* vecs = nullptr;
  KINEMA_PETSC_CHECK(MatNullSpaceGetVecs(nsp, &hasConst, &n, &vecs));
  return static_cast<int>(n) + (hasConst ? 1 : 0);
}

double allocatedNonzeros(const Matrix& A) {
  MatInfo info;
  KINEMA_PETSC_CHECK(MatGetInfo(matOf(A), MAT_LOCAL, &info));
  return info.nz_allocated;
}

}  // namespace kinema::la::petsc::inspect
