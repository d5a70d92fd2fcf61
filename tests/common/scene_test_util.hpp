#pragma once
// Helpers for tests that run whole scenes through the runner (collective on the world).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/io/hdf5_file.hpp"
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

// The positions of every frame of a run's frames.h5, in frame order (collective).
inline std::vector<std::vector<double>> framePositions(const std::string& dir) {
  io::H5File f(dir + "/frames.h5", io::H5File::Mode::read, Comm::world());
  std::vector<std::vector<double>> out;
  for (const std::string& k : f.children("/frames")) out.push_back(f.readAll("/frames/" + k + "/positions"));
  return out;
}

// max_i |a_i - b_i|; a size mismatch is a test failure.
inline double maxDiff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

}  // namespace kinema::test
