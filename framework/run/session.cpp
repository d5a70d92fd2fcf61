#include "framework/run/session.hpp"

#include <filesystem>
#include <new>

#include "framework/core/log.hpp"
#include "framework/core/timer.hpp"
#include "framework/run/limits.hpp"
#include "framework/run/restart_guard.hpp"

namespace fs = std::filesystem;

namespace kinema::run {

namespace {

bool due(long step, long total, long every) {
  if (step == total) return true;
  return every > 0 && step % every == 0;
}

}  // namespace

Session::Session(const SceneOptions& options, bool catchSignals) : comm_(Comm::world()), options_(options) {
  config_.emplace(loadScene(options_, schema_));
  start(catchSignals);
}

Session::Session(const SceneOptions& options, const std::string& sceneText, const std::string& sourceName,
                 bool catchSignals)
    : comm_(Comm::world()), options_(options) {
  options_.path = sourceName;
  // run.plugin_path of a scene given as text is relative to the working directory: there is no file.
  config_.emplace(loadScene(Config::fromString(sceneText, sourceName), options_, schema_, ""));
  start(catchSignals);
}

Session::Session(const SceneOptions& options, CheckOnly) : comm_(Comm::world()), options_(options), checkOnly_(true) {
  config_.emplace(loadScene(options_, schema_));
  start(false);
}

Session::Checked Session::check(const SceneOptions& options) {
  // The result is text: a Config points into the schema the session owns.
  Session s(options, CheckOnly{});
  return {s.config_->resolvedYaml(), s.params_.module, s.config_->source(), s.result_.outputDir};
}

// Everything up to the module's setup and restore may reject the input without writing a file
// (check() stops there); then the output directory and its files are opened.
void Session::start(bool catchSignals) {
  const Config& config = *config_;
  params_ = readFrameworkParams(config);
  log::setLevel(log::parseLevel(params_.run.logLevel));
  log::setAllRanks(params_.run.logAllRanks);

  restartAllowList(config, schema_);  // a bad run.restart_allow entry is an error in any run, not only a restart
  backend_ = la::createBackend(config);
  module_ = modules().get(params_.module).make();
  // What the scene needs, from its parameters, against run.max_memory and run.max_wall: refused
  // here, before the module allocates anything and before any file is written.
  checkLimits(params_.module, estimateFor(params_.module, config, comm_.size()), readLimits(config, comm_), config,
              comm_.size());
  std::optional<io::CheckpointReader> in;
  openRestart(config, in);

  result_.outputDir = outputDirectoryFor(config);
  ctx_ = std::make_unique<RunContext>(RunContext{config, *backend_, comm_, result_.outputDir});

  log::info("kinema: module ", params_.module, " on backend ", backend_->name(), ", ", comm_.size(),
            comm_.size() == 1 ? " rank" : " ranks", ", scene ", config.source());
  {
    ScopedTimer t("setup");
    module_->setup(*ctx_);  // may still reject the scene (InputError): nothing is written yet
  }
  const Kept kept = restoreModule(in);

  // From here on SIGINT, SIGTERM and SIGUSR1 stop the run at the next step boundary (with a
  // checkpoint and a restart command) instead of killing it; before, nothing has been written.
  // The barrier: rank 0 writes status.yaml (the sign to a user or batch system that the run is
  // under way) only once every rank has its handlers, so a signal sent to any rank after that
  // stops the run; without it a rank still in its set-up died of the signal.
  if (catchSignals) {
    this->catchSignals(true);
    comm_.barrier();
  }
  if (checkOnly_) {
    checkOutputDirectory();
    return;
  }
  openOutput(kept);
}

// check(): what OutputDir would refuse (rank 0 decides, as there).
void Session::checkOutputDirectory() const {
  std::string problem;
  if (comm_.isRoot()) {
    std::error_code ec;
    const bool inPlace = restart_ && fs::equivalent(runDirectoryOf(restartPath_), result_.outputDir, ec);
    problem = OutputDir::problemWith(result_.outputDir, params_.output.overwrite, inPlace);
  }
  problem = comm_.broadcast(problem);
  if (!problem.empty()) throw InputError(problem);
}

// The output directory, status.yaml, the frame and diagnostics files, and the run's settings for
// the step loop.
void Session::openOutput(const Kept& kept) {
  const Config& config = *config_;
  const RestartSource source = restartSource();
  out_ = std::make_unique<OutputDir>(result_.outputDir, comm_, params_.output.overwrite, source.inPlace);
  continueEarlierOutput(source);
  out_->writeText("config.resolved.yaml", config.resolvedYaml());

  total_ = module_->totalSteps();
  fingerprint_ = fingerprintText(resolvedValues(config, schema_));
  writeStartStatus(source);

  openFrames(kept.frames);
  diagnostics_ = std::make_unique<io::Diagnostics>(out_->file("diagnostics.csv"), comm_, restart_, kept.rows);
  countEarlierCheckpoints();
  const RunParams& run = params_.run;
  frameEvery_ = params_.output.frameEvery;
  keep_ = run.checkpointKeep;
  failAt_ = run.failAtStep;
  failOutOfMemory_ = run.failKind == "out_of_memory";
  schedule_ = std::make_unique<CheckpointSchedule>(run.checkpointEvery, run.checkpointWall, wallTime());
  step_ = startStep_;
  progress_ = std::make_unique<Progress>(total_, run.progressSeconds);
  progress_->startAt(startStep_);  // after a restart: this segment's rate, the steps really left
}

Session::~Session() {
  // A session dropped without close() (an exception in the caller) still closes its files; it
  // must not throw from here.
  try {
    if (!finished_ && out_ && frames_ && diagnostics_) finish();
  } catch (...) {
  }
}

void Session::catchSignals(bool on) {
  if (on && !signals_) signals_.emplace();
  if (!on) signals_.reset();
}

bool Session::done() const { return step_ >= total_ || module_->finished(); }

void Session::step() {
  KINEMA_CHECK(!finished_, "Session::step after the run ended");
  if (done()) return;
  try {
    ++step_;
    if (step_ == failAt_) {
      if (failOutOfMemory_) throw std::bad_alloc();
      throw Error(str("run.fail_at_step = ", failAt_, ": rehearsed failure")).onEveryRank();
    }
    double t0 = wallTime();
    io::Diagnostics::Row row;
    row.emplace_back("step", static_cast<double>(step_));
    row.emplace_back("time", 0.0);
    {
      ScopedTimer t("step");
      module_->step(*ctx_, row);
    }
    row[1].second = module_->time();
    row.emplace_back("wall_seconds", comm_.max(wallTime() - t0));
    diagnostics_->addRow(row);
    const bool last = done();
    if (last || due(step_, total_, frameEvery_)) {
      ScopedTimer t("output");
      module_->writeFrame(*ctx_, *frames_);
    }
    // One allreduce per step: every rank learns whether any rank was signalled, and the
    // wall-time schedule is rank 0's, so all ranks stop and checkpoint after the same step.
    const double now = wallTime();
    const std::int64_t local = static_cast<std::int64_t>(StopSignals::received()) * 2 +
                               (comm_.isRoot() && schedule_->due(step_, now) ? 1 : 0);
    const std::int64_t agreed = comm_.max(local);
    stopSignal_ = static_cast<int>(agreed / 2);
    const bool stop = stopSignal_ != 0 && !last;
    if (last || stop || agreed % 2 == 1) writeCheckpoint();
    progress_->update(step_, module_->time(), module_->progressHint());
  } catch (Error& e) {
    fail(e);
    throw;
  } catch (const std::bad_alloc&) {
    // Any failure mid-run leaves status.yaml failed with the step and the restart command.
    Error e("out of memory (std::bad_alloc): the step needs more memory than this rank could get; run on more "
            "ranks or nodes, or a smaller scene");
    fail(e);
    throw e;
  } catch (const std::exception& x) {
    Error e(str("unexpected error: ", x.what()));
    fail(e);
    throw e;
  }
}

void Session::close() {
  if (closed_) return;
  closed_ = true;
  try {
    finish();
  } catch (...) {
    frames_.reset();
    diagnostics_.reset();
    comm_.barrier();
    throw;
  }
  frames_.reset();
  diagnostics_.reset();
  comm_.barrier();
}

std::string Session::framesPath() const { return frames_ ? frames_->h5Path() : out_->file("frames.h5"); }

long Session::frames() const { return frames_ ? frames_->frames() : 0; }

void Session::flushFrames() {
  if (frames_) frames_->file().flush();
}

}  // namespace kinema::run
