#pragma once
// Module `heat1d`, an out-of-tree example: the heat equation u_t = kappa u_xx on (0, 1) with
// u(0) = u(1) = 0 and u(x, 0) = sin(m pi x), second-order finite differences on n cells and
// implicit Euler in time. Each step assembles nothing new: the matrix I + dt kappa A_h is built once
// and every step solves (I + dt kappa A_h) u^{k+1} = u^k with the scene's linear solver.
//
// The discrete problem has a closed-form solution, so every step checks the solver:
//   u^k_i = (1 + dt kappa lambda_h)^{-k} sin(m pi x_i),  lambda_h = (4 / h^2) sin^2(m pi h / 2),
// and the diagnostics report the distance to it (solver error) and to the continuous solution
// exp(-kappa m^2 pi^2 t) sin(m pi x) (discretisation error, O(dt + h^2)).
#include <memory>
#include <vector>

#include "framework/la/linear_solver.hpp"
#include "framework/la/matrix.hpp"
#include "framework/run/module.hpp"

namespace heat1d {

class Heat1dModule : public kinema::run::Module {
 public:
  static void declare(kinema::ParamSchema& schema);

  void setup(kinema::run::RunContext& ctx) override;
  long totalSteps() const override { return steps_; }
  double time() const override { return static_cast<double>(step_) * dt_; }
  void step(kinema::run::RunContext& ctx, kinema::io::Diagnostics::Row& row) override;
  void writeFrame(kinema::run::RunContext& ctx, kinema::io::FrameWriter& frames) override;
  void saveCheckpoint(kinema::run::RunContext& ctx, kinema::io::CheckpointWriter& out) const override;
  void loadCheckpoint(kinema::run::RunContext& ctx, const kinema::io::CheckpointReader& in) override;
  std::string summary() const override;

 private:
  double x(kinema::la::GlobalIndex i) const { return static_cast<double>(i + 1) / static_cast<double>(n_); }
  // The discrete solution after `k` steps and the continuous one at t = k dt, at this rank's points.
  void discreteExact(long k, kinema::la::Vector& out) const;
  void continuousExact(long k, kinema::la::Vector& out) const;

  long n_ = 64, steps_ = 20, mode_ = 1, step_ = 0;
  double dt_ = 1e-3, kappa_ = 1.0;
  kinema::la::LinearSolverOptions solverOptions_;
  kinema::la::IndexMapPtr map_;
  kinema::la::MatrixPtr A_;
  std::unique_ptr<kinema::la::LinearSolver> solver_;
  std::unique_ptr<kinema::la::Vector> u_;
  double lastSolverError_ = 0.0, lastError_ = 0.0;
  long totalIterations_ = 0;
};

}  // namespace heat1d
