#pragma once
// The Poisson matrix and right-hand side of modules/poisson, written out again for the native-API
// baselines of this benchmark (which must not go through Kinema's layer). Same grid, same
// numbering, same values: the iteration counts of both paths must agree, and the benchmark checks.
#include <array>
#include <cmath>
#include <cstdint>

namespace kinema::bench {

struct Stencil {
  long n;  // cells per direction; unknowns are the (n-1)^3 interior points
  long m() const { return n - 1; }
  double h() const { return 1.0 / static_cast<double>(n); }
  std::int64_t index(long i, long j, long k) const { return ((k - 1) * m() + (j - 1)) * m() + (i - 1); }
  static double u(double x, double y, double z) { return std::exp(x + 2.0 * y + 3.0 * z); }
  static double f(double x, double y, double z) { return -14.0 * u(x, y, z); }

  // Calls emit(col, value) for the row of point (i, j, k) and returns the right-hand side.
  template <class Emit>
  double row(long i, long j, long k, Emit&& emit) const {
    const double ih2 = 1.0 / (h() * h());
    static constexpr int off[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    double rhs = f(i * h(), j * h(), k * h());
    emit(index(i, j, k), 6.0 * ih2);
    for (const auto& o : off) {
      long a = i + o[0], b = j + o[1], c = k + o[2];
      if (a < 1 || a > m() || b < 1 || b > m() || c < 1 || c > m())
        rhs += ih2 * u(a * h(), b * h(), c * h());
      else
        emit(index(a, b, c), -ih2);
    }
    return rhs;
  }
};

}  // namespace kinema::bench
