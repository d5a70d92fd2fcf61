#pragma once
// TrilinosVector: a la::Vector stored as a Tpetra::Vector on the layout's "overlap" map (owned
// scalars in order, then the ghosts), so the local array is owned-then-ghost contiguous as the
// layer requires. The owned part is an offset view of it on the owned map (what matrices, Belos
// and BLAS-1 see) and the ghost part another offset view on the ghost map:
//   updateGhosts     = Import owned -> ghost (INSERT)
//   accumulateGhosts = the same Import in reverse (Export ghost -> owned, ADD), ghosts zeroed.
// A vector can also view a Tpetra vector it does not own (a column Belos hands to a wrapped
// framework operator): no copy, same kernels.
#include <string>

#include "backends/trilinos/trilinos_types.hpp"
#include "framework/la/vector.hpp"

namespace kinema::la::trilinos {

class TrilinosVector final : public Vector {
 public:
  explicit TrilinosVector(LayoutPtr layout);
  // A non-owning view of `v` (on the layout's owned map; the map must have no ghosts here).
  TrilinosVector(LayoutPtr layout, Teuchos::RCP<TVec> v);

  const LayoutPtr& layout() const { return layout_; }
  TVec& owned() { return *owned_; }
  const TVec& owned() const { return *owned_; }
  const Teuchos::RCP<TVec>& ownedPtr() const { return owned_; }

  void updateGhosts() override;
  void accumulateGhosts() override;
  std::unique_ptr<Vector> clone() const override;

  void set(double alpha) override;
  void copy(const Vector& x) override;
  void scale(double alpha) override;
  void axpy(double alpha, const Vector& x) override;
  void axpby(double alpha, const Vector& x, double beta) override;
  double dot(const Vector& x) const override;
  double norm2() const override;
  double norm1() const override;
  double normInf() const override;
  void pointwiseMultiply(const Vector& x, const Vector& y) override;
  void pointwiseDivide(const Vector& x, const Vector& y) override;
  void pointwiseMin(const Vector& x) override;
  void pointwiseMax(const Vector& x) override;
  void clamp(const Vector& lo, const Vector& hi) override;
  void maskedCopy(const Vector& x, const Vector& mask) override;
  double minRatio(const Vector& den) const override;

 protected:
  double* acquire(bool /*write*/) override { return data_; }
  void release(bool /*write*/) override {}

 private:
  LayoutPtr layout_;
  Teuchos::RCP<TVec> all_;    // owned then ghosts
  Teuchos::RCP<TVec> owned_;  // offset view of all_ (or all_ itself without ghosts)
  Teuchos::RCP<TVec> ghost_;  // offset view of all_ (null if no rank has ghosts)
  double* data_ = nullptr;    // host pointer to all_'s storage (stable for its lifetime)
};

// The backend name of a vector's implementation ("eigen", "petsc", ... or its C++ type).
std::string backendOf(const Vector& v);
// `v` as a TrilinosVector, or an Error naming both backends and `who`.
const TrilinosVector& asTrilinos(const Vector& v, const char* who);
TrilinosVector& asTrilinos(Vector& v, const char* who);

}  // namespace kinema::la::trilinos
