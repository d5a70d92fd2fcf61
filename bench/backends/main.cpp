// bench_backends: the Poisson problem of modules/poisson (about 1M unknowns by default) solved with
// CG + Jacobi and CG + AMG on every backend, at 1 rank and at all ranks of the run, each solve both
// through Kinema's abstract layer and written directly against the library's own API. One table:
// iterations, set-up and solve times, time per iteration, the layer's overhead (kinema / native)
// and the speed-up from 1 rank to all ranks; then SpMV bandwidth against a STREAM-like copy.
//
//   mpiexec -n 2 build/bin/bench_backends [--n 100] [--repeat 3] [--markdown FILE] [--quick]
//
// --quick (n = 16, one repetition) is what the test suite runs, so the benchmark cannot rot.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/backends/native.hpp"
#include "framework/core/config.hpp"
#include "framework/core/mpi_context.hpp"
#include "apps/builtins.hpp"
#include "framework/core/registry.hpp"
#include "framework/la/backend.hpp"
#include "modules/poisson/poisson_problem.hpp"
#include "bench/common/bench_util.hpp"

using namespace kinema;
using namespace kinema::bench;

namespace {

// The module's own problem class through the abstract layer: what a Kinema user runs.
Result kinemaSolve(const std::string& backend, Comm comm, const SolveSpec& spec, double& spmvGBs) {
  auto be = la::createBackend(backend);
  poisson::PoissonProblem p(*be, comm, spec.n, {"exponential"});
  auto b = be->createVector(p.map());
  auto assembler = be->createAssembler(p.map(), p.map());
  la::MatrixPtr A = p.assemble(*assembler, *b);
  la::LinearSolverOptions o;
  o.type = "cg";
  o.preconditioner = spec.preconditioner;
  o.rtol = spec.rtol;
  o.maxIterations = spec.maxIterations;
  auto solver = be->createLinearSolver(o);
  auto x = be->createVector(p.map());
  comm.barrier();
  double t0 = MPI_Wtime();
  solver->setOperator(A);
  double t1 = MPI_Wtime();
  la::SolverStats s = solver->solve(*b, *x);
  double t2 = MPI_Wtime();

  // SpMV bandwidth: CSR values and column indices, row pointers, x read once, y written once.
  auto y = be->createVector(p.map());
  const int reps = 20;
  comm.barrier();
  double t3 = MPI_Wtime();
  for (int r = 0; r < reps; ++r) A->apply(*x, *y);
  comm.barrier();
  double spmv = comm.max(MPI_Wtime() - t3) / reps;
  const double nnz = static_cast<double>(A->globalNonzeros());
  const double rows = static_cast<double>(p.map()->globalSize());
  spmvGBs = (nnz * (8.0 + 4.0) + rows * 4.0 + 2.0 * rows * 8.0) / spmv / 1e9;

  Result r;
  r.backend = backend;
  r.ranks = comm.size();
  r.preconditioner = spec.preconditioner;
  r.path = "kinema";
  r.iterations = s.iterations;
  r.setupSeconds = comm.max(t1 - t0);
  r.solveSeconds = comm.max(t2 - t1);
  r.relativeResidual = s.rhsNorm > 0 ? s.finalResidual / s.rhsNorm : 0;
  return r;
}

// STREAM-like copy a = b over `bytesPerRank` of doubles on every rank of `comm` at once; GB/s summed.
double streamCopy(Comm comm, std::size_t doubles) {
  std::vector<double> a(doubles, 1.0), b(doubles, 2.0);
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    comm.barrier();
    double t0 = MPI_Wtime();
    std::copy(b.begin(), b.end(), a.begin());
    b[r % doubles] += a[(r * 7) % doubles];  // keep the copy observable
    best = std::min(best, MPI_Wtime() - t0);
  }
  return comm.sum(2.0 * 8.0 * static_cast<double>(doubles) / best / 1e9);
}

template <class F>
Result best(int repeat, F&& solve) {
  Result r = solve();
  for (int i = 1; i < repeat; ++i) {
    Result s = solve();
    if (s.solveSeconds < r.solveSeconds) r = s;
  }
  return r;
}

using bench::fmt;

}  // namespace

int main(int argc, char** argv) {
  MpiContext mpi(&argc, &argv);
  registerBuiltins();
  Comm world = Comm::world();
  SolveSpec spec;
  int repeat = 3;
  std::string markdown;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") spec.n = 16, repeat = 1;
    else if (a == "--n" && i + 1 < argc) spec.n = std::stol(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc) repeat = std::stoi(argv[++i]);
    else if (a == "--markdown" && i + 1 < argc) markdown = argv[++i];
    else {
      if (world.isRoot()) std::cerr << "usage: bench_backends [--n CELLS] [--repeat R] [--markdown FILE] [--quick]\n";
      return 64;
    }
  }
  // Libraries initialise collectively on the world communicator (PetscInitialize): make every
  // backend once on all ranks before the 1-rank phase runs on rank 0 alone.
  for (const char* name : {"eigen", "petsc", "trilinos"}) la::createBackend(name);
  std::vector<int> rankCounts{1};
  if (world.size() > 1) rankCounts.push_back(world.size());

  std::vector<Result> results;
  std::map<std::string, double> spmv;  // "backend/ranks" -> GB/s
  std::map<int, double> stream;        // ranks -> GB/s
  for (int np : rankCounts) {
    MPI_Comm sub;
    MPI_Comm_split(world.raw(), world.rank() < np ? 0 : MPI_UNDEFINED, world.rank(), &sub);
    if (sub != MPI_COMM_NULL) {
      Comm comm(sub);
      stream[np] = streamCopy(comm, std::size_t{1} << 24);
      for (std::string backend : {"eigen", "petsc", "trilinos"}) {
        if (backend == "eigen" && np > 1) continue;  // one process only
        for (std::string pc : {"jacobi", "amg"}) {
          if (backend == "eigen" && pc == "amg") continue;  // Eigen has no AMG
          SolveSpec s = spec;
          s.preconditioner = pc;
          double gbs = 0;
          results.push_back(best(repeat, [&] { return kinemaSolve(backend, comm, s, gbs); }));
          if (pc == "jacobi") spmv[backend + "/" + std::to_string(np)] = gbs;
          if (backend == "eigen") results.push_back(best(repeat, [&] { return nativeEigen(s); }));
          if (backend == "petsc") results.push_back(best(repeat, [&] { return nativePetsc(sub, s); }));
          if (backend == "trilinos") results.push_back(best(repeat, [&] { return nativeTrilinos(sub, s); }));
          results.back().ranks = np;
        }
      }
      MPI_Comm_free(&sub);
    }
    world.barrier();
  }
  if (!world.isRoot()) return 0;

  auto find = [&](const std::string& be, int np, const std::string& pc, const std::string& path) -> const Result* {
    for (const auto& r : results)
      if (r.backend == be && r.ranks == np && r.preconditioner == pc && r.path == path) return &r;
    return nullptr;
  };
  const long m = spec.n - 1;
  std::ostringstream md;
  md << "Poisson 3D, n = " << spec.n << " (" << m * m * m << " unknowns), CG to rtol " << spec.rtol
     << ", best of " << repeat << "; ranks: 1";
  if (world.size() > 1) md << " and " << world.size();
  md << "\n\n| backend | ranks | pc | path | iterations | setup [s] | solve [s] | per iteration [ms] | "
        "overhead kinema/native | speed-up vs 1 rank |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : results) {
    const Result* nat = find(r.backend, r.ranks, r.preconditioner, "native");
    const Result* one = find(r.backend, 1, r.preconditioner, r.path);
    std::string overhead = r.path == "kinema" && nat ? fmt("%.3f", r.solveSeconds / nat->solveSeconds) : "";
    std::string speedup = r.ranks > 1 && one ? fmt("%.2f", one->solveSeconds / r.solveSeconds) : "";
    md << "| " << r.backend << " | " << r.ranks << " | " << r.preconditioner << " | " << r.path << " | "
       << r.iterations << " | " << fmt("%.4f", r.setupSeconds) << " | " << fmt("%.4f", r.solveSeconds)
       << " | " << fmt("%.3f", 1e3 * r.solveSeconds / std::max(1, r.iterations)) << " | " << overhead << " | "
       << speedup << " |\n";
  }
  md << "\n| backend | ranks | SpMV [GB/s] | STREAM copy [GB/s] | SpMV / copy |\n|---|---|---|---|---|\n";
  for (const auto& [key, gbs] : spmv) {
    int np = std::stoi(key.substr(key.find('/') + 1));
    md << "| " << key.substr(0, key.find('/')) << " | " << np << " | " << fmt("%.2f", gbs) << " | "
       << fmt("%.2f", stream[np]) << " | " << fmt("%.2f", gbs / stream[np]) << " |\n";
  }
  // Same algorithm, same matrix: the two paths must take the same iterations (GAMG/MueLu set-ups may
  // differ between paths only if the backend sets options the native baseline does not).
  int mismatches = 0;
  for (const auto& r : results)
    if (const Result* nat = r.path == "kinema" ? find(r.backend, r.ranks, r.preconditioner, "native") : nullptr)
      if (r.preconditioner == "jacobi" && std::abs(r.iterations - nat->iterations) > 1) {
        md << "\nWARNING: " << r.backend << " jacobi at " << r.ranks << " ranks: kinema " << r.iterations
           << " vs native " << nat->iterations << " iterations\n";
        ++mismatches;
      }
  std::cout << md.str();
  if (!markdown.empty()) std::ofstream(markdown) << md.str();
  return mismatches == 0 ? 0 : 1;
}
