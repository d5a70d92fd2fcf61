// Registers the PETSc backend by name; nothing else in Kinema refers to it.
#include "backends/petsc/petsc_backend.hpp"
#include "framework/core/params.hpp"

namespace kinema {

namespace {
// The backend's one parameter: declared here, read back by make() from the settings by the same key.
const std::string& optionsKey() {
  static const std::string key = "backend.petsc.options";
  return key;
}
}  // namespace

void registerBackend_petsc() {
  la::BackendEntry e;
  e.name = "petsc";
  e.help = "PETSc 3.18 (Debian, 32-bit indices): ghosted Vec, AIJ block matrices, KSP (cg, gmres, minres, "
           "preonly+MUMPS) and PC (jacobi, icc, sor, gamg, lu); distributed over MPI ranks";
  e.distributed = true;
  e.solverTypes = la::petsc::PetscBackend::offeredSolverTypes();
  e.nativePreconditioners = la::petsc::PetscBackend::offeredPreconditioners();
  e.declare = [](ParamSchema& s) {
    s.addString(optionsKey(), "",
                "PETSc options for every solver of the run, under each solver's prefix "
                "(e.g. \"-ksp_monitor -pc_gamg_threshold 0.02\"); a solver's own native.petsc adds to them");
  };
  e.make = [](const la::BackendSettings& s) -> la::BackendPtr {
    const auto it = s.find(optionsKey());
    return std::make_unique<la::petsc::PetscBackend>(it == s.end() ? std::string() : it->second);
  };
  la::backends().add(std::move(e));
}

}  // namespace kinema
