#pragma once
// The step loop every module runs in: scene -> backend + module -> steps, with diagnostics, frames,
// checkpoints, progress on rank 0 and a timing summary. A run that fails mid-way keeps what it
// wrote, marks status.yaml as failed and says how to restart from the last checkpoint.
#include <string>

#include "framework/run/scene.hpp"

namespace kinema::run {

struct RunResult {
  std::string outputDir;
  long stepsCompleted = 0;
  std::string lastCheckpoint;  // empty if none was written
};

// Collective. Throws InputError for bad input (before anything is written) and Error for
// failures while running (after status.yaml has recorded them).
RunResult runScene(const SceneOptions& options);

// The output directory a scene writes to (--output, output.directory, or out/<scene name>).
std::string outputDirectoryFor(const Config& config);

}  // namespace kinema::run
