// A Session's restart: the checkpoint named by run.restart found and checked before the module is
// set up, the module's state taken back from it, and the output directory the run continues in
// (the checkpoint's own, or a new one starting from copies of the earlier run's frames and
// diagnostics). See docs/user-guide.md, "Stopping and restarting".
#include <filesystem>

#include "framework/core/log.hpp"
#include "framework/run/restart_guard.hpp"
#include "framework/run/session.hpp"

namespace fs = std::filesystem;

namespace kinema::run {

namespace {

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

}  // namespace

// The run directory a checkpoint belongs to: the parent of its checkpoints/ folder, or the folder
// that holds it when it was copied somewhere else.
std::string Session::runDirectoryOf(const std::string& checkpoint) {
  fs::path dir = fs::absolute(checkpoint).parent_path();
  if (dir.filename() == "checkpoints") dir = dir.parent_path();
  return dir.lexically_normal().string();
}

// run.restart resolved (latest) and checked to name a checkpoint file.
void Session::resolveRestartPath(const Config& config) {
  restartPath_ = params_.run.restart;
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
}

// The checkpoint is opened (its checksums verified) and its fingerprint compared with the scene
// before the module's setup, so a corrupted or mismatched checkpoint costs nothing.
void Session::openRestart(const Config& config, std::optional<io::CheckpointReader>& in) {
  resolveRestartPath(config);
  if (!restart_) return;
  in.emplace(restartPath_, comm_);
  std::string stored = in->readString("runner_module");
  if (stored != params_.module)
    throw InputError(restartPath_ + ": a checkpoint of module '" + stored + "', not '" + params_.module + "'");
  checkFingerprint(*in, config, schema_);
  startStep_ = in->readInt("runner_step");
}

// After the module's setup: its state from the checkpoint, and the frames and diagnostics rows
// the earlier run had written up to it (the files keep those, drop the rest).
Session::Kept Session::restoreModule(std::optional<io::CheckpointReader>& in) {
  Kept kept;
  if (!restart_) return kept;
  if (startStep_ >= module_->totalSteps())
    throw InputError(str("run.restart: checkpoint ", restartPath_, " is after step ", startStep_,
                         ", and this scene ends at step ", module_->totalSteps(),
                         ": nothing left to run; raise the step count or end time to continue the run "
                         "(they may change on restart)"));
  kept.frames = in->readInt("runner_frames");
  kept.rows = in->readInt("runner_rows");
  module_->loadCheckpoint(*ctx_, *in);
  in.reset();
  log::info("restarting from ", restartPath_, " after step ", startStep_);
  return kept;
}

// A restart continues in the checkpoint's run directory, or in a new one that starts from a copy
// of that run's frames and diagnostics (rank 0 decides: every rank takes the same path).
Session::RestartSource Session::restartSource() const {
  RestartSource source;
  if (!restart_) return source;
  source.dir = runDirectoryOf(restartPath_);
  std::error_code ec;
  source.inPlace = comm_.broadcast(fs::equivalent(source.dir, result_.outputDir, ec) ? "1" : "0") == "1";
  return source;
}

void Session::continueEarlierOutput(const RestartSource& source) {
  if (!restart_ || source.inPlace) return;
  copyEarlierOutput(source.dir, *out_, comm_);
  log::info("restart into ", out_->path(), ": frames and diagnostics up to step ", startStep_, " copied from ",
            source.dir);
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

}  // namespace kinema::run
