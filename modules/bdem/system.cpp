#include "modules/bdem/system.hpp"

namespace kinema::bdem {

std::size_t System::aliveBonds() const {
  std::size_t n = 0;
  for (const Bond& b : bonds) n += b.alive ? 1 : 0;
  return n;
}

}  // namespace kinema::bdem
