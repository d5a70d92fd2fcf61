#pragma once
// IndexMap: how a distributed index space is split over ranks. Counted in blocks of `blockSize`
// scalars (block b, component c is scalar b*bs + c). Each rank owns one contiguous range of global
// block indices and may hold ghost copies of blocks owned elsewhere. Global indices are 64-bit;
// a backend with 32-bit indices checks the range itself.
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "framework/core/comm.hpp"

namespace kinema::la {

using GlobalIndex = std::int64_t;
using LocalIndex = std::int64_t;

class IndexMap {
 public:
  // Collective. This rank owns `ownedBlocks` blocks (offsets come from a prefix sum over ranks)
  // and ghosts the given global block indices, which must be distinct and owned by other ranks.
  IndexMap(Comm comm, GlobalIndex ownedBlocks, std::vector<GlobalIndex> ghostBlocks = {},
           int blockSize = 1);
  // Collective. `globalBlocks` split as evenly as possible, lower ranks get the remainder.
  static std::shared_ptr<const IndexMap> uniform(Comm comm, GlobalIndex globalBlocks,
                                                 int blockSize = 1);

  const Comm& comm() const { return comm_; }
  int blockSize() const { return bs_; }
  GlobalIndex globalBlocks() const { return offsets_.back(); }
  GlobalIndex globalSize() const { return globalBlocks() * bs_; }
  GlobalIndex ownedBegin() const { return offsets_[static_cast<std::size_t>(rank_)]; }  // block
  GlobalIndex ownedEnd() const { return offsets_[static_cast<std::size_t>(rank_) + 1]; }  // block
  LocalIndex ownedBlocks() const { return ownedEnd() - ownedBegin(); }
  LocalIndex ownedSize() const { return ownedBlocks() * bs_; }  // scalars
  const std::vector<GlobalIndex>& ghosts() const { return ghosts_; }  // blocks, in given order
  LocalIndex localBlocks() const { return ownedBlocks() + static_cast<LocalIndex>(ghosts_.size()); }
  LocalIndex localSize() const { return localBlocks() * bs_; }  // scalars, owned then ghosts

  bool owns(GlobalIndex block) const { return block >= ownedBegin() && block < ownedEnd(); }
  int owner(GlobalIndex block) const;
  // Local block index of an owned or ghost block, -1 if this rank holds neither.
  LocalIndex globalToLocal(GlobalIndex block) const;
  GlobalIndex localToGlobal(LocalIndex localBlock) const;
  // Block offsets of every rank (size = ranks + 1).
  const std::vector<GlobalIndex>& rankOffsets() const { return offsets_; }
  // Same distribution and block size (ghosts may differ).
  bool compatible(const IndexMap& other) const;

 private:
  Comm comm_;
  int rank_ = 0;
  int bs_ = 1;
  std::vector<GlobalIndex> offsets_;
  std::vector<GlobalIndex> ghosts_;
  std::unordered_map<GlobalIndex, LocalIndex> ghostLocal_;
};

using IndexMapPtr = std::shared_ptr<const IndexMap>;

}  // namespace kinema::la
