// What a bdem scene needs, from its parameters alone (framework/run/limits.hpp; the figures are
// documented in docs/reliability.md, "Limits"): the particle count from the generator's geometry
// and the packing density, the time steps from bdem.steps, substeps, dt and end_time.
#include <cmath>
#include <cstdio>

#include "modules/bdem/bdem_module.hpp"
#include "modules/bdem/bdem_params.hpp"
#include "modules/bdem/scene_params.hpp"

namespace kinema::bdem {

run::ResourceEstimate BdemModule::estimate(const Config& c, int ranks) {
  run::ResourceEstimate e;
  const BdemParams p = readBdemParams(c);
  const bool implicit = p.integrator.integrator == "implicit";
  const double particles = sceneParticleCount(c, kSceneGroup);
  // Time steps: steps x substeps, or end_time / dt when the step count comes from the end time
  // (unknown when dt is 0: the stable step needs the built scene).
  const double substeps = static_cast<double>(p.substeps);
  const double steps = static_cast<double>(p.steps);
  const double dt = p.dt, end = p.endTime;
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
