// `kinema help KEY`: one parameter's type, default, range and help line from its module's schema,
// the parameters of a group, every key with a given last component, and for an unknown key the
// closest names. It reads no scene and starts no MPI (run here with an MPI that cannot start).
#include <gtest/gtest.h>

#include <string>

#include "kinema_cli.hpp"

namespace {

using namespace kinema_cli;

// Runs `kinema ARGS` with Open MPI's install prefix pointing nowhere, so that a command that would
// initialise MPI fails: help must not need it.
Result kinema(const std::string& args) {
  return sh("env -i PATH=/usr/bin:/bin OPAL_PREFIX=/nonexistent " + kinemaBin() + " " + args);
}

TEST(HelpKey, PrintsTypeDefaultRangeAndHelp) {
  const Result r = kinema("help poisson.n");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r, "poisson.n\n")) << r.output;
  EXPECT_TRUE(has(r, "  type     integer\n")) << r.output;
  EXPECT_TRUE(has(r, "  default  16\n")) << r.output;
  EXPECT_TRUE(has(r, "  range    [2, 4096]\n")) << r.output;
  EXPECT_TRUE(has(r, "  help     ")) << r.output;
  EXPECT_TRUE(has(r, "--set poisson.n=16")) << r.output;
  EXPECT_FALSE(has(r, "poisson.levels")) << "one key only:\n" << r.output;

  const Result dt = kinema("help bdem.dt");
  ASSERT_EQ(dt.status, 0) << dt.output;
  EXPECT_TRUE(has(dt, "bdem.dt\n  type     real\n")) << dt.output;
  EXPECT_TRUE(has(dt, "  range    >= 0\n")) << dt.output;
}

TEST(HelpKey, FrameworkKeysChoicesAndRequiredKeys) {
  const Result frame = kinema("help output.frame_every");
  ASSERT_EQ(frame.status, 0) << frame.output;
  EXPECT_TRUE(has(frame, "  default  1\n")) << frame.output;
  const Result backend = kinema("help backend.name");
  ASSERT_EQ(backend.status, 0) << backend.output;
  EXPECT_TRUE(has(backend, "  choices  ")) << backend.output;
  EXPECT_TRUE(has(backend, "eigen")) << backend.output;
  const Result module = kinema("help module");
  ASSERT_EQ(module.status, 0) << module.output;
  EXPECT_TRUE(has(module, "  default  none: required\n")) << module.output;  // not "default avi"
}

TEST(HelpKey, GroupsAndLastComponents) {
  const Result group = kinema("help poisson.solver");
  ASSERT_EQ(group.status, 0) << group.output;
  EXPECT_TRUE(has(group, "poisson.solver.rtol")) << group.output;
  EXPECT_FALSE(has(group, "poisson.n ")) << group.output;
  const Result dt = kinema("help dt");  // every key named dt, in whichever module
  ASSERT_EQ(dt.status, 0) << dt.output;
  EXPECT_TRUE(has(dt, "bdem.dt\n")) << dt.output;
  EXPECT_TRUE(has(dt, "impact.sim.dt\n")) << dt.output;
}

TEST(HelpKey, UnknownKeyNamesTheClosest) {
  const Result typo = kinema("help bdem.dtt");
  EXPECT_EQ(typo.status, 2) << typo.output;
  EXPECT_TRUE(has(typo, "unknown module or parameter 'bdem.dtt'")) << typo.output;
  EXPECT_TRUE(has(typo, "did you mean 'bdem.dt'")) << typo.output;
  EXPECT_TRUE(has(typo, "kinema help bdem lists its parameters")) << typo.output;
  const Result far = kinema("help poisson.zzzzzzzz");
  EXPECT_EQ(far.status, 2) << far.output;
  EXPECT_FALSE(has(far, "did you mean")) << far.output;
  const Result module = kinema("help bdme.dt");  // a misspelled module
  EXPECT_EQ(module.status, 2) << module.output;
  EXPECT_TRUE(has(module, "'bdem.dt'")) << module.output;
  EXPECT_TRUE(has(module, "modules: ")) << module.output;
}

}  // namespace
