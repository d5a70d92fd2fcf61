#pragma once
// Helpers shared by the test suites.
#include <gtest/gtest.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
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

// A column of <dir>/diagnostics.csv (a test failure if the column does not exist).
inline std::vector<double> csvColumn(const std::string& dir, const std::string& column) {
  std::ifstream in(dir + "/diagnostics.csv");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  std::stringstream header(line);
  for (std::string c; std::getline(header, c, ',');) names.push_back(c);
  const auto at = std::find(names.begin(), names.end(), column);
  EXPECT_NE(at, names.end()) << column << " not in " << line;
  const auto k = static_cast<std::size_t>(at - names.begin());
  std::vector<double> out;
  while (std::getline(in, line)) {
    std::stringstream row(line);
    std::string c;
    for (std::size_t i = 0; i <= k && std::getline(row, c, ','); ++i)
      if (i == k) out.push_back(std::stod(c));
  }
  return out;
}

}  // namespace kinema::test
