#pragma once
// A failure that only some ranks see, raised on every rank (docs/reliability.md): each rank says
// whether it failed; the message of the lowest failing rank is broadcast and every rank throws it,
// marked Error::onEveryRank (printed once). Without this, the ranks that did not fail would go on
// into their next collective and wait there for ever. Collective on `comm`.
#include <cstdint>
#include <string>
#include <utility>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"

namespace kinema {

template <class E = InputError>
void raiseOnEveryRank(const Comm& comm, bool failed, const std::string& message) {
  const std::int64_t first = comm.min(static_cast<std::int64_t>(failed ? comm.rank() : comm.size()));
  if (first >= comm.size()) return;
  E e(comm.broadcast(failed ? message : std::string(), static_cast<int>(first)));
  e.onEveryRank();
  throw e;
}

// Runs `work` on every rank; an InputError on any rank is raised on every rank as above. `work`
// may hold collectives only if every rank reaches them before it can throw.
template <class F>
void raiseOnEveryRank(const Comm& comm, F&& work) {
  std::string message;
  bool failed = false;
  try {
    std::forward<F>(work)();
  } catch (const InputError& e) {
    message = e.what();
    failed = true;
  }
  raiseOnEveryRank(comm, failed, message);
}

}  // namespace kinema
