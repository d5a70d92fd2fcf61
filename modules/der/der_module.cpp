#include "modules/der/der_module.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <optional>
#include <span>
#include <sstream>

#include "framework/core/agree.hpp"
#include "framework/core/error.hpp"
#include "framework/core/log.hpp"
#include "framework/core/timer.hpp"
#include "framework/io/hdf5_file.hpp"
#include "modules/der/hair_file.hpp"
#include "modules/der/rod_mass.hpp"
#include "modules/der/strand_generators.hpp"
#include "modules/der/strand_partition.hpp"

namespace kinema::der {

namespace {

std::size_t u(std::int64_t i) { return static_cast<std::size_t>(i); }

double strandLength(const StrandGeometry& g) {
  double L = 0.0;
  for (int j = 0; j + 1 < g.vertices(); ++j) L += (g.x[u(j + 1)] - g.x[u(j)]).norm();
  return L;
}

// Stop reasons as numbers for the HDF5 output (0 = not optimised / still running).
double stopReasonCode(const std::string& reason) {
  if (reason == "step_small") return 1.0;
  if (reason == "k_max") return 2.0;
  if (reason == "line_search") return 3.0;
  return 0.0;
}

}  // namespace

void DerModule::declare(ParamSchema& schema) {
  schema.addChoice("der.strands.source", "vertical", {"vertical", "horizontal", "helix", "wisps", "hair", "file"},
                   "where the strands come from: a generator (vertical, horizontal, helix, wisps), a .hair file "
                   "(der.strands.file), or a Kinema strand-set file written by an optimisation (strands.h5)");
  schema.addInt("der.strands.vertices", 30, Range::closed(3, 1000000),
                "vertices per generated strand (N; the paper's single-strand scenes use 30)");
  schema.addReal("der.strands.length", 0.2, Range::leftOpen(0.0, 1e3), "length of a generated strand [m]");
  schema.addInt("der.strands.count", 1, Range::closed(1, 100000000), "number of strands of the wisps generator");
  schema.addInt("der.strands.seed", 1, Range::closed(0, 4294967295.0), "random seed of the wisps generator");
  schema.addReal("der.strands.helix_radius", 0.01, Range::positive(), "radius of the helix generator's coil [m]");
  schema.addReal("der.strands.helix_pitch", 0.005, Range::nonNegative(), "axial drop per turn of the helix [m]");
  schema.addReal("der.strands.helix_turns", 10.0, Range::positive(), "turns of the helix");
  schema.addString("der.strands.file", "", "path of the .hair file (source hair) or strand-set file (source file)");
  schema.addReal("der.strands.scale", 1.0, Range::positive(),
                 "factor applied to .hair coordinates on reading (hair models are often in cm: 0.01)");

  schema.addReal("der.material.radius", 5e-5, Range::leftOpen(0.0, 1.0), "strand radius r [m] (hair: about 50 um)");
  schema.addReal("der.material.density", 1300.0, Range::leftOpen(0.0, 1e5), "density rho_d [kg/m^3] (hair: 1300)");
  schema.addRealList("der.material.gravity", {0.0, 0.0, -9.81}, 3, "gravitational acceleration [m/s^2]");
  schema.addReal("der.material.c_stretch", 1e9, Range::leftOpen(0.0, 1e15), "stretching stiffness c_st [Pa] (Eq. 2)");
  schema.addReal("der.material.c_bend", 1e9, Range::leftOpen(0.0, 1e15), "bending stiffness c_be [Pa] (Eq. 5)");
  schema.addReal("der.material.c_twist", 1e9, Range::leftOpen(0.0, 1e15), "twisting stiffness c_tw [Pa] (Eq. 7)");

  schema.addBool("der.optimize.enabled", true,
                 "optimise rest state and stiffness for static equilibrium before simulating; false = the "
                 "naive initialisation (rest state = modelled shape), the paper's first baseline");
  declareOptimizerParams(schema, "der.optimize");
  schema.addReal("der.optimize.equilibrium_tolerance", 1e-6, Range::open(0.0, 1.0),
                 "relative residual ||M^-1/2 f|| / ||M^-1/2 f_ext|| below which a strand counts as in "
                 "equilibrium in the summary and the diagnostics (reporting only)");
  schema.addBool("der.optimize.write_strand_file", true,
                 "write the optimised strands (rest state, stiffness, per-strand results) to <output>/strands.h5, "
                 "which a forward run loads with der.strands.source: file");

  schema.addInt("der.simulate.frames", 0, Range::closed(0, 100000000),
                "frames of forward simulation after the optimisation (0: none)");
  schema.addReal("der.simulate.fps", 60.0, Range::leftOpen(0.0, 1e6), "frames per simulated second (paper: 60)");
  schema.addInt("der.simulate.steps_per_frame", 4, Range::closed(1, 100000),
                "implicit steps per frame (paper: 4, or 12 for the hair scenes)");
  schema.addInt("der.simulate.newton_iterations", 1, Range::closed(1, 1000),
                "Newton iterations per step (1 = linearised backward Euler, as in the paper)");
  schema.addReal("der.simulate.newton_rtol", 0.0, Range::closed(0.0, 1.0),
                 "relative gradient tolerance that ends a step's Newton iterations early (0: always run them all)");
  schema.addChoice("der.simulate.curvature", "4d", {"4d", "2d_averaged"},
                   "bending model of the forward simulation: the paper's 4D curvature, or 2D curvature with "
                   "averaged frames [7] (which loses its bending force when frames flip, Fig. 2)");
  schema.addChoice("der.simulate.root_motion", "none", {"none", "shake", "rotate", "lift"},
                   "prescribed root motion: none; shake = x offset amplitude sin(2 pi t / period); rotate = "
                   "rotation about the vertical axis by amplitude sin(2 pi t / period) rad; lift = rise by "
                   "amplitude over the duration; every motion stops after der.simulate.root_duration");
  schema.addReal("der.simulate.root_amplitude", 0.02, Range::any(), "root motion amplitude [m] or [rad]");
  schema.addReal("der.simulate.root_period", 0.5, Range::positive(), "root motion period [s]");
  schema.addReal("der.simulate.root_duration", 1.0, Range::nonNegative(),
                 "time after which the root stops moving and rests [s] (shake and rotate stop at the "
                 "nearest whole period before it)");
}

namespace {

// The strands of the scene, from their sizes alone (docs/modules/der.md, "Several ranks"): every
// rank knows every strand's vertex count (an O(strands) table: the generator's arguments, the
// .hair header and segments array, or the strand-set file's vertex_offset), partitions from it,
// and then builds or reads only its own strands (readRange).
struct SceneStrands {
  std::vector<std::int64_t> vertexOffset;  // all strands
  HairLayout hair;                         // source hair
};

SceneStrands strandSizes(const Config& c, const std::string& source, Comm comm) {
  SceneStrands s;
  const std::int64_t N = c.getInt("der.strands.vertices");
  std::int64_t count = 1;  // strands of N vertices from a generator
  if (source == "wisps") {
    count = c.getInt("der.strands.count");
  } else if (source == "hair") {
    const std::string& path = c.getString("der.strands.file");
    if (path.empty())
      throw InputError(str(c.where("der.strands.file"), ": der.strands.file: source hair needs a .hair file"));
    raiseOnEveryRank(comm, [&] { s.hair = readHairLayout(path); });
    if (s.hair.strands == 0) throw InputError(str(path, ": the file holds no strands"));
    s.vertexOffset.assign(s.hair.pointOffset.begin(), s.hair.pointOffset.end());
    return s;
  } else if (source == "file") {
    const std::string& path = c.getString("der.strands.file");
    if (path.empty())
      throw InputError(str(c.where("der.strands.file"), ": der.strands.file: source file needs a strand-set file"));
    if (!std::filesystem::exists(path))
      throw InputError(str(c.where("der.strands.file"), ": der.strands.file: ", path, " does not exist"));
    raiseOnEveryRank(comm, [&] { s.vertexOffset = readStrandOffsets(path, comm); });
    return s;
  }
  s.vertexOffset.resize(static_cast<std::size_t>(count) + 1);
  for (std::int64_t i = 0; i <= count; ++i) s.vertexOffset[u(i)] = i * N;
  return s;
}

// Strands [first, first + count) of a generator or a .hair file (not the strand-set file, which
// readStrandSet reads with its rest state). Generators build strand i from i alone; the .hair
// reader seeks to the range's points.
std::vector<StrandGeometry> readRange(const Config& c, const std::string& source, const SceneStrands& scene,
                                      std::int64_t first, std::int64_t count, Comm comm) {
  std::vector<StrandGeometry> out;
  const int N = static_cast<int>(c.getInt("der.strands.vertices"));
  const double L = c.getReal("der.strands.length");
  // Argument errors of a generator come from every rank (each checks them, strands or not).
  if (source == "vertical") {
    StrandGeometry g = straightVertical(N, L);
    if (count > 0) out.push_back(std::move(g));
  } else if (source == "horizontal") {
    StrandGeometry g = straightHorizontal(N, L);
    if (count > 0) out.push_back(std::move(g));
  } else if (source == "helix") {
    StrandGeometry g = helix(N, c.getReal("der.strands.helix_radius"), c.getReal("der.strands.helix_pitch"),
                             c.getReal("der.strands.helix_turns"));
    if (count > 0) out.push_back(std::move(g));
  } else if (source == "wisps") {
    WispParams w;
    w.length = L;
    out = wispRange(first, static_cast<int>(count), N, w, static_cast<std::uint64_t>(c.getInt("der.strands.seed")));
  } else {  // hair
    raiseOnEveryRank(comm, [&] {
      out = readHairStrands(c.getString("der.strands.file"), scene.hair, static_cast<std::uint64_t>(first),
                            static_cast<std::uint64_t>(count), c.getReal("der.strands.scale"))
                .strands;
    });
  }
  return out;
}

}  // namespace

void DerModule::setup(run::RunContext& ctx) {
  const Config& c = ctx.config;
  source_ = c.getString("der.strands.source");
  material_.radius = c.getReal("der.material.radius");
  material_.density = c.getReal("der.material.density");
  const auto& g = c.getRealList("der.material.gravity");
  material_.gravity = Vec3(g[0], g[1], g[2]);
  material_.cStretch = c.getReal("der.material.c_stretch");
  material_.cBend = c.getReal("der.material.c_bend");
  material_.cTwist = c.getReal("der.material.c_twist");
  optOptions_ = readOptimizerOptions(c, "der.optimize");
  const bool optimize = c.getBool("der.optimize.enabled");
  scheme_ = optimize ? c.getString("der.optimize.scheme") : "naive";
  equilibriumTol_ = c.getReal("der.optimize.equilibrium_tolerance");
  writeStrandFile_ = c.getBool("der.optimize.write_strand_file");
  frames_ = c.getInt("der.simulate.frames");
  fps_ = c.getReal("der.simulate.fps");
  stepsPerFrame_ = static_cast<int>(c.getInt("der.simulate.steps_per_frame"));
  simOptions_.maxNewtonIterations = static_cast<int>(c.getInt("der.simulate.newton_iterations"));
  simOptions_.relativeTolerance = c.getReal("der.simulate.newton_rtol");
  simOptions_.model = c.getString("der.simulate.curvature") == "4d" ? CurvatureModel::FourD : CurvatureModel::TwoDAveraged;
  rootMotion_ = c.getString("der.simulate.root_motion");
  rootAmplitude_ = c.getReal("der.simulate.root_amplitude");
  rootPeriod_ = c.getReal("der.simulate.root_period");
  rootDuration_ = c.getReal("der.simulate.root_duration");
  outputDir_ = ctx.outputDir;
  comm_ = ctx.comm;

  // The strand input (sizes, partition, this rank's strands): timed apart from the optimisers'
  // set-up so that bench_der's set-up section can show it falling as 1/P.
  std::optional<ScopedTimer> inputTimer(std::in_place, "der.setup.strands");
  SceneStrands scene = strandSizes(c, source_, ctx.comm);
  const std::int64_t S = static_cast<std::int64_t>(scene.vertexOffset.size()) - 1;
  std::vector<double> costs(u(S));
  for (std::int64_t s = 0; s < S; ++s)
    costs[u(s)] = strandCost(static_cast<int>(scene.vertexOffset[u(s + 1)] - scene.vertexOffset[u(s)]));
  const auto ranges = partitionStrandsContiguous(costs, ctx.comm.size());
  const StrandRange mine = ranges[u(ctx.comm.rank())];
  {
    double load = 0.0, total = std::accumulate(costs.begin(), costs.end(), 0.0);
    for (std::int64_t s = mine.first; s < mine.first + mine.count; ++s) load += costs[u(s)];
    const double maxLoad = ctx.comm.max(load);
    imbalance_ = total > 0.0 ? maxLoad / (total / ctx.comm.size()) : 1.0;
  }
  if (S < ctx.comm.size())
    log::warn("der: ", S, " strands on ", ctx.comm.size(), " ranks: ", ctx.comm.size() - S, " ranks have nothing to do");

  if (source_ == "file") {
    raiseOnEveryRank(ctx.comm, [&] {
      local_ = readStrandSet(c.getString("der.strands.file"), ctx.comm, mine.first, mine.count);
    });
    loadedRest_ = ctx.comm.any(!local_.rest.empty());
    if (loadedRest_) scheme_ = "rest state and stiffness from " + c.getString("der.strands.file");
    if (loadedRest_) {
      if (optimize)
        throw InputError(str(c.where("der.optimize.enabled"), ": ", c.getString("der.strands.file"),
                             " already holds optimised rest states and stiffness; set der.optimize.enabled: false "
                             "to simulate them (optimising them again would start from the optimised values)"));
      const Material& m = local_.material;
      auto differs = [](double a, double b) { return std::abs(a - b) > 1e-12 * std::max(std::abs(a), std::abs(b)); };
      if (differs(m.radius, material_.radius) || differs(m.density, material_.density) ||
          (m.gravity - material_.gravity).norm() > 1e-12 * (1.0 + material_.gravity.norm()))
        throw InputError(str(c.where("der.material.radius"), ": ", c.getString("der.strands.file"),
                             " was optimised for radius ", m.radius, ", density ", m.density, ", gravity (",
                             m.gravity.transpose(), "), but the scene has radius ", material_.radius, ", density ",
                             material_.density, ", gravity (", material_.gravity.transpose(),
                             "); the optimised parameters hold only for the same values"));
    }
    local_.results.clear();
  } else {
    local_.totalStrands = S;
    local_.firstStrand = mine.first;
    local_.vertexOffset = scene.vertexOffset;
    local_.geometry = readRange(c, source_, scene, mine.first, mine.count, ctx.comm);
    scene.hair = HairLayout{};
  }
  local_.material = material_;
  inputTimer.reset();

  lengths_.clear();
  for (const auto& geom : local_.geometry) lengths_.push_back(strandLength(geom));

  optimizers_.clear();
  if (optimize) {
    optimizeSteps_ = optOptions_.kMax;
    strandsTotal_ = S;
    // One workspace for this rank's strands: an optimiser keeps only its strand's state (the
    // frames are initialFrames(q), recomputed with the workspace), so memory per strand is that
    // state (docs/modules/der.md, "Memory"). The per-iteration history is not kept either.
    // The optimisers are built lazily (at their first iteration, alm_optimizer.hpp), so the
    // scene-wide input error they would raise is checked here, on every rank: with no gravity the
    // external force, and the relative residual's denominator, is zero.
    if (!(material_.gravity.norm() > 0.0))
      throw InputError(str(c.where("der.material.gravity"), ": der.material.gravity is (", material_.gravity.transpose(), "): the optimisation "
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
    log::info("der: ", S, " strands (", scene.vertexOffset.back(), " vertices, ", unknowns,
              " parameters), scheme ", scheme_, ", preconditioner ", optOptions_.preconditioner, ", ",
              ctx.comm.size(), ctx.comm.size() == 1 ? " rank" : " ranks", " (load imbalance ", imbalance_, ")");
  } else {
    optimizeSteps_ = 0;
    optimizationDone_ = true;
    if (!loadedRest_) {
      local_.rest.clear();
      for (const auto& geom : local_.geometry) {
        const auto q = interleave(geom);
        local_.rest.push_back(restStateFrom(q, initialFrames(q), material_));
      }
    }
    log::info("der: ", S, " strands (", scene.vertexOffset.back(), " vertices), ",
              loadedRest_ ? "rest state and stiffness from " + c.getString("der.strands.file")
                          : std::string("naive initialisation (rest state = modelled shape)"));
    if (frames_ > 0) startSimulation();
  }
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

DerModule::Totals DerModule::localTotals() const {
  Totals t;
  if (!optimizers_.empty()) {
    for (const auto& opt : optimizers_) {
      if (!opt->done()) ++t.running;
      const double r = opt->stats().residual;  // = relativeResidual(), see finishOptimization
      t.residualMax = std::max(t.residualMax, r);
      if (r <= equilibriumTol_) ++t.inEquilibrium;
      t.newton += opt->stats().newtonIterations;
      t.mprgp += static_cast<double>(opt->stats().mprgpIterations);
      t.seconds += opt->stats().totalSeconds();
    }
  } else {
    for (const StrandResult& r : local_.results) {
      t.residualMax = std::max(t.residualMax, r.relativeResidual);
      if (r.relativeResidual <= equilibriumTol_) ++t.inEquilibrium;
      t.newton += r.newtonIterations;
      t.mprgp += r.mprgpIterations;
      t.seconds += r.seconds;
    }
  }
  return t;
}

void DerModule::addRow(run::RunContext& ctx, io::Diagnostics::Row& row) const {
  const Comm& comm = ctx.comm;
  // Optimisation columns (the state after the last optimisation step; zeros before).
  const Totals t = localTotals();
  const double newton = comm.sum(t.newton);
  const double mprgp = comm.sum(t.mprgp);
  row.emplace_back("phase", simulating() ? 1.0 : 0.0);
  row.emplace_back("alm_iteration", static_cast<double>(optimizeStep_));
  row.emplace_back("strands_running", static_cast<double>(comm.sum(t.running)));
  row.emplace_back("strands_in_equilibrium", static_cast<double>(comm.sum(t.inEquilibrium)));
  row.emplace_back("residual_max", comm.max(t.residualMax));
  row.emplace_back("newton_iterations", newton);
  row.emplace_back("mprgp_per_solve", newton > 0 ? mprgp / newton : 0.0);
  // Simulation columns.
  double drift = 0.0, energy = 0.0, residual = 0.0;
  for (std::size_t i = 0; i < sims_.size(); ++i) {
    const auto& q = sims_[i]->q();
    const auto& x0 = local_.geometry[i].x;
    for (std::size_t v = 0; v < x0.size(); ++v) {
      const Vec3 x(q[4 * v], q[4 * v + 1], q[4 * v + 2]);
      drift = std::max(drift, (x - x0[v]).norm() / lengths_[i]);
    }
    if (sims_[i]->steps() > 0) {
      energy += sims_[i]->lastStats().energy();
      residual = std::max(residual, sims_[i]->lastStats().residualNorm);
    }
  }
  row.emplace_back("frame", static_cast<double>(frame_));
  row.emplace_back("drift_max", comm.max(drift));
  row.emplace_back("energy", comm.sum(energy));
  row.emplace_back("newton_residual_max", comm.max(residual));
}

void DerModule::writeFrame(run::RunContext& ctx, io::FrameWriter& frames) {
  // Frames show the strands: at the end of the optimisation (time 0) and every simulated frame.
  if (!simulating() && !justOptimized_ && !(optimizationDone_ && frames.frames() == 0)) return;
  justOptimized_ = false;
  std::vector<double> pos, disp, bendRatio;
  std::vector<std::int64_t> strandId;  // an integer field in the XDMF (docs/output.md)
  std::vector<std::int64_t> sizes;
  for (std::size_t i = 0; i < local_.geometry.size(); ++i) {
    const int N = local_.geometry[i].vertices();
    sizes.push_back(N);
    const std::vector<double> q = sims_.empty() ? interleave(local_.geometry[i]) : sims_[i]->q();
    for (int v = 0; v < N; ++v) {
      for (int k = 0; k < 3; ++k) {
        pos.push_back(q[u(4 * v + k)]);
        disp.push_back(q[u(4 * v + k)] - local_.geometry[i].x[u(v)][k]);
      }
      strandId.push_back(local_.firstStrand + static_cast<std::int64_t>(i));
      double ratio = 1.0;
      if (!local_.rest.empty() && v > 0 && v < N - 1) ratio = restOf(i).cBend[u(v)] / material_.cBend;
      bendRatio.push_back(ratio);
    }
  }
  io::Polylines lines;
  lines.globalPoints = local_.vertexOffset.back();
  lines.pointOffset = local_.vertexOffset[u(local_.firstStrand)];
  lines.positions = pos;
  lines.globalLines = local_.totalStrands;
  lines.lineOffset = local_.firstStrand;
  lines.lineSizes = sizes;
  frames.beginFrame(time(), lines);
  frames.addField("displacement", disp, 3);
  frames.addField("strand", std::span<const std::int64_t>(strandId));
  frames.addField("bend_stiffness_ratio", bendRatio);
  frames.endFrame();
  (void)ctx;
}

// This rank's strands as in its frames (vertex positions, strand ids), with the vertex velocities
// once the forward simulation runs (zero before).
void DerModule::exportState(run::StateArrays& out) const {
  std::vector<double> pos, vel;
  std::vector<std::int64_t> strandId, sizes;
  for (std::size_t i = 0; i < local_.geometry.size(); ++i) {
    const int N = local_.geometry[i].vertices();
    sizes.push_back(N);
    const std::vector<double> q = sims_.empty() ? interleave(local_.geometry[i]) : sims_[i]->q();
    for (int v = 0; v < N; ++v) {
      for (int k = 0; k < 3; ++k) {
        pos.push_back(q[u(4 * v + k)]);
        vel.push_back(sims_.empty() ? 0.0 : sims_[i]->qdot()[u(4 * v + k)]);
      }
      strandId.push_back(local_.firstStrand + static_cast<std::int64_t>(i));
    }
  }
  out.add("positions", pos, 3);
  out.add("velocities", vel, 3);
  out.add("strand", std::span<const std::int64_t>(strandId));
  out.add("strand_vertices", std::span<const std::int64_t>(sizes));
  out.addScalar("simulating", simulating() ? 1.0 : 0.0);
}

// ---- checkpoints ----------------------------------------------------------------------------
// Per strand, one blob of doubles (optimiser state, or rest state + simulator state), stored as
// slabs in strand order with the blob lengths, so a restart may use another number of ranks.

namespace {

void put(std::vector<double>& b, double v) { b.push_back(v); }
void put(std::vector<double>& b, const std::vector<double>& v) {
  b.push_back(static_cast<double>(v.size()));
  b.insert(b.end(), v.begin(), v.end());
}

// Reads one strand's blob back, checking every value (docs/modules/der.md, "Checkpoints"): an
// array's stored length is the one the strand needs, counts are whole numbers, every value is
// finite; a problem is an InputError naming the checkpoint and the strand (`where`).
struct Reader {
  std::span<const double> b;
  std::string where;
  std::size_t at = 0;
  double get(const char* what) {
    if (at >= b.size())
      throw InputError(str(where, ": its blob (", b.size(), " values) ends before ", what));
    return b[at++];
  }
  double finite(const char* what) {
    const double v = get(what);
    if (!std::isfinite(v)) throw InputError(str(where, ": ", what, " is ", v));
    return v;
  }
  // A whole number in [0, max].
  double count(const char* what, double max) {
    const double v = get(what);
    if (!(v >= 0.0 && v <= max && v == std::floor(v)))
      throw InputError(str(where, ": ", what, " is ", v, ", not a whole number from 0 to ", max));
    return v;
  }
  bool flag(const char* what) { return count(what, 1.0) != 0.0; }
  // An array of exactly n finite values (its stored length first).
  std::vector<double> vec(const char* what, std::size_t n) {
    const double stored = get(what);
    if (stored != static_cast<double>(n))
      throw InputError(str(where, ": ", what, " has ", stored, " values, the strand needs ", n));
    if (b.size() - at < n) throw InputError(str(where, ": its blob (", b.size(), " values) ends inside ", what));
    std::vector<double> v(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
    for (std::size_t k = 0; k < n; ++k)
      if (!std::isfinite(v[k])) throw InputError(str(where, ": ", what, " has the non-finite value ", v[k], " at ", k));
    return v;
  }
  void end() {
    if (at != b.size())
      throw InputError(str(where, ": its blob holds ", b.size(), " values, ", b.size() - at, " more than its state"));
  }
};

const char* kReasons[] = {"", "step_small", "k_max", "line_search"};

std::vector<double> flatten(const std::vector<Vec3>& v) {
  std::vector<double> out;
  for (const auto& x : v) out.insert(out.end(), {x[0], x[1], x[2]});
  return out;
}
std::vector<Vec3> unflatten3(const std::vector<double>& v) {
  std::vector<Vec3> out;
  for (std::size_t i = 0; i + 2 < v.size(); i += 3) out.emplace_back(v[i], v[i + 1], v[i + 2]);
  return out;
}

void putRest(std::vector<double>& b, const RestState& r) {
  put(b, r.restLength);
  std::vector<double> k;
  for (const auto& x : r.restKappa) k.insert(k.end(), {x[0], x[1], x[2], x[3]});
  put(b, k);
  put(b, r.restTwist);
  put(b, r.cStretch);
  put(b, r.cBend);
  put(b, r.cTwist);
}
RestState getRest(Reader& rd, std::size_t N) {
  RestState r;
  r.restLength = rd.vec("the rest lengths", N - 1);
  for (std::size_t j = 0; j + 1 < N; ++j)
    if (!(r.restLength[j] > 0.0))
      throw InputError(str(rd.where, ": rest length ", j, " is ", r.restLength[j], " (must be positive)"));
  const auto k = rd.vec("the rest curvatures", 4 * N);
  for (std::size_t i = 0; i + 3 < k.size(); i += 4) r.restKappa.emplace_back(k[i], k[i + 1], k[i + 2], k[i + 3]);
  r.restTwist = rd.vec("the rest twists", N);
  r.cStretch = rd.vec("the stretching stiffnesses", N - 1);
  r.cBend = rd.vec("the bending stiffnesses", N);
  r.cTwist = rd.vec("the twisting stiffnesses", N);
  return r;
}

}  // namespace

void DerModule::saveCheckpoint(run::RunContext& ctx, io::CheckpointWriter& out) const {
  out.writeInt("der_strands", local_.totalStrands);
  out.writeInt("der_optimize_step", optimizeStep_);
  out.writeInt("der_optimization_done", optimizationDone_ ? 1 : 0);
  out.writeInt("der_frame", frame_);
  out.writeString("der_scheme", scheme_);
  // Strand i's blob into b (cleared first).
  auto blobOf = [&](std::size_t i, std::vector<double>& b) {
    b.clear();
    if (!optimizationDone_) {
      const AlmState s = optimizers_[i]->state();
      put(b, static_cast<double>(s.k));
      put(b, s.done ? 1.0 : 0.0);
      put(b, s.p);
      put(b, s.lambda);
      put(b, s.previousStep);
      const AlmStats& st = s.stats;
      for (double v : {static_cast<double>(st.newtonIterations), static_cast<double>(st.mprgpIterations),
                       static_cast<double>(st.factorizations), static_cast<double>(st.lineSearchHalvings),
                       st.assemblySeconds, st.factorSeconds, st.mprgpSeconds, st.lineSearchSeconds,
                       st.initialResidual, st.residual, stopReasonCode(st.stopReason)})
        put(b, v);
    } else {
      putRest(b, restOf(i));
      if (!local_.results.empty()) {
        const StrandResult& r = local_.results[i];
        for (double v : {1.0, r.relativeResidual, r.newtonIterations, r.mprgpIterationsPerSolve, r.stopReason,
                         r.mprgpIterations, r.seconds})
          put(b, v);
      } else {
        put(b, 0.0);
      }
      if (!sims_.empty()) {
        const StrandSimulator& sim = *sims_[i];
        put(b, 1.0);
        put(b, sim.q());
        put(b, sim.qdot());
        put(b, flatten(sim.frames().a1));
        put(b, flatten(sim.frames().tangent));
        put(b, sim.frames().refTwist);
        put(b, sim.time());
        put(b, static_cast<double>(sim.steps()));
      } else {
        put(b, 0.0);
      }
    }
  };
  // Blob lengths first; then the blobs written in slabs of at most kChunk doubles (plus one
  // strand), so the buffer is a bounded fixed cost rather than a second copy of every strand's
  // state at the run's memory peak (docs/modules/der.md, "Memory"). Every rank makes the same
  // number of (collective) slab writes, empty ones included.
  constexpr std::size_t kChunk = std::size_t{1} << 18;
  std::vector<double> b, lengths;
  std::size_t totalLocal = 0, chunks = 0, inChunk = 0, largest = 0;
  for (std::size_t i = 0; i < local_.geometry.size(); ++i) {
    blobOf(i, b);
    lengths.push_back(static_cast<double>(b.size()));
    largest = std::max(largest, b.size());
    totalLocal += b.size();
    if (inChunk == 0) ++chunks;
    inChunk += b.size();
    if (inChunk >= kChunk) inChunk = 0;
  }
  const std::int64_t total = ctx.comm.sum(static_cast<std::int64_t>(totalLocal));
  std::uint64_t offset = static_cast<std::uint64_t>(ctx.comm.exscan(static_cast<std::int64_t>(totalLocal)));
  const std::int64_t rounds = ctx.comm.max(static_cast<std::int64_t>(chunks));
  auto& f = out.file();
  f.writeSlab("/der/blob_length", {static_cast<std::uint64_t>(local_.totalStrands)},
              static_cast<std::uint64_t>(local_.firstStrand), lengths);
  std::vector<double> blobs;
  blobs.reserve(std::min(totalLocal, kChunk + largest));
  std::size_t next = 0;
  for (std::int64_t r = 0; r < rounds; ++r) {
    blobs.clear();
    while (next < local_.geometry.size() && blobs.size() < kChunk) {
      blobOf(next++, b);
      blobs.insert(blobs.end(), b.begin(), b.end());
    }
    f.writeSlab("/der/blob", {static_cast<std::uint64_t>(total)}, offset, blobs);
    offset += blobs.size();
  }
}

// Every value read back is checked before any is used (docs/modules/der.md, "Checkpoints"): the
// counts against the scene, the blob lengths (whole, non-negative, adding up to /der/blob), and
// each strand's blob against its strand (array lengths, flags, finite values). A problem on one
// rank is raised on every rank (raiseOnEveryRank), with the same message, and every rank reaches
// the same collectives before it can throw, so none waits for ever.
void DerModule::loadCheckpoint(run::RunContext& ctx, const io::CheckpointReader& in) {
  const std::string where = in.path();
  const Comm& comm = ctx.comm;
  if (in.readInt("der_strands") != local_.totalStrands)
    throw InputError(str(where, ": checkpoint of ", in.readInt("der_strands"), " strands, but the scene has ",
                         local_.totalStrands));
  if (in.readString("der_scheme") != scheme_)
    throw InputError(str(where, ": checkpoint of scheme ", in.readString("der_scheme"), ", but the scene has ", scheme_));
  const std::int64_t step = in.readInt("der_optimize_step"), doneFlag = in.readInt("der_optimization_done"),
                     frame = in.readInt("der_frame");
  if (step < 0 || (doneFlag == 0 && step > optimizeSteps_))
    throw InputError(str(where, ": der_optimize_step is ", step, "; the optimisation has 0 to ", optimizeSteps_, " steps"));
  if (doneFlag != 0 && doneFlag != 1)
    throw InputError(str(where, ": der_optimization_done is ", doneFlag, " (0 or 1)"));
  if (frame < 0 || (doneFlag == 0 && frame != 0))
    throw InputError(str(where, ": der_frame is ", frame, (doneFlag == 0 ? " before the optimisation has ended" : "")));
  const bool done = doneFlag != 0;
  if (!done && optimizers_.size() != local_.geometry.size())
    throw InputError(str(where, ": a checkpoint taken while optimising, but this scene does not optimise"));

  // Blob lengths: this rank's strands only (a slab), checked, offsets by a prefix sum.
  const auto& f = in.file();
  for (const char* name : {"/der/blob_length", "/der/blob"})
    if (!f.exists(name)) throw InputError(str(where, ": dataset ", name, " is missing"));
  const io::Shape lengthShape = f.shape("/der/blob_length"), blobShape = f.shape("/der/blob");
  if (lengthShape.size() != 1 || lengthShape[0] != static_cast<std::uint64_t>(local_.totalStrands))
    throw InputError(str(where, ": /der/blob_length has ", lengthShape.empty() ? 0 : lengthShape[0],
                         " entries, one per strand of the scene's ", local_.totalStrands, " expected"));
  if (blobShape.size() != 1) throw InputError(str(where, ": /der/blob is not a list of values"));
  const std::uint64_t blobSize = blobShape[0];
  const std::size_t mine = local_.geometry.size();
  const std::vector<double> lengths =
      f.readSlab("/der/blob_length", static_cast<std::uint64_t>(local_.firstStrand), mine);
  std::uint64_t rows = 0;
  raiseOnEveryRank(comm, [&] {
    for (std::size_t i = 0; i < mine; ++i) {
      const double n = lengths[i];
      if (!(n >= 0.0 && n <= static_cast<double>(blobSize) && n == std::floor(n)))
        throw InputError(str(where, ": strand ", local_.firstStrand + static_cast<std::int64_t>(i),
                             ": /der/blob_length is ", n, ", not a whole number from 0 to the ", blobSize,
                             " values of /der/blob"));
      rows += static_cast<std::uint64_t>(n);
      if (rows > blobSize)
        throw InputError(str(where, ": strand ", local_.firstStrand + static_cast<std::int64_t>(i),
                             ": the blob lengths up to this strand add up to more than the ", blobSize,
                             " values of /der/blob"));
    }
  });
  const auto offset = static_cast<std::uint64_t>(comm.exscan(static_cast<std::int64_t>(rows)));
  const auto total = static_cast<std::uint64_t>(comm.sum(static_cast<std::int64_t>(rows)));
  raiseOnEveryRank(comm, [&] {
    if (mine > 0 && offset + rows > blobSize)
      throw InputError(str(where, ": strand ", local_.firstStrand, ": its blob starts at value ", offset,
                           " and the blobs of its rank's strands run past the ", blobSize, " values of /der/blob"));
  });
  if (total != blobSize)
    throw InputError(str(where, ": strand ", local_.totalStrands - 1, ", the last, ends its blob at value ", total,
                         " of the ", blobSize, " in /der/blob: the lengths in /der/blob_length do not add up to it"));
  const std::vector<double> all = f.readSlab("/der/blob", offset, rows);

  // Parse and check every strand's blob into local storage; nothing of the module changes yet.
  std::vector<AlmState> states;
  std::vector<RestState> rests;
  std::vector<StrandResult> results;
  struct SimState {
    std::vector<double> q, qdot;
    ReferenceFrames frames;
    double time = 0.0;
    long steps = 0;
  };
  std::vector<SimState> simStates;
  // Per rank: 1 if its strands carry results / simulator states, 0 if not, -1 without strands.
  int hasResults = -1, hasSims = -1;
  raiseOnEveryRank(comm, [&] {
    std::size_t at = 0;
    for (std::size_t i = 0; i < mine; ++i) {
      const auto n = static_cast<std::size_t>(lengths[i]);
      const std::int64_t s = local_.firstStrand + static_cast<std::int64_t>(i);
      Reader rd{std::span<const double>(all).subspan(at, n), str(where, ": strand ", s)};
      at += n;
      const auto N = static_cast<std::size_t>(local_.geometry[i].vertices());
      const auto np = static_cast<std::size_t>(parameterCount(static_cast<int>(N)));
      const auto nc = static_cast<std::size_t>(constraintCount(static_cast<int>(N)));
      constexpr double kMaxCount = 9007199254740992.0;  // 2^53: every whole double below is exact
      if (!done) {
        AlmState st;
        st.k = static_cast<int>(rd.count("the ALM iteration k", static_cast<double>(optimizeSteps_)));
        st.done = rd.flag("the done flag");
        st.p = rd.vec("the parameters p", np);
        st.lambda = rd.vec("the multipliers lambda", nc);
        st.previousStep = rd.vec("the previous step", np);
        st.stats = AlmStats{};  // what a fresh optimiser has (without building its workspace)
        st.stats.newtonIterations = static_cast<int>(rd.count("the Newton iterations", 2147483647.0));
        st.stats.mprgpIterations = static_cast<long>(rd.count("the MPRGP iterations", kMaxCount));
        st.stats.factorizations = static_cast<long>(rd.count("the factorisations", kMaxCount));
        st.stats.lineSearchHalvings = static_cast<long>(rd.count("the line-search halvings", kMaxCount));
        st.stats.assemblySeconds = rd.finite("the assembly time");
        st.stats.factorSeconds = rd.finite("the factorisation time");
        st.stats.mprgpSeconds = rd.finite("the MPRGP time");
        st.stats.lineSearchSeconds = rd.finite("the line-search time");
        st.stats.initialResidual = rd.finite("the initial residual");
        st.stats.residual = rd.finite("the residual");
        st.stats.stopReason = kReasons[static_cast<int>(rd.count("the stop reason", 3.0))];
        st.stats.history.clear();
        rd.end();
        states.push_back(std::move(st));
        continue;
      }
      rests.push_back(getRest(rd, N));
      const int withResults = rd.flag("the results flag") ? 1 : 0;
      if (hasResults >= 0 && withResults != hasResults)
        throw InputError(str(rd.where, ": it ", withResults ? "has" : "lacks", " optimisation results, strand ",
                             local_.firstStrand, " ", hasResults ? "has" : "lacks", " them"));
      hasResults = withResults;
      if (withResults) {
        StrandResult r;
        r.relativeResidual = rd.finite("the relative residual");
        r.newtonIterations = rd.count("the Newton iterations", kMaxCount);
        r.mprgpIterationsPerSolve = rd.finite("the MPRGP iterations per solve");
        r.stopReason = rd.count("the stop reason", 3.0);
        r.mprgpIterations = rd.count("the MPRGP iterations", kMaxCount);
        r.seconds = rd.finite("the optimisation time");
        results.push_back(r);
      }
      const int withSim = rd.flag("the simulation flag") ? 1 : 0;
      if (hasSims >= 0 && withSim != hasSims)
        throw InputError(str(rd.where, ": it ", withSim ? "has" : "lacks", " a simulation state, strand ",
                             local_.firstStrand, " ", hasSims ? "has" : "lacks", " one"));
      hasSims = withSim;
      if (withSim) {
        SimState sim;
        sim.q = rd.vec("the configuration q", 4 * N - 1);
        sim.qdot = rd.vec("the velocity", 4 * N - 1);
        sim.frames.a1 = unflatten3(rd.vec("the reference directors a1", 3 * (N - 1)));
        sim.frames.tangent = unflatten3(rd.vec("the reference tangents", 3 * (N - 1)));
        sim.frames.refTwist = rd.vec("the reference twists", N);
        sim.time = rd.finite("the simulated time");
        sim.steps = static_cast<long>(rd.count("the simulated steps", kMaxCount));
        simStates.push_back(std::move(sim));
      }
      rd.end();
    }
  });
  // The same flags on every rank with strands (a rank whose strands disagree names its first).
  if (done) {
    const std::int64_t results1 = comm.max(static_cast<std::int64_t>(hasResults));
    const std::int64_t sims1 = comm.max(static_cast<std::int64_t>(hasSims));
    raiseOnEveryRank(comm, [&] {
      if (hasResults >= 0 && hasResults != results1)
        throw InputError(str(where, ": strand ", local_.firstStrand, ": ", hasResults ? "has" : "lacks",
                             " optimisation results, other strands ", results1 ? "have" : "lack", " them"));
      if (hasSims >= 0 && hasSims != sims1)
        throw InputError(str(where, ": strand ", local_.firstStrand, ": ", hasSims ? "has" : "lacks",
                             " a simulation state, other strands ", sims1 ? "have" : "lack", " one"));
    });
  }

  // Everything checked: the module takes the state over.
  optimizeStep_ = step;
  frame_ = frame;
  if (!done) {
    for (std::size_t i = 0; i < mine; ++i) optimizers_[i]->restore(states[i]);
    return;
  }
  optimizationDone_ = true;
  local_.rest = std::move(rests);
  local_.results = std::move(results);
  optimizers_.clear();
  if (frames_ > 0) {
    startSimulation();
    for (std::size_t i = 0; i < simStates.size(); ++i) {
      SimState& sim = simStates[i];
      sims_[i]->restoreState(std::move(sim.q), std::move(sim.qdot), std::move(sim.frames), sim.time, sim.steps);
    }
  }
}

std::string DerModule::summary() const {
  // Collective (every rank's runner calls it).
  std::ostringstream os;
  os << "der: " << local_.totalStrands << " strands, " << scheme_;
  if (comm_.any(!local_.results.empty() || !optimizers_.empty())) {
    const Totals t = localTotals();
    const std::int64_t eq = comm_.sum(t.inEquilibrium);
    const double newton = comm_.sum(t.newton);
    const double mprgp = comm_.sum(t.mprgp);
    const double residualMax = comm_.max(t.residualMax);
    const double seconds = t.seconds;
    const double S = static_cast<double>(local_.totalStrands);
    os << ": " << eq << " of " << local_.totalStrands << " strands in equilibrium (relative residual <= "
       << equilibriumTol_ << "), max relative residual " << residualMax << ", " << newton / S
       << " Newton iterations per strand, " << (newton > 0 ? mprgp / newton : 0.0) << " MPRGP iterations per solve, "
       << comm_.max(seconds) << " s of optimisation on the busiest rank";
    if (!strandFile_.empty()) os << "; optimised strands in " << strandFile_;
  }
  if (frames_ > 0) {
    double drift = 0.0;
    for (std::size_t i = 0; i < sims_.size(); ++i) {
      const auto& q = sims_[i]->q();
      const auto& x0 = local_.geometry[i].x;
      for (std::size_t v = 0; v < x0.size(); ++v)
        drift = std::max(drift, (Vec3(q[4 * v], q[4 * v + 1], q[4 * v + 2]) - x0[v]).norm() / lengths_[i]);
    }
    os << "\nder: " << frame_ << " frames simulated; largest vertex distance from the modelled shape "
       << comm_.max(drift) << " strand lengths";
  }
  return os.str();
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
}
}  // namespace kinema
