#pragma once
// Module `impact`: time stepping of balls and rigid bodies with simultaneous impact resolution
// (Vouga et al. 2017; the step is documented in sim_stepper.hpp). The scene is a generator selected
// by impact.scene.type (cradle, pool_break, wedge, geyser, jammed_box, pile, box_drop) or an
// explicit ball list (balls); the resolver options live under impact.resolver (impact_params.hpp).
// The bodies are distributed over the ranks (sim_stepper.hpp, "Distributed world"): the pile and
// box_drop generators build only each rank's block of bodies; the small generators and the explicit
// `balls` list are built whole and split. The trajectory is bitwise the same on any number of ranks.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "framework/run/limits.hpp"
#include "framework/run/module.hpp"
#include "modules/impact/sim_stepper.hpp"

namespace kinema::impact {

class ImpactModule : public run::Module {
 public:
  static void declare(ParamSchema& schema);
  // The world a configuration describes (InputError naming the key for bad input): the whole scene,
  // or, when `block` is given (rank, ranks) and the scene type is pile or box_drop, that rank's
  // block of ids only; `distributed` says which.
  static SimWorld buildWorld(const Config& config, std::pair<int, int> block = {0, 1}, bool* distributed = nullptr);
  // `comm` combines the ranks' parts of a distributed world (the smallest body size).
  static SimOptions readOptions(const Config& config, const SimWorld& world, const Comm& comm = Comm::self());
  // Memory, steps and a lower bound of the time a scene needs, from its parameters alone
  // (impact_estimate.cpp, framework/run/limits.hpp).
  static run::ResourceEstimate estimate(const Config& config, int ranks);

  void setup(run::RunContext& ctx) override;
  long totalSteps() const override { return steps_; }
  double time() const override { return stepper_ ? stepper_->world().time : 0.0; }
  void step(run::RunContext& ctx, io::Diagnostics::Row& row) override;
  void writeFrame(run::RunContext& ctx, io::FrameWriter& frames) override;
  void saveCheckpoint(run::RunContext& ctx, io::CheckpointWriter& out) const override;
  void loadCheckpoint(run::RunContext& ctx, const io::CheckpointReader& in) override;
  std::string summary() const override;
  void exportState(run::StateArrays& out) const override;

  const SimStepper& stepper() const { return *stepper_; }

 private:
  std::string sceneType_;
  long steps_ = 0;
  std::unique_ptr<SimStepper> stepper_;
  double energy0_ = 0.0, energyNow_ = 0.0;
  Eigen::Vector3d momentumNow_ = Eigen::Vector3d::Zero();  // the last step's (summary: collective sums are not)
  double shadow0_ = 0.0, shadowPrev_ = 0.0, contactWork_ = 0.0, defect_ = 0.0;
  std::int64_t unresolvedClosures_ = 0, closureSteps_ = 0, closureMax_ = 0;
  std::int64_t iterationsMax_ = 0, iterationsTotal_ = 0, caps_ = 0, cycles_ = 0, notConverged_ = 0;
  // Frame fields of this rank's bodies (kept between frames to reuse their storage).
  std::vector<double> positions_, radius_, velocity_, omega_, halfExtents_, orientation_, rotation_, boxFrame_;
  std::vector<std::int64_t> bodyId_, isStatic_, shape_;
  std::vector<SimBody> rows_;
};

}  // namespace kinema::impact
