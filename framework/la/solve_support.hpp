#pragma once
// Pieces every LinearSolver implementation needs, written once: argument checks and the true
// residual the layer's convergence test is stated in (linear_solver.hpp).
#include <string>

#include "framework/la/operator.hpp"

namespace kinema::la {

// Throws an Error naming `who` unless b is on A's range map, x on its domain map, A is square,
// and b and x are distinct vectors.
void checkSolveArguments(const Operator& A, const Vector& b, const Vector& x, const std::string& who);
// r = b - A x; returns ||r||_2 (collective).
double trueResidual(const Operator& A, const Vector& b, const Vector& x, Vector& r);

}  // namespace kinema::la
