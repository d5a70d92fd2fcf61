#include "framework/run/runner.hpp"

#include <filesystem>

#include "framework/run/session.hpp"

namespace fs = std::filesystem;

namespace kinema::run {

std::string outputDirectoryFor(const Config& config) {
  const std::string dir = outputBindings().read(config, "output").directory;
  if (!dir.empty()) return dir;
  return "out/" + fs::path(config.source()).stem().string();
}

namespace {

RunResult runSceneOnce(const SceneOptions& options) {
  Session session(options, /*catchSignals=*/true);
  while (!session.done() && !session.stopped()) session.step();
  return session.finish();
}

}  // namespace

// Every output file (diagnostics.csv, status.yaml, frames) is written and closed by its writer's
// destructor inside runSceneOnce (the Session's), some on rank 0 only: the barrier makes the whole output complete
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
