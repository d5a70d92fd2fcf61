#pragma once
// The avi module behind the runner (framework/run/module.hpp): a scene (scene_params.hpp) advanced
// by the asynchronous variational integrator with nested penalty layers and certificates
// (engine.hpp), distributed over the ranks by the Domain (domain.hpp, option A, README decision 57).
//
// One runner step is one frame interval avi.frame_dt: Domain::advanceTo(n frame_dt) processes every
// event up to that common time, then the diagnostics row is measured there without disturbing the
// state (README decision 58): energies (kinetic, elastic, gravity, contact, total), momenta, minimum distance,
// intersections, candidate / active pairs, active layers per depth, event rates by kind over the
// step (per simulated second), certificate reschedules per event, domain windows / rollbacks, and
// the wall time split of the event loop. A NaN energy or an intersection stops the run with an
// Error naming the time (the runner keeps the output and prints the restart command).
// Frames are point sets (every vertex, gathered, in scene order) with per-vertex fields; the
// triangles and segments of the meshes are stored once in the frames file (/avi/mesh).
// Checkpoints hold the Domain's flat EngineState, so a restart continues the run.
#include <memory>
#include <string>
#include <vector>

#include "framework/run/limits.hpp"
#include "framework/run/module.hpp"
#include "modules/avi/avi_params.hpp"
#include "modules/avi/domain.hpp"

namespace kinema::avi {

// Depths with their own diagnostics column (layers_1 .. layers_8); deeper ones are summed in
// layers_deeper.
constexpr int kLayerColumns = 8;

class AviModule : public run::Module {
 public:
  AviModule();
  ~AviModule() override;
  static void declare(ParamSchema& schema);
  // Memory, events and a lower bound of the wall time of a scene, from its parameters and the
  // generated scene (avi_estimate.cpp, framework/run/limits.hpp).
  static run::ResourceEstimate estimate(const Config& config, int ranks);

  void setup(run::RunContext& ctx) override;
  long totalSteps() const override { return p_.steps; }
  double time() const override { return time_; }
  void step(run::RunContext& ctx, io::Diagnostics::Row& row) override;
  void writeFrame(run::RunContext& ctx, io::FrameWriter& frames) override;
  void saveCheckpoint(run::RunContext& ctx, io::CheckpointWriter& out) const override;
  void loadCheckpoint(run::RunContext& ctx, const io::CheckpointReader& in) override;
  std::string summary() const override;
  void exportState(run::StateArrays& out) const override;

  const AviParams& params() const { return p_; }
  const Domain& domain() const { return *domain_; }

 private:
  // Events by kind summed over the run (from the per-step differences of Domain::counters(), so
  // they survive a restart whatever the engine restores of its own counters).
  struct Totals {
    std::int64_t force = 0, kicks = 0, zeroTicks = 0, certExpiries = 0, reschedules = 0, script = 0;
    int deepestLayer = 0;
  };

  void check(const Measurement& m, double T) const;
  void appendRow(const Comm& comm, const Measurement& m, double span, io::Diagnostics::Row& row);

  AviParams p_;
  std::unique_ptr<Domain> domain_;
  std::string sceneName_, generator_;
  long stepsDone_ = 0;
  double time_ = 0.0;
  double energy0_ = 0.0, energyLast_ = 0.0;
  Counters previous_;  // Domain::counters() after the last step (or setup / load)
  DomainStats previousStats_;
  TimeShares previousShares_;
  Totals totals_;
  std::vector<Vec3> x_;  // gathered positions (frames)
  std::vector<double> positions_, object_, scripted_, mass_;
};

}  // namespace kinema::avi
