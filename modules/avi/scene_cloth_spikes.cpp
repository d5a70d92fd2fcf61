// cloth_spikes (the paper's §8.6, Figs. 10-12; README decision 43; cm-g-s): two cloths of 15 x 50
// cm (stretching 500, bending 0.1, stretching damping 1.0, bending damping 0.1) dropped under
// gravity 980 cm/s^2 onto a fixed 20 x 20 cm plate carrying 6 x 6 spikes of height 7.8 cm, each six
// sliver triangles with apex angle 3.47 degrees (a regular hexagonal pyramid of base side 0.47 cm,
// derived from the paper's §8.6), on a grid of pitch 20/6 cm.
//
// Choices (not in the paper): the cloth is a regular grid with `resolution` cells across its
// 15 cm width (the length gets the same spacing): 6 (7 x 21 = 147 vertices per cloth, minutes
// of run time) by default, 24 for 25 x 81 = 2025 vertices, the closest grid to the paper's 1994.
// Areal density 0.005 g/cm^2 (light fabric; at 500 the 15 cm overhang then stretches about 15%).
// eta = 0.1 cm (below 0.35 times the spacing of the finest grid, so no layer is active at rest),
// k = 100 x the stretching stiffness = 5e4 (with k = 500 a cloth vertex landing on a spike tip
// reaches layer 18; with 5e4 layer 1-2, at the same cost). The plate is a scripted 4 x 4 grid at z = 0; the spikes are
// scripted and stand 0.05 cm above it (touching fixed triangles would count as intersections in
// the diagnostics; no cloth vertex fits through the gap since 2 eta = 0.2 cm). The cloths start
// flat, 1 cm and 2 cm above the spike tips, centred over the plate, their length along x.
// Pulling (the paper's §8.6 second part, optional): the x = +25 cm edge of the bottom cloth is scripted
// from t = 0 (held in place while the cloth drapes: a pinned edge must be scripted from the start
// because a vertex's inverse mass cannot change) and moves along +x at pull_speed from
// pull_start on.
#include <algorithm>
#include <cmath>

#include "framework/core/error.hpp"
#include "modules/avi/mesh_generators.hpp"
#include "modules/avi/scene_generators.hpp"
#include "modules/avi/shell_builder.hpp"
#include "modules/avi/surface_mesh.hpp"

namespace kinema::avi::scenes {

namespace {

struct ClothSpikesOptions {
  double clothWidth = 15.0;
  double clothLength = 50.0;
  int resolution = 6;
  int cloths = 2;
  double plateSize = 20.0;
  int spikes = 6;
  double spikeHeight = 7.8;
  double spikeAngle = 3.47;
  double dropHeight = 1.0;
  bool pull = false;
  double pullStart = 1.0;
  double pullSpeed = 10.0;
  ShellMaterial material = [] {
    ShellMaterial m;
    m.stretch = 500.0;
    m.bend = 0.1;
    m.stretchDamping = 1.0;
    m.bendDamping = 0.1;
    m.poisson = 0.3;
    m.arealDensity = 0.005;
    return m;
  }();
};

const ParamBindings<ClothSpikesOptions>& bindings() {
  static const ParamBindings<ClothSpikesOptions> b = [] {
    using O = ClothSpikesOptions;
    using M = ShellMaterial;
    ParamBindings<O> r;
    r.real("cloth_width", &O::clothWidth, Range::positive(), "cloth width along y [cm] (paper: 15)");
    r.real("cloth_length", &O::clothLength, Range::positive(), "cloth length along x [cm] (paper: 50)");
    r.integer("resolution", &O::resolution, Range::closed(1, 400),
              "grid cells across the cloth width (24: 25 x 81 = 2025 vertices per cloth, near the paper's 1994)");
    r.integer("cloths", &O::cloths, Range::closed(1, 2), "number of cloths (paper: 2)");
    r.real("stretch", shell<O>(&M::stretch), Range::nonNegative(), "stretching stiffness (CST Y) (paper: 500)");
    r.real("bend", shell<O>(&M::bend), Range::nonNegative(), "bending stiffness (hinge k_b) (paper: 0.1)");
    r.real("stretch_damping", shell<O>(&M::stretchDamping), Range::nonNegative(), "stretching damping (paper: 1.0)");
    r.real("bend_damping", shell<O>(&M::bendDamping), Range::nonNegative(), "bending damping (paper: 0.1)");
    r.real("poisson", shell<O>(&M::poisson), Range::open(-1.0, 0.5), "CST Poisson ratio (not in the paper)");
    r.real("areal_density", shell<O>(&M::arealDensity), Range::positive(),
           "cloth mass per area [g/cm^2] (not in the paper)");
    r.real("plate_size", &O::plateSize, Range::positive(), "side of the square plate [cm] (paper: 20)");
    r.integer("spikes", &O::spikes, Range::closed(0, 100), "spikes per row, rows = spikes (paper: 6 x 6 = 36)");
    r.real("spike_height", &O::spikeHeight, Range::positive(), "spike height [cm] (paper: 7.8)");
    r.real("spike_angle", &O::spikeAngle, Range::open(0.0, 60.0),
           "apex angle of each sliver triangle [degrees] (paper: 3.47)");
    r.real("drop_height", &O::dropHeight, Range::positive(),
           "height of the bottom cloth above the spike tips, and between the cloths [cm]");
    r.boolean("pull", &O::pull, "pull the bottom cloth out (its x = +length/2 edge scripted from t = 0)");
    r.real("pull_start", &O::pullStart, Range::nonNegative(), "time the pull starts [s]");
    r.real("pull_speed", &O::pullSpeed, Range::any(), "pull speed along +x [cm/s] (paper: 10)");
    return r;
  }();
  return b;
}

}  // namespace

void declareClothSpikes(ParamSchema& s, const std::string& g) { bindings().declare(s, g); }

namespace {
// Cells along the cloth's length for `resolution` across its width: the same spacing both ways.
int lengthCells(const ClothSpikesOptions& a) {
  return std::max(1, static_cast<int>(std::lround(a.resolution * a.clothLength / a.clothWidth)));
}
}  // namespace

double clothSpikesVertices(const Context& c) {
  const ClothSpikesOptions a = c.read(bindings());
  return static_cast<double>(a.cloths) * (lengthCells(a) + 1) * (a.resolution + 1);
}

Scene buildClothSpikes(const Context& c) {
  const ClothSpikesOptions a = c.read(bindings());
  // Checked before anything is built (issue 20: resolution 400 took minutes and 23 GB generating
  // the cloths before Scene::validate refused them): on a grid of spacing h a cloth vertex lies
  // h / sqrt(2) from the nearest triangle it is not part of, which must exceed 2 eta.
  {
    const double W = a.clothWidth, L = a.clothLength, eta = c.eta(0.1);
    const int ny = a.resolution, nx = lengthCells(a);
    const double h = std::min(W / ny, L / nx);
    if (h / std::sqrt(2.0) <= 2 * eta)
      c.bad("resolution", str(ny, " gives a grid spacing of ", h, ", so a cloth vertex lies ", h / std::sqrt(2.0),
                              " from a triangle of its own cloth, not more than 2 eta = ", 2 * eta,
                              ": a penalty layer would be active at rest; use a resolution below ",
                              W / (2 * std::sqrt(2.0) * eta), " or a smaller avi.scene.eta"));
  }
  Scene s;
  s.name = "cloth_spikes";
  const StepRule steps = c.steps(0.0);
  const double P = a.plateSize;
  // Fixed plate and spikes.
  ShellOptions fixed;
  fixed.scripted = true;
  fixed.material.arealDensity = 1.0;
  fixed.name = "plate";
  geometry::TriMesh plate = gridMesh(P, P, 4, 4);
  rigidTransform(plate, Eigen::Matrix3d::Identity(), Vec3(-P / 2, -P / 2, 0.0));
  addShell(s, plate, fixed, steps);
  const int ns = a.spikes;
  const double H = a.spikeHeight, lift = 0.05;
  if (ns > 0) {
    geometry::TriMesh spikes;
    spikes.source = "spikes";
    const geometry::TriMesh one = spikeMesh(H, a.spikeAngle);
    const double pitch = P / ns;
    if (!(2.0 * one.vertices[0].norm() < pitch))
      c.bad("spikes", str(ns, " x ", ns, " spikes of base ", 2.0 * one.vertices[0].norm(), " cm do not fit on the plate"));
    for (int i = 0; i < ns; ++i)
      for (int j = 0; j < ns; ++j) {
        geometry::TriMesh m = one;
        rigidTransform(m, Eigen::Matrix3d::Identity(), Vec3(-P / 2 + pitch * (i + 0.5), -P / 2 + pitch * (j + 0.5), lift));
        appendMesh(spikes, m);
      }
    fixed.name = "spikes";
    addShell(s, spikes, fixed, steps);
  }
  // Cloths.
  const double W = a.clothWidth, L = a.clothLength;
  const int ny = a.resolution, nx = lengthCells(a);
  ShellOptions cloth;
  cloth.material = a.material;
  const double drop = a.dropHeight;
  const int nc = a.cloths;
  const bool pull = a.pull;
  for (int k = 0; k < nc; ++k) {
    geometry::TriMesh m = gridMesh(L, W, nx, ny);
    rigidTransform(m, Eigen::Matrix3d::Identity(), Vec3(-L / 2, -W / 2, lift + H + drop * (k + 1)));
    cloth.name = k == 0 ? "cloth_bottom" : "cloth_top";
    const int first = s.vertices.size();
    addShell(s, m, cloth, steps);
    if (k == 0 && pull) {
      std::vector<std::int32_t> edge;
      for (int j = 0; j <= ny; ++j) edge.push_back(first + j * (nx + 1) + nx);  // i = nx: x = +L/2
      for (std::int32_t a : edge) s.vertices.minv[a] = 0.0;
      // The pinned edge keeps no potential whose stencil is all scripted (none: each has free vertices).
      addScript(s, "pull", edge, {0.0, a.pullStart}, {Vec3::Zero(), Vec3(a.pullSpeed, 0.0, 0.0)});
    }
  }
  PaperValues p;
  p.eta = 0.1;
  p.k = 100.0 * (a.material.stretch > 0 ? a.material.stretch : 500.0);
  p.gravity = Vec3(0.0, 0.0, -980.0);
  c.finish(s, p);
  return s;
}

}  // namespace kinema::avi::scenes
