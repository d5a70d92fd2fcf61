#pragma once
// The Eigen backend: every object of framework/la in one process. Maps must live on a
// communicator of one rank (Comm::self(), or the world of a one-rank run).
#include "framework/la/backend.hpp"

namespace kinema::la::eigen {

class EigenBackend final : public Backend {
 public:
  std::string name() const override { return "eigen"; }
  bool distributed() const override { return false; }

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
};

}  // namespace kinema::la::eigen
