// FrameWriter: frames of a uniform grid, of a point set and of polylines, read back through
// H5File and compared with the values they were computed from (so 1 and 2 ranks must agree
// exactly), the XDMF checked against the HDF5 file, and restart (append) with frame truncation.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

#include "framework/io/frame_writer.hpp"
#include "io_test_util.hpp"
#include "test_util.hpp"

namespace kinema::io {
namespace {

using test::split;

constexpr std::int64_t NX = 4, NY = 3, NZ = 5;

double gridValue(std::int64_t i, std::int64_t j, std::int64_t k, int frame) {
  return i + 10.0 * j + 100.0 * k + 0.5 * frame;
}
double gridVector(std::int64_t i, std::int64_t j, std::int64_t k, int c, int frame) {
  return -(i + 10.0 * j + 100.0 * k) * (c + 1) + frame / 3.0;
}
double pointCoord(std::int64_t p, int c, int frame) { return 0.1 * p * (c + 1) + frame; }
double pointMass(std::int64_t p, int frame) { return 1.0 / (p + 1) + frame; }

// Writes frame `frame` of the grid: this rank's z-planes of a scalar "u" and a vector "v".
void writeGridFrame(FrameWriter& w, int frame, double time) {
  Comm world = Comm::world();
  auto [z0, nz] = split(NZ, world);
  UniformGrid g;
  g.dims = {NX, NY, NZ};
  g.origin = {1.0, -2.0, 0.5};
  g.spacing = {0.25, 0.5, 0.125};
  g.zBegin = z0;
  g.zCount = nz;
  std::vector<double> u, v;
  for (std::int64_t k = z0; k < z0 + nz; ++k)
    for (std::int64_t j = 0; j < NY; ++j)
      for (std::int64_t i = 0; i < NX; ++i) {
        u.push_back(gridValue(i, j, k, frame));
        for (int c = 0; c < 3; ++c) v.push_back(gridVector(i, j, k, c, frame));
      }
  w.beginFrame(time, g);
  w.addField("u", u);
  w.addField("v", v, 3);
  w.endFrame();
}

const std::int64_t NP = 7;

void writePointFrame(FrameWriter& w, int frame, double time) {
  Comm world = Comm::world();
  auto [p0, np] = split(NP, world);
  std::vector<double> pos, mass, vel;
  for (std::int64_t p = p0; p < p0 + np; ++p) {
    for (int c = 0; c < 3; ++c) {
      pos.push_back(pointCoord(p, c, frame));
      vel.push_back(-pointCoord(p, c, frame));
    }
    mass.push_back(pointMass(p, frame));
  }
  PointSet ps;
  ps.globalCount = NP;
  ps.rowOffset = p0;
  ps.positions = pos;
  w.beginFrame(time, ps);
  w.addField("mass", mass);
  w.addField("velocity", vel, 3);
  w.endFrame();
}

std::string frameGroup(int k) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "/frames/%06d", k);
  return buf;
}

void checkGridFrame(const H5File& f, int frame, double time) {
  std::string g = frameGroup(frame);
  EXPECT_EQ(f.readAttributeReal(g, "time"), time);
  EXPECT_EQ(f.readAttributeString(g, "mesh"), "uniform_grid");
  EXPECT_EQ(f.readAttributeString(g, "dims"), "5 3 4");
  EXPECT_EQ(f.shape(g + "/u"), (Shape{NZ, NY, NX}));
  EXPECT_EQ(f.shape(g + "/v"), (Shape{NZ, NY, NX, 3}));
  std::vector<double> u = f.readAll(g + "/u"), v = f.readAll(g + "/v");
  std::size_t n = 0;
  for (std::int64_t k = 0; k < NZ; ++k)
    for (std::int64_t j = 0; j < NY; ++j)
      for (std::int64_t i = 0; i < NX; ++i, ++n) {
        EXPECT_EQ(u[n], gridValue(i, j, k, frame));
        for (int c = 0; c < 3; ++c) EXPECT_EQ(v[3 * n + c], gridVector(i, j, k, c, frame));
      }
}

void checkPointFrame(const H5File& f, int frame, double time) {
  std::string g = frameGroup(frame);
  EXPECT_EQ(f.readAttributeReal(g, "time"), time);
  EXPECT_EQ(f.readAttributeString(g, "mesh"), "points");
  EXPECT_EQ(f.readAttributeInt(g, "count"), NP);
  EXPECT_EQ(f.shape(g + "/positions"), (Shape{NP, 3}));
  EXPECT_EQ(f.shape(g + "/mass"), (Shape{NP}));
  std::vector<double> pos = f.readAll(g + "/positions"), mass = f.readAll(g + "/mass"),
                      vel = f.readAll(g + "/velocity");
  for (std::int64_t p = 0; p < NP; ++p) {
    EXPECT_EQ(mass[p], pointMass(p, frame));
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(pos[3 * p + c], pointCoord(p, c, frame));
      EXPECT_EQ(vel[3 * p + c], -pointCoord(p, c, frame));
    }
  }
}

// What the XDMF says about one frame.
struct XdmfFrame {
  std::string name;
  double time = 0;
  std::string topology;                                      // the Topology element
  std::vector<std::pair<std::string, std::string>> hdfItems;  // (Dimensions, file:path)
  std::string text;
};

std::vector<XdmfFrame> parseXdmf(const std::string& xml) {
  std::vector<XdmfFrame> frames;
  std::regex gridStart(R"re(<Grid Name="(frame_\d{6})" GridType="Uniform">)re");
  std::regex time(R"re(<Time Value="([^"]+)"/>)re");
  std::regex topo(R"re(<Topology [^>]*>)re");
  std::regex item(R"re(<DataItem Dimensions="([^"]+)"[^>]*Format="HDF">([^<]+)</DataItem>)re");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), gridStart); it != std::sregex_iterator(); ++it) {
    XdmfFrame fr;
    fr.name = (*it)[1];
    std::size_t begin = static_cast<std::size_t>(it->position());
    std::size_t end = xml.find("</Grid>", begin);
    fr.text = xml.substr(begin, end - begin);
    std::smatch m;
    if (std::regex_search(fr.text, m, time)) fr.time = std::stod(m[1]);
    if (std::regex_search(fr.text, m, topo)) fr.topology = m[0];
    for (auto j = std::sregex_iterator(fr.text.begin(), fr.text.end(), item); j != std::sregex_iterator(); ++j)
      fr.hdfItems.emplace_back((*j)[1], (*j)[2]);
    frames.push_back(fr);
  }
  return frames;
}

Shape parseDims(const std::string& s) {
  std::istringstream is(s);
  Shape out;
  for (std::uint64_t d; is >> d;) out.push_back(d);
  return out;
}

// Every HDF reference of the XDMF names `<base>.h5` beside it and a dataset of matching shape.
void checkXdmfReferences(const std::vector<XdmfFrame>& frames, const std::string& dir, const std::string& base) {
  H5File f(dir + "/" + base + ".h5", H5File::Mode::read, Comm::world());
  for (const XdmfFrame& fr : frames) {
    ASSERT_FALSE(fr.hdfItems.empty()) << fr.name;
    for (const auto& [dims, ref] : fr.hdfItems) {
      std::size_t colon = ref.find(':');
      ASSERT_NE(colon, std::string::npos) << ref;
      EXPECT_EQ(ref.substr(0, colon), base + ".h5");  // relative: the directory can move
      std::string ds = ref.substr(colon + 1);
      ASSERT_TRUE(f.exists(ds)) << ref;
      EXPECT_EQ(f.shape(ds), parseDims(dims)) << ref;
    }
  }
}

TEST(FrameWriter, UniformGridFramesAndXdmf) {
  Comm world = Comm::world();
  std::string dir = test::scratchDir("frames_grid") + "/out";  // created by the writer
  {
    FrameWriter w(dir, "grid", world);
    writeGridFrame(w, 0, 0.0);
    writeGridFrame(w, 1, 0.25);
    EXPECT_EQ(w.frames(), 2);
    EXPECT_EQ(w.h5Path(), dir + "/grid.h5");
    EXPECT_EQ(w.xdmfPath(), dir + "/grid.xdmf");
  }
  {
    H5File f(dir + "/grid.h5", H5File::Mode::read, world);
    EXPECT_EQ(f.children("/frames"), (std::vector<std::string>{"000000", "000001"}));
    checkGridFrame(f, 0, 0.0);
    checkGridFrame(f, 1, 0.25);
  }
  std::string xml = test::readText(dir + "/grid.xdmf");
  EXPECT_FALSE(std::filesystem::exists(dir + "/grid.xdmf.tmp"));
  EXPECT_NE(xml.find(R"(<Xdmf Version="3.0">)"), std::string::npos);
  EXPECT_NE(xml.find(R"(GridType="Collection" CollectionType="Temporal")"), std::string::npos);
  std::vector<XdmfFrame> frames = parseXdmf(xml);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].time, 0.0);
  EXPECT_EQ(frames[1].time, 0.25);
  for (const XdmfFrame& fr : frames) {
    EXPECT_EQ(fr.topology, R"(<Topology TopologyType="3DCoRectMesh" Dimensions="5 3 4"/>)");
    // Origin and spacing in XDMF's z, y, x order.
    EXPECT_NE(fr.text.find(R"(Format="XML">0.5 -2 1</DataItem>)"), std::string::npos) << fr.text;
    EXPECT_NE(fr.text.find(R"(Format="XML">0.125 0.5 0.25</DataItem>)"), std::string::npos) << fr.text;
    EXPECT_NE(fr.text.find(R"(<Attribute Name="u" AttributeType="Scalar" Center="Node">)"), std::string::npos);
    EXPECT_NE(fr.text.find(R"(<Attribute Name="v" AttributeType="Vector" Center="Node">)"), std::string::npos);
    EXPECT_EQ(fr.hdfItems.size(), 2u);
  }
  EXPECT_EQ(frames[1].hdfItems[0].first, "5 3 4");
  EXPECT_EQ(frames[1].hdfItems[0].second, "grid.h5:/frames/000001/u");
  EXPECT_EQ(frames[1].hdfItems[1].first, "5 3 4 3");
  checkXdmfReferences(frames, dir, "grid");
}

TEST(FrameWriter, PointSetFramesAndXdmf) {
  Comm world = Comm::world();
  std::string dir = test::scratchDir("frames_points");
  {
    FrameWriter w(dir, "pts", world);
    writePointFrame(w, 0, 1.0);
    writePointFrame(w, 1, 1.5);
  }
  {
    H5File f(dir + "/pts.h5", H5File::Mode::read, world);
    checkPointFrame(f, 0, 1.0);
    checkPointFrame(f, 1, 1.5);
  }
  std::vector<XdmfFrame> frames = parseXdmf(test::readText(dir + "/pts.xdmf"));
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].time, 1.0);
  EXPECT_EQ(frames[1].time, 1.5);
  for (const XdmfFrame& fr : frames) {
    // One vertex cell per point: a Polyvertex topology without connectivity has no cells at all
    // in ParaView (the particles are invisible in its default representation).
    EXPECT_EQ(fr.topology, R"(<Topology TopologyType="Polyvertex" NumberOfElements="7" NodesPerElement="1">)");
    EXPECT_NE(fr.text.find(R"(<Geometry GeometryType="XYZ">)"), std::string::npos);
    ASSERT_EQ(fr.hdfItems.size(), 4u);  // connectivity, positions, mass, velocity
    EXPECT_EQ(fr.hdfItems[0].first, "7");
    EXPECT_EQ(fr.hdfItems[0].second, "pts.h5:/xdmf/vertices_7");
    EXPECT_EQ(fr.hdfItems[1].first, "7 3");
    EXPECT_EQ(fr.hdfItems[1].second, "pts.h5:/" + std::string("frames/") + fr.name.substr(6) + "/positions");
  }
  checkXdmfReferences(frames, dir, "pts");
  H5File f(dir + "/pts.h5", H5File::Mode::read, world);
  EXPECT_EQ(f.readAllInt("/xdmf/vertices_7"), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6}));
}

// Three polylines of different lengths (3, 5 and 2 points), lines split over ranks.
const std::vector<std::int64_t> kLineSizes{3, 5, 2};
const std::int64_t kLinePoints = 10;

double lineCoord(std::int64_t p, int c, int frame) { return 0.5 * p - c + 2.0 * frame; }

void writeLineFrame(FrameWriter& w, int frame, double time) {
  Comm world = Comm::world();
  auto [l0, nl] = split(static_cast<std::int64_t>(kLineSizes.size()), world);
  std::int64_t p0 = 0, np = 0;
  for (std::int64_t l = 0; l < l0; ++l) p0 += kLineSizes[static_cast<std::size_t>(l)];
  for (std::int64_t l = l0; l < l0 + nl; ++l) np += kLineSizes[static_cast<std::size_t>(l)];
  std::vector<double> pos, arc;
  for (std::int64_t p = p0; p < p0 + np; ++p) {
    for (int c = 0; c < 3; ++c) pos.push_back(lineCoord(p, c, frame));
    arc.push_back(static_cast<double>(p) + frame);
  }
  std::vector<std::int64_t> sizes(kLineSizes.begin() + l0, kLineSizes.begin() + l0 + nl);
  Polylines pl;
  pl.globalPoints = kLinePoints;
  pl.pointOffset = p0;
  pl.positions = pos;
  pl.globalLines = static_cast<std::int64_t>(kLineSizes.size());
  pl.lineOffset = l0;
  pl.lineSizes = sizes;
  w.beginFrame(time, pl);
  w.addField("arc", arc);
  w.endFrame();
}

void checkLineFrame(const H5File& f, int frame, double time) {
  std::string g = frameGroup(frame);
  EXPECT_EQ(f.readAttributeReal(g, "time"), time);
  EXPECT_EQ(f.readAttributeString(g, "mesh"), "polylines");
  EXPECT_EQ(f.readAttributeInt(g, "count"), kLinePoints);
  EXPECT_EQ(f.readAttributeInt(g, "lines"), 3);
  EXPECT_EQ(f.shape(g + "/positions"), (Shape{kLinePoints, 3}));
  // Per line: XDMF polyline type 2, point count, global point indices.
  std::vector<std::int64_t> expected{2, 3, 0, 1, 2, 2, 5, 3, 4, 5, 6, 7, 2, 2, 8, 9};
  EXPECT_EQ(f.shape(g + "/connectivity"), (Shape{expected.size()}));
  EXPECT_EQ(f.readAllInt(g + "/connectivity"), expected);
  std::vector<double> pos = f.readAll(g + "/positions"), arc = f.readAll(g + "/arc");
  for (std::int64_t p = 0; p < kLinePoints; ++p) {
    EXPECT_EQ(arc[static_cast<std::size_t>(p)], static_cast<double>(p) + frame);
    for (int c = 0; c < 3; ++c) EXPECT_EQ(pos[static_cast<std::size_t>(3 * p + c)], lineCoord(p, c, frame));
  }
}

TEST(FrameWriter, PolylineFramesAndXdmf) {
  Comm world = Comm::world();
  std::string dir = test::scratchDir("frames_lines");
  {
    FrameWriter w(dir, "lines", world);
    writeLineFrame(w, 0, 0.0);
    writeLineFrame(w, 1, 0.5);
  }
  {
    H5File f(dir + "/lines.h5", H5File::Mode::read, world);
    checkLineFrame(f, 0, 0.0);
    checkLineFrame(f, 1, 0.5);
  }
  std::vector<XdmfFrame> frames = parseXdmf(test::readText(dir + "/lines.xdmf"));
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1].time, 0.5);
  for (const XdmfFrame& fr : frames) {
    EXPECT_EQ(fr.topology, R"(<Topology TopologyType="Mixed" NumberOfElements="3">)");
    std::string g = "/frames/" + fr.name.substr(6);
    EXPECT_NE(fr.text.find(R"(<DataItem Dimensions="16" NumberType="Int" Precision="8" Format="HDF">lines.h5:)" +
                           g + "/connectivity</DataItem>\n    </Topology>"),
              std::string::npos)
        << fr.text;
    EXPECT_NE(fr.text.find(R"(<Geometry GeometryType="XYZ">)"), std::string::npos);
    EXPECT_NE(fr.text.find(R"(<Attribute Name="arc" AttributeType="Scalar" Center="Node">)"), std::string::npos);
    EXPECT_EQ(fr.text.find(R"(Attribute Name="connectivity")"), std::string::npos);
    ASSERT_EQ(fr.hdfItems.size(), 3u);  // connectivity, positions, arc
    EXPECT_EQ(fr.hdfItems[0].first, "16");
    EXPECT_EQ(fr.hdfItems[1].first, "10 3");
    EXPECT_EQ(fr.hdfItems[2].first, "10");
  }
  checkXdmfReferences(frames, dir, "lines");
  {
    // A restart keeps frame 0 and continues with polylines.
    FrameWriter w(dir, "lines", world, true, /*keepFrames=*/1);
    EXPECT_EQ(w.frames(), 1);
    writeLineFrame(w, 1, 0.75);
  }
  frames = parseXdmf(test::readText(dir + "/lines.xdmf"));
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1].time, 0.75);
  {
    H5File f(dir + "/lines.h5", H5File::Mode::read, world);
    checkLineFrame(f, 1, 0.75);
  }
  checkXdmfReferences(frames, dir, "lines");
}

TEST(FrameWriter, PolylineMisuseIsAnError) {
  Comm world = Comm::world();
  std::string dir = test::scratchDir("frames_lines_misuse");
  FrameWriter w(dir, "bad", world);
  // Every rank holds one line of 2 points; the sizes below disagree with that.
  std::vector<double> pos(6, 0.0);
  std::vector<std::int64_t> three{3}, two{2};
  Polylines pl;
  pl.globalPoints = 2 * world.size();
  pl.pointOffset = 2 * world.rank();
  pl.positions = pos;
  pl.globalLines = world.size();
  pl.lineOffset = world.rank();
  pl.lineSizes = three;  // uses 3 points, the rank holds 2
  EXPECT_THROW(w.beginFrame(0.0, pl), Error);
  pl.lineSizes = two;
  pl.globalLines = world.size() + 1;  // one line missing
  EXPECT_THROW(w.beginFrame(0.0, pl), Error);
  pl.globalLines = world.size();
  pl.lineOffset = 0;  // every rank claims line 0
  if (world.size() > 1) {
    EXPECT_THROW(w.beginFrame(0.0, pl), Error);
  }
  pl.lineOffset = world.rank();
  w.beginFrame(0.0, pl);
  std::vector<double> field(2, 1.0);
  EXPECT_THROW(w.addField("connectivity", field), Error);
  w.addField("m", field);
  w.endFrame();
  EXPECT_EQ(w.frames(), 1);
}

TEST(FrameWriter, AppendContinuesAndTruncates) {
  Comm world = Comm::world();
  std::string dir = test::scratchDir("frames_append");
  {
    FrameWriter w(dir, "run", world);
    for (int k = 0; k < 3; ++k) writeGridFrame(w, k, 0.1 * k);
  }
  {
    FrameWriter w(dir, "run", world, /*append=*/true);  // keep everything
    EXPECT_EQ(w.frames(), 3);
    writeGridFrame(w, 3, 0.3);
    EXPECT_EQ(w.frames(), 4);
  }
  EXPECT_EQ(parseXdmf(test::readText(dir + "/run.xdmf")).size(), 4u);
  {
    // Restart from a checkpoint taken after frame 1: frames 2 and 3 go.
    FrameWriter w(dir, "run", world, true, /*keepFrames=*/2);
    EXPECT_EQ(w.frames(), 2);
    EXPECT_EQ(parseXdmf(test::readText(dir + "/run.xdmf")).size(), 2u);  // rewritten at once
    writeGridFrame(w, 2, 7.0);
    // A frame that never ends (the run dies) is not part of the run.
    std::vector<double> u(static_cast<std::size_t>(split(NZ, world).second * NX * NY), 0.0);
    UniformGrid g;
    g.dims = {NX, NY, NZ};
    std::tie(g.zBegin, g.zCount) = split(NZ, world);
    w.beginFrame(9.0, g);
    w.addField("u", u);
  }
  std::vector<XdmfFrame> frames = parseXdmf(test::readText(dir + "/run.xdmf"));
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].time, 0.0);
  EXPECT_EQ(frames[1].time, 0.1);
  EXPECT_EQ(frames[2].time, 7.0);
  {
    FrameWriter w(dir, "run", world, true);
    EXPECT_EQ(w.frames(), 3);  // the unfinished frame 3 is dropped
    EXPECT_EQ(w.file().children("/frames"), (std::vector<std::string>{"000000", "000001", "000002"}));
  }
  {
    H5File f(dir + "/run.h5", H5File::Mode::read, world);
    checkGridFrame(f, 0, 0.0);
    checkGridFrame(f, 1, 0.1);
    checkGridFrame(f, 2, 7.0);
  }
  checkXdmfReferences(parseXdmf(test::readText(dir + "/run.xdmf")), dir, "run");
}

TEST(FrameWriter, MisuseIsAnError) {
  Comm world = Comm::world();
  std::string dir = test::scratchDir("frames_misuse");
  FrameWriter w(dir, "bad", world);
  std::vector<double> none;
  EXPECT_THROW(w.addField("u", none), Error);  // no open frame
  EXPECT_THROW(w.endFrame(), Error);
  PointSet ps;
  ps.globalCount = 0;
  w.beginFrame(0.0, ps);
  std::vector<double> one{1.0};
  EXPECT_THROW(w.addField("m", one), Error);  // one value for zero points
  EXPECT_THROW(w.addField("positions", none), Error);
  w.addField("m", none);
  w.endFrame();
  EXPECT_EQ(w.frames(), 1);
  std::string msg = test::messageOf<InputError>([&] { FrameWriter a(dir + "/nowhere", "x", world, true); });
  EXPECT_NE(msg.find("nowhere"), std::string::npos) << msg;
}

}  // namespace
}  // namespace kinema::io
