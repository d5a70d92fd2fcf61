// A Session's status.yaml: running (with what runs where), then completed, stopped, interrupted
// (by a signal, with the restart command) or failed (with the step, the message and the restart
// command). docs/user-guide.md, "status.yaml".
#include <unistd.h>

#include "framework/core/log.hpp"
#include "framework/core/timer.hpp"
#include "framework/run/session.hpp"

namespace kinema::run {

void Session::writeStartStatus(const RestartSource& source) {
  status_ = {{"state", "running"},
             {"module", params_.module},
             {"backend", backend_->name()},
             {"scene", config_->source()},
             {"ranks", std::to_string(comm_.size())},
             {"total_steps", std::to_string(total_)},
             {"pid", std::to_string(::getpid())}};
  if (restart_) status_["restarted_from"] = restartPath_;
  if (restart_ && !source.inPlace) status_["continues"] = source.dir;
  out_->writeStatus(status_);
}

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

}  // namespace kinema::run
