// Baseline: Eigen's own ConjugateGradient with its DiagonalPreconditioner (Jacobi).
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/Sparse>

#include <chrono>
#include <vector>

#include "bench/backends/native.hpp"
#include "bench/backends/stencil.hpp"

namespace kinema::bench {

Result nativeEigen(const SolveSpec& spec) {
  using SpMat = Eigen::SparseMatrix<double, Eigen::RowMajor>;
  Stencil s{spec.n};
  const long m = s.m();
  const Eigen::Index N = m * m * m;
  std::vector<Eigen::Triplet<double>> t;
  t.reserve(static_cast<std::size_t>(7 * N));
  Eigen::VectorXd b(N);
  for (long k = 1; k <= m; ++k)
    for (long j = 1; j <= m; ++j)
      for (long i = 1; i <= m; ++i) {
        const auto row = s.index(i, j, k);
        b[row] = s.row(i, j, k, [&](std::int64_t col, double v) { t.emplace_back(row, col, v); });
      }
  SpMat A(N, N);
  A.setFromTriplets(t.begin(), t.end());

  using Clock = std::chrono::steady_clock;
  Eigen::ConjugateGradient<SpMat, Eigen::Lower | Eigen::Upper, Eigen::DiagonalPreconditioner<double>> cg;
  cg.setTolerance(spec.rtol);
  cg.setMaxIterations(spec.maxIterations);
  auto t0 = Clock::now();
  cg.compute(A);
  auto t1 = Clock::now();
  Eigen::VectorXd x = cg.solve(b);
  auto t2 = Clock::now();
  Result r;
  r.backend = "eigen";
  r.preconditioner = spec.preconditioner;
  r.path = "native";
  r.iterations = static_cast<int>(cg.iterations());
  r.setupSeconds = std::chrono::duration<double>(t1 - t0).count();
  r.solveSeconds = std::chrono::duration<double>(t2 - t1).count();
  r.relativeResidual = (b - A * x).norm() / b.norm();
  return r;
}

}  // namespace kinema::bench
