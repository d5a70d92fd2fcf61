#pragma once
// The discrete problem of the poisson module: -Laplace(u) = f on the unit cube, u = g on the
// boundary, second-order 7-point finite differences on a uniform grid of n cells per direction
// (h = 1/n, (n-1)^3 interior unknowns), split over ranks by z-planes.
#include <array>
#include <cstdint>
#include <string>

#include "framework/core/comm.hpp"
#include "framework/la/backend.hpp"

namespace kinema::poisson {

// A manufactured solution u with f = -Laplace(u), so the discretisation error can be measured.
struct ManufacturedSolution {
  std::string name;  // "exponential" | "sine"
  double u(double x, double y, double z) const;
  double f(double x, double y, double z) const;
};

class PoissonProblem {
 public:
  // Collective. Throws InputError if the run has more ranks than interior z-planes.
  PoissonProblem(const la::Backend& backend, Comm comm, long cells, ManufacturedSolution solution);

  // Throws InputError if `cells` gives fewer interior z-planes than the ranks of `comm`.
  static void requireRanks(long cells, const Comm& comm);

  long cells() const { return n_; }
  long pointsPerSide() const { return n_ - 1; }
  double h() const { return 1.0 / static_cast<double>(n_); }
  long zBegin() const { return zBegin_; }
  long zCount() const { return zCount_; }
  const la::IndexMapPtr& map() const { return map_; }

  // Assembles A (7-point stencil / h^2, SPD) and b (f plus the boundary values moved over).
  la::MatrixPtr assemble(la::MatrixAssembler& assembler, la::Vector& b) const;
  // The exact solution at the owned grid points.
  void exact(la::Vector& u) const;

 private:
  std::array<double, 3> point(long i, long j, long k) const;
  la::GlobalIndex index(long i, long j, long k) const;
  long n_;
  ManufacturedSolution sol_;
  la::IndexMapPtr map_;
  long zBegin_ = 0, zCount_ = 0;
};

}  // namespace kinema::poisson
