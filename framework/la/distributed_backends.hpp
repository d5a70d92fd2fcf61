#pragma once
// Which registered backends can hold objects over several ranks, from the backend registry (no
// backend is named here).
#include <string>

#include "framework/la/backend.hpp"

namespace kinema::la {

// "petsc or trilinos": the registered distributed backends; "none is registered" if there are none.
std::string distributedBackendNames();
// Throws the InputError "<who>: a run on <ranks> ranks needs a distributed backend (petsc or
// trilinos); the scene uses <backend>" if ranks > 1 and the backend is not distributed.
void requireDistributedBackend(const Backend& backend, int ranks, const std::string& who);

}  // namespace kinema::la
