// The poisson module at 2 ranks: scenes it cannot use fail clearly, before writing anything.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "framework/core/error.hpp"
#include "framework/la/backend.hpp"
#include "framework/run/runner.hpp"
#include "test_util.hpp"

using namespace kinema;

namespace {
std::string runError(const std::string& dir, const std::string& body) {
  std::string path = dir + "/scene.yaml";
  if (Comm::world().isRoot()) std::ofstream(path) << "module: poisson\n" << body;
  Comm::world().barrier();
  run::SceneOptions o;
  o.path = path;
  o.output = dir + "/out";
  try {
    run::runScene(o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(PoissonRanks, MoreRanksThanGridPlanesFailsClearly) {
  ASSERT_EQ(Comm::world().size(), 2);
  auto dir = test::scratchDir("poisson_planes");
  std::string e = runError(dir, "backend: eigen\npoisson: {n: 2}\n");
  EXPECT_NE(e.find("poisson.n = 2 gives 1 interior grid planes, fewer than the 2 ranks"), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

TEST(PoissonRanks, OneProcessBackendRefusesTwoRanksNamingTheOthers) {
  auto dir = test::scratchDir("poisson_eigen_np2");
  std::string e = runError(dir, "backend: eigen\npoisson: {n: 8}\n");
  EXPECT_NE(e.find("eigen"), std::string::npos) << e;
  EXPECT_NE(e.find("2 ranks"), std::string::npos) << e;
  for (const auto& name : la::backends().names())
    if (la::backends().get(name).distributed) {
      EXPECT_NE(e.find(name), std::string::npos) << e;
    }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}
