#pragma once
// The simultaneous-impact problem at one frozen instant (paper section 2):
// bodies owning blocks of the generalised velocity q̇ (d entries in all), the block-diagonal mass
// matrix M with its inverse blocks precomputed, and the active constraint gradients n_i (the
// columns of N, d x m), each touching at most two bodies and normalised to n_iᵀM⁻¹n_i = 1 (norm).
// Positions never change here; the system only answers velocity-level questions.
#include <Eigen/Dense>
#include <array>
#include <string>
#include <vector>

namespace kinema::impact {

enum class BodyKind {
  Ball2D,   // point mass in the plane: 2 DOFs (x, y), M = m I2          [P section 2, footnote 2]
  Ball3D,   // point mass in space: 3 DOFs, M = m I3
  Rigid3D,  // 6 DOFs (linear v, angular ω), M = diag(m I3, I_world)    [P section 2]
  Static    // no DOFs, M⁻¹ = 0 (walls, infinite-mass objects)          [paper §2]
};

// Largest DOF block of one body (a 3D rigid body).
inline constexpr int kMaxBodyDofs = 6;
using Block = Eigen::Matrix<double, kMaxBodyDofs, 1>;
using BlockMatrix = Eigen::Matrix<double, kMaxBodyDofs, kMaxBodyDofs>;

struct Body {
  BodyKind kind = BodyKind::Static;
  int offset = 0;  // first DOF in q̇
  int dofs = 0;
  double mass = 0.0;
  Eigen::Vector3d position = Eigen::Vector3d::Zero();  // centre (z = 0 for 2D balls)
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();   // world-frame inertia tensor (rigid only)
  BlockMatrix M = BlockMatrix::Zero();                 // top-left dofs x dofs used
  BlockMatrix Minv = BlockMatrix::Zero();
};

// Where a constraint came from, kept for friction (tangent directions) and reports.
struct ContactGeometry {
  bool valid = false;
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();  // unit, from body a towards body b
  Eigen::Vector3d point = Eigen::Vector3d::Zero();   // contact point
};

// One column of N restricted to its (at most two) bodies. Slot s holds body[s] (-1: unused or
// static) and the normalised gradient block n and M⁻¹n on that body's DOFs.
struct Constraint {
  std::array<int, 2> body{-1, -1};
  std::array<Block, 2> n{Block::Zero(), Block::Zero()};
  std::array<Block, 2> Minv_n{Block::Zero(), Block::Zero()};
  std::array<double, 2> side{0.0, 0.0};  // −1: the slot is body a of the contact, +1: body b
  double scale = 1.0;  // the raw gradient was divided by this (sqrt of its n^T M^-1 n)
  int source = -1;     // index among the addConstraint calls (dropped ones keep their number)
  ContactGeometry geometry;
};

class ImpactSystem {
 public:
  // Bodies. Returns the body id. `position` is the centre (used for contact gradients and
  // angular momentum). Masses and inertia must be positive (definite); an InputError otherwise.
  int addBall2D(double mass, const Eigen::Vector2d& position = Eigen::Vector2d::Zero());
  int addBall3D(double mass, const Eigen::Vector3d& position = Eigen::Vector3d::Zero());
  int addRigidBody(double mass, const Eigen::Matrix3d& inertiaWorld,
                   const Eigen::Vector3d& position = Eigen::Vector3d::Zero());
  int addStatic(const Eigen::Vector3d& position = Eigen::Vector3d::Zero());

  // A raw constraint gradient given per body (gA on body a's DOFs, gB on b's; b = -1 for none).
  // It is normalised to (norm); returns the constraint index, or -1 if n^T M^-1 n = 0 (dropped,
  // e.g. static against static, README decision 11).
  int addConstraint(int a, const Eigen::VectorXd& gA, int b = -1, const Eigen::VectorXd& gB = {});
  // A contact at `point` with unit normal ν pointing from body a to body b (either may be -1 or a
  // static body, meaning the world). Contact gradient (paper §2):
  //   n = [ −ν ; −(p−x_a)×ν ] on a,  [ +ν ; (p−x_b)×ν ] on b  (balls use the linear part only).
  // 2D balls use the (x, y) components of ν. `normal` is normalised here.
  int addContact(int a, int b, const Eigen::Vector3d& point, const Eigen::Vector3d& normal);
  // Two touching balls: ν = (x_b − x_a)/|x_b − x_a|, point halfway.
  int addBallBall(int a, int b);
  // A ball against a static wall; `normal` points from the wall into the ball's side.
  int addWall(int body, const Eigen::Vector3d& normal);

  int numBodies() const { return static_cast<int>(bodies_.size()); }
  int dofs() const { return d_; }                                          // d
  int numConstraints() const { return static_cast<int>(constraints_.size()); }  // m
  int numDropped() const { return dropped_; }
  const Body& body(int b) const { return bodies_.at(b); }
  const Constraint& constraint(int i) const { return constraints_[i]; }
  // Constraint indices touching body b (dynamic bodies only).
  const std::vector<int>& constraintsOfBody(int b) const { return incident_.at(b); }

  // Velocity-level operations (no allocation).
  double dot(int i, const Eigen::VectorXd& v) const;                       // n_iᵀ v
  void applyImpulse(int i, double lambda, Eigen::VectorXd& v) const;       // v += λ M⁻¹ n_i
  void NT(const Eigen::VectorXd& v, Eigen::VectorXd& s) const;             // s = Nᵀ v (s sized m)
  void addMinvN(const Eigen::VectorXd& lambda, Eigen::VectorXd& v) const;  // v += M⁻¹ N λ
  double delassus(int i, int j) const;                                     // A_ij = n_iᵀM⁻¹n_j
  void applyM(const Eigen::VectorXd& v, Eigen::VectorXd& out) const;
  void applyMinv(const Eigen::VectorXd& v, Eigen::VectorXd& out) const;
  double dotM(const Eigen::VectorXd& u, const Eigen::VectorXd& v) const;   // ⟨u, v⟩_M
  double normM(const Eigen::VectorXd& v) const;                            // ‖v‖_M
  double kineticEnergy(const Eigen::VectorXd& v) const { return 0.5 * dotM(v, v); }
  // Σ m v over dynamic bodies (2D balls padded with z = 0) and Σ (x × m v + I ω).
  Eigen::Vector3d linearMomentum(const Eigen::VectorXd& v) const;
  Eigen::Vector3d angularMomentum(const Eigen::VectorXd& v) const;

  // The gradient block of body b for a contact at p along a unit direction (normal or tangent),
  // sign −1 for body a and +1 for body b: [sign·dir ; sign·(p − x_b)×dir] (rigid), sign·dir (balls).
  Block contactBlock(int b, double sign, const Eigen::Vector3d& p, const Eigen::Vector3d& dir) const;

  // Dense forms for tests and the lineality helper.
  Eigen::MatrixXd denseN() const;
  Eigen::MatrixXd denseM() const;
  Eigen::MatrixXd denseMinv() const;

 private:
  int addBody(Body b);
  void requireBody(int b, const char* what) const;

  std::vector<Body> bodies_;
  std::vector<Constraint> constraints_;
  std::vector<std::vector<int>> incident_;
  int d_ = 0;
  int added_ = 0;
  int dropped_ = 0;
};

}  // namespace kinema::impact
