#pragma once
// A small linear program, stored row-wise:
//
//     minimize or maximize   c^T x
//     subject to             rowLower_i <= a_i^T x <= rowUpper_i     (i = 1..m, sparse rows a_i)
//                            lower_j    <= x_j     <= upper_j        (j = 1..n)
//
// Any bound may be infinite (LinearProgram::inf); an equality row has rowLower == rowUpper, a free
// variable has bounds (-inf, inf). Every add/set call validates its input and throws InputError
// naming the variable or row (NaN, infinite coefficients, lower > upper, an index out of range, a
// repeated index in one row). No LP library appears here: solvers live behind LpSolver
// (framework/solvers/lp_solver.hpp).
#include <limits>
#include <string>
#include <vector>

namespace kinema::solvers {

enum class LpSense { minimize, maximize };

class LinearProgram {
 public:
  static constexpr double inf = std::numeric_limits<double>::infinity();

  explicit LinearProgram(LpSense sense = LpSense::minimize) : sense_(sense) {}

  // Adds one variable and returns its index. `name` is used in messages only ("" = "x<j>").
  int addVariable(double lower, double upper, double cost = 0.0, const std::string& name = "");
  // Adds `count` variables with the same bounds and cost; returns the index of the first.
  int addVariables(int count, double lower, double upper, double cost = 0.0);
  void setBounds(int j, double lower, double upper);
  void setCost(int j, double cost);
  void setSense(LpSense sense) { sense_ = sense; }

  // Adds the row lower <= sum_k values[k] x[indices[k]] <= upper and returns its index.
  // Zero coefficients are kept (they cost nothing); repeated indices are an error.
  int addRow(const std::vector<int>& indices, const std::vector<double>& values, double lower,
             double upper, const std::string& name = "");
  void setRowBounds(int i, double lower, double upper);

  int numVariables() const { return static_cast<int>(lower_.size()); }
  int numRows() const { return static_cast<int>(rowLower_.size()); }
  int numNonzeros() const { return static_cast<int>(colIndex_.size()); }
  LpSense sense() const { return sense_; }

  const std::vector<double>& lower() const { return lower_; }
  const std::vector<double>& upper() const { return upper_; }
  const std::vector<double>& cost() const { return cost_; }
  const std::vector<double>& rowLower() const { return rowLower_; }
  const std::vector<double>& rowUpper() const { return rowUpper_; }
  // Compressed sparse rows: row i holds entries rowStart()[i] .. rowStart()[i+1]-1.
  const std::vector<int>& rowStart() const { return rowStart_; }
  const std::vector<int>& colIndex() const { return colIndex_; }
  const std::vector<double>& values() const { return values_; }

  // "variable 3 ('t')" or "variable 3"; "row 2 ('balance')" or "row 2". For messages.
  std::string variableLabel(int j) const;
  std::string rowLabel(int i) const;

  // c^T x, and the row activities A x.
  double objectiveValue(const std::vector<double>& x) const;
  std::vector<double> rowActivities(const std::vector<double>& x) const;

  // Largest primal violation of x, each bound and row scaled by its own size: a variable bound
  // violation is divided by max(1, |bound|), a row violation by max(1, |bound|, sum_k |a_k x_k|).
  // `where` (optional) receives the label of the worst offender.
  double primalViolation(const std::vector<double>& x, std::string* where = nullptr) const;

  // Largest violation of the optimality conditions by (x, duals y, reduced costs d), in the
  // convention of LpResult: d = c - A^T y, and y_i (d_j) may be nonzero only at an active row
  // (variable) bound, with the sign that makes the objective no better when the bound is relaxed
  // (minimize: >= 0 at a lower bound, <= 0 at an upper bound; maximize: the opposite). Returns the
  // largest of |d - (c - A^T y)| and the wrong-signed parts, divided by max(1, max_j |c_j|).
  // "Active" means within `activeTol` (scaled as in primalViolation).
  double dualViolation(const std::vector<double>& x, const std::vector<double>& duals,
                       const std::vector<double>& reducedCosts, double activeTol,
                       std::string* where = nullptr) const;

 private:
  void checkVariable(int j) const;
  void checkBounds(const std::string& what, double lower, double upper) const;

  LpSense sense_;
  std::vector<double> lower_, upper_, cost_;
  std::vector<std::string> varNames_;
  std::vector<double> rowLower_, rowUpper_;
  std::vector<std::string> rowNames_;
  std::vector<int> rowStart_{0};
  std::vector<int> colIndex_;
  std::vector<double> values_;
};

std::string toString(LpSense sense);

}  // namespace kinema::solvers
