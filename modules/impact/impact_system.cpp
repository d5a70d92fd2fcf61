#include "modules/impact/impact_system.hpp"

#include <cmath>

#include "framework/core/error.hpp"

namespace kinema::impact {

int ImpactSystem::addBody(Body b) {
  b.offset = d_;
  d_ += b.dofs;
  bodies_.push_back(b);
  incident_.emplace_back();
  return static_cast<int>(bodies_.size()) - 1;
}

void ImpactSystem::requireBody(int b, const char* what) const {
  if (b < -1 || b >= numBodies())
    throw InputError(str("impact system: ", what, ": body ", b, " does not exist (", numBodies(),
                         " bodies)"));
}

int ImpactSystem::addBall2D(double mass, const Eigen::Vector2d& position) {
  if (!(mass > 0.0) || !std::isfinite(mass))
    throw InputError(str("impact system: 2D ball ", numBodies(), " has mass ", mass, " (must be > 0)"));
  Body b;
  b.kind = BodyKind::Ball2D;
  b.dofs = 2;
  b.mass = mass;
  b.position << position, 0.0;
  b.M.topLeftCorner<2, 2>() = mass * Eigen::Matrix2d::Identity();
  b.Minv.topLeftCorner<2, 2>() = (1.0 / mass) * Eigen::Matrix2d::Identity();
  return addBody(b);
}

int ImpactSystem::addBall3D(double mass, const Eigen::Vector3d& position) {
  if (!(mass > 0.0) || !std::isfinite(mass))
    throw InputError(str("impact system: 3D ball ", numBodies(), " has mass ", mass, " (must be > 0)"));
  Body b;
  b.kind = BodyKind::Ball3D;
  b.dofs = 3;
  b.mass = mass;
  b.position = position;
  b.M.topLeftCorner<3, 3>() = mass * Eigen::Matrix3d::Identity();
  b.Minv.topLeftCorner<3, 3>() = (1.0 / mass) * Eigen::Matrix3d::Identity();
  return addBody(b);
}

int ImpactSystem::addRigidBody(double mass, const Eigen::Matrix3d& inertiaWorld,
                               const Eigen::Vector3d& position) {
  if (!(mass > 0.0) || !std::isfinite(mass))
    throw InputError(str("impact system: rigid body ", numBodies(), " has mass ", mass, " (must be > 0)"));
  Eigen::LLT<Eigen::Matrix3d> llt(0.5 * (inertiaWorld + inertiaWorld.transpose()));
  if (llt.info() != Eigen::Success || (inertiaWorld - inertiaWorld.transpose()).norm() > 1e-12 * inertiaWorld.norm())
    throw InputError(str("impact system: rigid body ", numBodies(),
                         ": the world inertia tensor must be symmetric positive definite"));
  Body b;
  b.kind = BodyKind::Rigid3D;
  b.dofs = 6;
  b.mass = mass;
  b.position = position;
  b.inertia = inertiaWorld;
  b.M.topLeftCorner<3, 3>() = mass * Eigen::Matrix3d::Identity();
  b.M.bottomRightCorner<3, 3>() = inertiaWorld;
  b.Minv.topLeftCorner<3, 3>() = (1.0 / mass) * Eigen::Matrix3d::Identity();
  b.Minv.bottomRightCorner<3, 3>() = llt.solve(Eigen::Matrix3d::Identity());
  return addBody(b);
}

int ImpactSystem::addStatic(const Eigen::Vector3d& position) {
  Body b;
  b.kind = BodyKind::Static;
  b.position = position;
  return addBody(b);
}

int ImpactSystem::addConstraint(int a, const Eigen::VectorXd& gA, int b, const Eigen::VectorXd& gB) {
  const int src = added_++;
  requireBody(a, "addConstraint");
  requireBody(b, "addConstraint");
  if (a >= 0 && a == b)
    throw InputError(str("impact system: constraint ", src, " names body ", a, " twice"));
  Constraint c;
  c.source = src;
  const int ids[2] = {a, b};
  const Eigen::VectorXd* gs[2] = {&gA, &gB};
  int slot = 0;
  for (int s = 0; s < 2; ++s) {
    const int id = ids[s];
    if (id < 0 || bodies_[id].dofs == 0) continue;
    const Body& bd = bodies_[id];
    if (gs[s]->size() != bd.dofs)
      throw InputError(str("impact system: constraint ", src, ": gradient block on body ", id, " has ",
                           gs[s]->size(), " entries, the body has ", bd.dofs, " DOFs"));
    c.body[slot] = id;
    c.side[slot] = s == 0 ? -1.0 : 1.0;
    c.n[slot].setZero();
    c.n[slot].head(bd.dofs) = *gs[s];
    ++slot;
  }
  // (norm): n ← n / sqrt(nᵀM⁻¹n)   [P section 2]
  double nMn = 0.0;
  for (int s = 0; s < 2; ++s) {
    if (c.body[s] < 0) continue;
    c.Minv_n[s] = bodies_[c.body[s]].Minv * c.n[s];
    nMn += c.n[s].dot(c.Minv_n[s]);
  }
  if (!std::isfinite(nMn))
    throw InputError(str("impact system: constraint ", src, " has a non-finite gradient"));
  if (!(nMn > 0.0)) {  // static against static, or a zero gradient: no DOF can respond
    ++dropped_;
    return -1;
  }
  c.scale = std::sqrt(nMn);
  for (int s = 0; s < 2; ++s) {
    c.n[s] /= c.scale;
    c.Minv_n[s] /= c.scale;
  }
  const int idx = numConstraints();
  for (int s = 0; s < 2; ++s)
    if (c.body[s] >= 0) incident_[c.body[s]].push_back(idx);
  constraints_.push_back(c);
  return idx;
}

Block ImpactSystem::contactBlock(int b, double sign, const Eigen::Vector3d& p,
                                  const Eigen::Vector3d& nu) const {
  Block g = Block::Zero();
  const Body& bd = bodies_[b];
  switch (bd.kind) {
    case BodyKind::Ball2D: g.head<2>() = sign * nu.head<2>(); break;
    case BodyKind::Ball3D: g.head<3>() = sign * nu; break;
    case BodyKind::Rigid3D:
      g.head<3>() = sign * nu;
      g.segment<3>(3) = sign * (p - bd.position).cross(nu);
      break;
    case BodyKind::Static: break;
  }
  return g;
}

int ImpactSystem::addContact(int a, int b, const Eigen::Vector3d& point, const Eigen::Vector3d& normal) {
  requireBody(a, "addContact");
  requireBody(b, "addContact");
  const double len = normal.norm();
  if (!(len > 0.0) || !std::isfinite(len))
    throw InputError(str("impact system: contact ", added_, " has a zero or non-finite normal"));
  const Eigen::Vector3d nu = normal / len;
  Eigen::VectorXd gA, gB;
  if (a >= 0) gA = contactBlock(a, -1.0, point, nu).head(bodies_[a].dofs);
  if (b >= 0) gB = contactBlock(b, +1.0, point, nu).head(bodies_[b].dofs);
  const int idx = addConstraint(a, gA, b, gB);
  if (idx >= 0) {
    constraints_[idx].geometry.valid = true;
    constraints_[idx].geometry.normal = nu;
    constraints_[idx].geometry.point = point;
  }
  return idx;
}

int ImpactSystem::addBallBall(int a, int b) {
  requireBody(a, "addBallBall");
  requireBody(b, "addBallBall");
  if (a < 0 || b < 0) throw InputError("impact system: addBallBall needs two bodies");
  const Eigen::Vector3d dx = bodies_[b].position - bodies_[a].position;
  if (!(dx.norm() > 0.0))
    throw InputError(str("impact system: balls ", a, " and ", b, " have the same centre"));
  return addContact(a, b, 0.5 * (bodies_[a].position + bodies_[b].position), dx);
}

int ImpactSystem::addWall(int body, const Eigen::Vector3d& normal) {
  requireBody(body, "addWall");
  return addContact(-1, body, bodies_.at(body).position, normal);
}

double ImpactSystem::dot(int i, const Eigen::VectorXd& v) const {
  const Constraint& c = constraints_[i];
  double s = 0.0;
  for (int k = 0; k < 2; ++k) {
    if (c.body[k] < 0) continue;
    const Body& b = bodies_[c.body[k]];
    s += c.n[k].head(b.dofs).dot(v.segment(b.offset, b.dofs));
  }
  return s;
}

void ImpactSystem::applyImpulse(int i, double lambda, Eigen::VectorXd& v) const {
  const Constraint& c = constraints_[i];
  for (int k = 0; k < 2; ++k) {
    if (c.body[k] < 0) continue;
    const Body& b = bodies_[c.body[k]];
    v.segment(b.offset, b.dofs) += lambda * c.Minv_n[k].head(b.dofs);
  }
}

void ImpactSystem::NT(const Eigen::VectorXd& v, Eigen::VectorXd& s) const {
  KINEMA_CHECK(s.size() == numConstraints(), "NT: output has ", s.size(), " entries, m = ", numConstraints());
  for (int i = 0; i < numConstraints(); ++i) s[i] = dot(i, v);
}

void ImpactSystem::addMinvN(const Eigen::VectorXd& lambda, Eigen::VectorXd& v) const {
  for (int i = 0; i < numConstraints(); ++i)
    if (lambda[i] != 0.0) applyImpulse(i, lambda[i], v);
}

double ImpactSystem::delassus(int i, int j) const {
  const Constraint& ci = constraints_[i];
  const Constraint& cj = constraints_[j];
  double s = 0.0;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      if (ci.body[a] >= 0 && ci.body[a] == cj.body[b]) s += ci.n[a].dot(cj.Minv_n[b]);
  return s;
}

void ImpactSystem::applyM(const Eigen::VectorXd& v, Eigen::VectorXd& out) const {
  out.resize(d_);
  for (const Body& b : bodies_)
    if (b.dofs > 0)
      out.segment(b.offset, b.dofs) = b.M.topLeftCorner(b.dofs, b.dofs) * v.segment(b.offset, b.dofs);
}

void ImpactSystem::applyMinv(const Eigen::VectorXd& v, Eigen::VectorXd& out) const {
  out.resize(d_);
  for (const Body& b : bodies_)
    if (b.dofs > 0)
      out.segment(b.offset, b.dofs) = b.Minv.topLeftCorner(b.dofs, b.dofs) * v.segment(b.offset, b.dofs);
}

double ImpactSystem::dotM(const Eigen::VectorXd& u, const Eigen::VectorXd& v) const {
  double s = 0.0;
  for (const Body& b : bodies_) {
    switch (b.kind) {
      case BodyKind::Ball2D:
      case BodyKind::Ball3D: s += b.mass * u.segment(b.offset, b.dofs).dot(v.segment(b.offset, b.dofs)); break;
      case BodyKind::Rigid3D:
        s += b.mass * u.segment<3>(b.offset).dot(v.segment<3>(b.offset));
        s += u.segment<3>(b.offset + 3).dot(b.inertia * v.segment<3>(b.offset + 3));
        break;
      case BodyKind::Static: break;
    }
  }
  return s;
}

double ImpactSystem::normM(const Eigen::VectorXd& v) const { return std::sqrt(std::max(0.0, dotM(v, v))); }

Eigen::Vector3d ImpactSystem::linearMomentum(const Eigen::VectorXd& v) const {
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
  for (const Body& b : bodies_) {
    if (b.kind == BodyKind::Static) continue;
    Eigen::Vector3d vb = Eigen::Vector3d::Zero();
    vb.head(std::min(b.dofs, 3)) = v.segment(b.offset, std::min(b.dofs, 3));
    p += b.mass * vb;
  }
  return p;
}

Eigen::Vector3d ImpactSystem::angularMomentum(const Eigen::VectorXd& v) const {
  Eigen::Vector3d L = Eigen::Vector3d::Zero();
  for (const Body& b : bodies_) {
    if (b.kind == BodyKind::Static) continue;
    Eigen::Vector3d vb = Eigen::Vector3d::Zero();
    vb.head(std::min(b.dofs, 3)) = v.segment(b.offset, std::min(b.dofs, 3));
    L += b.position.cross(b.mass * vb);
    if (b.kind == BodyKind::Rigid3D) L += b.inertia * v.segment<3>(b.offset + 3);
  }
  return L;
}

Eigen::MatrixXd ImpactSystem::denseN() const {
  Eigen::MatrixXd N = Eigen::MatrixXd::Zero(d_, numConstraints());
  for (int i = 0; i < numConstraints(); ++i) {
    const Constraint& c = constraints_[i];
    for (int k = 0; k < 2; ++k)
      if (c.body[k] >= 0) {
        const Body& b = bodies_[c.body[k]];
        N.block(b.offset, i, b.dofs, 1) = c.n[k].head(b.dofs);
      }
  }
  return N;
}

Eigen::MatrixXd ImpactSystem::denseM() const {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(d_, d_);
  for (const Body& b : bodies_)
    if (b.dofs > 0) M.block(b.offset, b.offset, b.dofs, b.dofs) = b.M.topLeftCorner(b.dofs, b.dofs);
  return M;
}

Eigen::MatrixXd ImpactSystem::denseMinv() const {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(d_, d_);
  for (const Body& b : bodies_)
    if (b.dofs > 0) M.block(b.offset, b.offset, b.dofs, b.dofs) = b.Minv.topLeftCorner(b.dofs, b.dofs);
  return M;
}

}  // namespace kinema::impact
