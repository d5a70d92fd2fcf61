#include "modules/impact/sim_generators.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "framework/core/error.hpp"

namespace kinema::impact::generators {

SimWorld cradle(int n, double radius, double mass, double speed, int dimension) {
  if (n < 1) throw InputError(str("cradle: need at least one ball, got ", n));
  SimWorld w;
  w.dimension = dimension;
  for (int k = 0; k < n; ++k)
    w.addBall(Eigen::Vector3d(2.0 * radius * k, 0.0, 0.0), radius, mass,
              k == 0 ? Eigen::Vector3d(speed, 0.0, 0.0) : Eigen::Vector3d::Zero());
  return w;
}

SimWorld poolBreak(int rows, double radius, double mass, double speed) {
  if (rows < 1) throw InputError(str("pool break: need at least one row, got ", rows));
  SimWorld w;
  w.dimension = 2;
  const double r = radius, h = std::sqrt(3.0) * r;
  // Cue ball first (body 0), 10 r before the tip.
  w.addBall(Eigen::Vector3d(-10.0 * r, 0.0, 0.0), r, mass, Eigen::Vector3d(speed, 0.0, 0.0));
  for (int row = 0; row < rows; ++row)
    for (int k = 0; k <= row; ++k) w.addBall(Eigen::Vector3d(h * row, r * (2 * k - row), 0.0), r, mass);
  const double L = 40.0 * r + 2.0 * h * rows;
  w.addPlane(Eigen::Vector3d(-L / 2, 0, 0), Eigen::Vector3d(1, 0, 0));
  w.addPlane(Eigen::Vector3d(L, 0, 0), Eigen::Vector3d(-1, 0, 0));
  w.addPlane(Eigen::Vector3d(0, -L / 2, 0), Eigen::Vector3d(0, 1, 0));
  w.addPlane(Eigen::Vector3d(0, L / 2, 0), Eigen::Vector3d(0, -1, 0));
  return w;
}

SimWorld wedge(double theta, double radius, double mass, double speed) {
  if (!(theta > 0.0 && theta < M_PI)) throw InputError(str("wedge: the opening angle must be in (0, 180) degrees"));
  SimWorld w;
  w.dimension = 2;
  const double s = std::sin(theta / 2), c = std::cos(theta / 2);
  w.addPlane(Eigen::Vector3d::Zero(), Eigen::Vector3d(c, s, 0.0));   // left face, free side up-right
  w.addPlane(Eigen::Vector3d::Zero(), Eigen::Vector3d(-c, s, 0.0));  // right face
  w.addBall(Eigen::Vector3d(0.0, radius / s, 0.0), radius, mass, Eigen::Vector3d(0.0, -speed, 0.0));
  return w;
}

SimWorld miniGeyser(bool symmetric, double gap, double speed, double radius) {
  SimWorld w;
  w.dimension = 2;
  const double r = radius;
  w.addBall(Eigen::Vector3d(r, 0, 0), r, 1.0);
  w.addBall(Eigen::Vector3d(3 * r, 0, 0), r, 1.0);
  const double a = 20.0 * M_PI / 180.0;
  const Eigen::Vector3d c = symmetric ? Eigen::Vector3d(2 * r, -std::sqrt(3.0) * r, 0)
                                      : Eigen::Vector3d(r * (1.0 - 2.0 * std::sin(a)), -2.0 * r * std::cos(a), 0);
  w.addBall(c, r, 1.0, Eigen::Vector3d(0, speed, 0));
  w.addPlane(Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(1, 0, 0));
  w.addPlane(Eigen::Vector3d(4 * r + gap, 0, 0), Eigen::Vector3d(-1, 0, 0));
  return w;
}

SimWorld jammedBox(int k, double radius, double speed, std::uint64_t seed) {
  if (k < 1) throw InputError(str("jammed box: need k >= 1, got ", k));
  SimWorld w;
  w.dimension = 2;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, speed);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      const double vx = g(rng), vy = g(rng);
      w.addBall(Eigen::Vector3d(radius * (2 * i + 1), radius * (2 * j + 1), 0), radius, 1.0, Eigen::Vector3d(vx, vy, 0));
    }
  const double L = 2.0 * radius * k;
  w.addPlane(Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(1, 0, 0));
  w.addPlane(Eigen::Vector3d(L, 0, 0), Eigen::Vector3d(-1, 0, 0));
  w.addPlane(Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(0, 1, 0));
  w.addPlane(Eigen::Vector3d(0, L, 0), Eigen::Vector3d(0, -1, 0));
  return w;
}

SimWorld pile(const PileSpec& spec, std::int64_t first, std::int64_t last) {
  const int n = spec.n, dimension = spec.dimension;
  const double radius = spec.radius, mass = spec.mass, width = spec.width, spacing = spec.spacing,
               jitter = spec.jitter;
  const std::uint64_t seed = spec.seed;
  if (n < 1) throw InputError(str("pile: need at least one ball, got ", n));
  // Lattice pitch: the gap 2r·spacing plus room for the jitter of both neighbours on every axis,
  // so the jittered balls never overlap initially.
  const double pitch = 2.0 * radius * (1.0 + spacing + std::sqrt(3.0) * jitter);
  const int across = static_cast<int>(std::floor((width - 2.0 * radius * (1.0 + jitter)) / pitch)) + 1;
  if (across < 1) throw InputError(str("pile: the box (width ", width, ") is narrower than one ball"));
  SimWorld w;
  w.dimension = dimension;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> j(-jitter * radius, jitter * radius);
  const int layer = dimension == 3 ? across * across : across;
  const double up = dimension == 3 ? 2 : 1;  // vertical axis
  if (last < 0 || last > n) last = n;
  first = std::clamp<std::int64_t>(first, 0, last);
  // Each ball draws 2 · dimension numbers, one engine call each (uniform_real_distribution<double>
  // on a 64-bit engine).
  rng.discard(static_cast<unsigned long long>(2 * dimension) * static_cast<unsigned long long>(first));
  w.bodies.reserve(static_cast<std::size_t>(last - first));
  for (int k = static_cast<int>(first); k < last; ++k) {
    const int level = k / layer, in = k % layer;
    Eigen::Vector3d x = Eigen::Vector3d::Zero(), v = Eigen::Vector3d::Zero();
    x[0] = radius * (1.0 + jitter) + pitch * (in % across) + j(rng);
    if (dimension == 3) x[1] = radius * (1.0 + jitter) + pitch * (in / across) + j(rng);
    x[static_cast<int>(up)] = radius * (1.0 + jitter) + pitch * level + j(rng);
    for (int a = 0; a < dimension; ++a) v[a] = j(rng);
    w.addBall(x, radius, mass, v);
    w.bodies.back().id = k;
  }
  const int U = static_cast<int>(up);
  Eigen::Vector3d e = Eigen::Vector3d::Zero();
  e[U] = 1.0;
  w.addPlane(Eigen::Vector3d::Zero(), e);  // floor
  for (int a = 0; a < dimension; ++a) {
    if (a == U) continue;
    Eigen::Vector3d n = Eigen::Vector3d::Zero(), p = Eigen::Vector3d::Zero();
    n[a] = 1.0;
    w.addPlane(p, n);
    p[a] = width;
    w.addPlane(p, -n);
  }
  w.gravity[U] = -9.81;
  return w;
}

SimWorld boxDrop(int n, const Eigen::Vector3d& h, double mass, std::uint64_t seed, std::int64_t first,
                 std::int64_t last) {
  SimWorld w;
  w.dimension = 3;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double size = 2.0 * h.norm();
  if (last < 0 || last > n + 1) last = n + 1;
  first = std::clamp<std::int64_t>(first, 0, last);
  if (first == 0 && last > 0)
    w.addStaticBox(Eigen::Vector3d(0.0, 0.0, 0.5 * h[2]), Eigen::Vector3d(2 * h[0], 2 * h[1], 0.5 * h[2]));
  // Each box draws 6 numbers, one engine call each.
  const std::int64_t skip = std::max<std::int64_t>(first - 1, 0);
  rng.discard(6ull * static_cast<unsigned long long>(skip));
  w.bodies.reserve(static_cast<std::size_t>(last - first));
  for (int k = static_cast<int>(skip); k + 1 < last; ++k) {
    const Eigen::Quaterniond q(Eigen::Vector4d(u(rng), u(rng), u(rng), 1.0 + 0.5 * u(rng)).normalized());
    w.addBox(Eigen::Vector3d(0.3 * h[0] * u(rng), 0.3 * h[1] * u(rng), 2.0 * h[2] + size * (k + 1)), h, mass, q);
    w.bodies.back().id = k + 1;
  }
  w.addPlane(Eigen::Vector3d::Zero(), Eigen::Vector3d(0, 0, 1));
  w.gravity = Eigen::Vector3d(0, 0, -9.81);
  return w;
}

}  // namespace kinema::impact::generators
