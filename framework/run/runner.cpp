#include "framework/run/runner.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "framework/core/log.hpp"
#include "framework/core/progress.hpp"
#include "framework/core/timer.hpp"
#include "framework/run/module.hpp"
#include "framework/run/output_dir.hpp"

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

}  // namespace

namespace {

RunResult runSceneOnce(const SceneOptions& options) {
  Comm comm = Comm::world();
  ParamSchema schema;
  Config config = loadScene(options, schema);
  log::setLevel(log::parseLevel(config.getString("run.log_level")));
  log::setAllRanks(config.getBool("run.log_all_ranks"));

  const std::string moduleName = config.getString("module");
  la::BackendPtr backend = la::createBackend(config);
  std::unique_ptr<Module> module = modules().get(moduleName).make();

  const std::string restartPath = config.getString("run.restart");
  const bool restart = !restartPath.empty();
  if (restart && !fs::exists(restartPath))
    throw InputError(config.where("run.restart") + ": run.restart: no such checkpoint file '" +
                     restartPath + "'");

  RunResult result;
  result.outputDir = outputDirectoryFor(config);
  RunContext ctx{config, *backend, comm, result.outputDir};

  log::info("kinema: module ", moduleName, " on backend ", backend->name(), ", ", comm.size(),
            comm.size() == 1 ? " rank" : " ranks", ", scene ", config.source());
  {
    ScopedTimer t("setup");
    module->setup(ctx);  // may still reject the scene (InputError): nothing is written yet
  }

  long startStep = 0;
  long keepFrames = -1, keepRows = -1;
  if (restart) {
    io::CheckpointReader in(restartPath, comm);
    std::string stored = in.readString("runner_module");
    if (stored != moduleName)
      throw InputError(restartPath + ": a checkpoint of module '" + stored + "', not '" + moduleName + "'");
    startStep = in.readInt("runner_step");
    keepFrames = in.readInt("runner_frames");
    keepRows = in.readInt("runner_rows");
    module->loadCheckpoint(ctx, in);
    log::info("restarting from ", restartPath, " after step ", startStep);
  }

  OutputDir out(result.outputDir, comm, config.getBool("output.overwrite"), restart);
  out.writeText("config.resolved.yaml", config.resolvedYaml());

  const long total = module->totalSteps();
  std::map<std::string, std::string> status{{"state", "running"},
                                            {"module", moduleName},
                                            {"backend", backend->name()},
                                            {"scene", config.source()},
                                            {"ranks", std::to_string(comm.size())},
                                            {"total_steps", std::to_string(total)}};
  out.writeStatus(status);

  io::FrameWriter frames(out.path(), "frames", comm, restart, keepFrames);
  io::Diagnostics diagnostics(out.file("diagnostics.csv"), comm, restart, keepRows);
  std::vector<std::string> checkpoints;
  if (restart) checkpoints.push_back(restartPath);
  const long frameEvery = config.getInt("output.frame_every");
  const long checkpointEvery = config.getInt("run.checkpoint_every");
  const long keep = config.getInt("run.checkpoint_keep");
  const long failAt = config.getInt("run.fail_at_step");

  long step = startStep;
  try {
    Progress progress(total, config.getReal("run.progress_seconds"));
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
      if (last || due(step, total, checkpointEvery)) {
        ScopedTimer t("checkpoint");
        diagnostics.writeTo(frames.file(), "/diagnostics");
        std::string path = out.checkpointDir() + "/" + checkpointName(step);
        io::CheckpointWriter cp(path, comm);
        cp.writeString("runner_module", moduleName);
        cp.writeInt("runner_step", step);
        cp.writeReal("runner_time", module->time());
        cp.writeInt("runner_frames", frames.frames());
        cp.writeInt("runner_rows", static_cast<std::int64_t>(diagnostics.rows().size()));
        cp.writeString("runner_config", config.resolvedYaml());
        module->saveCheckpoint(ctx, cp);
        cp.commit();
        checkpoints.push_back(path);
        result.lastCheckpoint = path;
        while (static_cast<long>(checkpoints.size()) > keep) {
          if (comm.isRoot() && checkpoints.front() != restartPath) fs::remove(checkpoints.front());
          checkpoints.erase(checkpoints.begin());
        }
      }
      progress.update(step, module->time());
    }
    diagnostics.writeTo(frames.file(), "/diagnostics");
  } catch (Error& e) {
    std::string last = checkpoints.empty() ? "" : checkpoints.back();
    std::string hint = last.empty()
        ? "no checkpoint was written; run again from the start"
        : "restart from the last checkpoint with: kinema run " + config.source() + " --restart " + last;
    e.addContext(str("the run stopped during step ", step, " of ", total, "; the output so far (",
                     frames.frames(), " frames, ", diagnostics.rows().size(),
                     " diagnostics rows) is in ", out.path()));
    e.addContext(hint);
    status["state"] = "failed";
    status["failed_step"] = std::to_string(step);
    status["message"] = e.message();
    status["last_checkpoint"] = last;
    status["restart"] = hint;
    out.writeStatus(status);
    throw;
  }
  result.stepsCompleted = step;

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
