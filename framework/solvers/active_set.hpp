#pragma once
// The active-set interface MPRGP talks to: a preconditioner that also implements ActiveSetAware
// (e.g. DER's active-set Cholesky and its banded family) gets the current free mask (1 = free,
// 0 = at a bound) before its first application and then each time the free set changes. Other
// preconditioners are plain la::Preconditioner objects and never see the mask.
#include "framework/la/preconditioner.hpp"

namespace kinema::solvers {

class ActiveSetAware {
 public:
  virtual ~ActiveSetAware() = default;
  virtual void setFreeMask(const la::Vector& freeMask) = 0;
};

// The preconditioner's active-set interface, or nullptr if it has none (or P is null).
inline ActiveSetAware* activeSetInterface(la::Preconditioner* P) { return dynamic_cast<ActiveSetAware*>(P); }
inline bool activeSetAware(const la::Preconditioner* P) {
  return dynamic_cast<const ActiveSetAware*>(P) != nullptr;
}

}  // namespace kinema::solvers
