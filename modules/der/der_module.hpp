#pragma once
// Module `der`: discrete elastic rods (Takahashi & Batty; modules/der/README.md). A run has up to two phases:
//  1. optimisation (der.optimize.enabled): every step is one augmented-Lagrangian iteration
//     (Algorithm 1) of every strand not yet finished; the phase ends when all strands have stopped
//     (or after der.optimize.k_max steps), and the strand set with its optimised rest state and
//     stiffness is written to <output>/strands.h5;
//  2. forward simulation (der.simulate.frames > 0): every step is one frame of
//     der.simulate.steps_per_frame implicit steps of every strand, with prescribed root motion.
// Strands are independent: each rank owns a contiguous, cost-balanced range of strands and solves
// them on its own (one-rank linear algebra on the scene's backend), so per-strand results are
// bitwise identical whatever the number of ranks. The partition comes from the strand sizes alone
// and each rank generates or reads only its own strands (docs/modules/der.md, "Several ranks").
//
// The class is defined over several files, one per concept: der_module.cpp (set-up and the two
// phases), der_schema.cpp (parameters), der_sources.cpp + der_partition.cpp (the strands and their
// ranks), der_output.cpp (diagnostics, frames, exported state, summary), der_checkpoint.cpp with
// der_checkpoint_format.hpp (checkpoints).
#include <Eigen/Geometry>
#include <memory>
#include <string>
#include <vector>

#include "framework/run/limits.hpp"
#include "framework/run/module.hpp"
#include "modules/der/alm_optimizer.hpp"
#include "modules/der/forward_sim.hpp"
#include "modules/der/der_params.hpp"
#include "modules/der/optimizer_params.hpp"
#include "modules/der/strand_partition.hpp"
#include "modules/der/strand_set_file.hpp"

namespace kinema::der {

// Where the optimisation stands, for its progress line (DerModule::progressHint). Every strand
// not yet converged is iterated once per step, so a step's cost is close to the number of strands
// it iterates; counts are over all ranks, `steps` and `work` over this process's steps (the
// progress line's rate counts those too, after a restart only the steps since).
struct OptimisationProgress {
  std::int64_t strands = 0;        // S
  std::int64_t running = 0;        // strands not converged after the last step
  std::int64_t runningBefore = 0;  // before it (the strands the last step iterated)
  std::int64_t work = 0;           // strand iterations of this process's steps
  long steps = 0;                  // this process's steps
  long iteration = 0, kMax = 0;    // ALM iterations done (the whole run's), and their cap
  long frames = 0;                 // forward frames after the optimisation
};

// The steps left, in steps of the mean cost so far (the runner's ETA is steps left / rate):
//  - once strands converge, an estimate from the rate at which they do: the running strands fall
//    by the last step's ratio r = running / runningBefore per step, so they still take running /
//    (1 - r) strand iterations (a geometric series), at most the bound below; the ETA is printed
//    as an estimate;
//  - before any has converged (or while the last step converged none), the bound: every running
//    strand iterated up to k_max, printed as "at most".
// The forward frames follow at one step each, as before. The note says which it is.
ProgressHint optimisationHint(const OptimisationProgress& p);

class DerModule : public run::Module {
 public:
  static void declare(ParamSchema& schema);
  // Memory and steps a scene needs, from its parameters alone (der_estimate.cpp,
  // framework/run/limits.hpp); unknown for strands read from a file.
  static run::ResourceEstimate estimate(const Config& config, int ranks);

  void setup(run::RunContext& ctx) override;
  long totalSteps() const override { return optimizeSteps_ + frames_; }
  // While optimising, k_max is a cap (strands stop when they converge, usually after a few
  // iterations): the ETA is estimated from the rate at which strands converge, or is the bound
  // k_max gives until one has (optimisationHint), with the count of converged strands beside it.
  ProgressHint progressHint() const override;
  bool finished() const override;
  double time() const override;
  void step(run::RunContext& ctx, io::Diagnostics::Row& row) override;
  void writeFrame(run::RunContext& ctx, io::FrameWriter& frames) override;
  void saveCheckpoint(run::RunContext& ctx, io::CheckpointWriter& out) const override;
  void loadCheckpoint(run::RunContext& ctx, const io::CheckpointReader& in) override;
  std::string summary() const override;
  void exportState(run::StateArrays& out) const override;

  // For tests and benchmarks: this rank's strands and optimisers / simulators.
  const LocalStrands& strands() const { return local_; }
  const std::vector<std::unique_ptr<AlmOptimizer>>& optimizers() const { return optimizers_; }
  const std::vector<std::unique_ptr<StrandSimulator>>& simulators() const { return sims_; }

 private:
  bool simulating() const { return simStarted_; }  // the same on every rank
  // Set-up (der_schema.cpp, der_sources.cpp, der_module.cpp).
  void readParameters(const Config& c);
  struct SceneSize {
    std::int64_t strands = 0, vertices = 0;  // over all ranks
  };
  SceneSize loadStrands(run::RunContext& ctx, bool optimize);
  void loadStrandSet(const Config& c, const Comm& comm, const StrandRange& mine, bool optimize);
  void startOptimization(run::RunContext& ctx, const SceneSize& size);
  void startWithoutOptimization(const SceneSize& size);
  void optimizeStep(run::RunContext& ctx);
  void finishOptimization(run::RunContext& ctx);
  void startSimulation();
  void simulateStep(run::RunContext& ctx);
  void addRow(run::RunContext& ctx, io::Diagnostics::Row& row) const;
  // This rank's optimisation figures: from the optimisers while they run, then from the results.
  struct Totals {
    std::int64_t running = 0, inEquilibrium = 0;
    double residualMax = 0.0, newton = 0.0, mprgp = 0.0, seconds = 0.0;
  };
  Totals localTotals() const;
  double localDrift() const;
  Eigen::Isometry3d rootTransform(double t, const Vec3& root) const;
  // Strand i's rest state: in local_.rest, or in its simulator once the simulation has started.
  const RestState& restOf(std::size_t i) const { return sims_.empty() ? local_.rest[i] : sims_[i]->rest(); }

  // Scene
  StrandParams strands_;  // der.strands.*
  bool optimize_ = true;  // der.optimize.enabled
  std::string scheme_, outputDir_;
  Comm comm_;
  Material material_;
  OptimizerOptions optOptions_;
  double equilibriumTol_ = 1e-6;
  bool writeStrandFile_ = true;
  long optimizeSteps_ = 0;  // k_max, or 0 without optimisation
  long frames_ = 0;
  int stepsPerFrame_ = 4;
  double fps_ = 60.0;
  ForwardSimOptions simOptions_;
  std::string rootMotion_;
  double rootAmplitude_ = 0.0, rootPeriod_ = 1.0, rootDuration_ = 0.0;

  // This rank's strands
  LocalStrands local_;
  bool loadedRest_ = false;
  double imbalance_ = 1.0;
  std::vector<std::unique_ptr<AlmOptimizer>> optimizers_;
  std::vector<std::unique_ptr<StrandSimulator>> sims_;
  std::vector<RootMotion> roots_;
  std::vector<double> lengths_;

  // Progress
  long optimizeStep_ = 0;  // ALM iterations done
  std::int64_t strandsConverged_ = 0, strandsTotal_ = 0;  // over all ranks, after the last iteration
  OptimisationProgress progress_;
  bool optimizationDone_ = false;
  bool justOptimized_ = false;
  bool simStarted_ = false;
  long frame_ = 0;  // frames simulated
  std::string strandFile_;
};

}  // namespace kinema::der
