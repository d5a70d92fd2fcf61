// What a der scene needs (framework/run/limits.hpp; docs/reliability.md, "Limits"), from the
// scene's parameters before any strand is built: the generators' strand and vertex counts give the
// memory (bench_der --sections memory: 42-43 KB per 100-vertex strand, state and output buffers
// included, i.e. about 430 B per vertex, plus about 75 MB per process) and the steps (the ALM
// iterations k_max allows, then the forward frames). Strands read from a .hair or strand-set file
// are counted only when set-up reads the file's header: the estimate leaves them unknown.
#include <cstdio>

#include "modules/der/der_module.hpp"
#include "modules/der/der_params.hpp"

namespace kinema::der {

run::ResourceEstimate DerModule::estimate(const Config& c, int ranks) {
  run::ResourceEstimate e;
  const DerParams p = readDerParams(c);
  const std::string& source = p.strands.source;
  if (source == "hair" || source == "file") {
    e.detail = "strands from " + p.strands.file + " (counted at set-up)";
    return e;
  }
  const double strands = source == "wisps" ? static_cast<double>(p.strands.count) : 1.0;
  const auto vertices = static_cast<double>(p.strands.vertices);
  e.bytes = 430.0 * strands * vertices + 75e6 * ranks;
  e.steps = static_cast<double>(p.optimizer.kMax + p.frames);
  char detail[160];
  std::snprintf(detail, sizeof detail, "%.4g strands of %.0f vertices (%s)", strands, vertices, source.c_str());
  e.detail = detail;
  return e;
}

}  // namespace kinema::der
