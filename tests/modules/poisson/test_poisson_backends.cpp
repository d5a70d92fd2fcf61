// The same Poisson scene on every backend and rank count gives the same discrete solution.
// Reference: the Eigen backend on this rank alone (Comm::self), solved with the same method.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "framework/core/error.hpp"
#include "framework/la/backend.hpp"
#include "framework/la/krylov.hpp"
#include "framework/run/runner.hpp"
#include "modules/poisson/poisson_problem.hpp"
#include "test_util.hpp"

using namespace kinema;

namespace {

constexpr long kCells = 12;  // 11 interior planes: usable at 1, 2 and 3 ranks

struct Reference {
  double errorL2 = 0;
  int cgJacobiIterations = 0;
};

// The discrete solution on this rank alone with eigen: its L2 error and the CG+Jacobi iterations.
Reference eigenReference() {
  auto eigen = la::createBackend("eigen");
  poisson::PoissonProblem p(*eigen, Comm::self(), kCells, {"exponential"});
  auto b = eigen->createVector(p.map());
  auto assembler = eigen->createAssembler(p.map(), p.map());
  la::MatrixPtr A = p.assemble(*assembler, *b);
  la::LinearSolverOptions o;
  o.type = "cg";
  o.preconditioner = "jacobi";
  o.rtol = 1e-12;
  auto solver = eigen->createLinearSolver(o);
  solver->setOperator(A);
  auto u = eigen->createVector(p.map());
  la::SolverStats s = solver->solve(*b, *u);
  EXPECT_TRUE(s.converged);
  auto exact = eigen->createVector(p.map());
  p.exact(*exact);
  u->axpy(-1.0, *exact);
  const double h = p.h();
  return {u->norm2() * h * std::sqrt(h), s.iterations};
}

std::map<std::string, double> runRow(const std::string& backend, const std::string& pc) {
  auto dir = test::scratchDir("poisson_backend_" + backend + "_" + pc);
  std::string path = dir + "/scene.yaml";
  if (Comm::world().isRoot())
    std::ofstream(path) << "module: poisson\nbackend: " << backend << "\npoisson:\n  n: " << kCells
                        << "\n  solver: {type: cg, preconditioner: " << pc << ", rtol: 1.0e-12}\n";
  Comm::world().barrier();
  run::SceneOptions o;
  o.path = path;
  o.output = dir + "/out";
  o.sets = {"run.log_level=warn"};
  run::runScene(o);
  std::ifstream in(dir + "/out/diagnostics.csv");
  std::string header, values;
  std::getline(in, header);
  std::getline(in, values);
  std::stringstream hs(header), vs(values);
  std::map<std::string, double> row;
  for (std::string h, v; std::getline(hs, h, ',') && std::getline(vs, v, ',');) row[h] = std::stod(v);
  return row;
}

std::vector<std::string> distributedBackends() {
  std::vector<std::string> out;
  for (const auto& [name, e] : la::backends().entries())
    if (e.distributed) out.push_back(name);
  return out;
}

}  // namespace

TEST(PoissonBackends, BothDistributedBackendsAreRegistered) {
  // A missing backend is a configure error, never a silent skip of the tests below.
  auto names = distributedBackends();
  EXPECT_NE(std::find(names.begin(), names.end(), "petsc"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "trilinos"), names.end());
}

TEST(PoissonBackends, SameSolutionAndIterationsOnEveryBackendAndRankCount) {
  const Reference ref = eigenReference();
  std::vector<std::string> backends = distributedBackends();
  if (Comm::world().size() == 1) backends.push_back("eigen");
  for (const auto& name : backends) {
    auto row = runRow(name, "jacobi");
    EXPECT_EQ(row["converged"], 1.0) << name;
    // Stated tolerance: the solutions agree to 1e-9 relative in the discrete L2 error (the solver
    // tolerance is 1e-12 and cond(A) is about 60 at n = 12).
    EXPECT_NEAR(row["error_l2"], ref.errorL2, 1e-9 * ref.errorL2) << name;
    // CG + point Jacobi is the same algorithm everywhere: only rounding differs, so the iteration
    // counts agree to within one.
    EXPECT_NEAR(row["iterations"], ref.cgJacobiIterations, 1.0) << name << " at " << Comm::world().size() << " ranks";
  }
}

TEST(PoissonBackends, AlgebraicMultigridConvergesFasterThanJacobi) {
  // GAMG (petsc) and MueLu smoothed aggregation (trilinos) build different hierarchies, so their
  // iteration counts differ from each other; each must beat Jacobi and give the same solution.
  const Reference ref = eigenReference();
  for (const auto& name : distributedBackends()) {
    auto row = runRow(name, "amg");
    EXPECT_EQ(row["converged"], 1.0) << name;
    EXPECT_NEAR(row["error_l2"], ref.errorL2, 1e-9 * ref.errorL2) << name;
    EXPECT_LT(row["iterations"], ref.cgJacobiIterations) << name;
  }
}

TEST(PoissonBackends, RankCountTheSceneCannotUseFailsClearly) {
  const int p = Comm::world().size();
  if (p == 1) GTEST_SKIP() << "one rank can always be used; the 2- and 3-rank runs check this";
  for (const auto& name : distributedBackends()) {
    auto dir = test::scratchDir("poisson_backend_planes_" + name);
    std::string path = dir + "/scene.yaml";
    // n = p gives p - 1 interior planes: one rank too many.
    if (Comm::world().isRoot())
      std::ofstream(path) << "module: poisson\nbackend: " << name << "\npoisson: {n: " << p << "}\n";
    Comm::world().barrier();
    run::SceneOptions o;
    o.path = path;
    o.output = dir + "/out";
    try {
      run::runScene(o);
      ADD_FAILURE() << name << " accepted " << p << " ranks for " << p - 1 << " planes";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("fewer than the " + std::to_string(p) + " ranks"), std::string::npos)
          << e.what();
    }
    EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
  }
}
