#include "framework/la/operator.hpp"

#include "framework/core/error.hpp"
#include "framework/la/backend.hpp"

namespace kinema::la {

void Operator::diagonal(Vector& /*d*/) const {
  throw Error(str("operator '", description(),
                  "' has no diagonal (needed e.g. by the jacobi preconditioner); give it one or "
                  "use preconditioner none"));
}

FunctionOperator::FunctionOperator(const Backend& backend, IndexMapPtr domain, IndexMapPtr range,
                                   Apply apply, std::string name, Diagonal diagonal)
    : backend_(backend),
      domain_(std::move(domain)),
      range_(std::move(range)),
      apply_(std::move(apply)),
      name_(std::move(name)),
      diag_(std::move(diagonal)) {
  KINEMA_CHECK(domain_ && range_, "FunctionOperator '", name_, "' needs a domain and a range map");
  KINEMA_CHECK(static_cast<bool>(apply_), "FunctionOperator '", name_, "' has no apply function");
}

void FunctionOperator::apply(const Vector& x, Vector& y) const {
  KINEMA_CHECK(x.map().compatible(*domain_), "operator '", name_,
               "': x is not on the domain map");
  KINEMA_CHECK(y.map().compatible(*range_), "operator '", name_, "': y is not on the range map");
  apply_(x, y);
}

std::unique_ptr<Vector> FunctionOperator::createDomainVector() const {
  return backend_.createVector(domain_);
}

std::unique_ptr<Vector> FunctionOperator::createRangeVector() const {
  return backend_.createVector(range_);
}

void FunctionOperator::diagonal(Vector& d) const {
  if (!diag_) {
    Operator::diagonal(d);
    return;
  }
  diag_(d);
}

}  // namespace kinema::la
