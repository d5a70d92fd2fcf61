#pragma once
// Helpers shared by the test suites.
#include <filesystem>
#include <string>

#include "framework/core/comm.hpp"

namespace kinema::test {

// A fresh directory under the build tree's tests/ folder, the same on every rank (collective).
inline std::string scratchDir(const std::string& name) {
  Comm world = Comm::world();
  std::string dir = "scratch/" + name + "_np" + std::to_string(world.size());
  if (world.isRoot()) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  world.barrier();
  return dir;
}

}  // namespace kinema::test
