#pragma once
// The step loop every module runs in: scene -> backend + module -> steps, with diagnostics, frames,
// checkpoints, progress on rank 0 and a timing summary. A run that fails mid-way keeps what it
// wrote, marks status.yaml as failed and says how to restart from the last checkpoint; a run
// stopped by a signal writes a checkpoint first and is marked interrupted.
#include <string>

#include "framework/run/scene.hpp"

namespace kinema::run {

struct RunResult {
  std::string outputDir;
  long stepsCompleted = 0;
  std::string lastCheckpoint;  // empty if none was written
  bool interrupted = false;    // stopped by a signal (SIGINT, SIGTERM, SIGUSR1) before the end
  int signal = 0;              // that signal
  std::string restartCommand;  // the command that continues an interrupted run
};

// Collective. Throws InputError for bad input (before anything is written) and Error for
// failures while running (after status.yaml has recorded them). A signal (see lifecycle.hpp) ends
// the run after the current step with a checkpoint: the result is then `interrupted`.
RunResult runScene(const SceneOptions& options);

// The output directory a scene writes to (--output, output.directory, or out/<scene name>).
std::string outputDirectoryFor(const Config& config);

}  // namespace kinema::run
