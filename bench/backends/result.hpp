#pragma once
// One measured solve of the benchmark.
#include <string>

namespace kinema::bench {

struct Result {
  std::string backend;
  int ranks = 1;
  std::string preconditioner;
  std::string path;  // "kinema" (through the abstract layer) or "native" (the library's own API)
  int iterations = 0;
  double setupSeconds = 0;  // preconditioner / solver set-up
  double solveSeconds = 0;  // the Krylov solve
  double relativeResidual = 0;
};

}  // namespace kinema::bench
