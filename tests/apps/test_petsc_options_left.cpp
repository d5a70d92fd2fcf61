// Options passed through to PETSc that PETSc never read (a misspelt option, an option for a solver
// the run did not make, a PETSC_OPTIONS entry without the solver's prefix) are named in one warning
// at the end of the run; options PETSc read are not.
#include <gtest/gtest.h>

#include <string>

#include "kinema_cli.hpp"
#include "test_util.hpp"

namespace {

using namespace kinema_cli;

const char* kWarning = "PETSc never used these options";

// A short poisson run on petsc (one level, n = 4) with `env` before the command and `options` as
// backend.petsc.options.
Result poisson(const std::string& name, const std::string& options, const std::string& env = "") {
  const std::string dir = kinema::test::scratchDir("petsc_options_left_" + name);
  std::string cmd = env + " " + kinemaBin() + " run " + KINEMA_SOURCE_DIR +
                    "/modules/poisson/scenes/demo.yaml --backend petsc --set poisson.n=4 --set poisson.levels=1"
                    " --output " + dir + "/out";
  if (!options.empty()) cmd += " --set 'backend.petsc.options=" + options + "'";
  return sh(cmd);
}

bool havePetsc() { return has(sh(kinemaBin() + " list"), "petsc"); }

TEST(PetscOptionsLeft, AnOptionPetscNeverReadIsNamed) {
  if (!havePetsc()) GTEST_SKIP() << "no petsc backend in this build";
  const Result r = poisson("bogus", "-ksp_bogus_option 1 -ksp_rtol 1e-9");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r, kWarning)) << r.output;
  EXPECT_TRUE(has(r, "-ksp_bogus_option (backend.petsc.options)")) << r.output;
  EXPECT_FALSE(has(r, "-ksp_rtol")) << "the solver read -ksp_rtol:\n" << r.output;
  // One warning, after the run.
  EXPECT_EQ(r.output.find(kWarning), r.output.rfind(kWarning)) << r.output;
}

TEST(PetscOptionsLeft, OptionsPetscReadGiveNoWarning) {
  if (!havePetsc()) GTEST_SKIP() << "no petsc backend in this build";
  const Result r = poisson("good", "-ksp_rtol 1e-9 -ksp_converged_reason");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(has(r, kWarning)) << r.output;
  const Result none = poisson("none", "");
  ASSERT_EQ(none.status, 0) << none.output;
  EXPECT_FALSE(has(none, kWarning)) << none.output;
}

TEST(PetscOptionsLeft, EnvironmentOptionsNeedTheSolverPrefix) {
  if (!havePetsc()) GTEST_SKIP() << "no petsc backend in this build";
  const Result bare = poisson("env_bare", "", "PETSC_OPTIONS='-ksp_converged_reason'");
  ASSERT_EQ(bare.status, 0) << bare.output;
  EXPECT_TRUE(has(bare, "-ksp_converged_reason (PETSC_OPTIONS)")) << bare.output;
  EXPECT_TRUE(has(bare, "poisson_solver_")) << "the hint names the prefix:\n" << bare.output;
  const Result prefixed = poisson("env_prefixed", "", "PETSC_OPTIONS='-poisson_solver_ksp_converged_reason'");
  ASSERT_EQ(prefixed.status, 0) << prefixed.output;
  EXPECT_FALSE(has(prefixed, kWarning)) << prefixed.output;
}

// kinema check makes no solver, so it reads no option and reports none.
TEST(PetscOptionsLeft, CheckReportsNothing) {
  if (!havePetsc()) GTEST_SKIP() << "no petsc backend in this build";
  const Result r = sh(kinemaBin() + " check " + KINEMA_SOURCE_DIR +
                      "/modules/poisson/scenes/demo.yaml --backend petsc --set 'backend.petsc.options=-ksp_bogus 1'");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(has(r, kWarning)) << r.output;
}

}  // namespace
