#include "modules/der/der_module.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "framework/core/error.hpp"
#include "framework/core/log.hpp"
#include "framework/core/timer.hpp"
#include "modules/der/der_checkpoint_format.hpp"
#include "modules/der/qp_preconditioner.hpp"
#include "modules/der/rod_mass.hpp"

// DerModule's set-up and its two phases (optimisation, forward simulation). The rest of the module
// lives by concept beside this file: der_schema.cpp (parameters), der_sources.cpp and
// der_partition.cpp (the strands and their ranks), der_output.cpp (diagnostics, frames, state,
// summary), der_checkpoint.cpp with der_checkpoint_format.hpp (checkpoints).

namespace kinema::der {

namespace {

double strandLength(const StrandGeometry& g) {
  double L = 0.0;
  for (std::size_t j = 0; j + 1 < g.x.size(); ++j) L += (g.x[j + 1] - g.x[j]).norm();
  return L;
}

}  // namespace

void DerModule::setup(run::RunContext& ctx) {
  readParameters(ctx.config);
  outputDir_ = ctx.outputDir;
  comm_ = ctx.comm;
  const bool optimize = optimize_;

  // The strand input (sizes, partition, this rank's strands): timed apart from the optimisers'
  // set-up so that bench_der's set-up section can show it falling as 1/P.
  SceneSize size;
  {
    ScopedTimer inputTimer("der.setup.strands");
    size = loadStrands(ctx, optimize);
  }

  lengths_.clear();
  for (const auto& geom : local_.geometry) lengths_.push_back(strandLength(geom));

  optimizers_.clear();
  if (optimize)
    startOptimization(ctx, size);
  else
    startWithoutOptimization(size);
}

void DerModule::startOptimization(run::RunContext& ctx, const SceneSize& size) {
  optimizeSteps_ = optOptions_.kMax;
  strandsTotal_ = size.strands;
  // One workspace for this rank's strands: an optimiser keeps only its strand's state (the
  // frames are initialFrames(q), recomputed with the workspace), so memory per strand is that
  // state (docs/modules/der.md, "Memory"). The per-iteration history is not kept either.
  // The optimisers are built lazily (at their first iteration, alm_optimizer.hpp), so the
  // scene-wide input error they would raise is checked here, on every rank: with no gravity the
  // external force, and the relative residual's denominator, is zero.
  if (!(material_.gravity.norm() > 0.0))
    throw InputError(str(ctx.config.where("der.material.gravity"), ": der.material.gravity is (", material_.gravity.transpose(), "): the optimisation "
                         "balances gravity, and its relative residual ||M^-1/2 f|| / ||M^-1/2 f_ext|| is undefined "
                         "without it; set der.optimize.enabled: false to simulate without gravity"));
  OptimizerOptions o = optOptions_;
  o.recordHistory = false;
  auto workspace = std::make_shared<AlmWorkspace>(o, ctx.backend);
  for (std::size_t i = 0; i < local_.geometry.size(); ++i)
    optimizers_.push_back(std::make_unique<AlmOptimizer>(interleave(local_.geometry[i]), material_, o, ctx.backend,
                                                         static_cast<int>(local_.firstStrand) + static_cast<int>(i),
                                                         workspace));
  const std::int64_t unknowns = ctx.comm.sum(static_cast<std::int64_t>(std::accumulate(
      local_.geometry.begin(), local_.geometry.end(), std::int64_t{0},
      [](std::int64_t a, const StrandGeometry& s) { return a + 7 * s.vertices() - 14; })));
  log::info("der: ", size.strands, " strands (", size.vertices, " vertices, ", unknowns,
            " parameters), scheme ", scheme_, ", preconditioner ", optOptions_.preconditioner, ", ",
            ctx.comm.size(), ctx.comm.size() == 1 ? " rank" : " ranks", " (load imbalance ", imbalance_, ")");
}

void DerModule::startWithoutOptimization(const SceneSize& size) {
  optimizeSteps_ = 0;
  optimizationDone_ = true;
  if (!loadedRest_) {
    local_.rest.clear();
    for (const auto& geom : local_.geometry) {
      const auto q = interleave(geom);
      local_.rest.push_back(restStateFrom(q, initialFrames(q), material_));
    }
  }
  log::info("der: ", size.strands, " strands (", size.vertices, " vertices), ",
            loadedRest_ ? "rest state and stiffness from " + strands_.file
                        : std::string("naive initialisation (rest state = modelled shape)"));
  if (frames_ > 0) startSimulation();
}

ProgressHint optimisationHint(const OptimisationProgress& p) {
  ProgressHint h;
  const long itersLeft = std::max(0L, p.kMax - p.iteration);
  const std::int64_t converged = p.strands - p.running;
  // In strand iterations: the bound, and the estimate from the convergence rate when there is one.
  const double bound = static_cast<double>(p.running) * static_cast<double>(itersLeft);
  double work = bound;
  const bool estimated = converged > 0 && p.running < p.runningBefore && p.running > 0;
  if (estimated) {
    const double r = static_cast<double>(p.running) / static_cast<double>(p.runningBefore);
    work = std::min(bound, static_cast<double>(p.running) / (1.0 - r));
  }
  if (p.running == 0) work = 0.0;
  // In steps of this process's mean cost per step (the progress line's rate).
  const double perStep = p.steps > 0 && p.work > 0 ? static_cast<double>(p.work) / static_cast<double>(p.steps)
                                                   : static_cast<double>(std::max<std::int64_t>(p.running, 1));
  h.stepsLeft = static_cast<long>(std::ceil(work / perStep)) + p.frames;
  h.upperBound = !estimated && p.running > 0;
  h.note = str(converged, "/", p.strands, " strands converged");
  if (p.running > 0)
    h.note += estimated ? str("; ETA from their rate, k_max allows ", itersLeft, " more iterations")
                        : str("; ETA if every running strand takes the ", itersLeft, " iterations k_max allows");
  return h;
}

ProgressHint DerModule::progressHint() const {
  if (optimizationDone_) {
    ProgressHint h;
    h.stepsLeft = frames_ - frame_;
    return h;
  }
  return optimisationHint(progress_);
}

bool DerModule::finished() const {
  if (!optimizationDone_) return false;
  return frame_ >= frames_;
}

double DerModule::time() const { return simulating() ? static_cast<double>(frame_) / fps_ : 0.0; }

void DerModule::step(run::RunContext& ctx, io::Diagnostics::Row& row) {
  if (!optimizationDone_) {
    optimizeStep(ctx);
  } else if (frame_ < frames_) {
    simulateStep(ctx);
  }
  addRow(ctx, row);
}

void DerModule::optimizeStep(run::RunContext& ctx) {
  ScopedTimer t("der.optimize");
  ++optimizeStep_;
  auto converged = [&] {
    return static_cast<std::int64_t>(
        std::count_if(optimizers_.begin(), optimizers_.end(), [](const auto& o) { return o->done(); }));
  };
  // The strands this step iterates: known from the last step's count, except at this process's
  // first step (after a restart the optimisers' done flags come from the checkpoint).
  const std::int64_t before = progress_.steps > 0 ? strandsConverged_ : ctx.comm.sum(converged());
  for (auto& opt : optimizers_)
    if (!opt->done()) opt->iterate();
  // One reduction per step: the count also feeds the progress line.
  strandsConverged_ = ctx.comm.sum(converged());
  progress_.strands = strandsTotal_;
  progress_.runningBefore = strandsTotal_ - before;
  progress_.running = strandsTotal_ - strandsConverged_;
  progress_.work += progress_.runningBefore;
  ++progress_.steps;
  progress_.iteration = optimizeStep_;
  progress_.kMax = optimizeSteps_;
  progress_.frames = frames_;
  const bool allDone = strandsConverged_ == strandsTotal_;
  if (allDone || optimizeStep_ >= optimizeSteps_) finishOptimization(ctx);
}

void DerModule::finishOptimization(run::RunContext& ctx) {
  optimizationDone_ = true;
  justOptimized_ = true;
  local_.rest.clear();
  local_.results.clear();
  for (auto& opt : optimizers_) {
    local_.rest.push_back(opt->restState());
    const AlmStats& s = opt->stats();
    // stats().residual is relativeResidual() (the same computation at the same p), without
    // rebuilding the workspace for the strand.
    local_.results.push_back({s.residual, static_cast<double>(s.newtonIterations), s.mprgpPerSolve(),
                              stopReasonCode(s.stopReason), static_cast<double>(s.mprgpIterations), s.totalSeconds()});
  }
  optimizers_.clear();  // their results live on in local_.results (and strands.h5)
  if (writeStrandFile_) {
    ScopedTimer t("der.write_strands");
    strandFile_ = outputDir_ + "/strands.h5";
    writeStrandSet(strandFile_, ctx.comm, local_);
  }
  if (frames_ > 0) startSimulation();
}

Eigen::Isometry3d DerModule::rootTransform(double t, const Vec3& root) const {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  if (rootMotion_ == "none") return T;
  // Oscillations stop at the last whole period within the duration, so the root comes to rest
  // where it started.
  const double periods = std::floor(rootDuration_ / rootPeriod_ + 1e-9);
  const double tEnd = periods * rootPeriod_;
  const double s = t < tEnd ? std::sin(2.0 * M_PI * t / rootPeriod_) : 0.0;
  if (rootMotion_ == "shake") {
    T.translation() = Vec3(rootAmplitude_ * s, 0.0, 0.0);
  } else if (rootMotion_ == "rotate") {
    const double angle = rootAmplitude_ * s;
    T = Eigen::Translation3d(root) * Eigen::AngleAxisd(angle, Vec3::UnitZ()) * Eigen::Translation3d(-root);
  } else {  // lift
    const double f = rootDuration_ > 0.0 ? std::min(t / rootDuration_, 1.0) : 1.0;
    T.translation() = Vec3(0.0, 0.0, rootAmplitude_ * f);
  }
  return T;
}

void DerModule::startSimulation() {
  simStarted_ = true;
  // Rest states given to earlier simulators come back before those are replaced.
  for (std::size_t i = 0; i < sims_.size(); ++i)
    if (local_.rest[i].restLength.empty()) local_.rest[i] = sims_[i]->rest();
  sims_.clear();
  // One workspace for this rank's strands (docs/modules/der.md, "Memory"); each simulator takes
  // its strand's rest state over from local_.rest (restOf() finds it there).
  auto workspace = std::make_shared<ForwardWorkspace>();
  for (std::size_t i = 0; i < local_.geometry.size(); ++i) {
    ForwardSimOptions o = simOptions_;
    o.strandId = static_cast<int>(local_.firstStrand + static_cast<std::int64_t>(i));
    sims_.push_back(std::make_unique<StrandSimulator>(interleave(local_.geometry[i]), std::move(local_.rest[i]),
                                                      material_, o, workspace));
  }
  roots_.clear();
  for (std::size_t i = 0; i < local_.geometry.size(); ++i) {
    const Vec3 root = local_.geometry[i].x[0];
    roots_.push_back(RootMotion{[this, root](double t) { return rootTransform(t, root); }});
  }
}

void DerModule::simulateStep(run::RunContext& ctx) {
  ScopedTimer t("der.simulate");
  const double dt = 1.0 / (fps_ * stepsPerFrame_);
  for (std::size_t i = 0; i < sims_.size(); ++i)
    for (int k = 0; k < stepsPerFrame_; ++k) sims_[i]->step(dt, roots_[i]);
  ++frame_;
  (void)ctx;
}

}  // namespace kinema::der

namespace kinema {
void registerModule_der() {
  run::modules().add({"der",
                      "discrete elastic rods: static-equilibrium parameter optimisation (augmented Lagrangian, "
                      "MPRGP, active-set Cholesky) and implicit forward simulation of hair strands",
                      &der::DerModule::declare, [] { return std::make_unique<der::DerModule>(); }});
  run::estimators().add({"der", "strands and vertices of the generators (memory), ALM iterations and frames; "
                                "unknown for strands from a file", &der::DerModule::estimate});
  der::registerQpPreconditioners();
}
}  // namespace kinema
