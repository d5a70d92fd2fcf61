// The backend's AMG as a BCQP preconditioner (see amg_qp_preconditioner.hpp).
#include "modules/der/amg_qp_preconditioner.hpp"

#include <algorithm>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"

namespace kinema::der {

AmgQpPreconditioner::AmgQpPreconditioner(const la::Backend& backend)
    : backend_(backend), amg_(backend.createPreconditioner("amg")) {}

void AmgQpPreconditioner::setMatrix(const BandedSymmetric& A) {
  const int n = A.size(), kd = A.bandwidth();
  if (n != n_ || !map_) {
    map_ = std::make_shared<const la::IndexMap>(Comm::self(), n);
    assembler_ = backend_.createAssembler(map_, map_);
    r_ = backend_.createVector(map_);
    z_ = backend_.createVector(map_);
    n_ = n;
  }
  // Both triangles of the band; entries exactly 0 stay out of the pattern (the diagonal is always in).
  assembler_->begin();
  for (int j = 0; j < n; ++j) {
    assembler_->addScalar(j, j, A.at(j, j));
    for (int i = j + 1; i <= std::min(n - 1, j + kd); ++i) {
      const double a = A.at(i, j);
      if (a == 0.0) continue;
      assembler_->addScalar(i, j, a);
      assembler_->addScalar(j, i, a);
    }
  }
  matrix_ = assembler_->end();
  amg_->setup(matrix_);
}

void AmgQpPreconditioner::setup(la::OperatorPtr A) {
  // Nothing to compute (the matrix comes from setMatrix); sizes are checked in apply().
  KINEMA_CHECK(A != nullptr, "BCQP preconditioner 'amg': null operator");
}

void AmgQpPreconditioner::apply(const la::Vector& r, la::Vector& z) const {
  if (n_ < 0) throw Error("BCQP preconditioner 'amg': apply before setMatrix");
  if (r.ownedSize() != n_ || z.ownedSize() != n_)
    throw Error(str("BCQP preconditioner 'amg': vectors of sizes ", r.ownedSize(), " and ", z.ownedSize(),
                    " for n = ", n_));
  {
    la::Vector::ConstView rv = r.view();
    la::Vector::View lv = r_->view();
    std::copy(rv.owned().begin(), rv.owned().end(), lv.owned().begin());
  }
  amg_->apply(*r_, *z_);
  la::Vector::ConstView zv = z_->constView();
  la::Vector::View out = z.view();
  std::copy(zv.owned().begin(), zv.owned().end(), out.owned().begin());
}

}  // namespace kinema::der
