// Registers the Eigen backend by name; nothing else in Kinema refers to it.
#include "backends/eigen/eigen_backend.hpp"

namespace kinema {

void registerBackend_eigen() {
  la::BackendEntry e;
  e.name = "eigen";
  e.help = "Eigen sparse matrices, framework Krylov solvers; one process (no distributed objects)";
  e.distributed = false;
  e.solverTypes = la::eigen::EigenBackend::offeredSolverTypes();
  e.nativePreconditioners = la::eigen::EigenBackend::offeredPreconditioners();
  e.declare = {};  // no options of its own yet
  e.make = [](const la::BackendSettings&) -> la::BackendPtr { return std::make_unique<la::eigen::EigenBackend>(); };
  la::backends().add(std::move(e));
}

}  // namespace kinema
