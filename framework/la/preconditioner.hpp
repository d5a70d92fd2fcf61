#pragma once
// Preconditioner: z = M^{-1} r, set up from an operator. Chosen by name: each backend maps the
// layer's names (none, jacobi, ic0, ssor, amg, direct) onto its own; preconditioners written in
// the framework or a module (registered in customPreconditioners()) run on every backend. All are
// created the same way, by Backend::createPreconditioner(name).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "framework/core/registry.hpp"
#include "framework/la/operator.hpp"

namespace kinema::la {

class Backend;

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
  // The operators it is for. Empty: any la::Operator, and the name is offered to every linear
  // solver's `preconditioner` choice. Otherwise the operator it needs, in words (e.g. der's banded
  // BCQP Hessian): the module owning that operator reaches it by name, no linear solver is offered
  // it. A module names its own "<module>.<name>" (docs/writing-a-module.md, section 5).
  std::string forOperator;
  // Creates it; `backend` is the one createPreconditioner was called on (for what it builds inside).
  std::function<std::unique_ptr<Preconditioner>(const Backend& backend)> make;
};
// Preconditioners written in the framework or a module, available on every backend by name.
NamedRegistry<CustomPreconditionerEntry>& customPreconditioners();
// The names of those for any operator (forOperator empty), in the registry's order.
std::vector<std::string> anyOperatorPreconditioners();

}  // namespace kinema::la
