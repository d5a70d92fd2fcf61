#pragma once
// Common base of the band-based BCQP preconditioners (asc, none, jacobi, wjacobi, ssor, ic, mic):
// they are active-set aware (solvers::ActiveSetAware). MPRGP hands over the free mask (1 free,
// 0 active) through setFreeMask; apply() then computes z_F = P_FF^{-1} r_F and z_C = 0 from r_F only, so each is a
// symmetric operator that is SPD on the free subspace and zero on the active one (paper §V-A,
// §VI-E1; README decision 16). Before any setFreeMask every index is free.
#include <cstdint>
#include <span>
#include <vector>

#include "framework/solvers/active_set.hpp"
#include "modules/der/qp_preconditioner.hpp"

namespace kinema::der {

class MaskedBandPreconditioner : public BandedQpPreconditioner, public solvers::ActiveSetAware {
 public:
  void setMatrix(const BandedSymmetric& A) final;
  // Computes nothing: the matrix comes through setMatrix, so MPRGP's setup calls (in setOperator
  // and setPreconditioner) never refactor (C5). Sizes are checked in apply().
  void setup(la::OperatorPtr A) override;
  void apply(const la::Vector& r, la::Vector& z) const override;
  void setFreeMask(const la::Vector& freeMask) override;
  // The same without the abstract vectors (tests, benchmarks). r and z must not alias.
  void applyFiltered(std::span<const double> r, std::span<const std::uint8_t> freeMask, std::span<double> z) const;
  std::span<const std::uint8_t> freeMask() const { return mask_; }
  int size() const { return n_; }

 protected:
  // Computes the preconditioner from A (the size and the mask are already set up).
  virtual void compute(const BandedSymmetric& A) = 0;
  // z_F = P_FF^{-1} r_F, z_C = 0. No allocation.
  virtual void applyMasked(std::span<const double> r, std::span<const std::uint8_t> freeMask,
                           std::span<double> z) const = 0;

 private:
  int n_ = -1;  // -1 until setMatrix
  std::vector<std::uint8_t> mask_;
};

}  // namespace kinema::der
