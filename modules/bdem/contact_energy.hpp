#pragma once
// Penalty contact (paper §5.4, Eqs. 32-33; README decision 44) as part of the incremental potential.
// Element pair: V = 1/2 k_ec (|p_i - p_j| - r_i - r_j)^2, active only for unbonded pairs while
// |p_i - p_j| < r_i + r_j. Obstacle: phi = g(p) - r, V = 1/2 k_c min(phi, 0)^2. Hessians are the
// PSD projections of README decision 18 (k u u^T for pairs, k_c grad g grad g^T for obstacles), so
// these elements need no eigen-projection. Positions only: contacts do not see quaternions.
#include <Eigen/Core>

#include "modules/bdem/obstacle.hpp"

namespace kinema::bdem {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

// Pair over (p_i, p_j): energy (0 when inactive); grad/hess accumulated when non-null.
double pairContactEnergy(double kec, double ri, double rj, const Vec3& pi, const Vec3& pj, Vec6* grad = nullptr,
                         Mat6* hess = nullptr);
// Normal force magnitude k_ec |l - r_i - r_j| when active, else 0 (friction, Eq. 34).
double pairContactForce(double kec, double ri, double rj, const Vec3& pi, const Vec3& pj);

double obstacleContactEnergy(double kc, const Obstacle& o, double t, double r, const Vec3& p, Vec3* grad = nullptr,
                             Mat3* hess = nullptr);
double obstacleContactForce(double kc, const Obstacle& o, double t, double r, const Vec3& p);

}  // namespace kinema::bdem
