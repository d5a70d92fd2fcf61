// What a bdem scene needs, from its parameters alone (framework/run/limits.hpp; the figures are
// documented in docs/reliability.md, "Limits"): the particle count from the generator's geometry
// and the packing density, the time steps from bdem.steps, substeps, dt and end_time.
#include <cmath>
#include <cstdio>
#include <numbers>

#include "modules/bdem/bdem_module.hpp"
#include "modules/bdem/scene_builder.hpp"

namespace kinema::bdem {

namespace {

// Particles of radius r per unit volume: fcc and hcp pack 4 spheres per cube of side 2 sqrt(2) r,
// cubic one per cube of side 2r.
double packingDensity(const std::string& lattice, double r) {
  return lattice == "cubic" ? 1.0 / (8 * r * r * r) : 1.0 / (4 * std::numbers::sqrt2 * r * r * r);
}

// The particle count of the scene, < 0 when it cannot be told without reading a file or a mesh.
double particleCount(const Config& c) {
  const std::string p = "bdem.scene";
  const std::string gen = c.getString(p + ".generator");
  const std::string lattice = c.getString(p + ".lattice");
  auto box = [&](const std::string& g, const char* l, const char* w, const char* h, const char* r) {
    return c.getReal(g + "." + l) * c.getReal(g + "." + w) * c.getReal(g + "." + h) *
           packingDensity(lattice, c.getReal(g + "." + r));
  };
  if (gen == "cantilever" || gen == "beam_stretch" || gen == "beam_twist" || gen == "beam_drape")
    return box(p + "." + gen, "length", "height", "width", "radius");
  if (gen == "chocolate_bar") {
    if (!c.getString(p + ".chocolate_bar.mesh").empty()) return -1;
    return box(p + ".chocolate_bar", "length", "width", "thickness", "radius");
  }
  if (gen == "plate_drop") {
    const std::string g = p + ".plate_drop";
    const double R = c.getReal(g + ".plate_radius");
    return std::numbers::pi * R * R * c.getReal(g + ".thickness") * packingDensity(lattice, c.getReal(g + ".radius"));
  }
  if (gen == "three_point_bending") {
    const std::string g = p + ".three_point_bending";
    if (c.getInt(g + ".particles") > 0) return static_cast<double>(c.getInt(g + ".particles"));
    if (c.getReal(g + ".radius") > 0) return box(g, "length", "height", "width", "radius");
    return static_cast<double>(threePointBendingTarget(c.getString(g + ".resolution")));
  }
  if (gen == "yarn_sheet") {
    const std::string g = p + ".yarn_sheet";
    const double x = static_cast<double>(c.getInt(g + ".yarns_x")), y = static_cast<double>(c.getInt(g + ".yarns_y"));
    const double k = static_cast<double>(c.getInt(g + ".particles_per_cell"));
    return x * (y * k + 1) + y * (x * k + 1);
  }
  if (gen == "single_bond" || gen == "two_spheres") return 2;
  if (gen == "sphere_on_plane") return 1;
  if (gen == "mesh" && c.getReal(p + ".mesh.radius") == 0) return 2000;  // the generator's own target
  return -1;  // mesh with a radius, file: known only once the file is read
}

}  // namespace

run::ResourceEstimate BdemModule::estimate(const Config& c, int ranks) {
  run::ResourceEstimate e;
  const bool implicit = c.getString("bdem.integrator") == "implicit";
  const double particles = particleCount(c);
  // Time steps: steps x substeps, or end_time / dt when the step count comes from the end time
  // (unknown when dt is 0: the stable step needs the built scene).
  const double substeps = static_cast<double>(c.getInt("bdem.substeps"));
  const double steps = static_cast<double>(c.getInt("bdem.steps"));
  const double dt = c.getReal("bdem.dt"), end = c.getReal("bdem.end_time");
  double timeSteps = -1;
  if (steps > 0) timeSteps = steps * substeps;
  else if (dt > 0) timeSteps = std::max(1.0, std::ceil(end / (dt * substeps) - 1e-9)) * substeps;
  e.steps = timeSteps;
  // Measured peak resident memory (docs/reliability.md, Limits), beam_stretch of 2045 and 16245
  // particles on petsc at 1 rank: implicit 20-25 KB per particle (Hessian blocks of about 6 bonds
  // per particle, the linear solver), explicit 4.6 KB; plus about 80 MB per process.
  if (particles >= 0) e.bytes = (implicit ? 26e3 : 5e3) * particles + 80e6 * ranks;
  // A lower bound of the wall time: 1 us (implicit) or 100 ns (explicit) per particle and time
  // step, shared by the ranks; measured on the same scenes: 190-800 us (implicit), 7-17 us (explicit).
  if (particles >= 0 && timeSteps >= 0) e.seconds = (implicit ? 1e-6 : 100e-9) * particles * timeSteps / ranks;
  char detail[200];
  std::snprintf(detail, sizeof detail, "%s%.3g particles, %s time steps, %s", particles >= 0 ? "about " : "",
                particles, timeSteps >= 0 ? std::to_string(static_cast<long long>(timeSteps)).c_str() : "unknown",
                implicit ? "implicit" : "explicit");
  e.detail = particles >= 0 ? detail : std::string("particle count known once the scene's file is read");
  return e;
}

}  // namespace kinema::bdem
