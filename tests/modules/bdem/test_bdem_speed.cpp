// The speed work on the implicit path (issue 14, item 4), checked for correctness only (timings are
// in bench_bdem, never in tests):
//  - linear.reuse_preconditioner (none / interpolation / full) gives the same Newton solution,
//    to the solver's tolerance, on every backend, and decides reuse only for a refill of the same
//    matrix and pattern;
//  - projectPSD's LDL^T fast path (skips the eigen-decomposition of a semidefinite element block)
//    gives the eigenvalue clamp's result;
//  - the energy, gradient and Hessian element loops of a Newton iteration do not allocate after
//    the first iteration (eigen backend, pattern reused);
//  - the per-phase timers of Newton and of the implicit step are non-negative and sum to at most
//    the step's wall time.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/solve_support.hpp"
#include "framework/solvers/manifold_rigid.hpp"
#include "framework/solvers/newton_psd.hpp"
#include "modules/bdem/incremental_potential.hpp"
#include "tests/common/allocation_counter.hpp"
#include "modules/bdem/domain.hpp"
#include "modules/bdem/explicit_stepper.hpp"
#include "modules/bdem/implicit_stepper.hpp"
#include "modules/bdem/scene_builder.hpp"

namespace kinema::bdem {
namespace {

// A small clamped beam drape (E = 1e7, about 300 particles): bending under gravity, several
// Newton iterations per step of dt = 30 T.
System drapeScene() {
  BeamDrapeOptions o;
  o.beam = BeamGeometry{0.2, 0.03, 0.03, 0.0075};
  o.supportLength = 0.02;
  o.body.material = Material{1e7, 0.3, 1000, kUnbreakable, kUnbreakable};
  return buildBeamDrape(o);
}

struct DrapeRun {
  std::map<GlobalId, Vec3> p;  // final positions by global index
  std::vector<StepStats> steps;
  double size = 0;
};

DrapeRun runDrape(const std::string& backendName, const std::string& pc, const std::string& reuse, int steps) {
  System s = drapeScene();
  Domain domain(Comm::self());
  const double T = characteristicPeriod(s, Comm::self());
  const double dt = 30 * T;
  IntegratorOptions o;
  o.integrator = "implicit";
  o.tolerance = 1e-9;
  o.newton.forcing = "fixed";
  o.newton.linear.type = "cg";
  o.newton.linear.preconditioner = pc;
  o.newton.linear.rtol = 1e-10;
  o.newton.linear.maxIterations = 5000;
  o.newton.linear.reusePreconditioner = reuse;
  o.newton.maxIterations = 60;
  domain.distribute(s, ghostReach(s, Comm::self(), o.contactPadding, dt));
  auto backend = la::createBackend(backendName);
  ImplicitStepper stepper(s, domain, *backend, o);
  DrapeRun r;
  r.size = 0.2;
  for (int k = 0; k < steps; ++k) {
    stepper.newton().resetPattern();  // as bdem.fresh_pattern does (decision 12)
    r.steps.push_back(stepper.step(dt));
  }
  for (std::size_t a = 0; a < s.P.numOwned; ++a) r.p[s.P.gid[a]] = s.P.p[a];
  return r;
}

double maxDifference(const DrapeRun& a, const DrapeRun& b) {
  double d = 0;
  for (const auto& [g, p] : a.p) d = std::max(d, (p - b.p.at(g)).norm());
  return d;
}

bool available(const std::string& name) {
  for (const std::string& n : la::backends().names())
    if (n == name) return true;
  return false;
}

TEST(BdemSpeed, PreconditionerReuseGivesTheSameNewtonSolution) {
  struct Case {
    std::string backend, pc;
  };
  for (const Case& c : {Case{"eigen", "ic0"}, Case{"petsc", "amg"}, Case{"trilinos", "amg"}}) {
    if (!available(c.backend)) continue;
    SCOPED_TRACE(c.backend + " " + c.pc);
    const DrapeRun none = runDrape(c.backend, c.pc, "none", 2);
    int iterations = 0;
    for (const StepStats& st : none.steps) {
      EXPECT_TRUE(st.converged) << st.reason;
      iterations += st.newtonIterations;
    }
    EXPECT_GE(iterations, 4) << "the scene should take several Newton iterations per step (refills to reuse on)";
    for (const std::string reuse : {"interpolation", "full"}) {
      SCOPED_TRACE(reuse);
      const DrapeRun r = runDrape(c.backend, c.pc, reuse, 2);
      for (const StepStats& st : r.steps) EXPECT_TRUE(st.converged) << st.reason;
      // Both converged to the dimensionless tolerance 1e-9 (the module's measure) with CG to 1e-10: the same
      // minimiser to far below a micrometre on a 0.2 m beam that sags by millimetres.
      EXPECT_LT(maxDifference(none, r), 1e-7 * r.size);
    }
  }
}

TEST(BdemSpeed, ReuseIsDecidedOnlyForARefillOfTheSamePattern) {
  for (const std::string& name : la::backends().names()) {
    SCOPED_TRACE(name);
    auto backend = la::createBackend(name);
    auto map = la::IndexMap::uniform(Comm::self(), 4, 1);
    auto assembler = backend->createAssembler(map, map);
    auto assemble = [&](double v, bool offDiagonal) {
      assembler->begin();
      for (la::GlobalIndex i = 0; i < 4; ++i) assembler->addScalar(i, i, v);
      if (offDiagonal) {
        assembler->addScalar(0, 1, -0.1);
        assembler->addScalar(1, 0, -0.1);
      }
      return assembler->end();
    };
    la::MatrixPtr A = assemble(2.0, false);
    la::PreconditionerReuse full("full"), none("none");
    EXPECT_FALSE(full.keep(A)) << "nothing set up yet";
    full.record(A);
    none.record(A);
    const std::uint64_t pattern = A->patternVersion();
    A = assemble(3.0, false);  // refill: same object, same pattern, new values
    EXPECT_EQ(A->patternVersion(), pattern);
    EXPECT_TRUE(full.keep(A));
    EXPECT_FALSE(none.keep(A));
    A = assemble(3.0, true);  // a block outside the pattern: rebuilt
    EXPECT_NE(A->patternVersion(), pattern);
    EXPECT_FALSE(full.keep(A));
    full.record(A);
    assembler->resetPattern();
    A = assemble(3.0, true);  // the same blocks after resetPattern (bdem.fresh_pattern): a new pattern
    EXPECT_FALSE(full.keep(A));
    EXPECT_THROW(la::checkReusePolicy("sometimes", "test"), InputError);
  }
}

TEST(BdemSpeed, PhaseTimersAreNonNegativeAndBoundedByTheStep) {
  const DrapeRun r = runDrape("eigen", "ic0", "none", 2);
  for (const StepStats& st : r.steps) {
    const StepPhases& ph = st.phases;
    for (double t : {ph.newton.energy, ph.newton.gradient, ph.newton.assemble, ph.newton.preconditioner,
                     ph.newton.krylov, ph.newton.lineSearch, ph.contact, ph.friction, ph.fracture})
      EXPECT_GE(t, 0.0);
    EXPECT_EQ(ph.step, st.seconds);
    EXPECT_LE(ph.sum(), ph.step);
    // Each Newton iteration assembles, sets up and solves: those phases were measured.
    EXPECT_GT(ph.newton.assemble, 0.0);
    EXPECT_GT(ph.newton.krylov, 0.0);
  }
}

// The clamp computed independently: V max(lambda, floor) V^T.
Eigen::Matrix<double, 12, 12> clampReference(const Eigen::Matrix<double, 12, 12>& H, double floor) {
  const Eigen::Matrix<double, 12, 12> S = 0.5 * (H + H.transpose());
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 12, 12>> es(S);
  const Eigen::Matrix<double, 12, 1> l = es.eigenvalues().cwiseMax(floor);
  return es.eigenvectors() * l.asDiagonal() * es.eigenvectors().transpose();
}

TEST(BdemSpeed, PsdFastPathAgreesWithTheEigenvalueClamp) {
  std::srand(7);
  for (int trial = 0; trial < 50; ++trial) {
    // Semidefinite of rank 6 (a bond element has rigid-body null directions): left as it is.
    const Eigen::Matrix<double, 12, 6> B = Eigen::Matrix<double, 12, 6>::Random();
    Eigen::Matrix<double, 12, 12> H = 1e7 * B * B.transpose();
    const Eigen::Matrix<double, 12, 12> psd = H;
    solvers::projectPSD(H);
    EXPECT_LT((H - psd).norm(), 1e-12 * psd.norm());
    // Indefinite: the clamp.
    const Eigen::Matrix<double, 12, 12> C = Eigen::Matrix<double, 12, 12>::Random();
    H = 1e7 * (C + C.transpose());
    const Eigen::Matrix<double, 12, 12> ref = clampReference(H, 0.0);
    EXPECT_GT(solvers::projectPSD(H), 0);
    EXPECT_LT((H - ref).norm(), 1e-12 * ref.norm());
    // Definite, with a floor below its smallest eigenvalue: unchanged; with a floor above: clamped.
    H = psd + 2.0 * Eigen::Matrix<double, 12, 12>::Identity();
    const Eigen::Matrix<double, 12, 12> pd = H;
    EXPECT_EQ(solvers::projectPSD(H, 1.0), 0);
    EXPECT_EQ(H, pd);
    EXPECT_GT(solvers::projectPSD(H, 3.0), 0);
    EXPECT_LT((H - clampReference(pd, 3.0)).norm(), 1e-12 * pd.norm());
  }
}

TEST(BdemSpeed, NewtonIterationLoopsDoNotAllocateAfterTheFirst) {
  System s = drapeScene();
  Domain domain(Comm::self());
  IntegratorOptions o;
  const double dt = 30 * characteristicPeriod(s, Comm::self());
  domain.distribute(s, ghostReach(s, Comm::self(), o.contactPadding, dt));
  auto backend = la::createBackend("eigen");
  IncrementalPotential phi(s, Comm::self(), o);
  phi.beginStep(dt);
  solvers::RigidManifold manifold;
  auto x = backend->createVector(domain.pointMap());
  phi.gather(*x);
  x->updateGhosts();
  auto tmap = manifold.tangentMap(domain.pointMap());
  auto g = backend->createVector(tmap);
  auto assembler = backend->createAssembler(tmap, tmap);
  solvers::NewtonOptions no;
  solvers::NewtonStats ns;
  auto hessian = [&] {
    assembler->begin();
    solvers::ReducedHessian H(*assembler, no, ns);
    const long before = test::g_allocations.load();
    phi.hessian(*x, H);  // element loop, PSD projection, scatter into the pattern
    const long n = test::g_allocations.load() - before;
    assembler->end();
    return n;
  };
  (void)phi.energy(*x);  // first iteration: buffers sized, pattern built
  phi.gradient(*x, *g);
  (void)hessian();
  long before = test::g_allocations.load();
  (void)phi.energy(*x);
  EXPECT_EQ(test::g_allocations.load() - before, 0) << "energy";
  before = test::g_allocations.load();
  phi.gradient(*x, *g);
  EXPECT_EQ(test::g_allocations.load() - before, 0) << "gradient";
  EXPECT_EQ(hessian(), 0) << "Hessian element loop";
}

TEST(BdemSpeed, ExplicitStepsReportTheirTimeAsTheStepPhase) {
  System s = drapeScene();
  Domain domain(Comm::self());
  IntegratorOptions o;
  o.integrator = "explicit";
  const double dt = stableStep(s);
  domain.distribute(s, ghostReach(s, Comm::self(), o.contactPadding, dt));
  auto backend = la::createBackend("eigen");
  ExplicitStepper stepper(s, domain, *backend, o);
  const StepStats st = stepper.step(dt);
  EXPECT_EQ(st.phases.step, st.seconds);
  EXPECT_GE(st.seconds, 0.0);
  EXPECT_EQ(st.phases.newton.sum(), 0.0);
}

}  // namespace
}  // namespace kinema::bdem
