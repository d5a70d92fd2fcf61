// spring_on_plane (the paper's §8.1, Fig. 2; modules/avi/README.md, decision 38): a vertical spring
// of unit rest length, stiffness and endpoint masses, at rest with its bottom a unit height above
// the fixed plane z = 0, gravity 1 (dimensionless), eta = 0.1, k = 1000, spring and gravity steps
// 0.01. Total energy at t = 0: m g (z_bottom + z_top) = 1 + 2 = 3; only layer 1 can ever activate.
#include "framework/core/error.hpp"
#include "modules/avi/scene_generators.hpp"

namespace kinema::avi::scenes {

namespace {

struct SpringOptions {
  double mass = 1.0, stiffness = 1.0, restLength = 1.0, height = 1.0, speed = 0.0, damping = 0.0;
};

const ParamBindings<SpringOptions>& bindings() {
  static const ParamBindings<SpringOptions> b = [] {
    using O = SpringOptions;
    ParamBindings<O> r;
    r.real("mass", &O::mass, Range::positive(), "mass of each endpoint (paper: 1)");
    r.real("stiffness", &O::stiffness, Range::positive(), "spring stiffness k_s, V = 1/2 k_s (l - L)^2 (paper: 1)");
    r.real("rest_length", &O::restLength, Range::positive(),
           "rest length L; the spring starts at rest length (paper: 1)");
    r.real("height", &O::height, Range::positive(),
           "initial height of the bottom mass above the plane z = 0 (paper: 1)");
    r.real("speed", &O::speed, Range::any(), "initial vertical velocity of both masses (paper: 0, at rest)");
    r.real("damping", &O::damping, Range::nonNegative(), "spring strain-rate damping (paper: 0)");
    return r;
  }();
  return b;
}

}  // namespace

void declareSpring(ParamSchema& s, const std::string& g) { bindings().declare(s, g); }

Scene buildSpring(const Context& c) {
  Scene s;
  s.name = "spring_on_plane";
  const SpringOptions o = c.read(bindings());
  const double m = o.mass, L = o.restLength, z0 = o.height;
  const Vec3 v(0.0, 0.0, o.speed);
  beginObject(s, "spring");
  const int a = addVertex(s, Vec3(0.0, 0.0, z0), v, m, false);
  const int b = addVertex(s, Vec3(0.0, 0.0, z0 + L), v, m, false);
  endObject(s);
  // The two masses are contact points of their own (point-point pair with each other, and each
  // against the plane), not a contact edge: after the first bounce the soft spring is compressed
  // through zero length, and the masses meeting keeps it from inverting (README decision 38).
  s.contactPoints = {a, b};
  s.isolated[a] = 1;
  s.isolated[b] = 1;
  s.drawEdges.emplace_back(a, b);
  s.planes.push_back(Plane{Vec3::UnitZ(), 0.0});
  ForceElement e = makeSpring(a, b, s.vertices.x[a], s.vertices.x[b], o.stiffness, o.damping);
  assignStep(e, s, c.steps(0.01));
  s.forces.push_back(e);
  PaperValues p;
  p.eta = 0.1;
  p.k = 1000.0;
  p.gravity = Vec3(0.0, 0.0, -1.0);
  p.gravityStep = 0.01;
  c.finish(s, p);
  return s;
}

}  // namespace kinema::avi::scenes
