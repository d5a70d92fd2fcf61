// The der module through the runner at 1, 2 and 3 ranks (acceptance test E9, README decision 34): strands spread over
// ranks give per-strand results bitwise identical to optimising each strand alone; a run
// interrupted mid-optimisation and restarted from its checkpoint ends with the same parameters;
// the optimised strand file loads into a forward run; bad input fails clearly.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <filesystem>
#include <fstream>

#include "framework/core/error.hpp"
#include "framework/io/hdf5_file.hpp"
#include "framework/la/backend.hpp"
#include "framework/run/runner.hpp"
#include "modules/der/alm_optimizer.hpp"
#include "modules/der/hair_file.hpp"
#include "modules/der/rod_kinematics.hpp"
#include "modules/der/strand_generators.hpp"
#include "modules/der/strand_set_file.hpp"
#include "scene_test_util.hpp"
#include "test_util.hpp"

using namespace kinema;
using namespace kinema::der;

namespace {

// A small wisps scene: strands of different lengths so the contiguous split is uneven.
const char* kScene = R"(module: der
backend: eigen
der:
  strands: {source: wisps, count: 7, vertices: 12, length: 0.1, seed: 3}
  material: {c_stretch: 1.0e8, c_bend: 1.0e8, c_twist: 1.0e8}
  optimize: {scheme: alm, mu: 0.5, k_max: 12}
  simulate: {frames: 3, steps_per_frame: 2}
run: {checkpoint_every: 1, progress_seconds: 1000}
)";

using test::runIn;
using test::writeScene;

std::vector<double> readAll(const std::string& file, const std::string& dataset) {
  io::H5File f(file, io::H5File::Mode::read, Comm::world());
  return f.readAll(dataset);
}


bool bitwiseEqual(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

std::string errorOf(const std::string& dir, const std::string& body, std::vector<std::string> sets = {}) {
  const std::string scene = writeScene(dir, body);
  try {
    runIn(dir + "/out", scene, std::move(sets));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// On every backend: the strands' linear algebra runs on the scene's backend over one rank.
TEST(DerModuleRanks, PerStrandResultsEqualTheSerialOptimisationBitwise) {
  for (const std::string& name : la::backends().names()) {
    const std::string dir = test::scratchDir("der_bitwise_" + name);
    runIn(dir + "/out", writeScene(dir, kScene), {"backend.name=" + name});
    const std::string file = dir + "/out/strands.h5";
    ASSERT_TRUE(std::filesystem::exists(file));
    const auto kappa = readAll(file, "/strands/rest_kappa");
    const auto cbend = readAll(file, "/strands/c_bend");
    const auto lbar = readAll(file, "/strands/rest_length");

    // Reference: every strand optimised alone, in this process, with the same options.
    WispParams w;
    w.length = 0.1;
    const auto strands = wisps(7, 12, w, 3);
    Material m;
    m.cStretch = m.cBend = m.cTwist = 1e8;
    OptimizerOptions o;
    o.bounds.mu = 0.5;
    o.kMax = 12;
    auto backend = la::createBackend(name);
    std::vector<double> refKappa, refBend, refL;
    for (std::size_t s = 0; s < strands.size(); ++s) {
      const auto q = interleave(strands[s]);
      AlmOptimizer opt(q, initialFrames(q), m, o, *backend, static_cast<int>(s));
      opt.run();
      const RestState rest = opt.restState();
      for (int v = 0; v < strands[s].vertices(); ++v) {
        for (int c = 0; c < 4; ++c) refKappa.push_back(rest.restKappa[static_cast<std::size_t>(v)][c]);
        refBend.push_back(rest.cBend[static_cast<std::size_t>(v)]);
        refL.push_back(v + 1 < strands[s].vertices() ? rest.restLength[static_cast<std::size_t>(v)] : 0.0);
      }
    }
    EXPECT_TRUE(bitwiseEqual(kappa, refKappa)) << name << ": rest curvature differs from the serial optimisation";
    EXPECT_TRUE(bitwiseEqual(cbend, refBend)) << name << ": bending stiffness differs from the serial optimisation";
    EXPECT_TRUE(bitwiseEqual(lbar, refL)) << name << ": rest length differs from the serial optimisation";
    // Something was optimised (the test is not comparing two naive states).
    double changed = 0.0;
    for (double c : cbend) changed = std::max(changed, std::abs(c - 1e8));
    EXPECT_GT(changed, 0.0) << name;
  }
}

TEST(DerModuleRanks, RestartMidOptimisationEndsWithTheSameParameters) {
  const std::string dir = test::scratchDir("der_restart");
  const std::string scene = writeScene(dir, kScene);
  runIn(dir + "/full", scene);
  // Rehearsed crash at step 5: checkpoints of steps 1..4 exist.
  EXPECT_THROW(runIn(dir + "/crash", scene, {"run.fail_at_step=5"}), Error);
  const std::string cp = dir + "/crash/checkpoints/checkpoint_000004.h5";
  ASSERT_TRUE(std::filesystem::exists(cp)) << cp;
  runIn(dir + "/crash", scene, {}, cp);
  for (const char* ds : {"/strands/rest_kappa", "/strands/rest_twist", "/strands/rest_length", "/strands/c_stretch",
                         "/strands/c_bend", "/strands/c_twist", "/strands/results/relative_residual"})
    EXPECT_TRUE(bitwiseEqual(readAll(dir + "/full/strands.h5", ds), readAll(dir + "/crash/strands.h5", ds))) << ds;
}

namespace {

// A copy of checkpoint `from` at `to` (rank 0; every rank waits) with `tamper` applied to the
// values of one dataset, turned into a checkpoint of the format before checksums (marker 1, no
// checksums or fingerprint), which is read unchecked: only the module's own checks guard it.
template <class F>
void tamperedCopy(const std::string& from, const std::string& to, const char* dataset, F&& tamper) {
  if (Comm::world().isRoot()) {
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    hid_t f = H5Fopen(to.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0) << to;
    hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
    ASSERT_GE(d, 0) << dataset;
    hid_t space = H5Dget_space(d);
    std::vector<double> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    H5Sclose(space);
    EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
    tamper(v);
    EXPECT_GE(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
    H5Dclose(d);
    for (const char* name : {"kinema_checksums", "runner_fingerprint"})
      if (H5Aexists(f, name) > 0) H5Adelete(f, name);
    hid_t m = H5Aopen(f, "kinema_checkpoint", H5P_DEFAULT);
    const std::int64_t one = 1;
    EXPECT_GE(H5Awrite(m, H5T_NATIVE_INT64, &one), 0);
    H5Aclose(m);
    H5Fclose(f);
  }
  Comm::world().barrier();
}

}  // namespace

// A checkpoint whose per-strand blobs do not fit the scene (issue 16): every value read back is
// checked, and every rank stops with the same InputError naming the checkpoint and the strand,
// whichever rank holds the strand (no rank waits in a collective for the others).
TEST(DerModuleRanks, TamperedCheckpointStopsEveryRankWithTheSameMessage) {
  const std::string dir = test::scratchDir("der_bad_checkpoint");
  const std::string scene = writeScene(dir, kScene);
  EXPECT_THROW(runIn(dir + "/crash", scene, {"run.fail_at_step=4"}), Error);
  const std::string cp = dir + "/crash/checkpoints/checkpoint_000003.h5";
  ASSERT_TRUE(std::filesystem::exists(cp)) << cp;
  const std::vector<double> lengths = readAll(cp, "/der/blob_length");
  ASSERT_EQ(lengths.size(), 7u);
  const std::string bad = dir + "/crash/checkpoints/tampered.h5";
  auto restartError = [&]() -> std::string {
    try {
      runIn(dir + "/again", scene, {}, bad);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  // Every rank got the same message, the lowest failing rank's (the message is the same text).
  auto sameOnEveryRank = [](const std::string& e) {
    const Comm& c = Comm::world();
    return c.all(c.broadcast(e) == e);
  };
  std::string e;
  // Lengths: negative, NaN, not whole, one more (they no longer add up to the blob), one less.
  tamperedCopy(cp, bad, "/der/blob_length", [](std::vector<double>& v) { v[3] = -5.0; });
  e = restartError();
  EXPECT_NE(e.find(bad + ": strand 3: /der/blob_length is -5, not a whole number"), std::string::npos) << e;
  EXPECT_TRUE(sameOnEveryRank(e)) << e;
  tamperedCopy(cp, bad, "/der/blob_length", [](std::vector<double>& v) { v[5] = std::nan(""); });
  e = restartError();
  EXPECT_NE(e.find(bad + ": strand 5: /der/blob_length is nan"), std::string::npos) << e;
  EXPECT_TRUE(sameOnEveryRank(e)) << e;
  tamperedCopy(cp, bad, "/der/blob_length", [](std::vector<double>& v) { v[2] += 0.5; });
  e = restartError();
  EXPECT_NE(e.find(bad + ": strand 2: /der/blob_length is "), std::string::npos) << e;
  tamperedCopy(cp, bad, "/der/blob_length", [](std::vector<double>& v) { v[2] += 1.0; });
  e = restartError();
  EXPECT_NE(e.find(bad + ": strand "), std::string::npos) << e;
  EXPECT_NE(e.find("/der/blob"), std::string::npos) << e;
  EXPECT_TRUE(sameOnEveryRank(e)) << e;
  tamperedCopy(cp, bad, "/der/blob_length", [](std::vector<double>& v) { v[6] -= 1.0; });
  e = restartError();
  EXPECT_NE(e.find(bad + ": strand 6"), std::string::npos) << e;
  EXPECT_NE(e.find("ends"), std::string::npos) << e;
  EXPECT_TRUE(sameOnEveryRank(e)) << e;
  // Lengths that add up but split the blobs elsewhere: strand 1 takes a value of strand 2's.
  tamperedCopy(cp, bad, "/der/blob_length", [](std::vector<double>& v) {
    v[1] += 1.0;
    v[2] -= 1.0;
  });
  e = restartError();
  EXPECT_NE(e.find(bad + ": strand 1: "), std::string::npos) << e;
  EXPECT_TRUE(sameOnEveryRank(e)) << e;
  // A NaN inside strand 4's blob (its first parameter: the blob is k, done, the length of p, p...).
  const auto p4 = static_cast<std::size_t>(lengths[0] + lengths[1] + lengths[2] + lengths[3]) + 3;
  tamperedCopy(cp, bad, "/der/blob", [&](std::vector<double>& v) { v[p4] = std::nan(""); });
  e = restartError();
  EXPECT_NE(e.find(bad + ": strand 4: the parameters p has the non-finite value nan at 0"), std::string::npos) << e;
  EXPECT_TRUE(sameOnEveryRank(e)) << e;
  // An array length that is not the strand's (strand 0's p, stored as one value more).
  tamperedCopy(cp, bad, "/der/blob", [](std::vector<double>& v) { v[2] += 1.0; });
  e = restartError();
  EXPECT_NE(e.find(bad + ": strand 0: the parameters p has "), std::string::npos) << e;
  EXPECT_TRUE(sameOnEveryRank(e)) << e;
  // The untampered checkpoint, through the same unchecked path, still restarts.
  tamperedCopy(cp, bad, "/der/blob_length", [](std::vector<double>&) {});
  EXPECT_EQ(restartError(), "");
  EXPECT_TRUE(std::filesystem::exists(dir + "/again/strands.h5"));

  // A checkpoint of the simulation (rest state, results, simulator state per strand; every strand
  // has 12 vertices, so a blob starts with 12 values of rest lengths, and its results flag follows
  // the rest state's 6 + 11 + 48 + 12 + 11 + 12 + 12 = 112 values).
  const long total = runIn(dir + "/full", scene).stepsCompleted;
  char name[64];
  std::snprintf(name, sizeof name, "/full/checkpoints/checkpoint_%06ld.h5", total - 1);
  const std::string simCp = dir + name;
  ASSERT_TRUE(std::filesystem::exists(simCp)) << simCp;
  const std::vector<double> simLengths = readAll(simCp, "/der/blob_length");
  tamperedCopy(simCp, bad, "/der/blob", [](std::vector<double>& v) { v[1] = 0.0; });
  e = restartError();
  EXPECT_NE(e.find(bad + ": strand 0: rest length 0 is 0 (must be positive)"), std::string::npos) << e;
  EXPECT_TRUE(sameOnEveryRank(e)) << e;
  const auto flag2 = static_cast<std::size_t>(simLengths[0] + simLengths[1]) + 112;
  tamperedCopy(simCp, bad, "/der/blob", [&](std::vector<double>& v) {
    ASSERT_EQ(v[flag2], 1.0);  // strand 2 has results
    v[flag2] = 0.0;
  });
  e = restartError();
  EXPECT_NE(e.find(bad + ": strand 2: "), std::string::npos) << e;
  EXPECT_TRUE(sameOnEveryRank(e)) << e;
}

TEST(DerModuleRanks, RestartDuringTheSimulationContinuesTheSameTrajectory) {
  const std::string dir = test::scratchDir("der_restart_sim");
  const std::string scene = writeScene(dir, std::string(kScene) + "output: {frame_every: 1}\n");
  run::RunResult full = runIn(dir + "/full", scene);
  const long total = full.stepsCompleted;
  ASSERT_GT(total, 3);
  // Crash in the last frame of the simulation, restart from the checkpoint before it.
  EXPECT_THROW(runIn(dir + "/crash", scene, {"run.fail_at_step=" + std::to_string(total)}), Error);
  char name[64];
  std::snprintf(name, sizeof name, "/crash/checkpoints/checkpoint_%06ld.h5", total - 1);
  ASSERT_TRUE(std::filesystem::exists(dir + name)) << name;
  runIn(dir + "/crash", scene, {}, dir + name);
  io::H5File a(dir + "/full/frames.h5", io::H5File::Mode::read, Comm::world());
  io::H5File b(dir + "/crash/frames.h5", io::H5File::Mode::read, Comm::world());
  const auto fa = a.children("/frames"), fb = b.children("/frames");
  ASSERT_EQ(fa, fb);
  EXPECT_TRUE(bitwiseEqual(a.readAll("/frames/" + fa.back() + "/positions"),
                           b.readAll("/frames/" + fb.back() + "/positions")));
}

TEST(DerModuleRanks, OptimisedStrandFileLoadsIntoAForwardRunThatStaysPut) {
  const std::string dir = test::scratchDir("der_file");
  const std::string opt = writeScene(dir, R"(module: der
backend: eigen
der:
  strands: {source: horizontal, vertices: 30, length: 0.2}
  material: {radius: 1.6e-4}
  optimize: {scheme: alm, mu: 0.2}
)");
  runIn(dir + "/opt", opt);
  const std::string sim = dir + "/sim.yaml";
  if (Comm::world().isRoot())
    std::ofstream(sim) << "module: der\nbackend: eigen\nder:\n  strands: {source: file, file: " << dir
                       << "/opt/strands.h5}\n  material: {radius: 1.6e-4}\n  optimize: {enabled: false}\n  simulate: {frames: 60}\n";
  Comm::world().barrier();
  runIn(dir + "/sim", sim);
  const auto diag = kinema::test::csvColumn(dir + "/sim", "drift_max");
  ASSERT_FALSE(diag.empty());
  EXPECT_LT(diag.back(), 1e-4) << "the optimised horizontal strand moved under gravity";

  // The same forward run from the naive state sags visibly.
  const std::string naive = writeScene(dir, R"(module: der
backend: eigen
der:
  strands: {source: horizontal, vertices: 30, length: 0.2}
  material: {radius: 1.6e-4}
  optimize: {enabled: false}
  simulate: {frames: 60}
)");
  runIn(dir + "/naive", naive);
  const auto sag = kinema::test::csvColumn(dir + "/naive", "drift_max");
  ASSERT_FALSE(sag.empty());
  EXPECT_GT(sag.back(), 1e-2);
}

TEST(DerModuleRanks, BadInputFailsClearlyBeforeWritingAnything) {
  const std::string dir = test::scratchDir("der_bad");
  std::string e = errorOf(dir, "module: der\nbackend: eigen\nder: {strands: {source: hair}}\n");
  EXPECT_NE(e.find("der.strands.file"), std::string::npos) << e;
  e = errorOf(dir, "module: der\nbackend: eigen\nder: {strands: {source: file, file: /nonexistent.h5}}\n");
  EXPECT_NE(e.find("/nonexistent.h5"), std::string::npos) << e;
  e = errorOf(dir, "module: der\nbackend: eigen\nder: {strands: {vertices: 2}}\n");
  EXPECT_NE(e.find("der.strands.vertices"), std::string::npos) << e;
  e = errorOf(dir, "module: der\nbackend: eigen\nder: {optimize: {preconditioner: cholesky}}\n");
  EXPECT_NE(e.find("der.optimize.preconditioner"), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

TEST(DerModuleRanks, HairFileStrandsAreOptimisedIntoEquilibrium) {
  const std::string dir = test::scratchDir("der_hair");
  // Five strands in centimetres, read with scale 0.01.
  WispParams w;
  w.length = 0.1;
  auto strands = wisps(5, 16, w, 5);
  for (auto& s : strands)
    for (auto& x : s.x) x *= 100.0;
  if (Comm::world().isRoot()) writeHair(dir + "/wisps.hair", strands);
  Comm::world().barrier();
  const std::string scene = writeScene(dir, "module: der\nbackend: eigen\nder:\n  strands: {source: hair, file: " + dir +
                                                "/wisps.hair, scale: 0.01}\n  material: {radius: 1.0e-4}\n"
                                                "  optimize: {mu: 0.5, eps_p: 1.0e-12, k_max: 300}\n");
  runIn(dir + "/out", scene);
  const auto residual = readAll(dir + "/out/strands.h5", "/strands/results/relative_residual");
  ASSERT_EQ(residual.size(), 5u);
  for (double r : residual) EXPECT_LE(r, 1e-6);
  // Positions are the file's (float) coordinates scaled to metres.
  const auto pos = readAll(dir + "/out/strands.h5", "/strands/positions");
  EXPECT_NEAR(pos[3 * 16 + 2], static_cast<double>(static_cast<float>(strands[1].x[0][2])) * 0.01, 1e-12);
}

// Each rank reads only its strands (docs/modules/der.md, "Several ranks"): a .hair file with the
// strands in another order gives every strand bitwise the parameters it gets in the original order.
TEST(DerModuleRanks, ShuffledHairFileGivesEveryStrandTheSameParametersBitwise) {
  const std::string dir = test::scratchDir("der_hair_shuffled");
  WispParams w;
  w.length = 0.1;
  std::vector<StrandGeometry> strands = wisps(4, 10, w, 9);
  for (auto& g : wisps(3, 14, w, 10)) strands.push_back(g);  // two sizes: an uneven split
  const std::vector<std::size_t> order{5, 2, 6, 0, 3, 1, 4};   // file position -> original strand
  std::vector<StrandGeometry> shuffled;
  for (std::size_t k : order) shuffled.push_back(strands[k]);
  if (Comm::world().isRoot()) {
    writeHair(dir + "/a.hair", strands);
    writeHair(dir + "/b.hair", shuffled);
  }
  Comm::world().barrier();
  auto run = [&](const std::string& name) {
    const std::string scene = writeScene(dir, "module: der\nbackend: eigen\nder:\n  strands: {source: hair, file: " +
                                                  dir + "/" + name + ".hair}\n  material: {radius: 1.0e-4}\n"
                                                  "  optimize: {mu: 0.5, k_max: 15}\n");
    runIn(dir + "/" + name, scene);
    return std::make_pair(readAll(dir + "/" + name + "/strands.h5", "/strands/rest_kappa"),
                          readAll(dir + "/" + name + "/strands.h5", "/strands/c_bend"));
  };
  const auto [kappaA, bendA] = run("a");
  const auto [kappaB, bendB] = run("b");
  // Vertex offsets of both orders.
  std::vector<std::size_t> offA{0}, offB{0};
  for (const auto& g : strands) offA.push_back(offA.back() + g.x.size());
  for (const auto& g : shuffled) offB.push_back(offB.back() + g.x.size());
  ASSERT_EQ(bendA.size(), offA.back());
  ASSERT_EQ(bendB.size(), offB.back());
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    const std::size_t k = order[pos], n = strands[k].x.size();
    const std::vector<double> a(kappaA.begin() + 4 * offA[k], kappaA.begin() + 4 * (offA[k] + n));
    const std::vector<double> b(kappaB.begin() + 4 * offB[pos], kappaB.begin() + 4 * (offB[pos] + n));
    EXPECT_TRUE(bitwiseEqual(a, b)) << "strand " << k;
    EXPECT_TRUE(bitwiseEqual(std::vector<double>(bendA.begin() + offA[k], bendA.begin() + offA[k] + n),
                             std::vector<double>(bendB.begin() + offB[pos], bendB.begin() + offB[pos] + n)))
        << "strand " << k;
  }
}

// A bad strand is read only by the rank that owns it (the last one here), yet every rank stops
// with the same message naming the file and the strand, and none waits for the others.
TEST(DerModuleRanks, BadStrandInOneRanksRangeStopsEveryRankWithTheSameMessage) {
  const std::string dir = test::scratchDir("der_bad_strand");
  WispParams w;
  w.length = 0.1;
  std::vector<StrandGeometry> strands = wisps(6, 10, w, 4);
  if (Comm::world().isRoot()) {
    // writeHair refuses NaN: the coordinate is patched into the file (a quiet NaN, little-endian).
    writeHair(dir + "/nan.hair", strands);
    std::fstream f(dir + "/nan.hair", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(128 + 2 * 6 + 12 * (5 * 10 + 3) + 4);
    f.write("\x00\x00\xc0\x7f", 4);
  }
  strands.back().x[3].y() = std::nan("");
  if (Comm::world().isRoot()) {
    LocalStrands set;
    set.totalStrands = 6;
    set.vertexOffset.assign(1, 0);
    for (const auto& g : strands) set.vertexOffset.push_back(set.vertexOffset.back() + g.vertices());
    set.geometry = strands;
    writeStrandSet(dir + "/nan.h5", Comm::self(), set);
    // Strand-set files without /strands/theta and with positions for 4 of the 6 strands only.
    for (const char* name : {"/notheta.h5", "/short.h5"}) {
      io::H5File f(dir + name, io::H5File::Mode::create, Comm::self());
      f.createGroup("/strands");
      f.writeAttribute("/strands", "format", std::string("kinema-der-strands"));
      f.writeAttribute("/strands", "version", std::int64_t{1});
      f.writeAttribute("/strands", "strands", std::int64_t{6});
      f.writeAttribute("/strands", "vertices", std::int64_t{60});
      f.writeAttribute("/strands", "has_rest", std::int64_t{0});
      for (const char* a : {"radius", "density", "gravity_x", "gravity_y", "gravity_z"}) f.writeAttribute("/strands", a, 1.0);
      f.writeArray("/strands/vertex_offset", {7}, std::span<const std::int64_t>(set.vertexOffset));
      const bool isShort = std::string(name) == "/short.h5";
      const std::vector<double> pos(3 * (isShort ? 40 : 60), 0.0), theta(60, 0.0);
      f.writeArray("/strands/positions", {isShort ? 40u : 60u, 3}, std::span<const double>(pos));
      if (isShort) f.writeArray("/strands/theta", {60}, std::span<const double>(theta));
    }
    // A header that promises a seventh strand the file does not hold.
    std::vector<StrandGeometry> more = strands;
    more.back().x[3].y() = 0.0;
    more.push_back(more.back());
    writeHair(dir + "/short.hair", more);
    std::filesystem::resize_file(dir + "/short.hair", std::filesystem::file_size(dir + "/short.hair") - 12 * 10);
  }
  Comm::world().barrier();
  const std::string head = "module: der\nbackend: eigen\nder:\n  material: {radius: 1.0e-4}\n  strands: {source: ";
  std::string e = errorOf(dir, head + "hair, file: " + dir + "/nan.hair}\n");
  EXPECT_NE(e.find(dir + "/nan.hair"), std::string::npos) << e;
  EXPECT_NE(e.find("strand 5 vertex 3: coordinate y is NaN"), std::string::npos) << e;
  e = errorOf(dir, head + "file, file: " + dir + "/nan.h5}\n");
  EXPECT_NE(e.find(dir + "/nan.h5"), std::string::npos) << e;
  EXPECT_NE(e.find("strand 5 vertex 3 has a non-finite position"), std::string::npos) << e;
  e = errorOf(dir, head + "file, file: " + dir + "/notheta.h5}\n");
  EXPECT_NE(e.find(dir + "/notheta.h5: dataset /strands/theta is missing"), std::string::npos) << e;
  e = errorOf(dir, head + "file, file: " + dir + "/short.h5}\n");
  EXPECT_NE(e.find(dir + "/short.h5: dataset /strands/positions has 40 rows"), std::string::npos) << e;
  EXPECT_NE(e.find("strand 4 is the first whose rows are missing"), std::string::npos) << e;
  e = errorOf(dir, head + "hair, file: " + dir + "/short.hair}\n");
  EXPECT_NE(e.find(dir + "/short.hair"), std::string::npos) << e;
  EXPECT_NE(e.find("strand 6 of 7 is the first whose points are missing"), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}
