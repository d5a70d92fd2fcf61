#pragma once
// Operator: anything that maps a vector to a vector, y = A x (Ginkgo's LinOp). Assembled matrices
// are operators; so is a matrix-free operator built from a callable (FunctionOperator).
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
  // y = A x. `x` lives on the domain map, `y` on the range map. Ghosts of y are not updated.
  virtual void apply(const Vector& x, Vector& y) const = 0;
  // New zero vectors on the domain / range map, from the backend the operator lives on.
  virtual std::unique_ptr<Vector> createDomainVector() const = 0;
  virtual std::unique_ptr<Vector> createRangeVector() const = 0;
  // Optional: the diagonal (for Jacobi). Operators without one throw an Error naming themselves.
  virtual bool hasDiagonal() const { return false; }
  virtual void diagonal(Vector& d) const;
  virtual std::string description() const { return "operator"; }
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
  void apply(const Vector& x, Vector& y) const override;
  std::unique_ptr<Vector> createDomainVector() const override;
  std::unique_ptr<Vector> createRangeVector() const override;
  bool hasDiagonal() const override { return static_cast<bool>(diag_); }
  void diagonal(Vector& d) const override;
  std::string description() const override { return name_; }

 private:
  const Backend& backend_;
  IndexMapPtr domain_, range_;
  Apply apply_;
  std::string name_;
  Diagonal diag_;
};

}  // namespace kinema::la
