#pragma once
// Helpers for tests that run whole scenes through the runner (collective on the world).
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/run/runner.hpp"

namespace kinema::test {

// Writes `body` to <dir>/scene.yaml on rank 0 and returns the path once every rank can read it.
inline std::string writeScene(const std::string& dir, const std::string& body) {
  const std::string path = dir + "/scene.yaml";
  if (Comm::world().isRoot()) std::ofstream(path) << body;
  Comm::world().barrier();
  return path;
}

// Runs `scene` into `dir` with --set overrides; a fresh run overwrites, a restart appends.
inline run::RunResult runIn(const std::string& dir, const std::string& scene, std::vector<std::string> sets = {},
                            std::optional<std::string> restart = std::nullopt) {
  run::SceneOptions o;
  o.path = scene;
  o.output = dir;
  o.sets = std::move(sets);
  o.restart = restart;
  o.overwrite = !restart.has_value();
  return run::runScene(o);
}

}  // namespace kinema::test
