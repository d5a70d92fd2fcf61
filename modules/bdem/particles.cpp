#include "modules/bdem/particles.hpp"

namespace kinema::bdem {

void Particles::resize(std::size_t n) {
  p.resize(n, Vec3::Zero());
  v.resize(n, Vec3::Zero());
  q.resize(n, Vec4(0, 0, 0, 1));
  qdot.resize(n, Vec4::Zero());
  r.resize(n, 0.0);
  m.resize(n, 0.0);
  dof.resize(n, Dof::Free);
  grip.resize(n, -1);
  material.resize(n, 0);
  gid.resize(n, -1);
  pRef.resize(n, Vec3::Zero());
  qRef.resize(n, Vec4(0, 0, 0, 1));
}

void Particles::add(const Vec3& position, double radius, double mass, GlobalId id, int materialId) {
  p.push_back(position);
  v.push_back(Vec3::Zero());
  q.push_back(Vec4(0, 0, 0, 1));
  qdot.push_back(Vec4::Zero());
  r.push_back(radius);
  m.push_back(mass);
  dof.push_back(Dof::Free);
  grip.push_back(-1);
  material.push_back(materialId);
  gid.push_back(id);
  pRef.push_back(position);
  qRef.push_back(Vec4(0, 0, 0, 1));
}

}  // namespace kinema::bdem
