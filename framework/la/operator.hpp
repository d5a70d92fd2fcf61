#pragma once
// Operator: anything that maps a vector to a vector, y = A x (Ginkgo's LinOp). Assembled matrices
// are operators; so is a matrix-free operator built from a callable (FunctionOperator).
// `apply` is not virtual (Ginkgo's apply / apply_impl): the base class checks the arguments, counts
// and times every product, then calls the implementation's `applyImpl`, so no implementation
// repeats the checks (docs/adding-a-backend.md).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "framework/la/vector.hpp"

namespace kinema::la {

class Backend;

class Operator {
 public:
  virtual ~Operator() = default;
  virtual const IndexMapPtr& domainMap() const = 0;
  virtual const IndexMapPtr& rangeMap() const = 0;
  // y = A x. `x` lives on the domain map, `y` on the range map, and they are distinct vectors; an
  // Error naming the operator otherwise. Ghosts of y are not updated.
  void apply(const Vector& x, Vector& y) const;
  // New zero vectors on the domain / range map, from the backend the operator lives on.
  virtual std::unique_ptr<Vector> createDomainVector() const = 0;
  virtual std::unique_ptr<Vector> createRangeVector() const = 0;
  // Optional: the diagonal (for Jacobi). Operators without one throw an Error naming themselves.
  virtual bool hasDiagonal() const { return false; }
  virtual void diagonal(Vector& d) const;
  virtual std::string description() const { return "operator"; }

  // Products computed by `apply` on this operator and their wall time in seconds (this rank).
  struct ApplyStats {
    std::uint64_t count = 0;
    double seconds = 0.0;
  };
  const ApplyStats& applyStats() const { return stats_; }

 protected:
  // y = A x with x on the domain map and y on the range map, checked by `apply`.
  virtual void applyImpl(const Vector& x, Vector& y) const = 0;

 private:
  mutable ApplyStats stats_;
};

using OperatorPtr = std::shared_ptr<const Operator>;

// A matrix-free operator from a callable. Backends whose Krylov solvers need a native object wrap
// it (PETSc MATSHELL, Tpetra::Operator).
class FunctionOperator : public Operator {
 public:
  using Apply = std::function<void(const Vector& x, Vector& y)>;
  using Diagonal = std::function<void(Vector& d)>;
  // `backend` creates the operator's vectors and must outlive it.
  FunctionOperator(const Backend& backend, IndexMapPtr domain, IndexMapPtr range, Apply apply,
                   std::string name, Diagonal diagonal = {});
  const IndexMapPtr& domainMap() const override { return domain_; }
  const IndexMapPtr& rangeMap() const override { return range_; }
  std::unique_ptr<Vector> createDomainVector() const override;
  std::unique_ptr<Vector> createRangeVector() const override;
  bool hasDiagonal() const override { return static_cast<bool>(diag_); }
  void diagonal(Vector& d) const override;
  std::string description() const override { return name_; }

 protected:
  void applyImpl(const Vector& x, Vector& y) const override;

 private:
  const Backend& backend_;
  IndexMapPtr domain_, range_;
  Apply apply_;
  std::string name_;
  Diagonal diag_;
};

}  // namespace kinema::la
