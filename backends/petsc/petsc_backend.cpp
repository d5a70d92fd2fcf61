#include "backends/petsc/petsc_backend.hpp"

#include "backends/petsc/petsc_assembler.hpp"
#include "backends/petsc/petsc_base.hpp"
#include "backends/petsc/petsc_pc.hpp"
#include "backends/petsc/petsc_preconditioner.hpp"
#include "backends/petsc/petsc_solver.hpp"
#include "backends/petsc/petsc_vector.hpp"
#include "framework/la/solver_types.hpp"

namespace kinema::la::petsc {

PetscBackend::PetscBackend(std::string options) : options_(std::move(options)) {
  ensureInitialised();
  validateOptions(options_, "backend.petsc.options");
  beginOptionsReport();
}

PetscBackend::~PetscBackend() { endOptionsReport(); }

std::unique_ptr<Vector> PetscBackend::createVector(IndexMapPtr map) const {
  KINEMA_CHECK(map != nullptr, "petsc backend: createVector without a map");
  requireIndexRange(*map);
  return std::make_unique<PetscVector>(std::move(map));
}

std::unique_ptr<MatrixAssembler> PetscBackend::createAssembler(IndexMapPtr rows, IndexMapPtr cols) const {
  KINEMA_CHECK(rows && cols, "petsc backend: createAssembler without maps");
  requireIndexRange(*rows);
  requireIndexRange(*cols);
  return std::make_unique<PetscAssembler>(std::move(rows), std::move(cols));
}

std::unique_ptr<LinearSolver> PetscBackend::createLinearSolver(const LinearSolverOptions& opts) const {
  const std::vector<std::string> types = solverTypes();
  if (std::find(types.begin(), types.end(), opts.type) == types.end())
    throw InputError(str("petsc backend: unknown linear solver type '", opts.type,
                         "' (available: cg, minres, gmres, direct; other KSP types through the options, "
                         "e.g. native petsc: \"-ksp_type bcgs\")"));
  PreconditionerPtr pc;
  if (opts.type != "direct") pc = createPreconditioner(opts.preconditioner);
  return std::make_unique<PetscLinearSolver>(opts, options_, std::move(pc));
}

std::vector<std::string> PetscBackend::offeredPreconditioners() { return nativePcNames(); }
std::vector<std::string> PetscBackend::offeredSolverTypes() { return linearSolverTypes(); }
std::vector<std::string> PetscBackend::nativePreconditioners() const { return offeredPreconditioners(); }
std::vector<std::string> PetscBackend::solverTypes() const { return offeredSolverTypes(); }

std::unique_ptr<Preconditioner> PetscBackend::createNativePreconditioner(const std::string& name) const {
  if (!isNativePc(name)) throw Error(str("petsc backend: '", name, "' is not a native preconditioner"));
  return std::make_unique<PetscPreconditioner>(name, options_);
}

}  // namespace kinema::la::petsc
