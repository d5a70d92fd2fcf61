// Rank independence of the impact module (modules/impact/README.md, decision 17): islands are
// resolved on the rank they are assigned to and the velocities gathered; the trajectory must be
// bitwise the one of a serial SimStepper in this process. Meaningful at 2 and 3 ranks; runs at 1
// rank too.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "framework/io/hdf5_file.hpp"
#include "framework/run/runner.hpp"
#include "modules/impact/sim_generators.hpp"
#include "modules/impact/sim_stepper.hpp"
#include "test_util.hpp"

using namespace kinema;
using namespace kinema::impact;

TEST(ImpactModuleRanks, TrajectoryIsBitwiseTheSerialOne) {
  const std::string dir = test::scratchDir("impact_ranks");
  const std::string path = dir + "/scene.yaml";
  if (Comm::world().isRoot()) std::ofstream(path) << R"(module: impact
backend: eigen
impact:
  scene: {type: pile, dimension: 3, count: 120, radius: 0.05, width: 0.5, jitter: 0.1, seed: 5}
  sim: {dt: 0.004, steps: 60, gravity: 9.81}
  resolver: {operator: gs-random, restitution: 0.3, qp_tolerance: 1.0e-10}
run: {checkpoint_every: 0, progress_seconds: 1000}
output: {frame_every: 60}
)";
  Comm::world().barrier();
  run::SceneOptions o;
  o.path = path;
  o.output = dir + "/out";
  o.overwrite = true;
  run::runScene(o);
  io::H5File f(dir + "/out/frames.h5", io::H5File::Mode::read, Comm::world());
  const auto frames = f.children("/frames");
  const auto x = f.readAll("/frames/" + frames.back() + "/positions");
  const auto v = f.readAll("/frames/" + frames.back() + "/velocity");

  SimOptions so;
  so.dt = 0.004;
  so.contactTolerance = 1e-6 * 0.05;
  so.impact.op = "gs-random";
  so.impact.restitution = 0.3;
  so.impact.operatorOptions.qpTolerance = 1e-10;
  SimWorld w = generators::pile({.n = 120, .radius = 0.05, .mass = 1.0, .width = 0.5, .spacing = 0.05,
      .jitter = 0.1, .seed = 5, .dimension = 3});
  w.gravity = Eigen::Vector3d(0, 0, -9.81);
  SimStepper serial(w, so, Comm::self());
  std::int64_t contacts = 0;
  for (int k = 0; k < 60; ++k) contacts = std::max(contacts, serial.step().constraints);
  EXPECT_GT(contacts, 20);
  std::vector<double> xs, vs;
  for (const SimBody& b : serial.world().bodies) {
    xs.insert(xs.end(), {b.x[0], b.x[1], b.x[2]});
    vs.insert(vs.end(), {b.v[0], b.v[1], b.v[2]});
  }
  ASSERT_EQ(x.size(), xs.size());
  EXPECT_EQ(std::memcmp(x.data(), xs.data(), x.size() * sizeof(double)), 0) << "positions differ";
  EXPECT_EQ(std::memcmp(v.data(), vs.data(), v.size() * sizeof(double)), 0) << "velocities differ";
}
