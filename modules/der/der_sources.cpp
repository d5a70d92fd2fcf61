// The strands of a der scene: their sizes from the source alone, the partition over the ranks,
// and this rank's strands built or read (docs/modules/der.md, "Several ranks").
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "framework/core/agree.hpp"
#include "framework/core/error.hpp"
#include "modules/der/der_module.hpp"
#include "modules/der/der_partition.hpp"
#include "modules/der/der_sources.hpp"
#include "modules/der/strand_generators.hpp"
#include "modules/der/strand_set_file.hpp"

namespace kinema::der {

SceneStrands strandSizes(const Config& c, const StrandParams& strands, Comm comm) {
  SceneStrands s;
  const std::string& source = strands.source;
  const std::int64_t N = strands.vertices;
  std::int64_t count = 1;  // strands of N vertices from a generator
  if (source == "wisps") {
    count = strands.count;
  } else if (source == "hair") {
    const std::string& path = strands.file;
    if (path.empty())
      throw InputError(str(c.where("der.strands.file"), ": der.strands.file: source hair needs a .hair file"));
    raiseOnEveryRank(comm, [&] { s.hair = readHairLayout(path); });
    if (s.hair.strands == 0) throw InputError(str(path, ": the file holds no strands"));
    s.vertexOffset.assign(s.hair.pointOffset.begin(), s.hair.pointOffset.end());
    return s;
  } else if (source == "file") {
    const std::string& path = strands.file;
    if (path.empty())
      throw InputError(str(c.where("der.strands.file"), ": der.strands.file: source file needs a strand-set file"));
    if (!std::filesystem::exists(path))
      throw InputError(str(c.where("der.strands.file"), ": der.strands.file: ", path, " does not exist"));
    raiseOnEveryRank(comm, [&] { s.vertexOffset = readStrandOffsets(path, comm); });
    return s;
  }
  s.vertexOffset.resize(static_cast<std::size_t>(count) + 1);
  for (std::int64_t i = 0; i <= count; ++i) s.vertexOffset[u(i)] = i * N;
  return s;
}

std::vector<StrandGeometry> readRange(const StrandParams& strands, const SceneStrands& scene, std::int64_t first,
                                      std::int64_t count, Comm comm) {
  std::vector<StrandGeometry> out;
  const std::string& source = strands.source;
  const int N = static_cast<int>(strands.vertices);
  const double L = strands.length;
  // Argument errors of a generator come from every rank (each checks them, strands or not).
  if (source == "vertical") {
    StrandGeometry g = straightVertical(N, L);
    if (count > 0) out.push_back(std::move(g));
  } else if (source == "horizontal") {
    StrandGeometry g = straightHorizontal(N, L);
    if (count > 0) out.push_back(std::move(g));
  } else if (source == "helix") {
    StrandGeometry g = helix(N, strands.helixRadius, strands.helixPitch, strands.helixTurns);
    if (count > 0) out.push_back(std::move(g));
  } else if (source == "wisps") {
    WispParams w;
    w.length = L;
    out = wispRange(first, static_cast<int>(count), N, w, static_cast<std::uint64_t>(strands.seed));
  } else {  // hair
    raiseOnEveryRank(comm, [&] {
      out = readHairStrands(strands.file, scene.hair, static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(count),
                            strands.scale)
                .strands;
    });
  }
  return out;
}

DerModule::SceneSize DerModule::loadStrands(run::RunContext& ctx, bool optimize) {
  const Config& c = ctx.config;
  SceneStrands scene = strandSizes(c, strands_, ctx.comm);
  const ScenePartition part = partitionScene(scene.vertexOffset, ctx.comm);
  imbalance_ = part.imbalance;
  const SceneSize size{static_cast<std::int64_t>(scene.vertexOffset.size()) - 1, scene.vertexOffset.back()};
  if (strands_.source == "file") {
    loadStrandSet(c, ctx.comm, part.mine, optimize);
  } else {
    local_.totalStrands = size.strands;
    local_.firstStrand = part.mine.first;
    local_.vertexOffset = scene.vertexOffset;
    local_.geometry = readRange(strands_, scene, part.mine.first, part.mine.count, ctx.comm);
  }
  local_.material = material_;
  return size;
}

// A strand-set file holds the geometry, and, when an optimisation wrote it, the optimised rest
// states and stiffness: those hold only for the material they were optimised for.
void DerModule::loadStrandSet(const Config& c, const Comm& comm, const StrandRange& mine, bool optimize) {
  raiseOnEveryRank(comm, [&] {
    local_ = readStrandSet(strands_.file, comm, mine.first, mine.count);
  });
  loadedRest_ = comm.any(!local_.rest.empty());
  if (loadedRest_) scheme_ = "rest state and stiffness from " + strands_.file;
  if (loadedRest_) {
    if (optimize)
      throw InputError(str(c.where("der.optimize.enabled"), ": ", strands_.file,
                           " already holds optimised rest states and stiffness; set der.optimize.enabled: false "
                           "to simulate them (optimising them again would start from the optimised values)"));
    const Material& m = local_.material;
    auto differs = [](double a, double b) { return std::abs(a - b) > 1e-12 * std::max(std::abs(a), std::abs(b)); };
    if (differs(m.radius, material_.radius) || differs(m.density, material_.density) ||
        (m.gravity - material_.gravity).norm() > 1e-12 * (1.0 + material_.gravity.norm()))
      throw InputError(str(c.where("der.material.radius"), ": ", strands_.file,
                           " was optimised for radius ", m.radius, ", density ", m.density, ", gravity (",
                           m.gravity.transpose(), "), but the scene has radius ", material_.radius, ", density ",
                           material_.density, ", gravity (", material_.gravity.transpose(),
                           "); the optimised parameters hold only for the same values"));
  }
  local_.results.clear();
}

}  // namespace kinema::der
