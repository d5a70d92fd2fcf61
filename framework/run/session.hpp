#pragma once
// One run of a scene that the caller steps: the body of `kinema run` (runner.hpp) taken apart so
// that a library user (the Python bindings) can advance a run step by step and look at it in
// between. The CLI's runScene is `Session s(options); while (!s.done() && !s.stopped()) s.step();
// s.finish()`, so a run driven here writes exactly what the CLI writes: the same output directory,
// diagnostics, frames, checkpoints and status.yaml.
//
// Everything the constructor does happens before the output directory is created, except the
// last part (output directory, status.yaml, frame and diagnostics files): an InputError from it
// leaves no files behind, as for the CLI. Every call is collective.
//
// Defined by concept in session.cpp (start, steps, close), session_restart.cpp (the restart's
// checkpoint, restore and output directory), session_checkpoints.cpp (writing and rotation) and
// session_status.cpp (status.yaml, failure, finish).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/core/config.hpp"
#include "framework/core/progress.hpp"
#include "framework/io/diagnostics.hpp"
#include "framework/io/checkpoint.hpp"
#include "framework/io/frame_writer.hpp"
#include "framework/la/backend.hpp"
#include "framework/run/lifecycle.hpp"
#include "framework/run/module.hpp"
#include "framework/run/output_dir.hpp"
#include "framework/run/runner.hpp"
#include "framework/run/scene.hpp"

namespace kinema::run {

class Session {
 public:
  // Loads `options.path` (with its overrides) like `kinema run`. `catchSignals`: install the stop
  // handlers right before the output directory is created, as the CLI does (see catchSignals()).
  explicit Session(const SceneOptions& options, bool catchSignals = false);
  // A scene given as YAML text instead of a file (a Python dict arrives as JSON, which is YAML);
  // `sourceName` stands for the file name in messages and gives the default output directory
  // out/<sourceName>. options.path is ignored.
  Session(const SceneOptions& options, const std::string& sceneText, const std::string& sourceName,
          bool catchSignals = false);
  ~Session();
  // Collective. Everything `kinema run` checks before its first step, writing nothing: the scene,
  // the backend, a restart's checkpoint (fingerprint, checksums, steps left), the module's set-up
  // (its files read and validated, geometry built, rank-count limits) and the output directory.
  // Throws the InputError `run` would.
  struct Checked {
    std::string resolvedYaml;  // every parameter with its effective value (config.resolved.yaml)
    std::string module, source, outputDir;
  };
  static Checked check(const SceneOptions& options);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Installs the stop handlers (SIGINT, SIGTERM, SIGUSR1: lifecycle.hpp) until finish() or the end
  // of the session; the CLI holds them for the whole run, the Python bindings only while stepping
  // (so that Ctrl-C at the Python prompt stays a KeyboardInterrupt).
  void catchSignals(bool on);

  // No step left: the last step ran or the module finished early.
  bool done() const;
  // A signal stopped the run after the last step (a checkpoint was written); done() is false.
  bool stopped() const { return stopSignal_ != 0 && !done(); }
  int stopSignal() const { return stopSignal_; }

  // One step with its diagnostics row, frame and checkpoint at their cadence (as `kinema run`).
  // An Error marks status.yaml failed, gains the context lines the CLI prints and is rethrown.
  void step();
  // Ends the run: diagnostics into the frames file, status.yaml completed (or interrupted after a
  // signal, or `stopped` when the caller ends a run with steps left), summary and timings logged.
  // Further calls return the same result.
  RunResult finish();
  bool finished() const { return finished_; }
  // Closes every output file (finish() first if it was not called) and waits for all ranks, so
  // the output is complete on every rank.
  void close();

  long stepsDone() const { return step_; }
  long totalSteps() const { return total_; }
  double time() const { return module_->time(); }
  const Config& config() const { return *config_; }
  const Module& module() const { return *module_; }
  const la::Backend& backend() const { return *backend_; }
  const io::Diagnostics& diagnostics() const { return *diagnostics_; }
  const std::string& outputDir() const { return result_.outputDir; }
  // The frames file (<output>/frames.h5) and how many frames it holds.
  std::string framesPath() const;
  long frames() const;
  // Flushes the frames file so that a reader opened now sees every frame written so far.
  void flushFrames();

 private:
  struct CheckOnly {};
  Session(const SceneOptions& options, CheckOnly);
  // The constructors' work (session.cpp): scene, backend, limits, restart checkpoint, the module's
  // setup and restore, then (unless check()) the output.
  void start(bool catchSignals);
  void checkOutputDirectory() const;
  // How much of the earlier run's frames.h5 and diagnostics.csv a restart keeps (-1: all / none).
  struct Kept {
    long frames = -1, rows = -1;
  };
  void openOutput(const Kept& kept);

  // Restart (session_restart.cpp).
  static std::string runDirectoryOf(const std::string& checkpoint);
  void resolveRestartPath(const Config& config);
  // Opens and checks run.restart's checkpoint into `in` (nothing without a restart).
  void openRestart(const Config& config, std::optional<io::CheckpointReader>& in);
  Kept restoreModule(std::optional<io::CheckpointReader>& in);
  // The earlier run's directory, and whether the restart continues in it.
  struct RestartSource {
    std::string dir;
    bool inPlace = false;
  };
  RestartSource restartSource() const;
  void continueEarlierOutput(const RestartSource& source);
  // frames.h5 of a restart continued (frames after the checkpoint dropped), or started again from
  // the checkpoint when it is missing or cannot be opened (a damaged one is kept aside).
  void openFrames(long keepFrames);

  // Checkpoints (session_checkpoints.cpp).
  void countEarlierCheckpoints();
  void writeCheckpoint();
  void removeOldCheckpoints();

  // status.yaml (session_status.cpp).
  void writeStartStatus(const RestartSource& source);
  // Marks status.yaml failed, adds the CLI's context lines to `e` (the caller rethrows).
  void fail(Error& e);

  Comm comm_;
  SceneOptions options_;
  ParamSchema schema_;
  std::optional<Config> config_;  // Config has no empty state; set first thing in start()
  la::BackendPtr backend_;
  std::unique_ptr<Module> module_;
  std::unique_ptr<RunContext> ctx_;
  RunResult result_;
  FrameworkParams params_;  // module, backend.name, output.* and run.* (readFrameworkParams)
  std::string restartPath_;
  bool restart_ = false;
  bool checkOnly_ = false;  // check(): start() stops before anything is written
  long startStep_ = 0;
  long step_ = 0;
  long total_ = 0;
  std::optional<StopSignals> signals_;
  std::unique_ptr<OutputDir> out_;
  std::map<std::string, std::string> status_;
  std::string fingerprint_;
  std::unique_ptr<io::FrameWriter> frames_;
  std::unique_ptr<io::Diagnostics> diagnostics_;
  // The checkpoints on disk, oldest first, that run.checkpoint_keep counts.
  std::vector<std::string> checkpoints_;
  bool restartInDir_ = false;
  long frameEvery_ = 1, keep_ = 2, failAt_ = 0;
  bool failOutOfMemory_ = false;  // run.fail_kind: out_of_memory
  std::unique_ptr<CheckpointSchedule> schedule_;
  std::unique_ptr<Progress> progress_;
  int stopSignal_ = 0;
  bool finished_ = false;
  bool closed_ = false;
};

}  // namespace kinema::run
