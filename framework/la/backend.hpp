#pragma once
// Backend: the factory of every object of the layer, registered by name ("eigen", "petsc",
// "trilinos"). Modules receive a Backend& and never know which one it is.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/core/config.hpp"
#include "framework/core/param_binding.hpp"
#include "framework/core/registry.hpp"
#include "framework/la/linear_solver.hpp"
#include "framework/la/matrix_assembler.hpp"

namespace kinema::la {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // True if objects may span several ranks (maps whose communicator has more than one rank).
  virtual bool distributed() const = 0;

  virtual std::unique_ptr<Vector> createVector(IndexMapPtr map) const = 0;
  // Square bs x bs blocks; rows and columns must have the same block size.
  virtual std::unique_ptr<MatrixAssembler> createAssembler(IndexMapPtr rows, IndexMapPtr cols) const = 0;
  // A preconditioner by the layer's name. The default looks the name up in nativePreconditioners()
  // via createNativePreconditioner, then in customPreconditioners() (framework- and module-written).
  std::unique_ptr<Preconditioner> createPreconditioner(const std::string& name) const;
  virtual std::unique_ptr<LinearSolver> createLinearSolver(const LinearSolverOptions& opts) const = 0;

  // Names this backend maps onto its own implementations.
  virtual std::vector<std::string> nativePreconditioners() const = 0;
  virtual std::vector<std::string> solverTypes() const = 0;

  // Throws an InputError if `map` spans several ranks and this backend cannot hold such objects,
  // naming the backends that can.
  void requireUsable(const IndexMap& map) const;

 protected:
  virtual std::unique_ptr<Preconditioner> createNativePreconditioner(const std::string& name) const = 0;
};

using BackendPtr = std::unique_ptr<Backend>;
// A backend's parameters as plain text, by full key (e.g. "backend.petsc.options").
using BackendSettings = std::map<std::string, std::string>;

struct BackendEntry {
  std::string name;
  std::string help;
  bool distributed = false;
  // What the backend offers, known without creating it (`kinema list` reads these, so that listing
  // does not start PETSc or Kokkos); each backend's solverTypes() / nativePreconditioners() return
  // the same lists.
  std::vector<std::string> solverTypes;
  std::vector<std::string> nativePreconditioners;
  // Declares the backend's own parameters (under `backend.<name>.`).
  std::function<void(ParamSchema&)> declare;
  // Creates the backend from its parameters: each `backend.<name>.*` key the user gave or that has
  // a default, strings as they are, trees as YAML text (yamlText).
  std::function<BackendPtr(const BackendSettings&)> make;
};
NamedRegistry<BackendEntry>& backends();

// The scene's choice of backend, bound once (framework/core/param_binding.hpp) under "backend":
// `name`, a choice of every registered backend (asked of the registry when declared).
struct BackendParams {
  std::string name = "eigen";
};
const ParamBindings<BackendParams>& backendBindings();
// The group the bindings sit under ("backend") and the full key of the name ("backend.name"),
// for the command line's --backend and the `backend: petsc` shorthand.
const std::string& backendGroup();
const std::string& backendNameKey();
// The backend named in a validated config.
BackendParams readBackendParams(const Config& config);

// Every preconditioner name a scene may give: "none", each registered backend's native ones (in
// the order first met) and the framework's for any operator (anyOperatorPreconditioners(); a
// module's preconditioners for its own operators are not offered). Whether the scene's backend
// offers it is checked after validation (checkLinearSolverChoices, linear_solver_params.hpp).
std::vector<std::string> preconditionerNames();

// Declares `backend.name` (backendBindings(), the default eigen where it is registered, else the
// first) and each backend's parameters (BackendEntry::declare).
void declareBackendParams(ParamSchema& schema);
// Creates the backend named by `backend.name` in a validated config.
BackendPtr createBackend(const Config& config);
// Creates a backend by name with every backend option at its default (tools, tests, benchmarks).
BackendPtr createBackend(const std::string& name);

}  // namespace kinema::la
