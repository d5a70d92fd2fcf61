#pragma once
// The Trilinos backend: Tpetra vectors and matrices over MPI, Belos solvers, Ifpack2 / MueLu /
// Amesos2 preconditioners. Native options: Teuchos parameter lists written as YAML under
// backend.trilinos.{belos, ifpack2, muelu, amesos2} (every solver) and a solver's
// native.trilinos.{...} (that solver, on top). Kokkos is initialised with the first backend and
// finalised by MpiContext before MPI_Finalize.
#include <yaml-cpp/yaml.h>

#include <memory>
#include <utility>
#include <vector>

#include "framework/la/backend.hpp"

namespace kinema::la::trilinos {

struct Layout;
struct NativeOptions;

class TrilinosBackend final : public Backend {
 public:
  // `options`: the backend.trilinos subtree (belos / ifpack2 / muelu / amesos2), may be undefined.
  explicit TrilinosBackend(YAML::Node options);
  std::string name() const override { return "trilinos"; }
  bool distributed() const override { return true; }

  std::unique_ptr<Vector> createVector(IndexMapPtr map) const override;
  std::unique_ptr<MatrixAssembler> createAssembler(IndexMapPtr rows, IndexMapPtr cols) const override;
  std::unique_ptr<LinearSolver> createLinearSolver(const LinearSolverOptions& opts) const override;
  std::vector<std::string> nativePreconditioners() const override;
  std::vector<std::string> solverTypes() const override;
  // The same lists without an object (the registry entry's, for `kinema list`).
  static std::vector<std::string> offeredSolverTypes();
  static std::vector<std::string> offeredPreconditioners();

 protected:
  std::unique_ptr<Preconditioner> createNativePreconditioner(const std::string& name) const override;

 private:
  // reuseInterpolation: LinearSolverOptions::reusePreconditioner == "interpolation" (MueLu RP).
  std::unique_ptr<Preconditioner> makePreconditioner(const std::string& name, std::shared_ptr<const NativeOptions> native,
                                                     bool reuseInterpolation = false) const;
  // The Tpetra maps of an IndexMap, shared by every object on it while any of them lives.
  std::shared_ptr<const Layout> layoutFor(const IndexMapPtr& map) const;

  YAML::Node options_;
  std::shared_ptr<const NativeOptions> backendOptions_;  // backend-wide only
  mutable std::vector<std::pair<std::weak_ptr<const IndexMap>, std::weak_ptr<const Layout>>> layouts_;
};

}  // namespace kinema::la::trilinos
