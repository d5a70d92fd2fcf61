// Mask handling shared by the band-based BCQP preconditioners (see qp_masked_preconditioner.hpp).
#include "modules/der/qp_masked_preconditioner.hpp"

#include <algorithm>

#include "framework/core/error.hpp"
#include "framework/la/vector.hpp"

namespace kinema::der {

void MaskedBandPreconditioner::setMatrix(const BandedSymmetric& A) {
  n_ = A.size();
  mask_.assign(static_cast<std::size_t>(n_), 1);
  compute(A);
}

void MaskedBandPreconditioner::setup(la::OperatorPtr A) {
  // No size check here: a solver may be handed the next strand's operator before this
  // preconditioner gets the next strand's matrix; apply() checks the sizes.
  KINEMA_CHECK(A != nullptr, "BCQP preconditioner '", name(), "': null operator");
}

void MaskedBandPreconditioner::setFreeMask(const la::Vector& freeMask) {
  if (n_ < 0) throw Error(str("BCQP preconditioner '", name(), "': setFreeMask before setMatrix"));
  if (freeMask.ownedSize() != n_)
    throw Error(str("BCQP preconditioner '", name(), "': free mask of size ", freeMask.ownedSize(), " for n = ", n_));
  la::Vector::ConstView mv = freeMask.view();
  for (int i = 0; i < n_; ++i) mask_[static_cast<std::size_t>(i)] = mv[i] != 0.0 ? 1 : 0;
}

void MaskedBandPreconditioner::apply(const la::Vector& r, la::Vector& z) const {
  if (n_ < 0) throw Error(str("BCQP preconditioner '", name(), "': apply before setMatrix"));
  if (r.ownedSize() != n_ || z.ownedSize() != n_)
    throw Error(str("BCQP preconditioner '", name(), "': vectors of sizes ", r.ownedSize(), " and ", z.ownedSize(),
                    " for n = ", n_));
  la::Vector::ConstView rv = r.view();
  la::Vector::View zv = z.view();
  applyMasked(rv.owned(), mask_, zv.owned());
}

void MaskedBandPreconditioner::applyFiltered(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                                             std::span<double> z) const {
  if (n_ < 0) throw Error(str("BCQP preconditioner '", name(), "': apply before setMatrix"));
  KINEMA_CHECK(static_cast<int>(r.size()) == n_ && static_cast<int>(z.size()) == n_ &&
                   static_cast<int>(freeMask.size()) == n_,
               "BCQP preconditioner '", name(), "': sizes ", r.size(), ", ", freeMask.size(), ", ", z.size(),
               " for n = ", n_);
  applyMasked(r, freeMask, z);
}

}  // namespace kinema::der
