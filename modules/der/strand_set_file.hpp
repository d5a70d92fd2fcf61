#pragma once
// The Kinema strand-set file: one HDF5 file holding a set of DER strands (positions, edge angles)
// and, once optimised, their rest state and stiffness, plus per-strand optimisation results. The
// der module writes it collectively at the end of an optimisation (`strands.h5` in the output
// directory) and a forward run loads it (der.strands.source: file), so the optimised parameters
// are used as they were computed, in double precision.
//
// Layout (V = total vertices, S = strands; vertex rows of strand s are
// [vertex_offset[s], vertex_offset[s+1])):
//   /strands                 attributes format = "kinema-der-strands", version, strands, vertices,
//                            has_rest (0/1), radius, density, gravity_x/y/z
//   /strands/vertex_offset   (S+1) int64
//   /strands/positions       (V, 3)   x_v
//   /strands/theta           (V)      theta_v of edge v (0 in a strand's last row)
//   /strands/rest_length     (V)      lbar_v of edge v (0 in the last row)        } only with
//   /strands/rest_kappa      (V, 4)   kbar_v (0 at the end vertices)              } has_rest = 1
//   /strands/rest_twist      (V)      mbar_v                                      }
//   /strands/c_stretch, c_bend, c_twist (V)  stiffness per edge / vertex          }
//   /strands/results/{relative_residual, newton_iterations, mprgp_iterations_per_solve,
//                     stop_reason, mprgp_iterations, seconds} (S)  optional
// Rows are written as slabs: each rank writes its contiguous range of strands.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/core/comm.hpp"
#include "modules/der/strand.hpp"

namespace kinema::der {

struct StrandResult {
  double relativeResidual = 0.0;
  double newtonIterations = 0.0;
  double mprgpIterationsPerSolve = 0.0;
  double stopReason = 0.0;  // 1 step_small, 2 k_max, 3 line_search (alm_optimizer.hpp)
  double mprgpIterations = 0.0;  // summed over the strand's BCQPs
  double seconds = 0.0;          // optimisation time of the strand
};

// The strands of this rank: strands [firstStrand, firstStrand + geometry.size()) of the set.
struct LocalStrands {
  std::int64_t totalStrands = 0;
  std::int64_t firstStrand = 0;
  std::vector<std::int64_t> vertexOffset;  // all S + 1 offsets (replicated)
  std::vector<StrandGeometry> geometry;
  std::vector<RestState> rest;             // empty when the file has no rest state
  std::vector<StrandResult> results;       // empty when absent
  Material material;                       // radius, density, gravity as stored (stiffness unused)
};

// Collective. `local.vertexOffset` must hold every strand's offset (all ranks agree).
void writeStrandSet(const std::string& path, Comm comm, const LocalStrands& local);

// Collective. Vertex counts of every strand of the file (cheap: reads the offsets only).
std::vector<std::int64_t> readStrandOffsets(const std::string& path, Comm comm);
// Collective. Reads strands [first, first + count). Throws InputError naming the file and what is
// wrong (not a strand-set file, inconsistent offsets, non-finite values with the strand index).
LocalStrands readStrandSet(const std::string& path, Comm comm, std::int64_t first, std::int64_t count);

}  // namespace kinema::der
