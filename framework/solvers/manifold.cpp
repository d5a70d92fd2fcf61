#include "framework/solvers/manifold.hpp"

namespace kinema::solvers {

la::IndexMapPtr Manifold::tangentMap(const la::IndexMapPtr& pointMap) const {
  if (tangentBlockSize() == pointMap->blockSize()) return pointMap;
  return std::make_shared<const la::IndexMap>(pointMap->comm(), pointMap->ownedBlocks(),
                                              pointMap->ghosts(), tangentBlockSize());
}

}  // namespace kinema::solvers
