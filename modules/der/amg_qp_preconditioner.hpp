#pragma once
// The SA-AMG baseline of the paper's Fig. 8 (§VI-E1): the backend's "amg" preconditioner
// (MueLu on trilinos, GAMG/hypre on petsc) set up on A assembled over one rank. Not active-set
// aware (decision 8.8): MPRGP hands it phi, which is already 0 on active indices, and zeroes its
// output there, so it applies z = S AMG(S r) -- symmetric on the free subspace only as far as the
// AMG cycle itself is symmetric, and set up on the whole A, not on A_FF.
#include <memory>

#include "framework/la/backend.hpp"
#include "modules/der/qp_preconditioner.hpp"

namespace kinema::der {

class AmgQpPreconditioner : public BandedQpPreconditioner {
 public:
  // Throws an InputError naming the backend if it has no AMG.
  explicit AmgQpPreconditioner(const la::Backend& backend);
  void setMatrix(const BandedSymmetric& A) override;
  void setup(la::OperatorPtr A) override;  // no-op: the matrix comes from setMatrix
  void apply(const la::Vector& r, la::Vector& z) const override;
  std::string name() const override { return "amg"; }
  const la::Matrix& matrix() const { return *matrix_; }

 private:
  const la::Backend& backend_;
  std::unique_ptr<la::Preconditioner> amg_;
  la::IndexMapPtr map_;
  std::unique_ptr<la::MatrixAssembler> assembler_;
  la::MatrixPtr matrix_;
  la::VectorPtr r_, z_;  // on the backend's own vectors, so MPRGP may run on another backend
  int n_ = -1;
};

}  // namespace kinema::der
