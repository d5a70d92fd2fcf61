// Registers the Trilinos backend by name; nothing else in Kinema refers to it.
#include "backends/trilinos/trilinos_backend.hpp"
#include <yaml-cpp/yaml.h>

#include <string>

#include "framework/core/params.hpp"

namespace kinema {

namespace {
// The Trilinos packages that take a parameter list under backend.trilinos.<name>: each key is
// declared and read from this one table.
struct PackageKey {
  const char* name;
  const char* help;
};
constexpr PackageKey kPackages[] = {
    {"belos", "Belos parameter list (YAML map) for every Krylov solver, e.g. {Maximum Iterations: 200, "
              "Verbosity: 33}; a solver's native.trilinos.belos applies on top"},
    {"ifpack2", "Ifpack2 parameter list for the jacobi / ssor / ic0 preconditioners, e.g. {relaxation: sweeps: 2}"},
    {"muelu", "MueLu parameter list for the amg preconditioner, e.g. {smoother: type: CHEBYSHEV, coarse: max size: 500}"},
    {"amesos2", "Amesos2 parameter list for direct solves; 'Solver Name' picks the solver (default: MUMPS, "
                "SuperLU_DIST or KLU2, the first this Trilinos has)"},
};
std::string packageKey(const PackageKey& p) { return std::string("backend.trilinos.") + p.name; }
}  // namespace

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
    for (const PackageKey& p : kPackages) schema.addTree(packageKey(p), p.help);
  };
  e.make = [](const la::BackendSettings& s) -> la::BackendPtr {
    YAML::Node options(YAML::NodeType::Map);
    for (const PackageKey& p : kPackages)
      if (const auto it = s.find(packageKey(p)); it != s.end()) options[p.name] = YAML::Load(it->second);
    return std::make_unique<la::trilinos::TrilinosBackend>(options);
  };
  la::backends().add(std::move(e));
}

}  // namespace kinema
