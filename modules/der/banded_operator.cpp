// y = A x for a banded symmetric matrix on one rank (see banded_operator.hpp).
#include "modules/der/banded_operator.hpp"

#include <algorithm>

#include "framework/core/error.hpp"
#include "framework/la/backend.hpp"

namespace kinema::der {

BandedOperator::BandedOperator(const la::Backend& backend, la::IndexMapPtr map,
                               std::shared_ptr<const BandedSymmetric> A)
    : backend_(backend), map_(std::move(map)), A_(std::move(A)) {
  KINEMA_CHECK(map_ != nullptr && A_ != nullptr, "BandedOperator: null map or matrix");
  if (map_->comm().size() != 1)
    throw Error(str("BandedOperator: the map spans ", map_->comm().size(),
                    " ranks; a banded strand matrix lives on one rank (use Comm::self())"));
  if (map_->ownedSize() != A_->size())
    throw Error(str("BandedOperator: the map has ", map_->ownedSize(), " entries, the matrix ", A_->size()));
}

void BandedOperator::applyImpl(const la::Vector& x, la::Vector& y) const {
  la::Vector::ConstView xv = x.view();
  la::Vector::View yv = y.view();
  A_->multiply(xv.owned(), yv.owned());
}

std::unique_ptr<la::Vector> BandedOperator::createDomainVector() const { return backend_.createVector(map_); }

std::unique_ptr<la::Vector> BandedOperator::createRangeVector() const { return backend_.createVector(map_); }

void BandedOperator::diagonal(la::Vector& d) const {
  la::Vector::View dv = d.view();
  const int n = A_->size();
  for (int i = 0; i < n; ++i) dv[i] = A_->at(i, i);
}

}  // namespace kinema::der
