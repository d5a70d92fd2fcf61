#include "framework/la/index_map.hpp"

#include <algorithm>

#include "framework/core/error.hpp"

namespace kinema::la {

IndexMap::IndexMap(Comm comm, GlobalIndex ownedBlocks, std::vector<GlobalIndex> ghostBlocks,
                   int blockSize)
    : comm_(comm), rank_(comm.rank()), bs_(blockSize), ghosts_(std::move(ghostBlocks)) {
  KINEMA_CHECK(blockSize >= 1, "IndexMap: block size must be >= 1, got ", blockSize);
  KINEMA_CHECK(ownedBlocks >= 0, "IndexMap: negative owned block count ", ownedBlocks);
  std::vector<std::int64_t> counts = comm_.allgather(ownedBlocks);
  offsets_.assign(counts.size() + 1, 0);
  for (std::size_t r = 0; r < counts.size(); ++r) offsets_[r + 1] = offsets_[r] + counts[r];
  ghostLocal_.reserve(ghosts_.size());
  for (std::size_t i = 0; i < ghosts_.size(); ++i) {
    GlobalIndex g = ghosts_[i];
    KINEMA_CHECK(g >= 0 && g < globalBlocks(), "IndexMap: ghost block ", g,
                 " is outside the global range [0, ", globalBlocks(), ")");
    KINEMA_CHECK(!owns(g), "IndexMap: ghost block ", g, " is owned by this rank (", rank_, ")");
    bool fresh = ghostLocal_.emplace(g, ownedBlocks + static_cast<LocalIndex>(i)).second;
    KINEMA_CHECK(fresh, "IndexMap: ghost block ", g, " is listed twice");
  }
}

std::shared_ptr<const IndexMap> IndexMap::uniform(Comm comm, GlobalIndex globalBlocks,
                                                  int blockSize) {
  KINEMA_CHECK(globalBlocks >= 0, "IndexMap::uniform: negative size ", globalBlocks);
  const GlobalIndex p = comm.size(), r = comm.rank();
  GlobalIndex n = globalBlocks / p + (r < globalBlocks % p ? 1 : 0);
  return std::make_shared<const IndexMap>(comm, n, std::vector<GlobalIndex>{}, blockSize);
}

int IndexMap::owner(GlobalIndex block) const {
  KINEMA_CHECK(block >= 0 && block < globalBlocks(), "IndexMap::owner: block ", block,
               " is outside [0, ", globalBlocks(), ")");
  // Last offset <= block; empty ranks share offsets, upper_bound skips them.
  auto it = std::upper_bound(offsets_.begin(), offsets_.end(), block);
  return static_cast<int>(it - offsets_.begin()) - 1;
}

LocalIndex IndexMap::globalToLocal(GlobalIndex block) const {
  if (owns(block)) return block - ownedBegin();
  auto it = ghostLocal_.find(block);
  return it == ghostLocal_.end() ? -1 : it->second;
}

GlobalIndex IndexMap::localToGlobal(LocalIndex localBlock) const {
  KINEMA_CHECK(localBlock >= 0 && localBlock < localBlocks(), "IndexMap::localToGlobal: local block ",
               localBlock, " is outside [0, ", localBlocks(), ")");
  if (localBlock < ownedBlocks()) return ownedBegin() + localBlock;
  return ghosts_[static_cast<std::size_t>(localBlock - ownedBlocks())];
}

bool IndexMap::compatible(const IndexMap& other) const {
  if (this == &other) return true;
  if (bs_ != other.bs_ || offsets_ != other.offsets_) return false;
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(comm_.raw(), other.comm_.raw(), &cmp);
  return cmp == MPI_IDENT || cmp == MPI_CONGRUENT;
}

}  // namespace kinema::la
