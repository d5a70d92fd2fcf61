// rod_knot (issue 8 "a tied rod knot pulled tight"; stands in for the paper's ribbon knots of
// the paper's §8.4; cm-g-s): an open overhand (trefoil) knot with two straight tails whose end vertices
// are scripted to move apart at `pull_speed` each (README decision 10: each end at the stated
// speed), no gravity.
//
// Curve: the trefoil x = sin t + 2 sin 2t, y = cos t - 2 cos 2t, z = -sin 3t (times `scale`;
// strands at least 1.21 scale apart), cut open at the tip of a lobe (t = pi/3, where the knot
// reaches its largest distance 3 scale from the z axis), resampled at equal arc length; the tails
// leave the two cut ends outward in a V (radial direction plus / minus the tip's tangent), so they
// never cross the knot, and the scripted ends move along the tails. Rod (README: discrete rod without twist): radius = eta
// (edge-edge layer 1 starts where the two tubes touch), rubber-like E = 1e7 dyn/cm^2 and density
// 1 g/cm^3 by default: springs k_s = E pi r^2 / L per segment, RodBend k_b = E I / 2 with
// I = pi r^4 / 4 (W = k_b |kb|^2 / lbar ~ k_b kappa^2 lbar against E I kappa^2 lbar / 2), contact
// stiffness k = the segment spring stiffness; damping 50 (springs) and 1 (bending) calms the
// flailing of the pulled rod. The cut leaves a gap of 6 radii between the ends. Defaults: scale
// 1.5 cm (a loop of about 35 cm), 5 cm tails, 64 segments: the knot is tight after about 1.5 s.
#include <cmath>
#include <numbers>

#include "framework/core/error.hpp"
#include "modules/avi/rod_builder.hpp"
#include "modules/avi/scene_generators.hpp"

namespace kinema::avi::scenes {

namespace {

Vec3 trefoil(double t) {
  return Vec3(std::sin(t) + 2.0 * std::sin(2.0 * t), std::cos(t) - 2.0 * std::cos(2.0 * t), -std::sin(3.0 * t));
}

struct RodKnotOptions {
  double scale = 1.5;
  double radius = 0.2;
  int segments = 64;
  double tailLength = 5.0;
  double youngsModulus = 1e7;
  double density = 1.0;
  double stretchDamping = 50.0;
  double bendDamping = 1.0;
  double pullSpeed = 10.0;
};

const ParamBindings<RodKnotOptions>& bindings() {
  static const ParamBindings<RodKnotOptions> b = [] {
    using O = RodKnotOptions;
    ParamBindings<O> r;
    r.real("scale", &O::scale, Range::positive(), "size of the trefoil (its lobes reach 3 scale from the centre) [cm]");
    r.real("radius", &O::radius, Range::positive(), "rod radius = eta [cm]");
    r.integer("segments", &O::segments, Range::closed(8, 100000),
              "segments of the knotted part (tails get the same spacing)");
    r.real("tail_length", &O::tailLength, Range::nonNegative(), "length of each straight tail [cm]");
    r.real("youngs_modulus", &O::youngsModulus, Range::positive(), "Young's modulus E [dyn/cm^2] (rubber-like)");
    r.real("density", &O::density, Range::positive(), "density [g/cm^3]");
    r.real("stretch_damping", &O::stretchDamping, Range::nonNegative(),
           "spring strain-rate damping (calms the pulled rod)");
    r.real("bend_damping", &O::bendDamping, Range::nonNegative(), "rod bending damping");
    r.real("pull_speed", &O::pullSpeed, Range::nonNegative(),
           "speed of each end, away from the knot [cm/s] (paper's knots: 10)");
    return r;
  }();
  return b;
}

}  // namespace

void declareRodKnot(ParamSchema& s, const std::string& g) { bindings().declare(s, g); }

Scene buildRodKnot(const Context& c) {
  const RodKnotOptions a = c.read(bindings());
  Scene s;
  s.name = "rod_knot";
  const double S = a.scale, r = a.radius;
  const int nk = a.segments;
  // Arc length of the open knot t in [t0 + d, t0 + 2 pi - d] with a cut gap of about 6 r.
  const double t0 = std::numbers::pi / 3.0;
  const int fine = 20000;
  const double speed0 = S * std::sqrt(std::pow(std::cos(t0) + 4.0 * std::cos(2 * t0), 2) +
                                      std::pow(-std::sin(t0) + 4.0 * std::sin(2 * t0), 2) + std::pow(3.0 * std::cos(3 * t0), 2));
  const double dcut = 3.0 * r / speed0;
  if (!(dcut < 0.5)) c.bad("radius", str("a rod of radius ", r, " is too thick for a knot of scale ", S));
  std::vector<double> ts(fine + 1), arc(fine + 1, 0.0);
  for (int i = 0; i <= fine; ++i) {
    ts[i] = t0 + dcut + (2.0 * std::numbers::pi - 2.0 * dcut) * i / fine;
    if (i > 0) arc[i] = arc[i - 1] + S * (trefoil(ts[i]) - trefoil(ts[i - 1])).norm();
  }
  const double total = arc[fine], seg = total / nk;
  std::vector<Vec3> knot;
  int j = 0;
  for (int i = 0; i <= nk; ++i) {
    const double target = total * i / nk;
    while (j < fine - 1 && arc[j + 1] < target) ++j;
    const double w = (target - arc[j]) / (arc[j + 1] - arc[j]);
    knot.push_back(S * ((1.0 - w) * trefoil(ts[j]) + w * trefoil(ts[j + 1])));
  }
  // Tails: from the ends at the cut, outward in a V: radial (away from the knot's axis, the
  // knot lies within 3 scale of it) plus / minus the tangent at the tip, so they diverge.
  const Vec3 radial(std::cos(std::numbers::pi / 6.0), std::sin(std::numbers::pi / 6.0), 0.0);
  const Vec3 tangent = (trefoil(t0 + 1e-6) - trefoil(t0 - 1e-6)).normalized();
  const Vec3 dirStart = (radial + tangent).normalized();  // the start lies on the +tangent side
  const Vec3 dirEnd = (radial - tangent).normalized();
  const int nt = static_cast<int>(std::lround(a.tailLength / seg));
  std::vector<Vec3> pts;
  for (int i = nt; i >= 1; --i) pts.push_back(knot[0] + dirStart * (seg * i));
  pts.insert(pts.end(), knot.begin(), knot.end());
  for (int i = 1; i <= nt; ++i) pts.push_back(knot[nk] + dirEnd * (seg * i));
  if (!(seg > 2.5 * r))
    c.bad("segments", str(nk, " segments of ", seg, " cm: segments two apart would touch (need > 2.5 radii = ", 2.5 * r,
                          " cm); lower segments or radius"));
  RodOptions o;
  o.name = "rod";
  const double E = a.youngsModulus, A = std::numbers::pi * r * r;
  o.linearDensity = a.density * A;
  o.axial = E * A;
  o.bend = 0.5 * E * std::numbers::pi * std::pow(r, 4) / 4.0;
  o.stretchDamping = a.stretchDamping;
  o.bendDamping = a.bendDamping;
  const int first = addRod(s, pts, o, c.steps(0.0));
  const int last = first + static_cast<int>(pts.size()) - 1;
  s.vertices.minv[first] = 0.0;
  s.vertices.minv[last] = 0.0;
  const double v = a.pullSpeed;
  addScript(s, "end_a", {first}, {0.0}, {v * dirStart});
  addScript(s, "end_b", {last}, {0.0}, {v * dirEnd});
  PaperValues p;
  p.eta = a.radius;
  p.k = E * A / seg;
  c.finish(s, p);
  return s;
}

}  // namespace kinema::avi::scenes
