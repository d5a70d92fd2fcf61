#pragma once
// Preconditioner: z = M^{-1} r, set up from an operator. Chosen by name: each backend maps the
// layer's names (none, jacobi, ic0, ssor, amg, direct) onto its own; preconditioners written in
// the framework (registered in customPreconditioners()) run on every backend.
#include <functional>
#include <memory>
#include <string>

#include "framework/core/registry.hpp"
#include "framework/la/operator.hpp"

namespace kinema::la {

class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  // (Re)computes from the operator's current values; call again after the values change.
  virtual void setup(OperatorPtr A) = 0;
  // z = M^{-1} r (z on the operator's domain map).
  virtual void apply(const Vector& r, Vector& z) const = 0;
  virtual std::string name() const = 0;
};

using PreconditionerPtr = std::shared_ptr<Preconditioner>;

// The identity (name "none").
class IdentityPreconditioner : public Preconditioner {
 public:
  void setup(OperatorPtr) override {}
  void apply(const Vector& r, Vector& z) const override { z.copy(r); }
  std::string name() const override { return "none"; }
};

// Point Jacobi from Operator::diagonal(), written over the abstract vector (runs on any backend).
class JacobiPreconditioner : public Preconditioner {
 public:
  void setup(OperatorPtr A) override;
  void apply(const Vector& r, Vector& z) const override;
  std::string name() const override { return "jacobi"; }

 private:
  std::unique_ptr<Vector> invDiag_;
};

struct CustomPreconditionerEntry {
  std::string name;
  std::string help;
  std::function<std::unique_ptr<Preconditioner>()> make;
};
// Framework-written preconditioners, available on every backend by name.
NamedRegistry<CustomPreconditionerEntry>& customPreconditioners();

}  // namespace kinema::la
