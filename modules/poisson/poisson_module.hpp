#pragma once
// Module `poisson`: the worked example of docs/writing-a-module.md. Solves -Laplace(u) = f on the
// unit cube with a manufactured solution, once per level, doubling the grid each level, and
// reports the discretisation error (second order: it shrinks about 4x per level).
#include <memory>
#include <vector>

#include "framework/run/limits.hpp"
#include "framework/run/module.hpp"
#include "modules/poisson/poisson_problem.hpp"

namespace kinema::poisson {

class PoissonModule : public run::Module {
 public:
  static void declare(ParamSchema& schema);
  // Memory and solves of a scene from its parameters alone (framework/run/limits.hpp).
  static run::ResourceEstimate estimate(const Config& config, int ranks);

  void setup(run::RunContext& ctx) override;
  long totalSteps() const override { return levels_; }
  double time() const override { return static_cast<double>(level_); }
  void step(run::RunContext& ctx, io::Diagnostics::Row& row) override;
  void writeFrame(run::RunContext& ctx, io::FrameWriter& frames) override;
  void saveCheckpoint(run::RunContext& ctx, io::CheckpointWriter& out) const override;
  void loadCheckpoint(run::RunContext& ctx, const io::CheckpointReader& in) override;
  std::string summary() const override;
  void exportState(run::StateArrays& out) const override;

 private:
  long cellsAt(long level) const { return n0_ << (level - 1); }
  void buildLevel(run::RunContext& ctx, long level);

  long n0_ = 16, levels_ = 1, level_ = 0;
  ManufacturedSolution solution_;
  la::LinearSolverOptions solverOptions_;
  std::unique_ptr<PoissonProblem> problem_;
  std::unique_ptr<la::Vector> u_, exact_;
  std::vector<double> errorL2_, errorMax_;
  std::vector<long> iterations_;
};

}  // namespace kinema::poisson
