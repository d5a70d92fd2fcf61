#pragma once
// The layer's preconditioner names on PETSc's PC types:
//   none   PCNONE
//   jacobi PCJACOBI (a zero or non-finite diagonal entry is an error, as in the framework's Jacobi)
//   ic0    PCICC, level 0, natural ordering. PCICC is sequential only, so on more than one rank it is
//          block Jacobi (one block per rank) with ICC(0) on each block (-sub_pc_type icc): the
//          coupling between ranks is dropped, so it is weaker than a global IC(0) and depends on the
//          number of ranks. PETSc shifts a non-positive pivot (MAT_SHIFT_POSITIVE_DEFINITE) instead
//          of failing.
//   ssor   PCSOR, symmetric sweep (local symmetric on several ranks: processor-block SSOR), omega 1
//   amg    PCGAMG (smoothed aggregation) with the matrix's near-null space; -pc_type hypre selects
//          BoomerAMG (this PETSc build has hypre) through the options pass-through
//   direct PCLU with MUMPS (SuperLU_dist, then PETSc's own LU on one rank, if MUMPS is missing)
// Defaults only: options strings (backend.petsc.options, a solver's native options) override them.
#include <petscksp.h>

#include <string>
#include <vector>

#include "backends/petsc/petsc_base.hpp"
#include "backends/petsc/petsc_shell.hpp"

namespace kinema::la::petsc {

const std::vector<std::string>& nativePcNames();
bool isNativePc(const std::string& name);
// Options the name implies for sub-objects PETSc creates at setup (block Jacobi's blocks); insert
// them before the user's strings so those win.
void insertPcDefaults(OptionsDb& db, const std::string& prefix, const std::string& name, int ranks);
// Sets the PC's type and parameters for the name (call before PCSetFromOptions).
void configurePc(PC pc, const std::string& name, int ranks);
// The sparse direct package of this PETSc build for `ranks` ranks.
const char* directPackage(int ranks);
// Before PCSetUp, by the PC's actual type: jacobi checks the diagonal, matrix-based types need a
// PetscMatrix, GAMG receives the matrix's near-null space. `who` names the object for messages.
void preparePcSetup(PC pc, const BoundOperator& op, const std::string& who);
// MatSetNearNullSpace from Matrix::nearNullSpace() (orthonormalised copies), or none if empty.
void attachNearNullSpace(const PetscMatrix& A);

}  // namespace kinema::la::petsc
