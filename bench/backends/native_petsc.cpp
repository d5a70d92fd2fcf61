// Baseline: PETSc's own KSPCG with PCJACOBI or PCGAMG on an MPIAIJ matrix.
#include <petscksp.h>

#include <stdexcept>
#include <string>

#include "bench/backends/native.hpp"
#include "bench/backends/stencil.hpp"

namespace kinema::bench {
namespace {
void check(PetscErrorCode e, const char* what) {
  if (e) throw std::runtime_error(std::string("PETSc error in ") + what);
}
}  // namespace

Result nativePetsc(MPI_Comm comm, const SolveSpec& spec) {
  Stencil s{spec.n};
  const long m = s.m();
  long z0 = 0, nz = 0;
  planes(comm, spec.n, z0, nz);
  const PetscInt local = static_cast<PetscInt>(nz * m * m), N = static_cast<PetscInt>(m * m * m);
  Mat A;
  Vec b, x;
  check(MatCreateAIJ(comm, local, local, N, N, 7, nullptr, 2, nullptr, &A), "MatCreateAIJ");
  check(MatCreateVecs(A, &x, &b), "MatCreateVecs");
  PetscInt cols[7];
  PetscScalar vals[7];
  for (long k = z0 + 1; k <= z0 + nz; ++k)
    for (long j = 1; j <= m; ++j)
      for (long i = 1; i <= m; ++i) {
        PetscInt row = static_cast<PetscInt>(s.index(i, j, k)), c = 0;
        double rhs = s.row(i, j, k, [&](std::int64_t col, double v) {
          cols[c] = static_cast<PetscInt>(col);
          vals[c++] = v;
        });
        check(MatSetValues(A, 1, &row, c, cols, vals, INSERT_VALUES), "MatSetValues");
        check(VecSetValue(b, row, rhs, INSERT_VALUES), "VecSetValue");
      }
  check(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
  check(VecAssemblyBegin(b), "VecAssemblyBegin");
  check(VecAssemblyEnd(b), "VecAssemblyEnd");

  KSP ksp;
  PC pc;
  check(KSPCreate(comm, &ksp), "KSPCreate");
  check(KSPSetOperators(ksp, A, A), "KSPSetOperators");
  check(KSPSetType(ksp, KSPCG), "KSPSetType");
  check(KSPGetPC(ksp, &pc), "KSPGetPC");
  check(PCSetType(pc, spec.preconditioner == "amg" ? PCGAMG : PCJACOBI), "PCSetType");
  check(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
  check(KSPSetTolerances(ksp, spec.rtol, 0.0, 1e10, spec.maxIterations), "KSPSetTolerances");
  check(KSPSetFromOptions(ksp), "KSPSetFromOptions");  // as every PETSc program does (and the backend)
  check(VecSet(x, 0.0), "VecSet");
  double t0 = MPI_Wtime();
  check(KSPSetUp(ksp), "KSPSetUp");
  double t1 = MPI_Wtime();
  check(KSPSolve(ksp, b, x), "KSPSolve");
  double t2 = MPI_Wtime();
  PetscInt its = 0;
  check(KSPGetIterationNumber(ksp, &its), "KSPGetIterationNumber");
  Vec r;
  check(VecDuplicate(b, &r), "VecDuplicate");
  check(MatMult(A, x, r), "MatMult");
  check(VecAYPX(r, -1.0, b), "VecAYPX");
  PetscReal rn = 0, bn = 0;
  check(VecNorm(r, NORM_2, &rn), "VecNorm");
  check(VecNorm(b, NORM_2, &bn), "VecNorm");
  VecDestroy(&r);
  KSPDestroy(&ksp);
  VecDestroy(&x);
  VecDestroy(&b);
  MatDestroy(&A);

  Result res;
  res.backend = "petsc";
  res.preconditioner = spec.preconditioner;
  res.path = "native";
  res.iterations = static_cast<int>(its);
  double setup = t1 - t0, solve = t2 - t1;
  MPI_Allreduce(MPI_IN_PLACE, &setup, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, &solve, 1, MPI_DOUBLE, MPI_MAX, comm);
  res.setupSeconds = setup;
  res.solveSeconds = solve;
  res.relativeResidual = rn / bn;
  return res;
}

}  // namespace kinema::bench
