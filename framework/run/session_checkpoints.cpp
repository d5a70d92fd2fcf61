// A Session's checkpoints: written at their cadence, the ones on disk counted and the oldest
// removed beyond run.checkpoint_keep (the earlier segments' too, after a restart).
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "framework/core/timer.hpp"
#include "framework/run/restart_guard.hpp"
#include "framework/run/session.hpp"

namespace fs = std::filesystem;

namespace kinema::run {

namespace {

std::string checkpointName(long step) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "checkpoint_%06ld.h5", step);
  return buf;
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

}  // namespace

// On a restart, the earlier segments' checkpoints before the restart step count too (issue 22).
void Session::countEarlierCheckpoints() {
  if (!restart_) return;
  checkpoints_ = comm_.isRoot() ? earlierCheckpoints(out_->checkpointDir(), startStep_) : std::vector<std::string>{};
  std::error_code ec;
  restartInDir_ = fs::equivalent(fs::path(restartPath_).parent_path(), out_->checkpointDir(), ec);
  checkpoints_.push_back(restartPath_);
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
  cp.writeString("runner_module", params_.module);
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
  removeOldCheckpoints();
  schedule_->written(started, wallTime());  // rank 0's clock decides
  status_["last_checkpoint"] = path;  // a run killed outright still names its last checkpoint
  status_["last_checkpoint_step"] = std::to_string(step_);
  out_->writeStatus(status_);
}

// The oldest checkpoints beyond run.checkpoint_keep.
void Session::removeOldCheckpoints() {
  while (static_cast<long>(checkpoints_.size()) > keep_) {
    // A checkpoint outside this run's directory (the user's copy) is never removed.
    if (comm_.isRoot() && (restartInDir_ || checkpoints_.front() != restartPath_)) {
      std::error_code ec;
      fs::remove(checkpoints_.front(), ec);
    }
    checkpoints_.erase(checkpoints_.begin());
  }
}

}  // namespace kinema::run
