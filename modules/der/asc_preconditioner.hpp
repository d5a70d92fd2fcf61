#pragma once
// The active-set Cholesky (ASC) preconditioner of the paper (§V-A): one
// banded LDL^T factorisation of the whole BCQP matrix A per setMatrix (per Newton step), reused
// whatever the active set; each application runs the filtered sweeps of the corrected Eq. 34-35,
// i.e. z_F = (L_FF D_FF L_FF^T)^{-1} r_F, z_C = 0. Exact (= A^{-1}) when nothing is active.
#include "modules/der/banded.hpp"
#include "modules/der/qp_masked_preconditioner.hpp"

namespace kinema::der {

class AscPreconditioner : public MaskedBandPreconditioner {
 public:
  explicit AscPreconditioner(double pivotFloor = 1e-12) : ldlt_(pivotFloor) {}
  std::string name() const override { return "asc"; }
  void configure(const QpPreconditionerOptions& o) override { ldlt_ = BandedLdlt(o.pivotFloor); }
  long factorizations() const override { return ldlt_.factorizations(); }
  const BandedLdlt& factor() const { return ldlt_; }
  const LdltStats& factorStats() const { return ldlt_.lastStats(); }

 protected:
  void compute(const BandedSymmetric& A) override { ldlt_.factor(A); }
  void applyMasked(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                   std::span<double> z) const override {
    ldlt_.solveFiltered(r, freeMask, z);
  }

 private:
  BandedLdlt ldlt_;
};

}  // namespace kinema::der
