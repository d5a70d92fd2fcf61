#pragma once
// The state the impact simulator advances: balls (2D discs, 3D spheres) and 3D rigid bodies
// (spheres, boxes) with positions, velocities and orientations, plus static geometry (half-spaces
// for floors and walls, static boxes and spheres). A SimWorld is either the whole scene (as the
// generators build it) or one rank's part of it: the simulator distributes the bodies over the
// ranks (sim_decomposition.hpp, docs/modules/impact.md "Distributed world"); `SimBody::id`, the
// body's index in the whole scene, names it at every rank count.
#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <cstdint>
#include <string>
#include <vector>

namespace kinema::impact {

enum class SimShape { Sphere, Box };

struct SimBody {
  std::int64_t id = -1;  // index in the whole scene (set by the add* functions)
  SimShape shape = SimShape::Sphere;
  bool isStatic = false;
  // Rigid: 6 DOFs (v, ω) with world inertia R I_body Rᵀ; otherwise a point mass (ball, 2 or 3
  // DOFs). Boxes are always rigid; spheres are rigid when the world says so (rotatingSpheres).
  bool rigid = false;
  double radius = 0.0;                                      // spheres
  Eigen::Vector3d halfExtents = Eigen::Vector3d::Zero();    // boxes
  double mass = 1.0;
  Eigen::Vector3d inertiaBody = Eigen::Vector3d::Zero();    // principal moments (rigid)
  Eigen::Vector3d x = Eigen::Vector3d::Zero();              // centre (z = 0 in 2D)
  Eigen::Vector3d v = Eigen::Vector3d::Zero();              // linear velocity
  Eigen::Vector3d omega = Eigen::Vector3d::Zero();          // angular velocity (world frame)
  Eigen::Quaterniond q = Eigen::Quaterniond::Identity();    // orientation (body -> world)

  Eigen::Matrix3d rotation() const { return q.toRotationMatrix(); }
  Eigen::Matrix3d inertiaWorld() const {
    const Eigen::Matrix3d R = rotation();
    return R * inertiaBody.asDiagonal() * R.transpose();
  }
  // Radius of the bounding sphere (frames: ParaView glyph size).
  double boundingRadius() const { return shape == SimShape::Sphere ? radius : halfExtents.norm(); }
};

// A static half-space {x : normal·x ≤ offset}; `normal` (unit) points out of the solid, into the
// free region (a floor at height h: normal e_y in 2D / e_z in 3D, offset h).
struct SimPlane {
  Eigen::Vector3d normal = Eigen::Vector3d::UnitY();
  double offset = 0.0;
};

struct SimWorld {
  int dimension = 2;  // 2: discs in the (x, y) plane; 3: spheres and boxes in space
  std::vector<SimBody> bodies;
  std::vector<SimPlane> planes;
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();
  double time = 0.0;

  int numBodies() const { return static_cast<int>(bodies.size()); }
  // Adds a ball (disc in 2D, sphere in 3D; a rigid sphere with I = 2/5 m r² if `rigid`).
  int addBall(const Eigen::Vector3d& x, double radius, double mass, const Eigen::Vector3d& v = Eigen::Vector3d::Zero(),
              bool rigid = false);
  // A rigid box (3D only), I = m/3 diag(b²+c², a²+c², a²+b²) for half extents (a, b, c).
  int addBox(const Eigen::Vector3d& x, const Eigen::Vector3d& halfExtents, double mass,
             const Eigen::Quaterniond& q = Eigen::Quaterniond::Identity(), const Eigen::Vector3d& v = Eigen::Vector3d::Zero());
  int addStaticBox(const Eigen::Vector3d& x, const Eigen::Vector3d& halfExtents,
                   const Eigen::Quaterniond& q = Eigen::Quaterniond::Identity());
  int addStaticBall(const Eigen::Vector3d& x, double radius);
  // A half-space through `point` whose free side is along `normal` (normalised here).
  void addPlane(const Eigen::Vector3d& point, const Eigen::Vector3d& normal);

  // Throws InputError naming "body k" / "plane k" and the offending property: a non-finite
  // coordinate, a radius / half extent / mass ≤ 0, a box in 2D, a 2D body off the z = 0 plane or
  // with z velocity, a zero plane normal.
  void validate() const;

  // Energies and momenta of the dynamic bodies (potential energy −Σ m g·x).
  double kineticEnergy() const;
  double potentialEnergy() const;
  // The shadow (modified) energy of the simulator's symplectic Euler flight with uniform gravity,
  // H̃ = KE + PE + ½ Δt Σ m g·v: conserved exactly in free flight (KE + PE itself falls by
  // ½ m |g|² Δt² per step and jumps back when the velocity turns), so it separates the contacts'
  // work from the integrator's bounded oscillation (docs/modules/impact.md, Energy).
  double shadowEnergy(double dt) const;
  Eigen::Vector3d linearMomentum() const;
  Eigen::Vector3d angularMomentum() const;  // about the origin: Σ x × m v + I ω
};

}  // namespace kinema::impact
