// Particles placed from the scene file: balls of one radius eta, each with its own position,
// velocity and mass, and walls given by a point and a normal, so that a user can set up two balls
// meeting head-on without C++. The contact model is the balls' (the paper's §8.2, scene_balls.cpp):
// point-point layer 1 starts when two centres are 2 eta apart, and each wall's plane is placed eta
// behind the wall, so that a ball touches the wall when its centre is eta from it.
#include <cmath>

#include "framework/core/error.hpp"
#include "modules/avi/scene_generators.hpp"

namespace kinema::avi::scenes {

namespace {

struct ParticlesOptions {
  int dimension = 3;
  // The default: two balls meeting head-on at 1 m/s each.
  std::vector<double> list{-1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 1.0};
  double radius = 0.1;
  std::vector<double> walls;
  double gravityStep = 1e-3;
};

const ParamBindings<ParticlesOptions>& bindings() {
  static const ParamBindings<ParticlesOptions> b = [] {
    using O = ParticlesOptions;
    ParamBindings<O> r;
    r.integer("dimension", &O::dimension, Range::closed(2, 3),
              "2: particles in the (x, y) plane (z = vz = 0), 3: in space");
    r.realList("list", &O::list, -1,
               "7 numbers per particle: x y z vx vy vz mass (the default: two balls meeting head-on at 1 m/s each)");
    r.real("radius", &O::radius, Range::positive(),
           "ball radius = eta: layer 1 of a pair starts when two centres are 2 eta apart [m]");
    r.realList("walls", &O::walls, -1,
               "6 numbers per wall: a point on the wall px py pz and the normal nx ny nz pointing into the free side");
    r.real("gravity_step", &O::gravityStep, Range::positive(),
           "step of the gravity potentials (particles have no material step) when gravity is on [s]");
    return r;
  }();
  return b;
}

}  // namespace

void declareParticles(ParamSchema& s, const std::string& g) { bindings().declare(s, g); }

Scene buildParticles(const Context& c) {
  Scene s;
  s.name = c.generator();
  const ParticlesOptions o = c.read(bindings());
  const int dim = o.dimension;
  s.dim = dim;
  const std::vector<double>& list = o.list;
  if (list.empty() || list.size() % 7 != 0)
    c.bad("list", str("7 numbers per particle (x y z vx vy vz mass), got ", list.size()));
  const double eta = c.eta(o.radius);
  const std::size_t n = list.size() / 7;
  std::vector<Vec3> x(n), v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double* p = list.data() + 7 * i;
    for (int k = 0; k < 7; ++k)
      if (!std::isfinite(p[k])) c.bad("list", str("particle ", i, ": value ", k + 1, " is not finite"));
    if (!(p[6] > 0.0)) c.bad("list", str("particle ", i, ": mass must be > 0, got ", p[6]));
    if (dim == 2 && (p[2] != 0.0 || p[5] != 0.0)) c.bad("list", str("particle ", i, ": z and vz must be 0 in 2D"));
    x[i] = Vec3(p[0], p[1], p[2]);
    v[i] = Vec3(p[3], p[4], p[5]);
  }
  // Balls of radius eta must not overlap at the start (a pair closer than 2 eta starts inside its
  // first layer); O(n^2), the list is written by hand.
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if ((x[i] - x[j]).norm() < 2.0 * eta)
        c.bad("list", str("particles ", i, " and ", j, " start ", (x[i] - x[j]).norm(), " apart, closer than 2 eta = ",
                          2.0 * eta, " (overlapping balls)"));
  const std::vector<double>& walls = o.walls;
  if (walls.size() % 6 != 0) c.bad("walls", str("6 numbers per wall (px py pz nx ny nz), got ", walls.size()));
  for (std::size_t w = 0; w < walls.size() / 6; ++w) {
    const double* p = walls.data() + 6 * w;
    Vec3 normal(p[3], p[4], p[5]);
    const Vec3 point(p[0], p[1], p[2]);
    if (!point.allFinite() || !normal.allFinite() || !(normal.norm() > 0.0))
      c.bad("walls", str("wall ", w, ": the point must be finite and the normal nonzero"));
    if (dim == 2 && normal.z() != 0.0) c.bad("walls", str("wall ", w, ": the normal must lie in the plane in 2D"));
    normal.normalize();
    for (std::size_t i = 0; i < n; ++i)
      if (normal.dot(x[i] - point) < eta)
        c.bad("walls", str("wall ", w, ": particle ", i, " starts less than eta = ", eta, " from it or behind it"));
    s.planes.push_back(Plane{normal, normal.dot(point) - eta});
  }
  for (std::size_t i = 0; i < n; ++i) {
    beginObject(s, str("particle", i));
    const int id = addVertex(s, x[i], v[i], list[7 * i + 6], false);
    s.isolated[id] = 1;
    s.contactPoints.push_back(id);
    endObject(s);
  }
  PaperValues paper;
  paper.eta = o.radius;
  paper.k = 1000.0;
  paper.gravityFallback = o.gravityStep;
  c.finish(s, paper);
  return s;
}

}  // namespace kinema::avi::scenes
