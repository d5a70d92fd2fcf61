#pragma once
// The bdem module behind the runner (framework/run/module.hpp): a scene of bonded spheres
// (scene_params.hpp) distributed over the ranks (domain.hpp) and advanced by the implicit manifold
// integrator (implicit_stepper.hpp, Alg. 3) or the explicit baseline (explicit_stepper.hpp).
//
// One runner step is `bdem.substeps` time steps; its diagnostics row holds the energies (kinetic,
// potential = bonds + contacts + gravity), momenta, solver work, bond and contact counts,
// fragments and the largest penetration, then the columns of the probes (probes.hpp). Frames
// are point sets (one row per particle in global order); the first frame is the state at t = 0
// (the rest state), and every frame carries the displacement p - pRef. Checkpoints are per
// particle in global order plus the list of broken bonds, so a run
// restarts at any rank count (the numbering does not depend on it).
#include <memory>
#include <string>

#include "framework/run/limits.hpp"
#include "framework/run/module.hpp"
#include "modules/bdem/bdem_params.hpp"
#include "modules/bdem/domain.hpp"
#include "modules/bdem/probes.hpp"
#include "modules/bdem/system.hpp"

namespace kinema::bdem {

class ImplicitStepper;
class ExplicitStepper;
class IncrementalPotential;
struct StepStats;

class BdemModule : public run::Module {
 public:
  BdemModule();
  ~BdemModule() override;
  static void declare(ParamSchema& schema);
  // Memory, time steps and a lower bound of the wall time of a scene from its parameters alone,
  // before anything is built (bdem_estimate.cpp, framework/run/limits.hpp).
  static run::ResourceEstimate estimate(const Config& config, int ranks);

  void setup(run::RunContext& ctx) override;
  long totalSteps() const override { return steps_; }
  double time() const override { return s_.time; }
  void step(run::RunContext& ctx, io::Diagnostics::Row& row) override;
  void writeFrame(run::RunContext& ctx, io::FrameWriter& frames) override;
  void prepareCheckpoint(run::RunContext& ctx) override;
  void saveCheckpoint(run::RunContext& ctx, io::CheckpointWriter& out) const override;
  void loadCheckpoint(run::RunContext& ctx, const io::CheckpointReader& in) override;
  std::string summary() const override;
  void exportState(run::StateArrays& out) const override;

  const System& system() const { return s_; }
  const Domain& domain() const { return *domain_; }
  double dt() const { return dt_; }

 private:
  StepStats advance(double dt);
  // Per particle number of alive bonds (owned particles, local order); collective.
  std::vector<double> aliveBondsPerParticle() const;
  // One frame of the current state at time t (writeFrame; also the rest frame at t = 0).
  void emitFrame(run::RunContext& ctx, io::FrameWriter& frames, double t);

  BdemParams p_;
  System s_;
  std::unique_ptr<Domain> domain_;
  std::unique_ptr<ImplicitStepper> implicit_;
  std::unique_ptr<ExplicitStepper> explicit_;
  std::unique_ptr<IncrementalPotential> diag_;  // energy terms and contacts for the diagnostics
  la::VectorPtr diagX_;
  la::VectorPtr diagG_;            // support forces of the probes (tangent layout)
  la::IndexMapPtr diagGMap_;       // the point map diagG_ was made for
  Probes probes_;
  // The state at t = 0 of the owned particles (the first frame, written with the first frame due).
  std::vector<Vec3> restP_, restV_;
  std::vector<Vec4> restQ_, restQdot_;
  bool restarted_ = false;
  // A checkpoint was written since the last implicit step: the next one starts a new Hessian
  // pattern, as a run restarted from that checkpoint does (README decision 12).
  mutable bool patternResetPending_ = false;
  la::IndexMapPtr diagMap_;
  const la::Backend* backend_ = nullptr;
  std::string generator_;
  double dt_ = 0;
  long steps_ = 0, stepsDone_ = 0;
  long bonds0_ = 0;           // global bonds at t = 0
  long newtonTotal_ = 0, linearTotal_ = 0, trialsTotal_ = 0, notConverged_ = 0;
  long fractureStep_ = -1;    // first runner step whose state is split (fragments.hpp)
  double fractureTime_ = -1;
  long lastFragments_ = -1;
  double energy0_ = 0, energyLast_ = 0;
  std::vector<double> positions_, displacement_, radius_, velocity_, quaternion_, gid_, sceneId_, bondsAlive_, fragmentId_;
};

}  // namespace kinema::bdem
