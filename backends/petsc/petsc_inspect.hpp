#pragma once
// Read-only views into the PETSc objects behind the backend's la objects, for tests and
// diagnostics, without PETSc headers (so callers need not see PETSc). Each throws an Error if the
// object does not belong to the petsc backend.
#include <string>

#include "framework/la/linear_solver.hpp"
#include "framework/la/matrix.hpp"

namespace kinema::la::petsc::inspect {

std::string kspType(const LinearSolver& s);       // e.g. "cg", "bcgs"
std::string pcType(const LinearSolver& s);        // e.g. "gamg", "shell", "bjacobi"
std::string optionsPrefix(const LinearSolver& s);  // the KSP's prefix
int maxIterations(const LinearSolver& s);         // the KSP's limit after the options
std::string matType(const Matrix& A);             // e.g. "seqaij", "mpiaij"
int matBlockSize(const Matrix& A);
// Vectors in the near-null space attached to the Mat (MatGetNearNullSpace), -1 if none.
int nearNullSpaceSize(const Matrix& A);
// Allocated entries of the local Mat (MatGetInfo nz_allocated): unchanged by refills.
double allocatedNonzeros(const Matrix& A);

}  // namespace kinema::la::petsc::inspect
