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
//     N = 1e3, 1e4, 1e5: time per step and iterations per resolved island against N, run by rank 0
//     alone (SimStepper on MPI_COMM_SELF while the other ranks wait) and then by all ranks (the
//     simulator distributes the islands over the world communicator), and the ratio of the two.
//
//   mpiexec -n 2 build/bin/bench_impact [--quick] [--sections instant,sim,pile]
//       [--pile-sizes 1000,10000,100000,1000,10000] [--pile-steps 40,40,40,200,100] [--pile-layers 4]
//       [--markdown FILE]
//
// Sections 1-2 run on rank 0. --quick (tiny sizes, no repeats) is what the test suite runs; it exits
// with status 1 if a check fails (a KIN-preserving operator not terminating on a scene without
// implicit equalities, eager/lazy anti-locking not terminating on a lineality scene, lazy not
// bitwise equal to off where no lineality exists, anti-locking leaving a simulated jammed-box island
// cycling or capped, a pile island hitting the cap, the pile trajectories at 1 and all ranks
// differing).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/core/mpi_context.hpp"
#include "modules/impact/impact_operator.hpp"
#include "modules/impact/impact_params.hpp"
#include "modules/impact/resolver.hpp"
#include "modules/impact/scenes.hpp"
#include "modules/impact/sim_generators.hpp"
#include "modules/impact/sim_stepper.hpp"
#include "bench/common/bench_util.hpp"

namespace kinema {
void registerBuiltins();
}

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
    SimWorld w = generators::pile(quick ? 60 : 200, 0.005, 1.0, 0.1, 0.05, 0.1, 1, 2);
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
SimWorld pileWorld(int n, int layers, SimOptions& o) {
  // pile.yaml's balls (r = 5 mm, spacing 0.05, jitter 0.1), `layers` layers: the box is as wide as
  // n / layers balls per layer need.
  const double r = 0.005, spacing = 0.05, jitter = 0.1;
  const double pitch = 2.0 * r * (1.0 + spacing + std::sqrt(3.0) * jitter);
  const int across = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n) / layers)));
  const double width = 2.0 * r * (1.0 + jitter) + pitch * (across - 1) + 1e-9;
  o.dt = 1e-3;
  o.impact.op = "gs-lexicographic";
  o.impact.restitution = 0.2;
  o.impact.operatorOptions.qpTolerance = 1e-10;
  o.impact.friction.mu = 0.3;
  return generators::pile(n, r, 1.0, width, spacing, jitter, 1, 3);
}

void pileScaling(const std::vector<int>& sizes, const std::vector<long>& steps, int layers) {
  Comm world = Comm::world();
  if (world.isRoot())
    md << "## 3. Pile scaling: N balls settling under gravity, 1 rank vs " << world.size() << " ranks\n\n"
       << "3D spheres of pile.yaml (r = 5 mm, unit mass, dropped from rest from a jittered lattice of " << layers
       << " layers into an open box as wide as the layers need), dt = 1 ms, gs-lexicographic, c_r = 0.2 (inelastic QP + "
          "elastic GS blend per island), friction mu = 0.3, lazy anti-locking. The first S steps from the drop (the lowest layer "
          "lands after about 10 steps, the upper ones fall onto it; all layers are in contact after about 90 steps). 1 rank: SimStepper on "
          "MPI_COMM_SELF on rank 0 while the other ranks wait; then all ranks on MPI_COMM_WORLD (islands distributed, "
          "velocities allgathered). Iterations per island: resolver iterations summed over the steps / islands resolved.\n\n"
       << "| N | steps S | constraints (max per step) | islands resolved / step | iterations / island | 1 rank ms / step | "
       << world.size() << " ranks ms / step | speed-up | same trajectory |\n"
       << "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  std::ostringstream phases;
  phases << "Per phase (ms per step; the simulator's figures, max over ranks; detection and islands are replicated on "
            "every rank, only the resolution is distributed):\n\n"
         << "| N | 1 rank: detect + islands | resolve | exchange | " << world.size() << " ranks: detect + islands | resolve | "
         << "exchange | resolve speed-up | load imbalance (max / mean) |\n"
         << "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const int n = sizes[k];
    const long s = steps[std::min(k, steps.size() - 1)];
    SimOptions o;
    const SimWorld w = pileWorld(n, layers, o);
    SimRun one;
    world.barrier();
    if (world.isRoot()) one = runSim(w, o, s, Comm::self());
    world.barrier();
    const double t0 = now();
    SimRun all = runSim(w, o, s, world);
    const double wall = world.max(now() - t0);
    bool same = true;
    if (world.isRoot()) same = one.v == all.v;
    same = world.all(same);
    check(same, "pile " + std::to_string(n) + ": the same trajectory at 1 and all ranks");
    check(all.caps == 0, "pile " + std::to_string(n) + ": no island hits the iteration cap");
    if (world.isRoot()) {
      const double perIsland = static_cast<double>(one.iterations) / std::max<std::int64_t>(1, one.resolved);
      md << "| " << n << " | " << s << " | " << one.constraintsMax << " | " << fmt("%.1f", static_cast<double>(one.resolved) / s)
         << " | " << fmt("%.1f", perIsland) << " | " << ms(one.seconds / s) << " | " << ms(wall / s) << " | "
         << fmt("%.2f", one.seconds / wall) << " | " << (same ? "bitwise" : "DIFFERENT") << " |\n";
      phases << "| " << n << " | " << ms(one.detectSeconds / s) << " | " << ms(one.resolveSeconds / s) << " | "
             << ms(one.exchangeSeconds / s) << " | " << ms(all.detectSeconds / s) << " | " << ms(all.resolveSeconds / s)
             << " | " << ms(all.exchangeSeconds / s) << " | " << fmt("%.2f", one.resolveSeconds / std::max(1e-12, all.resolveSeconds))
             << " | " << fmt("%.2f", all.imbalance) << " |\n";
      std::cout << "pile " << n << " done\n" << std::flush;
    }
  }
  if (world.isRoot()) md << "\n" << phases.str() << "\n";
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
  if (has("pile")) pileScaling(sizes, steps, layers);
  if (world.isRoot()) {
    md << "Total wall time " << fmt("%.1f", now() - t0) << " s.\n";
    std::cout << md.str();
    if (!markdown.empty()) std::ofstream(markdown) << md.str();
    if (failures) std::cout << failures << " check(s) failed\n";
  }
  return world.any(failures > 0) ? 1 : 0;
}
