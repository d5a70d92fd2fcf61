#include "framework/geometry/broad_phase.hpp"

#include <algorithm>
#include <limits>

#include "framework/core/error.hpp"

namespace kinema::geometry {

template <int D>
void validateBoxes(std::span<const Aabb<D>> boxes) {
  if (boxes.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw InputError(str("broad phase: ", boxes.size(), " boxes exceed the 32-bit index range"));
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    const Aabb<D>& box = boxes[b];
    if (!box.lo.allFinite() || !box.hi.allFinite())
      throw InputError(str("broad phase: box ", b, " has a NaN or infinite coordinate (lo = ",
                           box.lo.transpose(), ", hi = ", box.hi.transpose(), ")"));
    for (int k = 0; k < D; ++k)
      if (box.lo[k] > box.hi[k])
        throw InputError(str("broad phase: box ", b, " has lo > hi on axis ", k, " (", box.lo[k],
                             " > ", box.hi[k], ")"));
  }
}

template <int D>
void bruteForcePairs(std::span<const Aabb<D>> boxes, std::vector<BodyPair>& pairs) {
  validateBoxes(boxes);
  pairs.clear();
  const auto n = static_cast<std::int32_t>(boxes.size());
  for (std::int32_t i = 0; i < n; ++i)
    for (std::int32_t j = i + 1; j < n; ++j)
      if (boxes[i].overlaps(boxes[j])) pairs.push_back({i, j});
}

void sortPairs(std::vector<BodyPair>& pairs, std::int32_t numBoxes,
               std::vector<std::int32_t>& count, std::vector<BodyPair>& scratch) {
  // Counting sort on i (stable), then sort each run of equal i by j. Runs are short (the contacts
  // of one body), so this is linear in practice and never allocates after warm-up.
  count.assign(static_cast<std::size_t>(numBoxes) + 1, 0);
  for (const BodyPair& p : pairs) ++count[p.i + 1];
  for (std::int32_t b = 0; b < numBoxes; ++b) count[b + 1] += count[b];
  scratch.resize(pairs.size());
  for (const BodyPair& p : pairs) scratch[count[p.i]++] = p;
  // count[b] is now the end of run b; run b starts at count[b - 1] (0 for b = 0).
  std::int32_t begin = 0;
  for (std::int32_t b = 0; b < numBoxes; ++b) {
    const std::int32_t end = count[b];
    if (end - begin > 1)
      std::sort(scratch.begin() + begin, scratch.begin() + end,
                [](const BodyPair& x, const BodyPair& y) { return x.j < y.j; });
    begin = end;
  }
  pairs.swap(scratch);
}

template void validateBoxes<2>(std::span<const Aabb<2>>);
template void validateBoxes<3>(std::span<const Aabb<3>>);
template void bruteForcePairs<2>(std::span<const Aabb<2>>, std::vector<BodyPair>&);
template void bruteForcePairs<3>(std::span<const Aabb<3>>, std::vector<BodyPair>&);

}  // namespace kinema::geometry
