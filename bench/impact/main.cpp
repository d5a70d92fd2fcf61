// bench_impact: the measurements of issue 6 for the impact module (Vouga et al. 2017), side by side
// in one run.
//
//  1. instant: every impact operator (the four Gauss-Seidel rules, coloured Jacobi, GR) with
//     anti-locking off, eager and lazy on the one-instant test systems (scenes.hpp: cradle and
//     chains, wedges, parallel walls, two balls between walls, corner, mini-geyser, jammed box, hex
//     patches, random rigid bodies): iterations, median time, how the loop ended; then, per scene,
//     how often lineality is detected and what the detection costs as a fraction of the solve.
//  2. sim: the simulator's scenes (sim_generators.hpp: cradle, pool break, wedge, mini-geyser,
//     jammed box, a small 2D pile) over a few hundred steps with each operator and anti-locking
//     mode: total resolver iterations, largest per step, time per step, capped / cycling islands.
//  3. pile: N balls (3D, pile.yaml's material) settling under gravity onto the floor of an open box,
//     N = 1e3, 1e4, 1e5, at 1, 2, 4, ... and all ranks in one run (the distributed world: each rank
//     generates and owns its bodies): ms per step by phase, largest island, load imbalance, ghosts,
//     migrations, peak memory per rank from the OS, and whether the trajectory is bitwise the one of
//     one rank.
//
//   mpiexec -n 2 build/bin/bench_impact [--quick] [--sections instant,sim,pile]
//       [--pile-sizes 1000,10000,100000,1000,10000] [--pile-steps 40,40,40,200,100] [--pile-layers 4]
//       [--markdown FILE]
//
// Sections 1-2 run on rank 0. --quick (tiny sizes, no repeats) is what the test suite runs; it exits
// with status 1 if a check fails (a KIN-preserving operator not terminating on a scene without
// implicit equalities, eager/lazy anti-locking not terminating on a lineality scene, lazy not
// bitwise equal to off where no lineality exists, anti-locking leaving a simulated jammed-box island
// cycling or capped, a pile island hitting the cap, the pile trajectory at any rank count differing
// from one rank's, and, in full mode, the memory growth per rank at 2 and 4 ranks above
// 1.3 x (1-rank growth / P) + the per-process overhead).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "apps/builtins.hpp"
#include "framework/core/comm.hpp"
#include "framework/core/mpi_context.hpp"
#include "modules/impact/impact_operator.hpp"
#include "modules/impact/impact_params.hpp"
#include "modules/impact/resolver.hpp"
#include "modules/impact/scenes.hpp"
#include "modules/impact/sim_generators.hpp"
#include "modules/impact/sim_stepper.hpp"
#include "bench/common/bench_util.hpp"
#include "bench/common/idle_barrier.hpp"
#include "bench/common/memory.hpp"

using namespace kinema;
using namespace kinema::impact;

namespace {

using bench::fmt;
using bench::check;
using bench::failures;
using bench::now;

std::ostringstream md;  // the report, printed and optionally written as markdown

const std::vector<std::string> kOperators{"gs-lexicographic", "gs-random", "gs-most-violated", "gs-cyclic",
                                          "jacobi-colored", "gr"};
const std::vector<std::pair<AntiLockingMode, std::string>> kModes{
    {AntiLockingMode::Off, "off"}, {AntiLockingMode::Eager, "eager"}, {AntiLockingMode::Lazy, "lazy"}};

// ---- 1. one-instant systems -----------------------------------------------------------------

struct InstantScene {
  std::string name;
  scenes::Scene s;
  bool lineality;  // the scene holds implicit equalities (plain Algorithm 1/3/4 cannot end)
};

std::vector<InstantScene> instantScenes(bool quick) {
  std::vector<InstantScene> v;
  v.push_back({"cradle (1,0,0,0,0)", scenes::chain({1, 0, 0, 0, 0}), false});
  v.push_back({"chain (5,4,3,2,1)", scenes::chain({5, 4, 3, 2, 1}), false});
  v.push_back({"wedge 10 deg", scenes::wedge(10.0 * M_PI / 180.0), false});
  v.push_back({"wedge 1 deg", scenes::wedge(1.0 * M_PI / 180.0), false});
  v.push_back({"corner (Fig. 7)", scenes::corner(), false});
  v.push_back({"parallel walls (L1)", scenes::parallelWalls(), true});
  v.push_back({"two balls between walls", scenes::twoBallsBetweenWalls(), true});
  v.push_back({"mini-geyser symmetric (4.6a)", scenes::miniGeyser(true), true});
  v.push_back({"mini-geyser off-centre (4.6b)", scenes::miniGeyser(false), true});
  v.push_back({"mini-geyser symmetric, gap (4.6c)", scenes::miniGeyser(true, 4.001), false});
  v.push_back({"mini-geyser off-centre, gap (4.6c)", scenes::miniGeyser(false, 4.001), false});
  v.push_back({"jammed box 3x3 (L11)", scenes::jammedBox(3, 7), true});
  if (!quick) v.push_back({"jammed box 10x10", scenes::jammedBox(10, 7), true});
  v.push_back({"hex patch 19", scenes::hexCluster19(3), false});
  if (!quick) v.push_back({"hex patch 20x20", scenes::hexPatch(20, 20, 3), false});
  v.push_back({quick ? "random rigid 20 / 40" : "random rigid 100 / 300",
               quick ? scenes::randomRigid(20, 40, 11, true) : scenes::randomRigid(100, 300, 11, true), false});
  return v;
}

struct InstantRun {
  ResolverStats st;
  double seconds = 0.0;  // median wall time of repeated resolutions
  Eigen::VectorXd qdot;
};

InstantRun runInstant(const scenes::Scene& s, const std::string& op, AntiLockingMode mode, long cap, double minSeconds) {
  ResolverOptions o;
  o.antiLocking = mode;
  o.maxIterations = cap;
  o.stopOnCycle = true;  // memoryless operators stop at the first cycle (lineality reported)
  // The statistics (iterations, LP time) are those of the repetition with the median wall time, so
  // that the detection's share is not that of a repetition the (shared) machine preempted.
  std::vector<std::pair<double, InstantRun>> runs;
  const double start = now();
  do {
    auto R = makeImpactOperator(op);
    Resolver resolver(o);
    const double t0 = now();
    auto r = resolver.resolve(s.system, *R, s.qdot);
    InstantRun run;
    run.seconds = now() - t0;
    run.st = r.stats;
    run.qdot = r.qdot;
    runs.emplace_back(run.seconds, std::move(run));
  } while (now() - start < minSeconds && runs.size() < 200);
  std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return runs[runs.size() / 2].second;
}

std::string ending(const ResolverStats& st) {
  if (st.converged) return "";
  if (st.cycleDetected) return " (cycle p" + std::to_string(st.cyclePeriod) + ")";
  if (st.capReached) return " (cap)";
  return " (not converged)";
}

std::string ms(double s) { return fmt(s < 1e-3 ? "%.4f" : "%.3f", 1e3 * s); }

void instant(bool quick) {
  const long cap = quick ? 2000 : 20000;
  const double minSeconds = quick ? 0.0 : 0.02;
  const auto scenesList = instantScenes(quick);
  md << "## 1. Operators on the one-instant systems\n\n"
     << "Relaxed arithmetic (Algorithms 3/4, ϵ = 1e-10), iteration cap " << cap
     << ", stop at the first detected cycle (memoryless operators; gs-random is not memoryless and runs to the cap). "
        "Each cell: iterations / median ms"
     << (quick ? " (one resolution)" : " (repeated for at least 20 ms)")
     << "; \"cycle pK\" = the loop revisited a velocity with period K, \"cap\" = cap reached. Lazy anti-locking detects "
        "after K = 1000 iterations or at the first cycle of period >= 2. Time includes lineality detection; the detection shares are those of the median repetition.\n\n"
     << "| scene (m constraints) | operator | off | eager | lazy | eager: detection % of solve | lazy: detection % of solve |\n"
     << "| --- | --- | --- | --- | --- | --- | --- |\n";
  struct LinRow {
    std::string scene;
    int m = 0;
    int detections = 0, runs = 0, implicit = 0, rank = 0, lps = 0;
    double lpSeconds = 0.0, solveSeconds = 0.0, lazyDetections = 0;
  };
  std::vector<LinRow> lin;
  for (const auto& sc : scenesList) {
    LinRow row;
    row.scene = sc.name;
    row.m = sc.s.system.numConstraints();
    for (const auto& op : kOperators) {
      InstantRun r[3];
      for (int k = 0; k < 3; ++k) r[k] = runInstant(sc.s, op, kModes[static_cast<std::size_t>(k)].first, cap, minSeconds);
      md << "| " << sc.name << " (" << row.m << ") | " << op;
      for (int k = 0; k < 3; ++k) md << " | " << r[k].st.iterations << " / " << ms(r[k].seconds) << ending(r[k].st);
      md << " | " << fmt("%.0f", 100.0 * r[1].st.lpSeconds / std::max(1e-12, r[1].st.seconds)) << " | "
         << (r[2].st.linealityDetections ? fmt("%.0f", 100.0 * r[2].st.lpSeconds / std::max(1e-12, r[2].st.seconds)) : "-")
         << " |\n";
      // eager: one detection per resolution; count it, its LPs and its share of the solve
      ++row.runs;
      row.detections += r[1].st.linealityDetections;
      row.lazyDetections += r[2].st.linealityDetections;
      row.implicit = std::max(row.implicit, r[1].st.implicitEqualities);
      row.rank = std::max(row.rank, r[1].st.linealityRank);
      row.lps = std::max(row.lps, r[1].st.lpSolves);
      row.lpSeconds += r[1].st.lpSeconds;
      row.solveSeconds += r[1].st.seconds;
      const bool kinOp = op != "jacobi-naive";
      if (!sc.lineality && kinOp) {
        // gs-random may exceed the cap on hard scenes only through bad luck; it must still end.
        check(r[0].st.converged, op + " terminates without anti-locking on " + sc.name);
        check(r[2].st.linealityDetections == 0 || r[2].st.iterations > 1000,
              "lazy detects only after K iterations on " + sc.name);
        if (op != "gs-random" && r[0].st.converged && r[0].st.iterations <= 1000)
          check(r[0].qdot == r[2].qdot, "lazy equals off bitwise on " + sc.name + " with " + op);
      }
      if (sc.lineality) {
        check(r[1].st.converged, "eager anti-locking terminates on " + sc.name + " with " + op);
        check(r[2].st.converged, "lazy anti-locking terminates on " + sc.name + " with " + op);
      }
    }
    lin.push_back(row);
  }
  md << "\n### Lineality detection (eager: one detection per resolution; over the " << kOperators.size()
     << " operators)\n\n"
     << "| scene | m | implicit equalities | dim E | LPs per detection | detection ms | detection % of eager solve | lazy detections / runs |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& r : lin)
    md << "| " << r.scene << " | " << r.m << " | " << r.implicit << " | " << r.rank << " | " << r.lps << " | "
       << ms(r.lpSeconds / std::max(1, r.runs)) << " | " << fmt("%.0f", 100.0 * r.lpSeconds / std::max(1e-12, r.solveSeconds))
       << " | " << r.lazyDetections << " / " << r.runs << " |\n";
  md << "\n";
}

// ---- 2. simulated scenes ----------------------------------------------------------------------
struct SimRun {
  std::int64_t iterations = 0, iterationsMax = 0, caps = 0, cycles = 0, notConverged = 0, resolved = 0;
  std::int64_t constraintsMax = 0;
  double seconds = 0.0, resolveSeconds = 0.0, detectSeconds = 0.0, exchangeSeconds = 0.0;
  double imbalance = 0.0;  // mean over steps of the simulator's max rank load / mean
  long steps = 0;
  std::vector<double> v;  // final velocities (equality checks)
};

SimRun runSim(SimWorld w, SimOptions o, long steps, const Comm& comm) {
  SimRun r;
  SimStepper sim(std::move(w), o, comm);
  const double t0 = now();
  for (long k = 0; k < steps; ++k) {
    const SimStepStats& s = sim.step();
    r.iterations += s.iterationsTotal;
    r.iterationsMax = std::max(r.iterationsMax, s.iterationsMax);
    r.caps += s.caps;
    r.cycles += s.cycles;
    r.notConverged += s.notConverged;
    r.resolved += s.resolvedIslands;
    r.constraintsMax = std::max(r.constraintsMax, s.constraints);
    r.resolveSeconds += s.secondsResolve;
    r.detectSeconds += s.secondsDetect + s.secondsIslands;
    r.exchangeSeconds += s.secondsExchange;
    r.imbalance += s.imbalance / static_cast<double>(steps);
  }
  r.seconds = now() - t0;
  r.steps = steps;
  for (const SimBody& b : sim.world().bodies)
    for (int a = 0; a < 3; ++a) r.v.push_back(b.v[a]);
  return r;
}

struct SimScene {
  std::string name;
  SimWorld world;
  double dt;
  long steps;
  long cap;
};

void simScenes(bool quick) {
  const long f = quick ? 4 : 1;  // quick: a quarter of the steps
  std::vector<SimScene> list;
  {
    SimWorld w = generators::wedge(10.0 * M_PI / 180.0, 1.0, 1.0, 1.0);
    w.gravity = Eigen::Vector3d(0, -9.81, 0);
    list.push_back({"cradle 5 (dt 0.01)", generators::cradle(5, 1.0, 1.0, 1.0, 2), 0.01, 200 / f, 2000});
    list.push_back({"pool break 15+1 (dt 5e-4)", generators::poolBreak(5, 0.028575, 1.0, 5.0), 5e-4, 400 / f, 2000});
    list.push_back({"wedge 10 deg, gravity (dt 1e-3)", w, 1e-3, 400 / f, 2000});
  }
  list.push_back({"mini-geyser symmetric (dt 0.01)", generators::miniGeyser(true, 0.0, 1.0, 1.0), 0.01, 100 / f, 2000});
  list.push_back({"jammed box 3x3 (dt 0.01)", generators::jammedBox(3, 1.0, 1.0, 1), 0.01, 100 / f, 2000});
  {
    SimWorld w = generators::pile({.n = quick ? 60 : 200, .radius = 0.005, .mass = 1.0, .width = 0.1, .spacing = 0.05,
        .jitter = 0.1, .seed = 1, .dimension = 2});
    list.push_back({std::string("2D pile ") + (quick ? "60" : "200") + " (dt 1e-3)", w, 1e-3, 300 / f, 2000});
  }
  md << "## 2. Simulated scenes\n\n"
     << "SimStepper on one rank, elastic (c_r = 1), no friction, iteration cap per island as listed, stop at the first "
        "cycle. Per run: total resolver iterations over all steps, the most in one island, ms per step (whole step), "
        "islands that cycled or hit the cap. Steps: as listed"
     << (quick ? " (quick: a quarter)" : "") << ".\n\n"
     << "| scene (steps, cap) | operator | anti-locking | iterations | max / island | ms / step | resolve ms / step | cycles | caps |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& sc : list) {
    for (const auto& op : kOperators) {
      std::vector<double> offV;
      for (const auto& [mode, modeName] : kModes) {
        SimOptions o;
        o.dt = sc.dt;
        o.impact.op = op;
        o.impact.restitution = 1.0;
        o.impact.resolver.antiLocking = mode;
        o.impact.resolver.maxIterations = sc.cap;
        o.impact.resolver.stopOnCycle = true;
        const SimRun r = runSim(sc.world, o, sc.steps, Comm::self());
        md << "| " << sc.name << " (" << sc.steps << ", " << sc.cap << ") | " << op << " | " << modeName << " | "
           << r.iterations << " | " << r.iterationsMax << " | " << ms(r.seconds / r.steps) << " | "
           << ms(r.resolveSeconds / r.steps) << " | " << r.cycles << " | " << r.caps << " |\n";
        if (mode != AntiLockingMode::Off && sc.name.rfind("jammed", 0) == 0)
          check(r.caps == 0 && r.cycles == 0, "anti-locking " + modeName + " ends every jammed-box impact with " + op);
      }
    }
  }
  md << "\n";
}

// ---- 3. pile scaling ----------------------------------------------------------------------------
// pile.yaml's balls (r = 5 mm, spacing 0.05, jitter 0.1), `layers` layers: the box is as wide as
// n / layers balls per layer need. Each rank generates only its block of balls.
SimWorld pileWorld(int n, int layers, SimOptions& o, std::int64_t first, std::int64_t last) {
  const double r = 0.005, spacing = 0.05, jitter = 0.1;
  const double pitch = 2.0 * r * (1.0 + spacing + std::sqrt(3.0) * jitter);
  const int across = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n) / layers)));
  const double width = 2.0 * r * (1.0 + jitter) + pitch * (across - 1) + 1e-9;
  o.dt = 1e-3;
  o.impact.op = "gs-lexicographic";
  o.impact.restitution = 0.2;
  o.impact.operatorOptions.qpTolerance = 1e-10;
  o.impact.friction.mu = 0.3;
  return generators::pile({.n = n, .radius = r, .mass = 1.0, .width = width, .spacing = spacing,
      .jitter = jitter, .seed = 1, .dimension = 3}, first, last);
}

struct PileRun {
  int ranks = 1;
  double seconds = 0.0;  // wall, max over ranks
  double detect = 0.0, islands = 0.0, resolve = 0.0, exchange = 0.0, migrate = 0.0, integrate = 0.0, output = 0.0;
  std::int64_t largestIsland = 0, caps = 0, migrated = 0, crossRank = 0, ghosts = 0, rebuilds = 0, constraintsMax = 0;
  double imbalanceMax = 1.0;
  double peakMb = 0.0, growthMb = 0.0;  // max over ranks: VmHWM, VmHWM − RSS before the set-up
  std::uint64_t hash = 0;               // of every body's final x, v (order-free)
};

std::uint64_t mix(std::uint64_t h) {  // splitmix64's finaliser
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

// The pile of n balls for `steps` steps on `comm` (collective on it), bodies generated per rank.
PileRun runPile(int n, long steps, int layers, const Comm& comm) {
  PileRun r;
  r.ranks = comm.size();
  bench::resetPeakRss();
  const long rss0 = bench::statusKb("VmRSS");
  const std::int64_t first = std::int64_t{n} * comm.rank() / comm.size(), last = std::int64_t{n} * (comm.rank() + 1) / comm.size();
  SimOptions o;
  SimWorld part = pileWorld(n, layers, o, first, last);
  part.gravity = Eigen::Vector3d(0, 0, -9.81);
  comm.barrier();
  const double t0 = now();
  SimStepper sim(std::move(part), o, comm, WorldInput::Distributed);
  for (long k = 0; k < steps; ++k) {
    const SimStepStats& s = sim.step();
    r.detect += s.secondsDetect;
    r.islands += s.secondsIslands;
    r.resolve += s.secondsResolve;
    r.exchange += s.secondsExchange;
    r.migrate += s.secondsMigrate;
    r.integrate += s.secondsIntegrate;
    r.largestIsland = std::max(r.largestIsland, s.largestIsland);
    r.constraintsMax = std::max(r.constraintsMax, s.constraints);
    r.caps += s.caps;
    r.migrated += s.migrated;
    r.crossRank += s.crossRankIslands;
    r.ghosts += s.ghosts;
    r.imbalanceMax = std::max(r.imbalanceMax, s.imbalance);
  }
  // Output: the bodies to their block of rows (what a frame or checkpoint write does before HDF5).
  const double t1 = now();
  std::vector<SimBody> rows;
  std::int64_t firstRow = 0;
  sim.blockRows(rows, firstRow);
  r.output = comm.max(now() - t1);
  r.seconds = comm.max(now() - t0);
  r.rebuilds = sim.rebuilds();
  std::uint64_t h = 0;
  for (const SimBody& b : sim.world().bodies) {
    std::uint64_t x = mix(static_cast<std::uint64_t>(b.id) + 1);
    for (int a = 0; a < 3; ++a) {
      std::uint64_t bits[2];
      std::memcpy(&bits[0], &b.x[a], 8);
      std::memcpy(&bits[1], &b.v[a], 8);
      x = mix(x ^ bits[0]) ^ mix(x + bits[1]);
    }
    h += x;
  }
  MPI_Allreduce(&h, &r.hash, 1, MPI_UINT64_T, MPI_SUM, comm.raw());
  const long peak = bench::statusKb("VmHWM");
  r.peakMb = comm.max(static_cast<double>(peak) / 1024.0);
  r.growthMb = comm.max(static_cast<double>(peak - rss0) / 1024.0);
  return r;
}

// MPI's own buffers (the shared-memory transport maps and touches them on the first large
// messages): a warm-up exchange of 1 MB per rank pair, freed again; returns the resident memory it
// left (max over ranks, MB). After it, the pile's growth is Kinema's own.
double warmMpi(const Comm& comm) {
  bench::resetPeakRss();
  const long rss0 = bench::statusKb("VmRSS");
  {
    std::vector<std::vector<double>> send(static_cast<std::size_t>(comm.size()), std::vector<double>(1 << 17, 1.0));
    const auto recv = comm.alltoallv(send);
  }
  bench::resetPeakRss();
  return comm.max(static_cast<double>(bench::statusKb("VmRSS") - rss0) / 1024.0);
}

void pileScaling(const std::vector<int>& sizes, const std::vector<long>& steps, int layers, bool quick) {
  Comm world = Comm::world();
  std::vector<int> counts;
  for (int p = 1; p < world.size(); p *= 2) counts.push_back(p);
  counts.push_back(world.size());
  if (world.isRoot())
    md << "## 3. Pile scaling: N balls settling under gravity at 1 .. " << world.size() << " ranks\n\n"
       << "3D spheres of pile.yaml (r = 5 mm, unit mass, dropped from rest from a jittered lattice of " << layers
       << " layers into an open box as wide as the layers need), dt = 1 ms, gs-lexicographic, c_r = 0.2, friction "
          "mu = 0.3. The first S steps from the drop. Each rank count runs on the first P ranks (the others wait); each rank "
          "generates only its block of balls, the simulator distributes them (RCB subdomains, ghosts, islands gathered to "
          "their root; docs/modules/impact.md, Distributed world). ms per step by phase (max over ranks): detect, islands "
          "(labels and gathering), resolve, exchange (ghosts and velocities), migrate (rebalance and migration), output "
          "(the bodies to their block of rows, once). Memory per rank from /proc/self/status: peak (VmHWM, reset before "
          "the run) and its growth over the RSS before the set-up, max over ranks. `MPI` is what MPI's own buffers keep "
          "resident after a warm-up exchange of 1 MB per rank pair, done first (so the growth that follows is Kinema's); "
          "`fixed` is the growth of a 100-ball pile at the same rank count (the per-process overhead), and the bound is "
          "1.3 x (1-rank growth / P) + fixed.\n\n"
       << "| N | S | P | ms / step | speed-up | detect | islands | resolve | exchange | migrate | output | largest island | "
          "max imbalance | ghosts / step | cross-rank islands / step | migrated | RCB builds | peak MB / rank | growth MB / rank "
          "| MPI MB | fixed MB | bound MB | same trajectory |\n"
       << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const int n = sizes[k];
    const long s = steps[std::min(k, steps.size() - 1)];
    PileRun one;
    for (int P : counts) {
      MPI_Comm sub = MPI_COMM_NULL;
      MPI_Comm_split(world.raw(), world.rank() < P ? 0 : MPI_UNDEFINED, world.rank(), &sub);
      PileRun r, tiny;
      double mpiMb = 0.0;
      if (sub != MPI_COMM_NULL) {
        const Comm c(sub);
        mpiMb = warmMpi(c);
        tiny = runPile(100, 5, layers, c);
        r = runPile(n, s, layers, c);
        MPI_Comm_free(&sub);
      }
      bench::idleBarrier(world);
      if (!world.isRoot()) continue;
      if (P == 1) one = r;
      const double bound = 1.3 * one.growthMb / P + tiny.growthMb;
      const bool same = r.hash == one.hash;
      check(same, "pile " + std::to_string(n) + ": the same trajectory at 1 and " + std::to_string(P) + " ranks");
      check(r.caps == 0, "pile " + std::to_string(n) + ": no island hits the iteration cap");
      // The memory bound is checked where the scene dominates the process (not in quick mode).
      if (!quick && P > 1 && P <= 4)
        check(r.growthMb <= bound, "pile " + std::to_string(n) + ": memory growth per rank " + fmt("%.1f", r.growthMb) +
                                       " MB at " + std::to_string(P) + " ranks within the bound " + fmt("%.1f", bound));
      const auto per = [&](double x) { return ms(x / s); };
      md << "| " << n << " | " << s << " | " << P << " | " << per(r.seconds) << " | " << fmt("%.2f", one.seconds / r.seconds)
         << " | " << per(r.detect) << " | " << per(r.islands) << " | " << per(r.resolve) << " | " << per(r.exchange) << " | "
         << per(r.migrate) << " | " << ms(r.output) << " | " << r.largestIsland << " | " << fmt("%.2f", r.imbalanceMax)
         << " | " << fmt("%.0f", static_cast<double>(r.ghosts) / s) << " | " << fmt("%.1f", static_cast<double>(r.crossRank) / s)
         << " | " << r.migrated << " | " << r.rebuilds << " | " << fmt("%.1f", r.peakMb) << " | " << fmt("%.1f", r.growthMb)
         << " | " << fmt("%.1f", mpiMb) << " | " << fmt("%.1f", tiny.growthMb) << " | " << (P == 1 ? std::string("-") : fmt("%.1f", bound)) << " | "
         << (same ? "bitwise" : "DIFFERENT") << " |\n";
      std::cout << "pile " << n << " at " << P << " ranks done\n" << std::flush;
    }
  }
  if (world.isRoot()) md << "\n";
}

template <class T>
std::vector<T> splitList(const std::string& s) {
  std::vector<T> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    if constexpr (std::is_same_v<T, std::string>) out.push_back(item);
    else out.push_back(static_cast<T>(std::stod(item)));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  MpiContext mpi(&argc, &argv);
  registerBuiltins();
  Comm world = Comm::world();
  bool quick = false;
  std::vector<std::string> sections{"instant", "sim", "pile"};
  // Same first 40 steps for every N (all three sizes), then longer runs of the two smaller piles.
  std::vector<int> sizes{1000, 10000, 100000, 1000, 10000};
  std::vector<long> steps{40, 40, 40, 200, 100};
  int layers = 4;
  std::string markdown;
  bool sizesSet = false, stepsSet = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--quick") quick = true;
    else if (a == "--sections") sections = splitList<std::string>(next());
    else if (a == "--pile-sizes") sizes = splitList<int>(next()), sizesSet = true;
    else if (a == "--pile-steps") steps = splitList<long>(next()), stepsSet = true;
    else if (a == "--pile-layers") layers = std::stoi(next());
    else if (a == "--markdown") markdown = next();
    else {
      if (world.isRoot())
        std::cerr << "usage: bench_impact [--quick] [--sections instant,sim,pile] [--pile-sizes 1000,10000,100000,...]\n"
                     "       [--pile-steps 40,40,40,...] [--pile-layers 4] [--markdown FILE]\n";
      return 64;
    }
  }
  if (quick && !sizesSet) sizes = {100, 400};
  if (quick && !stepsSet) steps = {60};
  auto has = [&](const char* s) { return std::find(sections.begin(), sections.end(), s) != sections.end(); };
  const double t0 = now();
  if (world.isRoot()) {
    md << "# bench_impact" << (quick ? " --quick" : "") << " (" << world.size() << " ranks)\n\n";
    if (has("instant")) instant(quick);
    if (has("sim")) simScenes(quick);
  }
  world.barrier();
  if (has("pile")) pileScaling(sizes, steps, layers, quick);
  if (world.isRoot()) {
    md << "Total wall time " << fmt("%.1f", now() - t0) << " s.\n";
    std::cout << md.str();
    if (!markdown.empty()) std::ofstream(markdown) << md.str();
    if (failures) std::cout << failures << " check(s) failed\n";
  }
  return world.any(failures > 0) ? 1 : 0;
}
