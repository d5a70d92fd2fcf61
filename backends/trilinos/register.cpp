// Registers the Trilinos backend by name; nothing else in Kinema refers to it.
#include "backends/trilinos/trilinos_backend.hpp"
#include <yaml-cpp/yaml.h>

#include "framework/core/params.hpp"

namespace kinema {

void registerBackend_trilinos() {
  la::BackendEntry e;
  e.name = "trilinos";
  e.help =
      "Trilinos: Tpetra vectors and matrices over MPI ranks, Belos solvers (CG, MINRES, GMRES), "
      "Ifpack2 (jacobi, ssor, ic0), MueLu (amg) and Amesos2 (direct)";
  e.distributed = true;
  e.solverTypes = la::trilinos::TrilinosBackend::offeredSolverTypes();
  e.nativePreconditioners = la::trilinos::TrilinosBackend::offeredPreconditioners();
  e.declare = [](ParamSchema& schema) {
    schema.addTree("backend.trilinos.belos",
                   "Belos parameter list (YAML map) for every Krylov solver, e.g. {Maximum Iterations: 200, "
                   "Verbosity: 33}; a solver's native.trilinos.belos applies on top");
    schema.addTree("backend.trilinos.ifpack2",
                   "Ifpack2 parameter list for the jacobi / ssor / ic0 preconditioners, e.g. "
                   "{relaxation: sweeps: 2}");
    schema.addTree("backend.trilinos.muelu",
                   "MueLu parameter list for the amg preconditioner, e.g. {smoother: type: CHEBYSHEV, "
                   "coarse: max size: 500}");
    schema.addTree("backend.trilinos.amesos2",
                   "Amesos2 parameter list for direct solves; 'Solver Name' picks the solver (default: "
                   "MUMPS, SuperLU_DIST or KLU2, the first this Trilinos has)");
  };
  e.make = [](const la::BackendSettings& s) -> la::BackendPtr {
    YAML::Node options(YAML::NodeType::Map);
    for (const char* p : {"belos", "ifpack2", "muelu", "amesos2"})
      if (const auto it = s.find(std::string("backend.trilinos.") + p); it != s.end()) options[p] = YAML::Load(it->second);
    return std::make_unique<la::trilinos::TrilinosBackend>(options);
  };
  la::backends().add(std::move(e));
}

}  // namespace kinema
