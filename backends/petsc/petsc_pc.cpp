#include "backends/petsc/petsc_pc.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "backends/petsc/petsc_vector.hpp"

namespace kinema::la::petsc {

const std::vector<std::string>& nativePcNames() {
  static const std::vector<std::string> names{"none", "jacobi", "ic0", "ssor", "amg", "direct"};
  return names;
}

bool isNativePc(const std::string& name) {
  const auto& n = nativePcNames();
  return std::find(n.begin(), n.end(), name) != n.end();
}

void insertPcDefaults(OptionsDb& db, const std::string& prefix, const std::string& name, int ranks) {
  if (name == "ic0" && ranks > 1) db.insert(prefix, "-sub_pc_type icc -sub_pc_factor_levels 0", "the ic0 defaults");
}

const char* directPackage(int ranks) {
  PetscBool has = PETSC_FALSE;
  KINEMA_PETSC_CHECK(PetscHasExternalPackage("mumps", &has));
  if (has) return MATSOLVERMUMPS;
  KINEMA_PETSC_CHECK(PetscHasExternalPackage("superlu_dist", &has));
  if (has) return MATSOLVERSUPERLU_DIST;
  if (ranks == 1) return MATSOLVERPETSC;
  throw InputError(str("the petsc backend's direct solver needs MUMPS or SuperLU_dist on ", ranks,
                       " ranks, and this PETSc build has neither; use one rank, another solver type, or "
                       "the trilinos backend"));
}

void configurePc(PC pc, const std::string& name, int ranks) {
  if (name == "none") {
    KINEMA_PETSC_CHECK(PCSetType(pc, PCNONE));
  } else if (name == "jacobi") {
    KINEMA_PETSC_CHECK(PCSetType(pc, PCJACOBI));
  } else if (name == "ic0") {
    if (ranks > 1) {
      KINEMA_PETSC_CHECK(PCSetType(pc, PCBJACOBI));  // ICC(0) blocks come from insertPcDefaults
    } else {
      KINEMA_PETSC_CHECK(PCSetType(pc, PCICC));
      KINEMA_PETSC_CHECK(PCFactorSetLevels(pc, 0));
      KINEMA_PETSC_CHECK(PCFactorSetMatOrderingType(pc, MATORDERINGNATURAL));
    }
  } else if (name == "ssor") {
    KINEMA_PETSC_CHECK(PCSetType(pc, PCSOR));
    KINEMA_PETSC_CHECK(PCSORSetSymmetric(pc, ranks > 1 ? SOR_LOCAL_SYMMETRIC_SWEEP : SOR_SYMMETRIC_SWEEP));
    KINEMA_PETSC_CHECK(PCSORSetOmega(pc, 1.0));
    KINEMA_PETSC_CHECK(PCSORSetIterations(pc, 1, 1));
  } else if (name == "amg") {
    KINEMA_PETSC_CHECK(PCSetType(pc, PCGAMG));
  } else if (name == "direct") {
    KINEMA_PETSC_CHECK(PCSetType(pc, PCLU));
    KINEMA_PETSC_CHECK(PCFactorSetMatSolverType(pc, directPackage(ranks)));
  } else {
    throw Error(str("petsc backend: '", name, "' is not a native preconditioner"));
  }
}

void attachNearNullSpace(const PetscMatrix& A) {
  Mat m = A.mat();
  const auto& modes = A.nearNullSpace();
  if (modes.empty()) {
    KINEMA_PETSC_CHECK(MatSetNearNullSpace(m, nullptr));
    return;
  }
  // MatNullSpaceCreate wants orthonormal vectors: modified Gram-Schmidt on copies (setup only).
  std::vector<Vec> vecs;
  auto destroy = [&] {
    for (Vec& v : vecs) VecDestroy(&v);
  };
  try {
    for (const auto& mode : modes) {
      KINEMA_CHECK(mode != nullptr, "near-null space of ", A.description(), ": a null vector");
      if (!mode->map().compatible(*A.domainMap()))
        throw Error(str("near-null space of ", A.description(), ": a vector is not on the domain map"));
      const PetscVector& pv = asPetsc(*mode, "the near-null space");
      Vec v = nullptr;
      KINEMA_PETSC_CHECK(MatCreateVecs(m, &v, nullptr));
      vecs.push_back(v);
      KINEMA_PETSC_CHECK(VecCopy(pv.vec(), v));
      for (std::size_t k = 0; k + 1 < vecs.size(); ++k) {
        PetscScalar d = 0;
        KINEMA_PETSC_CHECK(VecDot(v, vecs[k], &d));
        KINEMA_PETSC_CHECK(VecAXPY(v, -d, vecs[k]));
      }
      PetscReal n = 0;
      KINEMA_PETSC_CHECK(VecNormalize(v, &n));
      if (!(n > 0.0) || !std::isfinite(n))
        throw Error(str("near-null space of ", A.description(), ": mode ", vecs.size() - 1,
                        " is zero or linearly dependent on the previous ones"));
    }
    MatNullSpace nsp = nullptr;
    KINEMA_PETSC_CHECK(MatNullSpaceCreate(A.rangeMap()->comm().raw(), PETSC_FALSE, static_cast<PetscInt>(vecs.size()),
                                          vecs.data(), &nsp));
    const PetscErrorCode ierr = MatSetNearNullSpace(m, nsp);
    MatNullSpaceDestroy(&nsp);
    KINEMA_PETSC_CHECK(ierr);
  } catch (...) {
    destroy();
    throw;
  }
  destroy();
}

namespace {

void checkDiagonal(const BoundOperator& op, const std::string& who) {
  const Operator& A = *op.op();
  if (!op.matrix() && !A.hasDiagonal())
    throw Error(str(who, ": the jacobi preconditioner needs the diagonal of operator '", A.description(),
                    "', which has none; give it a diagonal or use preconditioner none"));
  Vec d = nullptr;
  KINEMA_PETSC_CHECK(MatCreateVecs(op.mat(), nullptr, &d));
  GlobalIndex badRow = -1;
  PetscErrorCode ierr = MatGetDiagonal(op.mat(), d);
  if (ierr == 0) {
    const PetscScalar* a = nullptr;
    PetscInt n = 0, first = 0, last = 0;
    ierr = VecGetLocalSize(d, &n);
    if (!ierr) ierr = VecGetOwnershipRange(d, &first, &last);
    if (!ierr) ierr = VecGetArrayRead(d, &a);
    if (!ierr) {
      for (PetscInt i = 0; i < n && badRow < 0; ++i)
        if (a[i] == 0.0 || !std::isfinite(a[i])) badRow = first + i;
      VecRestoreArrayRead(d, &a);
    }
  }
  VecDestroy(&d);
  KINEMA_PETSC_CHECK(ierr);
  const std::int64_t firstBad = A.rangeMap()->comm().min(badRow < 0 ? std::int64_t{INT64_MAX} : std::int64_t{badRow});
  if (firstBad != INT64_MAX)
    throw Error(str("jacobi preconditioner: operator '", A.description(),
                    "' has a zero or non-finite diagonal entry at row ", firstBad,
                    "; use another preconditioner (none, ssor) or fix the operator"));
}

}  // namespace

void preparePcSetup(PC pc, const BoundOperator& op, const std::string& who) {
  PCType type = nullptr;
  KINEMA_PETSC_CHECK(PCGetType(pc, &type));
  const std::string t = type ? type : "";
  if (t == PCJACOBI) {
    checkDiagonal(op, who);
    return;
  }
  if (t == PCNONE || t == PCSHELL || t.empty()) return;
  if (!op.matrix())
    throw InputError(str(who, ": preconditioner type '", t, "' needs a matrix assembled by the petsc backend, but operator '",
                         op.op()->description(),
                         "' is matrix-free; use preconditioner jacobi or none, or a framework preconditioner"));
  if (t == PCGAMG) attachNearNullSpace(*op.matrix());
}

}  // namespace kinema::la::petsc
