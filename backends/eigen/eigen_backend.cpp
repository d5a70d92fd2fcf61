#include "backends/eigen/eigen_backend.hpp"

#include "backends/eigen/eigen_assembler.hpp"
#include "backends/eigen/eigen_direct_solver.hpp"
#include "backends/eigen/eigen_preconditioners.hpp"
#include "backends/eigen/eigen_vector.hpp"
#include "framework/core/error.hpp"
#include "framework/la/krylov.hpp"
#include "framework/la/solver_types.hpp"

namespace kinema::la::eigen {

std::unique_ptr<Vector> EigenBackend::createVector(IndexMapPtr map) const {
  KINEMA_CHECK(map != nullptr, "eigen backend: createVector without a map");
  requireUsable(*map);
  return std::make_unique<EigenVector>(std::move(map));
}

std::unique_ptr<MatrixAssembler> EigenBackend::createAssembler(IndexMapPtr rows,
                                                               IndexMapPtr cols) const {
  KINEMA_CHECK(rows && cols, "eigen backend: createAssembler without maps");
  requireUsable(*rows);
  requireUsable(*cols);
  return std::make_unique<EigenAssembler>(std::move(rows), std::move(cols));
}

std::unique_ptr<LinearSolver> EigenBackend::createLinearSolver(const LinearSolverOptions& opts) const {
  if (opts.type == "direct") return std::make_unique<EigenDirectSolver>(opts);
  if (opts.type == "cg" || opts.type == "minres" || opts.type == "gmres")
    return std::make_unique<KrylovSolver>(opts, createPreconditioner(opts.preconditioner));
  throw InputError(str("eigen backend: unknown linear solver type '", opts.type,
                       "' (available: cg, minres, gmres, direct)"));
}

std::vector<std::string> EigenBackend::offeredPreconditioners() { return {"jacobi", "ic0", "ssor", "direct"}; }
std::vector<std::string> EigenBackend::offeredSolverTypes() { return linearSolverTypes(); }
std::vector<std::string> EigenBackend::nativePreconditioners() const { return offeredPreconditioners(); }
std::vector<std::string> EigenBackend::solverTypes() const { return offeredSolverTypes(); }

std::unique_ptr<Preconditioner> EigenBackend::createNativePreconditioner(const std::string& name) const {
  if (name == "jacobi") return std::make_unique<JacobiPreconditioner>();
  if (name == "ic0") return std::make_unique<Ic0Preconditioner>();
  if (name == "ssor") return std::make_unique<SsorPreconditioner>();
  if (name == "direct") return std::make_unique<DirectPreconditioner>();
  throw Error(str("eigen backend: '", name, "' is not a native preconditioner"));
}

}  // namespace kinema::la::eigen
