#include "framework/run/runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

#include <unistd.h>

#include "framework/core/log.hpp"
#include "framework/core/progress.hpp"
#include "framework/core/timer.hpp"
#include "framework/run/lifecycle.hpp"
#include "framework/run/module.hpp"
#include "framework/run/output_dir.hpp"
#include "framework/run/restart_guard.hpp"

namespace fs = std::filesystem;

namespace kinema::run {

std::string outputDirectoryFor(const Config& config) {
  const std::string& dir = config.getString("output.directory");
  if (!dir.empty()) return dir;
  return "out/" + fs::path(config.source()).stem().string();
}

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


RunResult runSceneOnce(const SceneOptions& options) {
  Comm comm = Comm::world();
  ParamSchema schema;
  Config config = loadScene(options, schema);
  log::setLevel(log::parseLevel(config.getString("run.log_level")));
  log::setAllRanks(config.getBool("run.log_all_ranks"));

  const std::string moduleName = config.getString("module");
  restartAllowList(config, schema);  // a bad run.restart_allow entry is an error in any run, not only a restart
  la::BackendPtr backend = la::createBackend(config);
  std::unique_ptr<Module> module = modules().get(moduleName).make();

  std::string restartPath = config.getString("run.restart");
  if (restartPath == "latest") restartPath = resolveLatest(config, comm);
  const bool restart = !restartPath.empty();
  if (restart && !fs::exists(restartPath))
    throw InputError(config.where("run.restart") + ": run.restart: no such checkpoint file '" +
                     restartPath + "'");

  // The checkpoint is opened (its checksums verified) and its fingerprint compared with the scene
  // before the module's setup, so a corrupted or mismatched checkpoint costs nothing.
  std::optional<io::CheckpointReader> in;
  long startStep = 0;
  if (restart) {
    in.emplace(restartPath, comm);
    std::string stored = in->readString("runner_module");
    if (stored != moduleName)
      throw InputError(restartPath + ": a checkpoint of module '" + stored + "', not '" + moduleName + "'");
    checkFingerprint(*in, config, schema);
    startStep = in->readInt("runner_step");
  }

  RunResult result;
  result.outputDir = outputDirectoryFor(config);
  RunContext ctx{config, *backend, comm, result.outputDir};

  log::info("kinema: module ", moduleName, " on backend ", backend->name(), ", ", comm.size(),
            comm.size() == 1 ? " rank" : " ranks", ", scene ", config.source());
  {
    ScopedTimer t("setup");
    module->setup(ctx);  // may still reject the scene (InputError): nothing is written yet
  }

  long keepFrames = -1, keepRows = -1;
  if (restart) {
    if (startStep >= module->totalSteps())
      throw InputError(str("run.restart: checkpoint ", restartPath, " is after step ", startStep,
                           ", and this scene ends at step ", module->totalSteps(),
                           ": nothing left to run; raise the step count or end time to continue the run "
                           "(they may change on restart)"));
    keepFrames = in->readInt("runner_frames");
    keepRows = in->readInt("runner_rows");
    module->loadCheckpoint(ctx, *in);
    in.reset();
    log::info("restarting from ", restartPath, " after step ", startStep);
  }

  // From here on SIGINT, SIGTERM and SIGUSR1 stop the run at the next step boundary (with a
  // checkpoint and a restart command) instead of killing it; before, nothing has been written.
  StopSignals stopSignals;
  auto restartCmd = [&](const std::string& checkpoint) {
    return restartCommand(options, config, result.outputDir, checkpoint, comm.size());
  };
  OutputDir out(result.outputDir, comm, config.getBool("output.overwrite"), restart);
  out.writeText("config.resolved.yaml", config.resolvedYaml());

  const long total = module->totalSteps();
  const std::string fingerprint = fingerprintText(resolvedValues(config, schema));
  std::map<std::string, std::string> status{{"state", "running"},
                                            {"module", moduleName},
                                            {"backend", backend->name()},
                                            {"scene", config.source()},
                                            {"ranks", std::to_string(comm.size())},
                                            {"total_steps", std::to_string(total)},
                                            {"pid", std::to_string(::getpid())}};
  if (restart) status["restarted_from"] = restartPath;
  out.writeStatus(status);

  io::FrameWriter frames(out.path(), "frames", comm, restart, keepFrames);
  io::Diagnostics diagnostics(out.file("diagnostics.csv"), comm, restart, keepRows);
  // The checkpoints on disk, oldest first, that run.checkpoint_keep counts: on a restart, the
  // earlier segments' checkpoints before the restart step count too (issue 22).
  std::vector<std::string> checkpoints;
  bool restartInDir = false;
  if (restart) {
    checkpoints = comm.isRoot() ? earlierCheckpoints(out.checkpointDir(), startStep) : std::vector<std::string>{};
    std::error_code ec;
    restartInDir = fs::equivalent(fs::path(restartPath).parent_path(), out.checkpointDir(), ec);
    checkpoints.push_back(restartPath);
  }
  const long frameEvery = config.getInt("output.frame_every");
  const long keep = config.getInt("run.checkpoint_keep");
  const long failAt = config.getInt("run.fail_at_step");
  CheckpointSchedule schedule(config.getInt("run.checkpoint_every"), config.getReal("run.checkpoint_wall"),
                              wallTime());

  long step = startStep;
  int stopSignal = 0;
  try {
    Progress progress(total, config.getReal("run.progress_seconds"));
    progress.startAt(startStep);  // after a restart: this segment's rate, the steps really left
    io::Diagnostics::Row row;
    while (step < total && !module->finished()) {
      ++step;
      if (step == failAt) throw Error(str("run.fail_at_step = ", failAt, ": rehearsed failure"));
      double t0 = wallTime();
      row.clear();
      row.emplace_back("step", static_cast<double>(step));
      row.emplace_back("time", 0.0);
      {
        ScopedTimer t("step");
        module->step(ctx, row);
      }
      row[1].second = module->time();
      row.emplace_back("wall_seconds", comm.max(wallTime() - t0));
      diagnostics.addRow(row);
      const bool last = step == total || module->finished();
      if (last || due(step, total, frameEvery)) {
        ScopedTimer t("output");
        module->writeFrame(ctx, frames);
      }
      // One allreduce per step: every rank learns whether any rank was signalled, and the
      // wall-time schedule is rank 0's, so all ranks stop and checkpoint after the same step.
      const double now = wallTime();
      const std::int64_t local = static_cast<std::int64_t>(StopSignals::received()) * 2 +
                                 (comm.isRoot() && schedule.due(step, now) ? 1 : 0);
      const std::int64_t agreed = comm.max(local);
      stopSignal = static_cast<int>(agreed / 2);
      const bool stop = stopSignal != 0 && !last;
      if (last || stop || agreed % 2 == 1) {
        ScopedTimer t("checkpoint");
        const double started = wallTime();
        module->prepareCheckpoint(ctx);
        diagnostics.writeTo(frames.file(), "/diagnostics");
        std::string path = out.checkpointDir() + "/" + checkpointName(step);
        io::CheckpointWriter cp(path, comm);
        cp.writeString("runner_module", moduleName);
        cp.writeInt("runner_step", step);
        cp.writeReal("runner_time", module->time());
        cp.writeInt("runner_frames", frames.frames());
        cp.writeInt("runner_rows", static_cast<std::int64_t>(diagnostics.rows().size()));
        cp.writeString("runner_config", config.resolvedYaml());
        cp.writeString(kFingerprintName, fingerprint);
        module->saveCheckpoint(ctx, cp);
        cp.commit();
        checkpoints.push_back(path);
        result.lastCheckpoint = path;
        while (static_cast<long>(checkpoints.size()) > keep) {
          // A checkpoint outside this run's directory (the user's copy) is never removed.
          if (comm.isRoot() && (restartInDir || checkpoints.front() != restartPath)) {
            std::error_code ec;
            fs::remove(checkpoints.front(), ec);
          }
          checkpoints.erase(checkpoints.begin());
        }
        schedule.written(started, wallTime());  // rank 0's clock decides
        status["last_checkpoint"] = path;  // a run killed outright still names its last checkpoint
        status["last_checkpoint_step"] = std::to_string(step);
        out.writeStatus(status);
      }
      progress.update(step, module->time(), module->progressHint());
      if (stop) break;
    }
    diagnostics.writeTo(frames.file(), "/diagnostics");
  } catch (Error& e) {
    std::string last = checkpoints.empty() ? "" : checkpoints.back();
    const std::string command = restartCmd(last);
    std::string hint = last.empty() ? "no checkpoint was written; run again from the start with: " + command
                                    : "restart from the last checkpoint with: " + command;
    e.addContext(str("the run stopped during step ", step, " of ", total, "; the output so far (",
                     frames.frames(), " frames, ", diagnostics.rows().size(),
                     " diagnostics rows) is in ", out.path()));
    e.addContext(hint);
    status["state"] = "failed";
    status["failed_step"] = std::to_string(step);
    status["message"] = e.message();
    status["last_checkpoint"] = last;
    status["restart"] = command;
    out.writeStatus(status);
    throw;
  }
  result.stepsCompleted = step;

  if (stopSignal != 0 && step < total && !module->finished()) {
    result.interrupted = true;
    result.signal = stopSignal;
    result.restartCommand = restartCmd(result.lastCheckpoint);
    status["state"] = "interrupted";
    status["signal"] = signalName(stopSignal);
    status["steps_completed"] = std::to_string(step);
    status["last_checkpoint"] = result.lastCheckpoint;
    status["restart"] = result.restartCommand;
    out.writeStatus(status);
    log::info("output so far: ", frames.xdmfPath(), " (", frames.frames(), " frames), ", diagnostics.csvPath());
    log::info("timings (over ranks):\n", timers::summary(comm));
    log::warn(signalName(stopSignal), ": stopped after step ", step, " of ", total, "; checkpoint ",
              result.lastCheckpoint, "\ncontinue the run with:\n  ", result.restartCommand);
    return result;
  }

  status["state"] = "completed";
  status["steps_completed"] = std::to_string(step);
  status["last_checkpoint"] = result.lastCheckpoint;
  out.writeStatus(status);

  std::string summary = module->summary();
  if (!summary.empty()) log::info(summary);
  log::info("output: ", frames.xdmfPath(), " (", frames.frames(), " frames), ", diagnostics.csvPath(),
            ", ", out.file("config.resolved.yaml"));
  std::string timing = timers::summary(comm);
  log::info("timings (over ranks):\n", timing);
  return result;
}

}  // namespace

// Every output file (diagnostics.csv, status.yaml, frames) is written and closed by its writer's
// destructor inside runSceneOnce, some on rank 0 only: the barrier makes the whole output complete
// on every rank when runScene returns or throws (a caller on rank 1 may read it at once).
RunResult runScene(const SceneOptions& options) {
  Comm comm = Comm::world();
  try {
    RunResult result = runSceneOnce(options);
    comm.barrier();
    return result;
  } catch (...) {
    comm.barrier();
    throw;
  }
}

}  // namespace kinema::run
