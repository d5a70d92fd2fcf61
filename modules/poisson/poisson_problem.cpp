#include "modules/poisson/poisson_problem.hpp"

#include <cmath>
#include <numbers>

namespace kinema::poisson {

using std::numbers::pi;

double ManufacturedSolution::u(double x, double y, double z) const {
  if (name == "sine") return std::sin(pi * x) * std::sin(pi * y) * std::sin(pi * z);
  return std::exp(x + 2.0 * y + 3.0 * z);  // "exponential": non-zero boundary values
}

double ManufacturedSolution::f(double x, double y, double z) const {
  // f = -Laplace(u)
  if (name == "sine") return 3.0 * pi * pi * u(x, y, z);
  return -14.0 * u(x, y, z);  // -(1 + 4 + 9) u
}

void PoissonProblem::requireRanks(long cells, const Comm& comm) {
  const long planes = cells - 1;
  if (comm.size() > planes)
    throw InputError(str("poisson.n = ", cells, " gives ", planes, " interior grid planes, fewer than the ",
                         comm.size(), " ranks of this run; use at most ", planes,
                         " ranks or a larger poisson.n"));
}

PoissonProblem::PoissonProblem(const la::Backend& backend, Comm comm, long cells,
                               ManufacturedSolution solution)
    : n_(cells), sol_(std::move(solution)) {
  requireRanks(cells, comm);
  const long m = pointsPerSide();
  // Whole z-planes per rank, as even as possible (lower ranks take the remainder).
  const long base = m / comm.size(), extra = m % comm.size();
  const long r = comm.rank();
  zCount_ = base + (r < extra ? 1 : 0);
  zBegin_ = r * base + std::min(r, extra);
  map_ = std::make_shared<la::IndexMap>(comm, static_cast<la::GlobalIndex>(zCount_ * m * m));
  backend.requireUsable(*map_);
}

std::array<double, 3> PoissonProblem::point(long i, long j, long k) const {
  return {static_cast<double>(i) * h(), static_cast<double>(j) * h(), static_cast<double>(k) * h()};
}

// Interior point (i, j, k), 1 <= i, j, k <= n-1, in lexicographic order with x fastest.
la::GlobalIndex PoissonProblem::index(long i, long j, long k) const {
  const long m = pointsPerSide();
  return static_cast<la::GlobalIndex>(((k - 1) * m + (j - 1)) * m + (i - 1));
}

la::MatrixPtr PoissonProblem::assemble(la::MatrixAssembler& assembler, la::Vector& b) const {
  const long m = pointsPerSide();
  const double ih2 = 1.0 / (h() * h());
  static constexpr int offsets[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
  assembler.begin();
  {
  auto bv = b.view();
  for (long k = zBegin_ + 1; k <= zBegin_ + zCount_; ++k)
    for (long j = 1; j <= m; ++j)
      for (long i = 1; i <= m; ++i) {
        const la::GlobalIndex row = index(i, j, k);
        auto [x, y, z] = point(i, j, k);
        double rhs = sol_.f(x, y, z);
        assembler.addScalar(row, row, 6.0 * ih2);
        for (const auto& o : offsets) {
          long a = i + o[0], c = j + o[1], d = k + o[2];
          if (a < 1 || a > m || c < 1 || c > m || d < 1 || d > m) {
            auto [bx, by, bz] = point(a, c, d);
            rhs += ih2 * sol_.u(bx, by, bz);  // known boundary value moves to the right-hand side
          } else {
            assembler.addScalar(row, index(a, c, d), -ih2);
          }
        }
        bv[row - map_->ownedBegin()] = rhs;
      }
  }  // the view is released before the assembler communicates
  return assembler.end();
}

void PoissonProblem::exact(la::Vector& u) const {
  const long m = pointsPerSide();
  auto v = u.view();
  for (long k = zBegin_ + 1; k <= zBegin_ + zCount_; ++k)
    for (long j = 1; j <= m; ++j)
      for (long i = 1; i <= m; ++i) {
        auto [x, y, z] = point(i, j, k);
        v[index(i, j, k) - map_->ownedBegin()] = sol_.u(x, y, z);
      }
}

}  // namespace kinema::poisson
