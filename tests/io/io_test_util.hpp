#pragma once
// Helpers shared by the io tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"
#include "test_util.hpp"

namespace kinema::test {


inline std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Rows [begin, begin + count) of `n` for this rank, split as evenly as possible.
inline std::pair<std::int64_t, std::int64_t> split(std::int64_t n, const Comm& comm) {
  std::int64_t p = comm.size(), r = comm.rank();
  std::int64_t count = n / p + (r < n % p ? 1 : 0);
  std::int64_t begin = r * (n / p) + std::min(r, n % p);
  return {begin, count};
}

}  // namespace kinema::test
