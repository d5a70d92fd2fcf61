#include "framework/solvers/linear_program.hpp"

#include <algorithm>
#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::solvers {

namespace {

double boundScale(double bound) { return std::isfinite(bound) ? std::max(1.0, std::abs(bound)) : 1.0; }

}  // namespace

std::string toString(LpSense sense) { return sense == LpSense::minimize ? "minimize" : "maximize"; }

std::string LinearProgram::variableLabel(int j) const {
  if (j >= 0 && j < numVariables() && !varNames_[j].empty())
    return str("variable ", j, " ('", varNames_[j], "')");
  return str("variable ", j);
}

std::string LinearProgram::rowLabel(int i) const {
  if (i >= 0 && i < numRows() && !rowNames_[i].empty()) return str("row ", i, " ('", rowNames_[i], "')");
  return str("row ", i);
}

void LinearProgram::checkBounds(const std::string& what, double lower, double upper) const {
  if (std::isnan(lower) || std::isnan(upper))
    throw InputError(str("LP: ", what, ": bound is NaN (lower ", lower, ", upper ", upper, ")"));
  if (lower == inf) throw InputError(str("LP: ", what, ": lower bound is +inf"));
  if (upper == -inf) throw InputError(str("LP: ", what, ": upper bound is -inf"));
  if (lower > upper)
    throw InputError(str("LP: ", what, ": lower bound ", lower, " > upper bound ", upper));
}

void LinearProgram::checkVariable(int j) const {
  if (j < 0 || j >= numVariables())
    throw InputError(str("LP: variable index ", j, " out of range [0, ", numVariables(), ")"));
}

int LinearProgram::addVariable(double lower, double upper, double cost, const std::string& name) {
  const int j = numVariables();
  const std::string label = name.empty() ? str("variable ", j) : str("variable ", j, " ('", name, "')");
  checkBounds(label, lower, upper);
  if (!std::isfinite(cost)) throw InputError(str("LP: ", label, ": objective coefficient is ", cost));
  lower_.push_back(lower);
  upper_.push_back(upper);
  cost_.push_back(cost);
  varNames_.push_back(name);
  return j;
}

int LinearProgram::addVariables(int count, double lower, double upper, double cost) {
  if (count < 0) throw InputError(str("LP: cannot add ", count, " variables"));
  const int first = numVariables();
  checkBounds(str("variables ", first, "..", first + count - 1), lower, upper);
  for (int k = 0; k < count; ++k) addVariable(lower, upper, cost);
  return first;
}

void LinearProgram::setBounds(int j, double lower, double upper) {
  checkVariable(j);
  checkBounds(variableLabel(j), lower, upper);
  lower_[j] = lower;
  upper_[j] = upper;
}

void LinearProgram::setCost(int j, double cost) {
  checkVariable(j);
  if (!std::isfinite(cost))
    throw InputError(str("LP: ", variableLabel(j), ": objective coefficient is ", cost));
  cost_[j] = cost;
}

int LinearProgram::addRow(const std::vector<int>& indices, const std::vector<double>& values,
                          double lower, double upper, const std::string& name) {
  const int i = numRows();
  const std::string label = name.empty() ? str("row ", i) : str("row ", i, " ('", name, "')");
  if (indices.size() != values.size())
    throw InputError(str("LP: ", label, ": ", indices.size(), " indices but ", values.size(), " values"));
  checkBounds(label, lower, upper);
  std::vector<int> sorted(indices);
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] < 0 || indices[k] >= numVariables())
      throw InputError(str("LP: ", label, ": variable index ", indices[k], " out of range [0, ",
                           numVariables(), ")"));
    if (!std::isfinite(values[k]))
      throw InputError(str("LP: ", label, ": coefficient of ", variableLabel(indices[k]), " is ", values[k]));
    if (k > 0 && sorted[k] == sorted[k - 1])
      throw InputError(str("LP: ", label, ": ", variableLabel(sorted[k]), " appears twice"));
  }
  colIndex_.insert(colIndex_.end(), indices.begin(), indices.end());
  values_.insert(values_.end(), values.begin(), values.end());
  rowStart_.push_back(static_cast<int>(colIndex_.size()));
  rowLower_.push_back(lower);
  rowUpper_.push_back(upper);
  rowNames_.push_back(name);
  return i;
}

void LinearProgram::setRowBounds(int i, double lower, double upper) {
  if (i < 0 || i >= numRows())
    throw InputError(str("LP: row index ", i, " out of range [0, ", numRows(), ")"));
  checkBounds(rowLabel(i), lower, upper);
  rowLower_[i] = lower;
  rowUpper_[i] = upper;
}

double LinearProgram::objectiveValue(const std::vector<double>& x) const {
  KINEMA_CHECK(static_cast<int>(x.size()) == numVariables(), "LP: x has ", x.size(), " entries, expected ",
               numVariables());
  double f = 0.0;
  for (int j = 0; j < numVariables(); ++j) f += cost_[j] * x[j];
  return f;
}

std::vector<double> LinearProgram::rowActivities(const std::vector<double>& x) const {
  KINEMA_CHECK(static_cast<int>(x.size()) == numVariables(), "LP: x has ", x.size(), " entries, expected ",
               numVariables());
  std::vector<double> ax(numRows(), 0.0);
  for (int i = 0; i < numRows(); ++i)
    for (int k = rowStart_[i]; k < rowStart_[i + 1]; ++k) ax[i] += values_[k] * x[colIndex_[k]];
  return ax;
}

double LinearProgram::primalViolation(const std::vector<double>& x, std::string* where) const {
  KINEMA_CHECK(static_cast<int>(x.size()) == numVariables(), "LP: x has ", x.size(), " entries, expected ",
               numVariables());
  double worst = 0.0;
  auto note = [&](double v, auto label) {
    if (!(v <= worst)) {  // also catches NaN
      worst = std::isnan(v) ? inf : v;
      if (where) *where = label();
    }
  };
  for (int j = 0; j < numVariables(); ++j) {
    const double below = (lower_[j] - x[j]) / boundScale(lower_[j]);
    const double above = (x[j] - upper_[j]) / boundScale(upper_[j]);
    note(std::isnan(x[j]) ? inf : std::max(below, above), [&] { return variableLabel(j); });
  }
  for (int i = 0; i < numRows(); ++i) {
    double ax = 0.0, size = 1.0;
    for (int k = rowStart_[i]; k < rowStart_[i + 1]; ++k) {
      ax += values_[k] * x[colIndex_[k]];
      size += std::abs(values_[k] * x[colIndex_[k]]);
    }
    const double below = (rowLower_[i] - ax) / std::max(size, boundScale(rowLower_[i]));
    const double above = (ax - rowUpper_[i]) / std::max(size, boundScale(rowUpper_[i]));
    note(std::max(below, above), [&] { return rowLabel(i); });
  }
  return worst;
}

double LinearProgram::dualViolation(const std::vector<double>& x, const std::vector<double>& duals,
                                    const std::vector<double>& reducedCosts, double activeTol,
                                    std::string* where) const {
  const int n = numVariables(), m = numRows();
  KINEMA_CHECK(static_cast<int>(x.size()) == n && static_cast<int>(duals.size()) == m &&
                   static_cast<int>(reducedCosts.size()) == n,
               "LP: dualViolation: sizes do not match the LP");
  double cmax = 1.0;
  for (double c : cost_) cmax = std::max(cmax, std::abs(c));
  // In minimisation terms: s = +1 (minimize) or -1 (maximize); s*y_i >= 0 at a lower bound,
  // s*y_i <= 0 at an upper bound.
  const double s = sense_ == LpSense::minimize ? 1.0 : -1.0;
  double worst = 0.0;
  auto note = [&](double v, auto label) {
    v /= cmax;
    if (!(v <= worst)) {
      worst = std::isnan(v) ? inf : v;
      if (where) *where = label();
    }
  };
  // Sign and complementarity of one multiplier `mult` on a quantity `value` in [lo, up].
  auto signViolation = [&](double mult, double value, double lo, double up, double size) {
    const bool atLower = std::isfinite(lo) && value - lo <= activeTol * std::max(size, boundScale(lo));
    const bool atUpper = std::isfinite(up) && up - value <= activeTol * std::max(size, boundScale(up));
    const double v = s * mult;
    if (atLower && atUpper) return 0.0;
    if (atLower) return std::max(0.0, -v);
    if (atUpper) return std::max(0.0, v);
    return std::abs(v);
  };
  std::vector<double> aty(n, 0.0);
  for (int i = 0; i < m; ++i) {
    double ax = 0.0, size = 1.0;
    for (int k = rowStart_[i]; k < rowStart_[i + 1]; ++k) {
      aty[colIndex_[k]] += values_[k] * duals[i];
      ax += values_[k] * x[colIndex_[k]];
      size += std::abs(values_[k] * x[colIndex_[k]]);
    }
    note(signViolation(duals[i], ax, rowLower_[i], rowUpper_[i], size), [&] { return rowLabel(i); });
  }
  for (int j = 0; j < n; ++j) {
    const double consistency = std::abs(reducedCosts[j] - (cost_[j] - aty[j]));
    const double sign = signViolation(reducedCosts[j], x[j], lower_[j], upper_[j], 1.0);
    note(std::max(consistency, sign), [&] { return variableLabel(j); });
  }
  return worst;
}

}  // namespace kinema::solvers
