#include "framework/la/operator.hpp"

#include "framework/core/error.hpp"
#include "framework/core/timer.hpp"
#include "framework/la/backend.hpp"

namespace kinema::la {

void Operator::apply(const Vector& x, Vector& y) const {
  KINEMA_CHECK(&x != &y, "operator '", description(), "': apply needs distinct x and y");
  KINEMA_CHECK(x.map().compatible(*domainMap()), "operator '", description(),
               "': x is not on the domain map");
  KINEMA_CHECK(y.map().compatible(*rangeMap()), "operator '", description(),
               "': y is not on the range map");
  const double t0 = wallTime();
  applyImpl(x, y);
  stats_.seconds += wallTime() - t0;
  ++stats_.count;
}

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

void FunctionOperator::applyImpl(const Vector& x, Vector& y) const { apply_(x, y); }

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
