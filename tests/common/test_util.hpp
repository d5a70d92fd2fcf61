#pragma once
// Helpers shared by the test suites.
#include <gtest/gtest.h>

#include <exception>
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

// The message of the exception of type E that `f` throws ("" and a test failure if none).
template <class E, class F>
std::string messageOf(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception thrown";
  return "";
}

}  // namespace kinema::test
