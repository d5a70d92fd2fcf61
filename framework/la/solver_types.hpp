#pragma once
// The linear solver types of the layer, in one table: the Krylov methods written once
// (krylov.hpp) and a direct factorisation. Every backend offers all of them.
#include <string>
#include <vector>

namespace kinema::la {

inline const std::vector<std::string>& linearSolverTypes() {
  static const std::vector<std::string> types{"cg", "minres", "gmres", "direct"};
  return types;
}

}  // namespace kinema::la
