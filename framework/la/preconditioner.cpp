#include "framework/la/preconditioner.hpp"

#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::la {

void JacobiPreconditioner::setup(OperatorPtr A) {
  KINEMA_CHECK(A != nullptr, "jacobi preconditioner: set up without an operator");
  if (!A->hasDiagonal())
    throw Error(str("jacobi preconditioner: operator '", A->description(),
                    "' has no diagonal; give it a diagonal or use preconditioner none"));
  // Setup runs outside iteration loops; reuse the vector when the map is unchanged.
  if (!invDiag_ || !invDiag_->map().compatible(*A->domainMap())) invDiag_ = A->createDomainVector();
  A->diagonal(*invDiag_);
  GlobalIndex badRow = -1;
  {
    Vector::View d = invDiag_->view();
    const LocalIndex n = invDiag_->ownedSize();
    const int bs = invDiag_->map().blockSize();
    for (LocalIndex i = 0; i < n; ++i) {
      if (d[i] == 0.0 || !std::isfinite(d[i])) {
        if (badRow < 0) badRow = invDiag_->map().ownedBegin() * bs + i;
        continue;
      }
      d[i] = 1.0 / d[i];
    }
  }
  const Comm& comm = invDiag_->map().comm();
  std::int64_t first = comm.min(badRow < 0 ? std::int64_t{INT64_MAX} : std::int64_t{badRow});
  if (first != INT64_MAX)
    throw Error(str("jacobi preconditioner: operator '", A->description(),
                    "' has a zero or non-finite diagonal entry at row ", first,
                    "; use another preconditioner (none, ssor) or fix the operator"));
}

void JacobiPreconditioner::apply(const Vector& r, Vector& z) const {
  KINEMA_CHECK(invDiag_ != nullptr, "jacobi preconditioner applied before setup");
  z.pointwiseMultiply(r, *invDiag_);
}

NamedRegistry<CustomPreconditionerEntry>& customPreconditioners() {
  static NamedRegistry<CustomPreconditionerEntry> registry("preconditioner");
  return registry;
}

std::vector<std::string> anyOperatorPreconditioners() {
  std::vector<std::string> names;
  for (const auto& [n, e] : customPreconditioners().entries())
    if (e.forOperator.empty()) names.push_back(n);
  return names;
}

}  // namespace kinema::la
