#include "framework/run/session.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <new>

#include <unistd.h>

#include "framework/core/log.hpp"
#include "framework/core/timer.hpp"
#include "framework/run/limits.hpp"
#include "framework/run/restart_guard.hpp"

namespace fs = std::filesystem;

namespace kinema::run {

namespace {

std::string checkpointName(long step) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "checkpoint_%06ld.h5", step);
  return buf;
}

bool due(long step, long total, long every) {
  if (step == total) return true;
  return every > 0 && step % every == 0;
}

// The checkpoints checkpoint_NNNNNN.h5 of `dir` before step `before`, by step.
// The run directory a checkpoint belongs to: the parent of its checkpoints/ folder, or the folder
// that holds it when it was copied somewhere else.
std::string runDirectoryOf(const std::string& checkpoint) {
  fs::path dir = fs::absolute(checkpoint).parent_path();
  if (dir.filename() == "checkpoints") dir = dir.parent_path();
  return dir.lexically_normal().string();
}

// A restart into a new output directory starts from a copy of the earlier run's frames.h5 and
// diagnostics.csv (the frames and rows after the checkpoint are dropped when they are opened), so
// the new directory holds the whole run (docs/user-guide.md, "Stopping and restarting"). Rank 0
// copies; what is missing is not copied.
void copyEarlierOutput(const std::string& from, const OutputDir& to, const Comm& comm) {
  std::string problem;
  if (comm.isRoot()) {
    for (const char* name : {"frames.h5", "diagnostics.csv"}) {
      std::error_code ec;
      const fs::path src = fs::path(from) / name;
      if (!fs::is_regular_file(src, ec)) continue;
      fs::copy_file(src, to.file(name), fs::copy_options::overwrite_existing, ec);
      if (ec) {
        problem = str("cannot copy ", src.string(), " to ", to.file(name), ": ", ec.message());
        break;
      }
    }
  }
  problem = comm.broadcast(problem);
  if (!problem.empty()) throw Error(problem);
}

std::vector<std::string> earlierCheckpoints(const std::string& dir, long before) {
  std::vector<std::pair<long, std::string>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    long step = -1;
    char tail[8] = {0};
    if (std::sscanf(name.c_str(), "checkpoint_%ld.%3s", &step, tail) == 2 && std::string(tail) == "h5" &&
        name == checkpointName(step) && step < before)
      found.emplace_back(step, entry.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (auto& f : found) paths.push_back(f.second);
  return paths;
}

// `--restart latest`: the newest checkpoint of the output directory, chosen on rank 0.
std::string resolveLatest(const Config& config, const Comm& comm) {
  const std::string dir = outputDirectoryFor(config);
  std::string path = comm.isRoot() ? latestCheckpoint(dir) : "";
  path = comm.broadcast(path);
  if (path.empty())
    throw InputError(config.where("run.restart") + ": run.restart: latest: no checkpoint in " + dir +
                     "/checkpoints (is --output the directory of the run to continue?)");
  return path;
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
  return {s.config_->resolvedYaml(), s.moduleName_, s.config_->source(), s.result_.outputDir};
}

void Session::start(bool catchSignals) {
  const Config& config = *config_;
  log::setLevel(log::parseLevel(config.getString("run.log_level")));
  log::setAllRanks(config.getBool("run.log_all_ranks"));

  moduleName_ = config.getString("module");
  restartAllowList(config, schema_);  // a bad run.restart_allow entry is an error in any run, not only a restart
  backend_ = la::createBackend(config);
  module_ = modules().get(moduleName_).make();
  // What the scene needs, from its parameters, against run.max_memory and run.max_wall: refused
  // here, before the module allocates anything and before any file is written.
  checkLimits(moduleName_, estimateFor(moduleName_, config, comm_.size()), readLimits(config, comm_), config,
              comm_.size());

  restartPath_ = config.getString("run.restart");
  if (restartPath_ == "latest") restartPath_ = resolveLatest(config, comm_);
  restart_ = !restartPath_.empty();
  if (restart_ && !fs::exists(restartPath_))
    throw InputError(config.where("run.restart") + ": run.restart: no such checkpoint file '" + restartPath_ +
                     "'");
  if (restart_ && fs::is_directory(restartPath_)) {
    // Checked here: HDF5 (through MPI-IO) would print a page of read errors before failing.
    const fs::path dir(restartPath_);
    const std::string newest = latestCheckpoint(dir.filename() == "checkpoints" ? dir.parent_path().string() : restartPath_);
    throw InputError(config.where("run.restart") + ": run.restart: '" + restartPath_ +
                     "' is a directory, not a checkpoint file; " +
                     (newest.empty() ? std::string("give a checkpoint file, e.g. OUT/checkpoints/checkpoint_000010.h5")
                                     : "its newest checkpoint is " + newest) +
                     ", or use --restart latest with --output set to the run's directory");
  }

  // The checkpoint is opened (its checksums verified) and its fingerprint compared with the scene
  // before the module's setup, so a corrupted or mismatched checkpoint costs nothing.
  std::optional<io::CheckpointReader> in;
  if (restart_) {
    in.emplace(restartPath_, comm_);
    std::string stored = in->readString("runner_module");
    if (stored != moduleName_)
      throw InputError(restartPath_ + ": a checkpoint of module '" + stored + "', not '" + moduleName_ + "'");
    checkFingerprint(*in, config, schema_);
    startStep_ = in->readInt("runner_step");
  }

  result_.outputDir = outputDirectoryFor(config);
  ctx_ = std::make_unique<RunContext>(RunContext{config, *backend_, comm_, result_.outputDir});

  log::info("kinema: module ", moduleName_, " on backend ", backend_->name(), ", ", comm_.size(),
            comm_.size() == 1 ? " rank" : " ranks", ", scene ", config.source());
  {
    ScopedTimer t("setup");
    module_->setup(*ctx_);  // may still reject the scene (InputError): nothing is written yet
  }

  long keepFrames = -1, keepRows = -1;
  if (restart_) {
    if (startStep_ >= module_->totalSteps())
      throw InputError(str("run.restart: checkpoint ", restartPath_, " is after step ", startStep_,
                           ", and this scene ends at step ", module_->totalSteps(),
                           ": nothing left to run; raise the step count or end time to continue the run "
                           "(they may change on restart)"));
    keepFrames = in->readInt("runner_frames");
    keepRows = in->readInt("runner_rows");
    module_->loadCheckpoint(*ctx_, *in);
    in.reset();
    log::info("restarting from ", restartPath_, " after step ", startStep_);
  }

  // From here on SIGINT, SIGTERM and SIGUSR1 stop the run at the next step boundary (with a
  // checkpoint and a restart command) instead of killing it; before, nothing has been written.
  if (catchSignals) this->catchSignals(true);
  if (checkOnly_) {
    // What OutputDir would refuse (rank 0 decides, as there).
    std::string problem;
    if (comm_.isRoot()) {
      std::error_code ec;
      const bool inPlace = restart_ && fs::equivalent(runDirectoryOf(restartPath_), result_.outputDir, ec);
      problem = OutputDir::problemWith(result_.outputDir, config.getBool("output.overwrite"), inPlace);
    }
    problem = comm_.broadcast(problem);
    if (!problem.empty()) throw InputError(problem);
    return;
  }

  // A restart continues in the checkpoint's run directory, or in a new one that starts from a copy
  // of that run's frames and diagnostics (rank 0 decides: every rank takes the same path).
  std::string sourceDir;
  bool inPlace = false;
  if (restart_) {
    sourceDir = runDirectoryOf(restartPath_);
    std::error_code ec;
    inPlace = comm_.broadcast(fs::equivalent(sourceDir, result_.outputDir, ec) ? "1" : "0") == "1";
  }
  out_ = std::make_unique<OutputDir>(result_.outputDir, comm_, config.getBool("output.overwrite"), inPlace);
  if (restart_ && !inPlace) {
    copyEarlierOutput(sourceDir, *out_, comm_);
    log::info("restart into ", out_->path(), ": frames and diagnostics up to step ", startStep_, " copied from ",
              sourceDir);
  }
  out_->writeText("config.resolved.yaml", config.resolvedYaml());

  total_ = module_->totalSteps();
  fingerprint_ = fingerprintText(resolvedValues(config, schema_));
  status_ = {{"state", "running"},
             {"module", moduleName_},
             {"backend", backend_->name()},
             {"scene", config.source()},
             {"ranks", std::to_string(comm_.size())},
             {"total_steps", std::to_string(total_)},
             {"pid", std::to_string(::getpid())}};
  if (restart_) status_["restarted_from"] = restartPath_;
  if (restart_ && !inPlace) status_["continues"] = sourceDir;
  out_->writeStatus(status_);

  openFrames(keepFrames);
  diagnostics_ = std::make_unique<io::Diagnostics>(out_->file("diagnostics.csv"), comm_, restart_, keepRows);
  // On a restart, the earlier segments' checkpoints before the restart step count too (issue 22).
  if (restart_) {
    checkpoints_ = comm_.isRoot() ? earlierCheckpoints(out_->checkpointDir(), startStep_) : std::vector<std::string>{};
    std::error_code ec;
    restartInDir_ = fs::equivalent(fs::path(restartPath_).parent_path(), out_->checkpointDir(), ec);
    checkpoints_.push_back(restartPath_);
  }
  frameEvery_ = config.getInt("output.frame_every");
  keep_ = config.getInt("run.checkpoint_keep");
  failAt_ = config.getInt("run.fail_at_step");
  failOutOfMemory_ = config.getString("run.fail_kind") == "out_of_memory";
  schedule_ = std::make_unique<CheckpointSchedule>(config.getInt("run.checkpoint_every"),
                                                   config.getReal("run.checkpoint_wall"), wallTime());
  step_ = startStep_;
  progress_ = std::make_unique<Progress>(total_, config.getReal("run.progress_seconds"));
  progress_->startAt(startStep_);  // after a restart: this segment's rate, the steps really left
}

void Session::openFrames(long keepFrames) {
  const std::string h5 = out_->file("frames.h5");
  const bool have = restart_ && comm_.broadcast(fs::exists(h5) ? "1" : "0") == "1";
  if (restart_ && !have)
    log::warn("restart: ", h5, " is not there (deleted, or the earlier run wrote none): the frames start again ",
              "from the checkpoint's step ", startStep_);
  if (have) {
    try {
      frames_ = std::make_unique<io::FrameWriter>(out_->path(), "frames", comm_, true, keepFrames);
      return;
    } catch (const Error& e) {
      // A truncated or damaged file must not make a good checkpoint unusable: it is kept aside
      // under another name and the frames start again from the checkpoint.
      const std::string aside = str(h5, ".damaged-", startStep_);
      if (comm_.isRoot()) {
        std::error_code ec;
        fs::rename(h5, aside, ec);
      }
      comm_.barrier();
      log::warn("restart: ", h5, " cannot be continued (", e.message(), "); kept as ", aside,
                "; the frames start again from the checkpoint's step ", startStep_);
    }
  }
  frames_ = std::make_unique<io::FrameWriter>(out_->path(), "frames", comm_, false, -1);
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

void Session::fail(Error& e) {
  std::string last = checkpoints_.empty() ? "" : checkpoints_.back();
  const std::string command = restartCommand(options_, *config_, result_.outputDir, last, comm_.size());
  std::string hint = last.empty() ? "no checkpoint was written; run again from the start with: " + command
                                  : "restart from the last checkpoint with: " + command;
  e.addContext(str("the run stopped during step ", step_, " of ", total_, "; the output so far (",
                   frames_->frames(), " frames, ", diagnostics_->rows().size(), " diagnostics rows) is in ",
                   out_->path()));
  e.addContext(hint);
  status_["state"] = "failed";
  status_["failed_step"] = std::to_string(step_);
  status_["message"] = e.message();
  status_["last_checkpoint"] = last;
  status_["restart"] = command;
  out_->writeStatus(status_);
  finished_ = true;  // nothing more to write: status.yaml says failed
}

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

void Session::writeCheckpoint() {
  ScopedTimer t("checkpoint");
  const double started = wallTime();
  module_->prepareCheckpoint(*ctx_);
  diagnostics_->writeTo(frames_->file(), "/diagnostics");
  // frames.h5 is consistent on disk before the checkpoint starts: a run killed while it writes
  // the checkpoint leaves every frame and the diagnostics readable (docs/reliability.md, "Kill tests").
  frames_->file().flush();
  std::string path = out_->checkpointDir() + "/" + checkpointName(step_);
  io::CheckpointWriter cp(path, comm_);
  cp.writeString("runner_module", moduleName_);
  cp.writeInt("runner_step", step_);
  cp.writeReal("runner_time", module_->time());
  cp.writeInt("runner_frames", frames_->frames());
  cp.writeInt("runner_rows", static_cast<std::int64_t>(diagnostics_->rows().size()));
  cp.writeString("runner_config", config_->resolvedYaml());
  cp.writeString(kFingerprintName, fingerprint_);
  module_->saveCheckpoint(*ctx_, cp);
  cp.commit();
  checkpoints_.push_back(path);
  result_.lastCheckpoint = path;
  while (static_cast<long>(checkpoints_.size()) > keep_) {
    // A checkpoint outside this run's directory (the user's copy) is never removed.
    if (comm_.isRoot() && (restartInDir_ || checkpoints_.front() != restartPath_)) {
      std::error_code ec;
      fs::remove(checkpoints_.front(), ec);
    }
    checkpoints_.erase(checkpoints_.begin());
  }
  schedule_->written(started, wallTime());  // rank 0's clock decides
  status_["last_checkpoint"] = path;  // a run killed outright still names its last checkpoint
  status_["last_checkpoint_step"] = std::to_string(step_);
  out_->writeStatus(status_);
}

RunResult Session::finish() {
  if (finished_) return result_;
  try {
    diagnostics_->writeTo(frames_->file(), "/diagnostics");
  } catch (Error& e) {
    fail(e);
    throw;
  }
  finished_ = true;
  signals_.reset();
  result_.stepsCompleted = step_;

  if (stopped()) {
    result_.interrupted = true;
    result_.signal = stopSignal_;
    result_.restartCommand = restartCommand(options_, *config_, result_.outputDir, result_.lastCheckpoint, comm_.size());
    status_["state"] = "interrupted";
    status_["signal"] = signalName(stopSignal_);
    status_["steps_completed"] = std::to_string(step_);
    status_["last_checkpoint"] = result_.lastCheckpoint;
    status_["restart"] = result_.restartCommand;
    out_->writeStatus(status_);
    log::info("output so far: ", frames_->xdmfPath(), " (", frames_->frames(), " frames), ", diagnostics_->csvPath());
    log::info("timings (over ranks):\n", timers::summary(comm_));
    log::warn(signalName(stopSignal_), ": stopped after step ", step_, " of ", total_, "; checkpoint ",
              result_.lastCheckpoint, "\ncontinue the run with:\n  ", result_.restartCommand);
    return result_;
  }

  // A library caller may end a run before its last step (the CLI never does).
  status_["state"] = done() ? "completed" : "stopped";
  status_["steps_completed"] = std::to_string(step_);
  status_["last_checkpoint"] = result_.lastCheckpoint;
  out_->writeStatus(status_);

  std::string summary = module_->summary();
  if (!summary.empty()) log::info(summary);
  log::info("output: ", frames_->xdmfPath(), " (", frames_->frames(), " frames), ", diagnostics_->csvPath(),
            ", ", out_->file("config.resolved.yaml"));
  std::string timing = timers::summary(comm_);
  log::info("timings (over ranks):\n", timing);
  return result_;
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
