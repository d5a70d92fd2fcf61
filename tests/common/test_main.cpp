// The main of every test executable: MPI up, builtins registered, GoogleTest's output on rank 0
// only, and a test failing on any rank fails the run on every rank.
#include <gtest/gtest.h>

#include "framework/core/mpi_context.hpp"
#include "apps/builtins.hpp"
#include "framework/core/registry.hpp"

int main(int argc, char** argv) {
  kinema::MpiContext mpi(&argc, &argv);
  // Before InitGoogleTest: parameterised suites list the registered backends when it runs.
  kinema::registerBuiltins();
  ::testing::InitGoogleTest(&argc, argv);
  kinema::Comm world = kinema::Comm::world();
  if (world.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int rc = RUN_ALL_TESTS();
  return world.any(rc != 0) ? 1 : 0;
}
