// Balls of particles (the paper's §8.2, Figs. 3-5) and free particles for momentum (test M1,
// modules/avi/README.md, decision 58).
//
// Each ball is a point mass with eta = its radius (point-point layer 1 starts when two balls
// touch, centre distance 2 eta). Walls are planes placed eta OUTSIDE the physical box, so the
// point-plane layer 1 (onset 2 eta) starts when the ball touches the wall. Positions: uniform in
// the box by rejection sampling (no two centres closer than 2.2 eta, no centre closer than
// 1.1 eta to a wall, so nothing is in contact at rest); speeds uniform in [0, speed_max] with a
// uniform random direction; splitmix64 with the given seed (the same on every platform).
//
// balls_2d: the paper's 900 balls of r = 0.1 m do not fit in a 3 m x 3 m square (area fraction
// 3.14, the paper's §8.2); the default keeps the 900 balls and the 3 m box with r = 0.02 m (area fraction
// 0.126, close to the 0.140 volume fraction of the 3D reading) and k = 2.5e4 so that the layer-1
// capacity k (2 eta)^2 = 40 J equals balls_3d's.
// balls_3d: 900 balls of r = 0.1 m in a 3 m cube (volume fraction 0.140), mass 1 kg, speeds
// U[0, 10] m/s, k = 1000 (layer-1 capacity 40 J against a mean kinetic energy of 16.7 J).
#include <cmath>
#include <numbers>

#include "framework/core/error.hpp"
#include "modules/avi/particle_builder.hpp"
#include "modules/avi/scene_generators.hpp"

namespace kinema::avi::scenes {

namespace {

struct BallsOptions {
  int count = 900;
  double radius = 0.1, box = 3.0, speedMax = 10.0, mass = 1.0;
  int seed = 1;
  double gravityStep = 1e-3;
};

// In a box with walls (balls_2d, balls_3d) or in free space (particles_free): the help of `box`.
ParamBindings<BallsOptions> ballsBindings(bool walls) {
  using O = BallsOptions;
  ParamBindings<O> r;
  r.integer("count", &O::count, Range::closed(1, 10000000), "number of balls (paper: 900)");
  r.real("radius", &O::radius, Range::positive(), "ball radius = eta [m]");
  r.real("box", &O::box, Range::positive(),
         walls ? "side of the square / cube box [m] (paper: 3)" : "side of the cube the particles start in (no walls)");
  r.real("speed_max", &O::speedMax, Range::nonNegative(), "speeds uniform in [0, speed_max] [m/s] (paper: 10)");
  r.real("mass", &O::mass, Range::positive(), "mass of each ball [kg] (paper: not given)");
  r.integer("seed", &O::seed, Range::atLeast(0), "seed of positions and velocities (splitmix64)");
  r.real("gravity_step", &O::gravityStep, Range::positive(),
         "step of the gravity potentials (particles have no material step) when gravity is on [s]");
  return r;
}

const ParamBindings<BallsOptions>& bindings(bool walls) {
  static const ParamBindings<BallsOptions> inBox = ballsBindings(true), inSpace = ballsBindings(false);
  return walls ? inBox : inSpace;
}

// The generators' own defaults.
BallsOptions defaults(int count, double radius, double box, double speedMax) {
  BallsOptions o;
  o.count = count;
  o.radius = radius;
  o.box = box;
  o.speedMax = speedMax;
  return o;
}
const BallsOptions kBalls2d = defaults(900, 0.02, 3.0, 10.0), kBalls3d = defaults(900, 0.1, 3.0, 10.0),
                   kFree = defaults(200, 0.05, 2.0, 1.0);

Scene buildBalls(const Context& c, int dim, bool walls, double paperK, const BallsOptions& d) {
  const BallsOptions o = c.read(bindings(walls), d);
  Scene s;
  s.name = c.generator();
  s.dim = dim;
  const int n = o.count;
  const double r = o.radius, L = o.box, vmax = o.speedMax;
  const double eta = c.eta(r);
  Random rng(static_cast<std::uint64_t>(o.seed));
  // Rejection sampling on a cell grid of edge >= 2.2 eta (neighbours in the 3^dim cells).
  const double minDist = 2.2 * eta, wall = 1.1 * eta;
  if (!(L > 2.0 * wall)) c.bad("box", str("box ", L, " is too small for balls of radius ", eta));
  const int cells = std::max(1, static_cast<int>(std::floor(L / minDist)));
  const double cell = L / cells;
  const int zc = dim == 3 ? cells : 1;
  std::vector<std::vector<int>> grid(static_cast<std::size_t>(cells) * cells * zc);
  auto cellOf = [&](double x) { return std::min(cells - 1, std::max(0, static_cast<int>(x / cell))); };
  std::vector<Vec3> x, v;
  x.reserve(static_cast<std::size_t>(n));
  // Random sequential addition jams near a fraction 0.38 (3D) / 0.55 (2D) of exclusion balls of
  // radius 1.1 eta: refuse clearly infeasible counts at once, and give up after 200 n attempts.
  const double inner = L - 2 * wall, rex = 0.5 * minDist;
  const double fraction = dim == 3 ? n * 4.0 / 3.0 * std::numbers::pi * rex * rex * rex / (inner * inner * inner)
                                   : n * std::numbers::pi * rex * rex / (inner * inner);
  if (fraction > (dim == 3 ? 0.38 : 0.55))
    c.bad("count", str(n, " balls of radius ", eta, " cannot be placed without contact in the ", dim == 2 ? "square" : "cube",
                       " of side ", L, " (exclusion fraction ", fraction, "); lower count or radius"));
  const long maxAttempts = 200L * n + 10000;
  long attempts = 0;
  while (static_cast<int>(x.size()) < n) {
    if (++attempts > maxAttempts)
      c.bad("count", str("could place only ", x.size(), " of ", n, " balls of radius ", eta, " without contact in the ",
                         dim == 2 ? "square" : "cube", " of side ", L, "; lower count or radius"));
    Vec3 p(wall + (L - 2 * wall) * rng.uniform(), wall + (L - 2 * wall) * rng.uniform(), 0.0);
    if (dim == 3) p.z() = wall + (L - 2 * wall) * rng.uniform();
    const int ci = cellOf(p.x()), cj = cellOf(p.y()), ck = dim == 3 ? cellOf(p.z()) : 0;
    bool ok = true;
    for (int di = -1; di <= 1 && ok; ++di)
      for (int dj = -1; dj <= 1 && ok; ++dj)
        for (int dk = (dim == 3 ? -1 : 0); dk <= (dim == 3 ? 1 : 0) && ok; ++dk) {
          const int i = ci + di, j = cj + dj, k = ck + dk;
          if (i < 0 || j < 0 || k < 0 || i >= cells || j >= cells || k >= zc) continue;
          for (int q : grid[(static_cast<std::size_t>(k) * cells + j) * cells + i])
            if ((x[q] - p).norm() < minDist) ok = false;
        }
    if (!ok) continue;
    grid[(static_cast<std::size_t>(ck) * cells + cj) * cells + ci].push_back(static_cast<int>(x.size()));
    x.push_back(p);
  }
  for (int i = 0; i < n; ++i) v.push_back(vmax * rng.uniform() * rng.direction(dim));
  if (!walls) {
    // Centre the cloud at the origin (free space).
    for (Vec3& p : x) p -= Vec3(L / 2, L / 2, dim == 3 ? L / 2 : 0.0);
  }
  addParticles(s, "ball", x, v, o.mass);
  if (walls) {
    // Planes eta outside the walls x = 0, x = L, y = 0, y = L (z = 0, z = L in 3D), normals inward.
    for (int axis = 0; axis < dim; ++axis) {
      s.planes.push_back(Plane{Vec3::Unit(axis), -eta});
      s.planes.push_back(Plane{-Vec3::Unit(axis), -(L + eta)});
    }
  }
  PaperValues p;
  p.eta = r;
  p.k = paperK;
  p.gravityFallback = o.gravityStep;
  c.finish(s, p);
  return s;
}

}  // namespace

void declareBalls2d(ParamSchema& s, const std::string& g) { bindings(true).declare(s, g, kBalls2d); }
void declareBalls3d(ParamSchema& s, const std::string& g) { bindings(true).declare(s, g, kBalls3d); }
void declareParticlesFree(ParamSchema& s, const std::string& g) { bindings(false).declare(s, g, kFree); }

Scene buildBalls2d(const Context& c) { return buildBalls(c, 2, true, 2.5e4, kBalls2d); }
Scene buildBalls3d(const Context& c) { return buildBalls(c, 3, true, 1000.0, kBalls3d); }
Scene buildParticlesFree(const Context& c) { return buildBalls(c, 3, false, 100.0, kFree); }

}  // namespace kinema::avi::scenes
