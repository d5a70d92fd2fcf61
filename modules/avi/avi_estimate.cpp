// What an avi scene needs (framework/run/limits.hpp; figures in docs/reliability.md, "Limits").
// The scene is generated (as set-up does next; its vertices and potentials are small next to the
// event queue and the contact structures of a run) and each potential's own step h gives the
// events it takes to reach end_time: a lower bound of the work, since contact layers add more.
// cloth_spikes, whose resolution reaches millions of vertices, is counted from its parameters.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "modules/avi/avi_module.hpp"
#include "modules/avi/avi_params.hpp"
#include "modules/avi/scene_params.hpp"

namespace kinema::avi {

run::ResourceEstimate AviModule::estimate(const Config& config, int ranks) {
  const AviParams params = readAviParams(config);
  if (const double vertices = countedVertices(config, kSceneGroup); vertices >= 0) {
    // Counted from the parameters (cloth_spikes): its resolution reaches millions of vertices,
    // which generating the scene would already allocate. Measured at resolution 48 (16055 vertices,
    // 1.37M candidate contact pairs): 57 KB per vertex at set-up (kinema check), plus about 80 MB
    // per process.
    run::ResourceEstimate e;
    e.bytes = 60e3 * vertices + 80e6 * ranks;
    char detail[160];
    std::snprintf(detail, sizeof detail, "about %.3g cloth vertices", vertices);
    e.detail = detail;
    return e;
  }
  const Scene scene = buildScene(config, kSceneGroup);
  const double end = params.endTime;
  double events = 0;
  for (const ForceElement& f : scene.forces)
    if (f.h > 0) events += std::ceil(end / f.h);
  const auto potentials = static_cast<double>(scene.forces.size());
  run::ResourceEstimate e;
  // Measured peak resident memory (docs/reliability.md, Limits), cloth_spikes on eigen at 1 rank:
  // about 2.6 KB per potential (vertices, potentials, queue, candidate contact pairs), plus about
  // 80 MB per process.
  e.bytes = 3e3 * potentials + 80e6 * ranks;
  e.steps = events;
  // A lower bound: 50 ns per event, shared by the ranks (measured 0.6-0.7 us per event).
  e.seconds = 50e-9 * events / ranks;
  char detail[200];
  std::snprintf(detail, sizeof detail, "%d vertices, %.0f potentials, at least %.3g events to t = %g",
                scene.vertices.size(), potentials, events, end);
  e.detail = detail;
  return e;
}

}  // namespace kinema::avi
