// TAO baseline: the same box QP as a PETSc AIJ Mat, f = 1/2 x^T A x - b^T x, g = A x - b, constant
// Hessian A, bounds l <= x <= u, x0 = 0. Matvecs are counted by replacing the Mat's MATOP_MULT with a
// counting wrapper (also on submatrices extracted with MatCreateSubMatrix(es), which GPCG uses for its
// reduced Hessian; BNTR's virtual submatrices multiply through A itself), so every product with A
// or a principal submatrix of A is counted once whoever makes it: objective/gradient callbacks,
// Hessian products inside KSP, line searches.
#include "bench/mprgp/tao.hpp"

#include <petsctao.h>

#include <stdexcept>

namespace kinema::bench {
namespace {

void check(PetscErrorCode e, const char* what) {
  if (e) throw std::runtime_error(std::string("PETSc error ") + std::to_string(static_cast<int>(e)) + " in " + what);
}

long g_matvecs = 0;
PetscErrorCode (*g_mult)(Mat, Vec, Vec) = nullptr;
PetscErrorCode (*g_subMatrix)(Mat, IS, IS, MatReuse, Mat*) = nullptr;
PetscErrorCode (*g_subMatrices)(Mat, PetscInt, const IS[], const IS[], MatReuse, Mat*[]) = nullptr;

PetscErrorCode countingMult(Mat A, Vec x, Vec y) {
  ++g_matvecs;
  return g_mult(A, x, y);
}

PetscErrorCode countingSubMatrix(Mat A, IS rows, IS cols, MatReuse reuse, Mat* B) {
  PetscErrorCode e = g_subMatrix(A, rows, cols, reuse, B);
  if (e) return e;
  return MatSetOperation(*B, MATOP_MULT, reinterpret_cast<void (*)(void)>(countingMult));
}

// MatCreateSubMatrix goes through MatCreateSubMatrices on one process.
PetscErrorCode countingSubMatrices(Mat A, PetscInt n, const IS rows[], const IS cols[], MatReuse reuse, Mat* B[]) {
  PetscErrorCode e = g_subMatrices(A, n, rows, cols, reuse, B);
  for (PetscInt k = 0; !e && k < n; ++k)
    e = MatSetOperation((*B)[k], MATOP_MULT, reinterpret_cast<void (*)(void)>(countingMult));
  return e;
}

struct Context {
  Mat A;
  Vec b;
  double t0 = 0, budget = 0;
  bool timedOut = false;
};

PetscErrorCode objectiveAndGradient(Tao, Vec x, PetscReal* f, Vec g, void* ctx) {
  auto* c = static_cast<Context*>(ctx);
  PetscErrorCode e = MatMult(c->A, x, g);  // g = A x
  if (e) return e;
  PetscScalar xAx = 0, bx = 0;
  if ((e = VecDot(x, g, &xAx))) return e;
  if ((e = VecDot(x, c->b, &bx))) return e;
  *f = 0.5 * PetscRealPart(xAx) - PetscRealPart(bx);
  return VecAXPY(g, -1.0, c->b);  // g = A x - b
}

PetscErrorCode hessian(Tao, Vec, Mat, Mat, void*) { return 0; }  // constant: A itself

// TAO's default test (gatol), plus the wall-time budget.
PetscErrorCode convergence(Tao tao, void* ctx) {
  auto* c = static_cast<Context*>(ctx);
  PetscErrorCode e = TaoDefaultConvergenceTest(tao, nullptr);
  if (e) return e;
  TaoConvergedReason reason;
  if ((e = TaoGetConvergedReason(tao, &reason))) return e;
  if (reason == TAO_CONTINUE_ITERATING && MPI_Wtime() - c->t0 > c->budget) {
    c->timedOut = true;
    return TaoSetConvergedReason(tao, TAO_DIVERGED_USER);
  }
  return 0;
}

}  // namespace

TaoRun solveTao(MPI_Comm comm, const BoxQp& qp, const std::string& type, double gatol, int maxIterations,
                double budgetSeconds, const std::string& pcType) {
  TaoRun run;
  run.type = type;
  Mat A = nullptr;
  Vec b = nullptr, x = nullptr, lo = nullptr, hi = nullptr;
  Tao tao = nullptr;
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);  // failures become rows of the table
  try {
    const PetscInt N = static_cast<PetscInt>(qp.n);
    check(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, N, N, 11, nullptr, 11, nullptr, &A), "MatCreateAIJ");
    check(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE), "MatSetOption");
    PetscInt r0 = 0, r1 = 0;
    check(MatGetOwnershipRange(A, &r0, &r1), "MatGetOwnershipRange");
    std::vector<PetscInt> cols;
    std::vector<PetscScalar> vals;
    for (PetscInt i = r0; i < r1; ++i) {
      cols.clear();
      vals.clear();
      qp.row(i, [&](std::int64_t j, double v) {
        cols.push_back(static_cast<PetscInt>(j));
        vals.push_back(v);
      });
      check(MatSetValues(A, 1, &i, static_cast<PetscInt>(cols.size()), cols.data(), vals.data(), ADD_VALUES),
            "MatSetValues");
    }
    check(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
    check(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
    check(MatSetOption(A, MAT_SPD, PETSC_TRUE), "MatSetOption");
    check(MatCreateVecs(A, &x, &b), "MatCreateVecs");
    check(VecDuplicate(x, &lo), "VecDuplicate");
    check(VecDuplicate(x, &hi), "VecDuplicate");
    {
      PetscScalar *pb, *pl, *ph;
      check(VecGetArray(b, &pb), "VecGetArray");
      check(VecGetArray(lo, &pl), "VecGetArray");
      check(VecGetArray(hi, &ph), "VecGetArray");
      for (PetscInt i = r0; i < r1; ++i) pb[i - r0] = qp.b[i], pl[i - r0] = qp.lower[i], ph[i - r0] = qp.upper[i];
      check(VecRestoreArray(b, &pb), "VecRestoreArray");
      check(VecRestoreArray(lo, &pl), "VecRestoreArray");
      check(VecRestoreArray(hi, &ph), "VecRestoreArray");
    }
    check(VecSet(x, 0.0), "VecSet");

    // Count products with A and with submatrices of it.
    check(MatGetOperation(A, MATOP_MULT, reinterpret_cast<void (**)(void)>(&g_mult)), "MatGetOperation");
    check(MatGetOperation(A, MATOP_CREATE_SUBMATRIX, reinterpret_cast<void (**)(void)>(&g_subMatrix)),
          "MatGetOperation");
    check(MatSetOperation(A, MATOP_MULT, reinterpret_cast<void (*)(void)>(countingMult)), "MatSetOperation");
    check(MatGetOperation(A, MATOP_CREATE_SUBMATRICES, reinterpret_cast<void (**)(void)>(&g_subMatrices)),
          "MatGetOperation");
    if (g_subMatrix)
      check(MatSetOperation(A, MATOP_CREATE_SUBMATRIX, reinterpret_cast<void (*)(void)>(countingSubMatrix)),
            "MatSetOperation");
    if (g_subMatrices)
      check(MatSetOperation(A, MATOP_CREATE_SUBMATRICES, reinterpret_cast<void (*)(void)>(countingSubMatrices)),
            "MatSetOperation");

    Context ctx{A, b};
    ctx.budget = budgetSeconds;
    check(TaoCreate(comm, &tao), "TaoCreate");
    check(TaoSetType(tao, type.c_str()), "TaoSetType");
    check(TaoSetSolution(tao, x), "TaoSetSolution");
    check(TaoSetObjectiveAndGradient(tao, nullptr, objectiveAndGradient, &ctx), "TaoSetObjectiveAndGradient");
    check(TaoSetHessian(tao, A, A, hessian, &ctx), "TaoSetHessian");
    check(TaoSetVariableBounds(tao, lo, hi), "TaoSetVariableBounds");
    check(TaoSetTolerances(tao, gatol, 0.0, 0.0), "TaoSetTolerances");
    check(TaoSetMaximumIterations(tao, maxIterations), "TaoSetMaximumIterations");
    check(TaoSetMaximumFunctionEvaluations(tao, 1000000000), "TaoSetMaximumFunctionEvaluations");
    check(TaoSetConvergenceTest(tao, convergence, &ctx), "TaoSetConvergenceTest");
    check(TaoSetFromOptions(tao), "TaoSetFromOptions");
    KSP innerKsp = nullptr;
    if (!pcType.empty() && TaoGetKSP(tao, &innerKsp) == 0 && innerKsp) {
      PC pc = nullptr;
      check(KSPGetPC(innerKsp, &pc), "KSPGetPC");
      check(PCSetType(pc, pcType.c_str()), "PCSetType");
    }

    g_matvecs = 0;
    ctx.t0 = MPI_Wtime();
    PetscErrorCode solveError = TaoSetUp(tao);
    if (!solveError) solveError = TaoSolve(tao);
    double t = MPI_Wtime() - ctx.t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
    run.seconds = t;
    run.matvecs = g_matvecs;
    PetscInt its = 0, lits = 0;
    TaoGetIterationNumber(tao, &its);
    TaoGetLinearSolveIterations(tao, &lits);
    run.iterations = static_cast<int>(its);
    run.linearIterations = static_cast<int>(lits);
    KSP ksp = nullptr;
    if (TaoGetKSP(tao, &ksp) == 0 && ksp) {
      KSPType kt = nullptr;
      PC pc = nullptr;
      PCType pt = nullptr;
      KSPGetType(ksp, &kt);
      if (KSPGetPC(ksp, &pc) == 0 && pc) PCGetType(pc, &pt);
      run.inner = std::string("KSP ") + (kt ? kt : "?") + ", PC " + (pt ? pt : "?");
    }
    if (solveError) {
      const char* text = nullptr;
      PetscErrorMessage(solveError, &text, nullptr);
      run.reason = std::string("failed: PETSc error ") + std::to_string(static_cast<int>(solveError)) +
                   (text ? std::string(" (") + text + ")" : std::string());
    } else {
      TaoConvergedReason reason;
      check(TaoGetConvergedReason(tao, &reason), "TaoGetConvergedReason");
      run.converged = reason > 0;
      run.capped = ctx.timedOut || reason == TAO_DIVERGED_MAXITS;
      run.reason = ctx.timedOut ? "time budget" : TaoConvergedReasons[reason];
    }
    run.x.assign(static_cast<std::size_t>(qp.n), 0.0);
    const PetscScalar* px;
    check(VecGetArrayRead(x, &px), "VecGetArrayRead");
    for (PetscInt i = r0; i < r1; ++i) run.x[i] = PetscRealPart(px[i - r0]);
    check(VecRestoreArrayRead(x, &px), "VecRestoreArrayRead");
  } catch (const std::exception& e) {
    run.reason = std::string("failed: ") + e.what();
  }
  TaoDestroy(&tao);
  VecDestroy(&x);
  VecDestroy(&b);
  VecDestroy(&lo);
  VecDestroy(&hi);
  MatDestroy(&A);
  PetscPopErrorHandler();
  return run;
}

}  // namespace kinema::bench
