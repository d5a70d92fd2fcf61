#pragma once
// A banded symmetric matrix as an la::Operator on one rank (the BCQP matrix that MPRGP iterates
// with): y = A x through BandedSymmetric::multiply on the vectors' local arrays.
#include <memory>

#include "framework/la/operator.hpp"
#include "modules/der/banded.hpp"

namespace kinema::der {

class BandedOperator : public la::Operator {
 public:
  // `map` must be a one-rank map (Comm::self()) of size A->size(); `backend` must outlive this.
  BandedOperator(const la::Backend& backend, la::IndexMapPtr map, std::shared_ptr<const BandedSymmetric> A);
  const la::IndexMapPtr& domainMap() const override { return map_; }
  const la::IndexMapPtr& rangeMap() const override { return map_; }
  std::unique_ptr<la::Vector> createDomainVector() const override;
  std::unique_ptr<la::Vector> createRangeVector() const override;
  bool hasDiagonal() const override { return true; }
  void diagonal(la::Vector& d) const override;
  std::string description() const override { return "banded SPD matrix"; }

 protected:
  void applyImpl(const la::Vector& x, la::Vector& y) const override;

 private:
  const la::Backend& backend_;
  la::IndexMapPtr map_;
  std::shared_ptr<const BandedSymmetric> A_;
};

}  // namespace kinema::der
