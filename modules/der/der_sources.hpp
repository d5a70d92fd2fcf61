#pragma once
// Where a der scene's strands come from (der.strands.source): a generator, a .hair file or a
// strand-set file. Used by DerModule::loadStrands (der_sources.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/core/comm.hpp"
#include "framework/core/config.hpp"
#include "framework/core/index_cast.hpp"  // u(), used by the der_*.cpp files that include this
#include "modules/der/der_params.hpp"
#include "modules/der/hair_file.hpp"
#include "modules/der/strand.hpp"

namespace kinema::der {

// The strands of the scene, from their sizes alone (docs/modules/der.md, "Several ranks"): every
// rank knows every strand's vertex count (an O(strands) table: the generator's arguments, the
// .hair header and segments array, or the strand-set file's vertex_offset), partitions from it,
// and then builds or reads only its own strands (readRange).
struct SceneStrands {
  std::vector<std::int64_t> vertexOffset;  // all strands
  HairLayout hair;                         // source hair
};

// `strands` as read (readDerParams); `c` names where a key was given in an error.
SceneStrands strandSizes(const Config& c, const StrandParams& strands, Comm comm);

// Strands [first, first + count) of a generator or a .hair file (not the strand-set file, which
// readStrandSet reads with its rest state). Generators build strand i from i alone; the .hair
// reader seeks to the range's points.
std::vector<StrandGeometry> readRange(const StrandParams& strands, const SceneStrands& scene, std::int64_t first,
                                      std::int64_t count, Comm comm);

}  // namespace kinema::der
