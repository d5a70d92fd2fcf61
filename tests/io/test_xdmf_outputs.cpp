// The XDMF of every module's output, opened by a reader independent of the writer (xdmf_check.hpp:
// expat + the HDF5 C API): short scenes of avi (cloth and rod), bdem, der, impact and poisson run
// through the runner, then every grid, DataItem and connectivity array is checked, plus what each
// module promises (docs/output.md): vertex cells for particles, the cloth's triangles and the rod's
// segments on the frame grid, bdem bonds as line cells with their state, one collection per poisson
// level, integers stored as integers, units. Writer-level cases cover cell grids, collections and
// the incremental XDMF (appending frames gives the same file as a rewrite from the HDF5 file).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "framework/io/frame_writer.hpp"
#include "framework/run/runner.hpp"
#include "io_test_util.hpp"
#include "test_util.hpp"
#include "xdmf_check.hpp"

namespace kinema {
namespace {

using test::XdmfGridInfo;
using test::XdmfSummary;

std::string problems(const XdmfSummary& s) {
  std::string out;
  for (const auto& p : s.problems) out += p + "\n";
  return out;
}

// The checker runs on rank 0 (serial HDF5); the other ranks wait. Returns true on rank 0, where
// `s` holds the summary and the file's problems (if any) are a test failure; false elsewhere, where
// the test has nothing more to check.
bool checkedOnRoot(const std::string& xdmf, XdmfSummary* s) {
  Comm::world().barrier();
  if (Comm::world().isRoot()) *s = test::checkXdmf(xdmf);
  Comm::world().barrier();
  if (!Comm::world().isRoot()) return false;
  EXPECT_TRUE(s->problems.empty()) << problems(*s);
  return true;
}

// --- the writer -------------------------------------------------------------------------------

// Frame k: 6 points (a triangle pair and two free points), split over ranks.
void writeCellFrame(io::FrameWriter& w, int k, bool withCells) {
  Comm world = Comm::world();
  auto [p0, np] = test::split(6, world);
  std::vector<double> pos, speed;
  std::vector<std::int64_t> id;
  for (std::int64_t p = p0; p < p0 + np; ++p) {
    pos.insert(pos.end(), {double(p % 2), double(p / 2), 0.1 * k});
    speed.push_back(0.5 * p);
    id.push_back(10 + p);
  }
  io::PointSet ps;
  ps.globalCount = 6;
  ps.rowOffset = p0;
  ps.positions = pos;
  w.beginFrame(0.25 * k, ps);
  w.addField("speed", speed, 1, "m/s");
  w.addField("id", std::span<const std::int64_t>(id));
  if (withCells) {
    // Rank 0 holds both triangles, the last rank the line; cell fields follow the same split.
    std::vector<std::int64_t> tri, line, alive;
    std::vector<double> ratio;
    if (world.rank() == 0) tri = {0, 1, 2, 1, 3, 2};
    if (world.rank() == world.size() - 1) {
      line = {4, 5};
      alive = {k % 2};
      ratio = {0.5 * k};
    }
    w.addCells("surface", io::CellType::triangle, tri);
    w.addCells("links", io::CellType::line, line);
    w.addCellField("links", "alive", std::span<const std::int64_t>(alive));
    w.addCellField("links", "ratio", ratio, 1, "1");
  }
  w.endFrame();
}

TEST(XdmfOutputs, PointFramesHaveVertexCellsIntegersAndUnits) {
  const std::string dir = test::scratchDir("xdmf_points");
  {
    io::FrameWriter w(dir, "f", Comm::world());
    for (int k = 0; k < 3; ++k) writeCellFrame(w, k, false);
  }
  XdmfSummary s;
  if (!checkedOnRoot(dir + "/f.xdmf", &s)) return;
  ASSERT_EQ(s.collections, std::vector<std::string>{"frames"});
  EXPECT_EQ(s.frames, std::vector<std::size_t>{3});
  ASSERT_EQ(s.grids.size(), 3u);
  for (const XdmfGridInfo& g : s.grids) {
    EXPECT_EQ(g.topology, "Polyvertex");
    EXPECT_EQ(g.cells, 6);  // one vertex cell per point
    EXPECT_EQ(g.attributes.at("id").numberType, "Int");
    EXPECT_EQ(g.attributes.at("speed").numberType, "Float");
    EXPECT_EQ(g.attributes.at("speed").units, "m/s");
  }
}

TEST(XdmfOutputs, CellGridsAreSecondGridsOfTheFrame) {
  const std::string dir = test::scratchDir("xdmf_cells");
  {
    io::FrameWriter w(dir, "f", Comm::world());
    for (int k = 0; k < 2; ++k) writeCellFrame(w, k, true);
  }
  XdmfSummary s;
  if (!checkedOnRoot(dir + "/f.xdmf", &s)) return;
  std::vector<XdmfGridInfo> last = s.lastFrame("frames");
  ASSERT_EQ(last.size(), 3u);  // the points, then the cell grids by name
  EXPECT_EQ(last[0].path, "frames/frame_000001/points");
  EXPECT_EQ(last[0].cells, 6);
  EXPECT_EQ(last[1].path, "frames/frame_000001/links");
  EXPECT_EQ(last[1].topology, "Polyline");
  EXPECT_EQ(last[1].cells, 1);
  EXPECT_EQ(last[1].attributes.at("alive").center, "Cell");
  EXPECT_EQ(last[1].attributes.at("alive").numberType, "Int");
  EXPECT_EQ(last[1].attributes.at("ratio").units, "1");
  EXPECT_EQ(last[2].path, "frames/frame_000001/surface");
  EXPECT_EQ(last[2].topology, "Triangle");
  EXPECT_EQ(last[2].cells, 2);
  // The cell data as written, whatever the rank count.
  io::H5File f(dir + "/f.h5", io::H5File::Mode::read, Comm::self());
  EXPECT_EQ(f.readAllInt("/frames/000001/cells/surface/connectivity"), (std::vector<std::int64_t>{0, 1, 2, 1, 3, 2}));
  EXPECT_EQ(f.readAllInt("/frames/000001/cells/links/alive"), std::vector<std::int64_t>{1});
  EXPECT_EQ(f.readAll("/frames/000001/cells/links/ratio"), std::vector<double>{0.5});
}

TEST(XdmfOutputs, CellMisuseIsAnError) {
  const std::string dir = test::scratchDir("xdmf_cell_misuse");
  io::FrameWriter w(dir, "f", Comm::world());
  std::vector<double> pos{0, 0, 0};
  io::PointSet ps;
  ps.globalCount = Comm::world().size();
  ps.rowOffset = Comm::world().rank();
  ps.positions = pos;
  w.beginFrame(0, ps);
  const std::vector<std::int64_t> outside{0, ps.globalCount}, ragged{0, 1, 0};
  EXPECT_THROW(w.addCells("a", io::CellType::line, outside), Error);
  EXPECT_THROW(w.addCells("b", io::CellType::line, ragged), Error);
  EXPECT_THROW(w.addCellField("nowhere", "x", std::vector<double>{}), Error);
}

// Frames of two collections (a grid that changes size), appended one by one: the XDMF equals the
// one a writer rebuilds from the HDF5 file when it reopens it (restart), and it checks out.
TEST(XdmfOutputs, IncrementalXdmfEqualsRewriteAndCollectionsSplit) {
  Comm world = Comm::world();
  const std::string dir = test::scratchDir("xdmf_levels");
  auto level = [&](io::FrameWriter& w, int l) {
    const std::int64_t m = 3 + 2 * l;
    auto [z0, nz] = test::split(m, world);
    io::UniformGrid g;
    g.dims = {m, m, m};
    g.spacing = {1.0 / m, 1.0 / m, 1.0 / m};
    g.zBegin = z0;
    g.zCount = nz;
    std::vector<double> u(static_cast<std::size_t>(nz * m * m), double(l));
    w.setCollection("level_" + std::to_string(l));
    w.beginFrame(double(l), g);
    w.addField("u", u);
    w.endFrame();
  };
  std::string appended;
  {
    io::FrameWriter w(dir, "f", world);
    for (int l = 0; l < 3; ++l) level(w, l);
    writeCellFrame(w, 12, true);  // a frame of another kind after the levels (collection level_2 kept)
  }
  appended = test::readText(dir + "/f.xdmf");
  { io::FrameWriter reopened(dir, "f", world, /*append=*/true); }
  EXPECT_EQ(test::readText(dir + "/f.xdmf"), appended);
  XdmfSummary s;
  if (!checkedOnRoot(dir + "/f.xdmf", &s)) return;
  EXPECT_EQ(s.collections, (std::vector<std::string>{"level_0", "level_1", "level_2"}));
  EXPECT_EQ(s.frames, (std::vector<std::size_t>{1, 1, 2}));
  ASSERT_FALSE(s.lastFrame("level_1").empty());
  EXPECT_EQ(s.lastFrame("level_1")[0].points, 125);
}

// An XDMF removed (or edited) behind the writer's back is rebuilt whole at the next frame.
TEST(XdmfOutputs, RemovedXdmfIsRebuilt) {
  Comm world = Comm::world();
  const std::string dir = test::scratchDir("xdmf_removed");
  io::FrameWriter w(dir, "f", world);
  writeCellFrame(w, 0, false);
  writeCellFrame(w, 1, false);
  world.barrier();
  if (world.isRoot()) std::filesystem::remove(dir + "/f.xdmf");
  world.barrier();
  writeCellFrame(w, 2, false);
  XdmfSummary s;
  if (!checkedOnRoot(dir + "/f.xdmf", &s)) return;
  EXPECT_EQ(s.frames, std::vector<std::size_t>{3});
}

// --- every module's output --------------------------------------------------------------------

// Runs a scene of the source tree into a scratch directory; returns the output directory.
std::string runScene(const std::string& name, const std::string& scene, std::vector<std::string> sets) {
  const std::string dir = test::scratchDir("xdmf_module_" + name);
  run::SceneOptions o;
  o.path = std::string(KINEMA_SOURCE_DIR) + "/" + scene;
  o.output = dir + "/out";
  o.overwrite = true;
  if (Comm::world().size() > 1) o.backend = "petsc";  // eigen runs on one rank only
  sets.push_back("run.log_level=warn");
  sets.push_back("run.checkpoint_every=0");
  sets.push_back("output.frame_every=1");
  o.sets = sets;
  run::runScene(o);
  return dir + "/out";
}

// The AttributeType of the last attribute `name` in the XDMF (that of the last frame).
std::string attributeType(const std::string& xdmf, const std::string& name) {
  std::string error, type;
  std::unique_ptr<test::XmlNode> root = test::parseXml(test::readText(xdmf), &error);
  std::function<void(const test::XmlNode&)> walk = [&](const test::XmlNode& n) {
    if (n.tag == "Attribute" && n.attr("Name") == name) type = n.attr("AttributeType");
    for (const auto& k : n.kids) walk(*k);
  };
  if (root) walk(*root);
  return type;
}

TEST(XdmfOutputs, ImpactParticlesAreVertexCells) {
  std::string out = runScene("impact", "modules/impact/scenes/cradle.yaml", {"impact.sim.steps=3"});
  XdmfSummary s;
  if (!checkedOnRoot(out + "/frames.xdmf", &s)) return;
  ASSERT_FALSE(s.grids.empty());
  XdmfGridInfo g = s.grids.back();
  EXPECT_EQ(g.topology, "Polyvertex");
  EXPECT_EQ(g.cells, g.points);
  EXPECT_EQ(g.points, 5);
  for (const char* integer : {"body_id", "static", "shape"}) EXPECT_EQ(g.attributes.at(integer).numberType, "Int");
  // Balls do not turn in the cradle: the identity orientation.
  io::H5File f(out + "/frames.h5", io::H5File::Mode::read, Comm::self());
  const std::string last = "/frames/" + f.children("/frames").back();
  EXPECT_EQ(f.readAllInt(last + "/body_id"), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(f.readAllInt(last + "/shape"), std::vector<std::int64_t>(5, 0));
  const std::vector<double> q = f.readAll(last + "/orientation");
  ASSERT_EQ(q.size(), 20u);
  for (std::size_t k = 0; k < 5; ++k)
    EXPECT_EQ(std::vector<double>(q.begin() + 4 * k, q.begin() + 4 * k + 4), (std::vector<double>{1, 0, 0, 0}));
}

// Boxes falling at random orientations (box_drop): the orientation as a quaternion (4 components),
// the rotation matrix (XDMF Tensor, column by column: the body axes in world coordinates) and the
// box's edge vectors (box_frame, for ParaView's Tensor Glyph), consistent with each other.
TEST(XdmfOutputs, ImpactBoxOrientationsAreQuaternionsAndTensors) {
  std::string out = runScene("impact_boxes", "modules/impact/scenes/cradle.yaml",
                             {"impact.scene.type=box_drop", "impact.scene.count=3", "impact.sim.steps=4",
                              "impact.sim.gravity=9.81"});
  XdmfSummary s;
  if (!checkedOnRoot(out + "/frames.xdmf", &s)) return;
  ASSERT_FALSE(s.grids.empty());
  const XdmfGridInfo& g = s.grids.back();
  EXPECT_EQ(g.points, 4);  // the static floor box and the three falling boxes
  for (const char* integer : {"body_id", "static", "shape"}) EXPECT_EQ(g.attributes.at(integer).numberType, "Int");
  for (const char* real : {"orientation", "rotation", "box_frame"}) EXPECT_EQ(g.attributes.at(real).numberType, "Float");
  EXPECT_EQ(attributeType(out + "/frames.xdmf", "orientation"), "Matrix");
  EXPECT_EQ(attributeType(out + "/frames.xdmf", "rotation"), "Tensor");
  EXPECT_EQ(attributeType(out + "/frames.xdmf", "box_frame"), "Tensor");
  EXPECT_EQ(attributeType(out + "/frames.xdmf", "half_extents"), "Vector");

  io::H5File f(out + "/frames.h5", io::H5File::Mode::read, Comm::self());
  const std::string last = "/frames/" + f.children("/frames").back();
  EXPECT_EQ(f.shape(last + "/orientation"), (io::Shape{4, 4}));
  EXPECT_EQ(f.shape(last + "/rotation"), (io::Shape{4, 9}));
  EXPECT_EQ(f.shape(last + "/box_frame"), (io::Shape{4, 9}));
  EXPECT_EQ(f.readAllInt(last + "/static"), (std::vector<std::int64_t>{1, 0, 0, 0}));
  EXPECT_EQ(f.readAllInt(last + "/shape"), (std::vector<std::int64_t>{1, 1, 1, 1}));
  const std::vector<double> q = f.readAll(last + "/orientation"), rot = f.readAll(last + "/rotation"),
                            frame = f.readAll(last + "/box_frame"), h = f.readAll(last + "/half_extents");
  bool turned = false;
  for (std::size_t b = 0; b < 4; ++b) {
    const Eigen::Quaterniond qb(q[4 * b], q[4 * b + 1], q[4 * b + 2], q[4 * b + 3]);
    EXPECT_NEAR(qb.norm(), 1.0, 1e-12);
    turned = turned || std::abs(qb.w()) < 1.0 - 1e-6;
    // Column c of the tensor is R e_c, the body's c axis in world coordinates; box_frame scales it
    // by the side length 2 h_c.
    const Eigen::Matrix3d R = qb.toRotationMatrix();
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < 3; ++i) {
        const std::size_t k = 9 * b + 3 * static_cast<std::size_t>(c) + static_cast<std::size_t>(i);
        EXPECT_NEAR(rot[k], R(i, c), 1e-12);
        EXPECT_NEAR(frame[k], 2.0 * h[3 * b + static_cast<std::size_t>(c)] * R(i, c), 1e-12);
      }
  }
  EXPECT_TRUE(turned);  // box_drop starts the boxes at random orientations
}

TEST(XdmfOutputs, AviClothTrianglesAndFreeVertices) {
  std::string out = runScene("avi_cloth", "modules/avi/scenes/cloth_spikes.yaml",
                             {"avi.end_time=0.02", "avi.frame_dt=0.01", "avi.scene.cloth_spikes.resolution=3"});
  XdmfSummary s;
  if (!checkedOnRoot(out + "/frames.xdmf", &s)) return;
  ASSERT_FALSE(s.grids.empty());
  XdmfGridInfo g = s.grids.back();
  EXPECT_EQ(g.topology, "Mixed");
  EXPECT_GT(g.mixedCells[4], 0);  // the cloths' triangles
  EXPECT_EQ(g.attributes.at("object").numberType, "Int");
  EXPECT_EQ(g.attributes.at("scripted").numberType, "Int");
  // Every vertex is in some cell: triangles cover the cloth, vertex cells the rest.
  io::H5File f(out + "/frames.h5", io::H5File::Mode::read, Comm::self());
  std::vector<std::int64_t> mixed = f.readAllInt("/avi/mesh/cells");
  std::vector<char> covered(static_cast<std::size_t>(g.points), 0);
  for (std::size_t k = 0; k < mixed.size();) {
    std::int64_t type = mixed[k++], n = type == 4 ? 3 : mixed[k++];
    for (std::int64_t j = 0; j < n; ++j) covered[static_cast<std::size_t>(mixed[k++])] = 1;
  }
  EXPECT_EQ(std::count(covered.begin(), covered.end(), 1), g.points);
}

TEST(XdmfOutputs, AviRodSegmentsAreLineCells) {
  std::string out = runScene("avi_rod", "modules/avi/scenes/rod_knot.yaml",
                             {"avi.end_time=0.002", "avi.frame_dt=0.001", "avi.scene.rod_knot.segments=16"});
  XdmfSummary s;
  if (!checkedOnRoot(out + "/frames.xdmf", &s)) return;
  ASSERT_FALSE(s.grids.empty());
  XdmfGridInfo g = s.grids.back();
  EXPECT_EQ(g.topology, "Mixed");
  EXPECT_GE(g.mixedCells[2], 16);  // the rod's segments as 2-point polylines
}

TEST(XdmfOutputs, BdemBondsAreLineCellsWithTheirState) {
  // Strong but breakable bonds (the scene's are unbreakable: stress ratio 0 throughout).
  std::string out = runScene("bdem", "modules/bdem/scenes/cantilever.yaml",
                             {"bdem.steps=2", "bdem.scene.material.sigma_c=1e6", "bdem.scene.material.tau_c=1e6"});
  XdmfSummary s;
  if (!checkedOnRoot(out + "/frames.xdmf", &s)) return;
  std::vector<XdmfGridInfo> last = s.lastFrame("frames");
  ASSERT_EQ(last.size(), 2u);
  EXPECT_EQ(last[0].topology, "Polyvertex");
  EXPECT_EQ(last[0].cells, last[0].points);
  EXPECT_EQ(last[0].attributes.at("gid").numberType, "Int");
  EXPECT_EQ(last[0].attributes.at("fragment").numberType, "Int");
  EXPECT_EQ(last[0].attributes.at("velocity").units, "m/s");
  EXPECT_EQ(last[1].topology, "Polyline");
  EXPECT_GT(last[1].cells, last[0].points);  // a packed beam has more bonds than particles
  EXPECT_EQ(last[1].attributes.at("alive").numberType, "Int");
  EXPECT_EQ(last[1].attributes.at("alive").center, "Cell");
  EXPECT_EQ(last[1].attributes.at("stress_ratio").center, "Cell");
  // The beam bends under gravity: its bonds are stressed, below the strength; in the rest frame
  // (frame 0) they are not.
  io::H5File f(out + "/frames.h5", io::H5File::Mode::read, Comm::self());
  std::vector<std::string> frames = f.children("/frames");
  std::vector<double> ratio = f.readAll("/frames/" + frames.back() + "/cells/bonds/stress_ratio");
  EXPECT_GT(*std::max_element(ratio.begin(), ratio.end()), 0.0);
  EXPECT_LT(*std::max_element(ratio.begin(), ratio.end()), 1.0);
  std::vector<double> rest = f.readAll("/frames/000000/cells/bonds/stress_ratio");
  EXPECT_EQ(*std::max_element(rest.begin(), rest.end()), 0.0);
  // Bond ends are global particle indices, which are the rows of the frame (at any rank count).
  std::vector<std::int64_t> gid = f.readAllInt("/frames/" + frames.back() + "/gid");
  for (std::size_t k = 0; k < gid.size(); ++k) ASSERT_EQ(gid[k], static_cast<std::int64_t>(k));
  std::vector<std::int64_t> alive = f.readAllInt("/frames/" + frames.back() + "/cells/bonds/alive");
  EXPECT_EQ(std::count(alive.begin(), alive.end(), 1), static_cast<long>(alive.size()));
}

TEST(XdmfOutputs, DerStrandsArePolylines) {
  std::string out = runScene("der", "modules/der/scenes/wisps.yaml",
                             {"der.strands.count=2", "der.strands.vertices=8", "der.simulate.frames=2",
                              "der.simulate.steps_per_frame=1"});
  XdmfSummary s;
  if (!checkedOnRoot(out + "/frames.xdmf", &s)) return;
  ASSERT_FALSE(s.grids.empty());
  EXPECT_EQ(s.grids.back().topology, "Mixed");
  EXPECT_EQ(s.grids.back().mixedCells.at(2), 2);
  EXPECT_EQ(s.grids.back().attributes.at("strand").numberType, "Int");
}

TEST(XdmfOutputs, PoissonLevelsAreSeparateCollections) {
  std::string out = runScene("poisson", "modules/poisson/scenes/demo.yaml", {"poisson.n=4", "poisson.levels=2"});
  XdmfSummary s;
  if (!checkedOnRoot(out + "/frames.xdmf", &s)) return;
  EXPECT_EQ(s.collections, (std::vector<std::string>{"level_1", "level_2"}));
  ASSERT_EQ(s.grids.size(), 2u);
  EXPECT_EQ(s.grids[0].points, 27);   // n = 4: 3^3 interior points
  EXPECT_EQ(s.grids[1].points, 343);  // n = 8: 7^3
}

}  // namespace
}  // namespace kinema
