#pragma once
// Probes (docs/modules/bdem.md, "Loads, supports and probes"): `bdem.probes: [set, ...]` adds,
// for each named set S, twelve diagnostics columns to every runner step's row:
//   probe_S_x, _y, _z      mean position of the particles of S
//   probe_S_ux, _uy, _uz   mean displacement from the rest position (p - pRef)
//   probe_S_vx, _vy, _vz   mean velocity
//   probe_S_fx, _fy, _fz   total force on S from outside the bonded body: for a fixed or gripped
//                          particle the support's reaction, grad_p V (bonds, contacts) - f_load -
//                          m g (the force that holds it on its prescribed path, its own
//                          acceleration neglected: zero for fixed and constant-velocity
//                          supports); for a free particle the applied load f_load + m g
// In static equilibrium the reactions of the supports balance the loads and gravity, so e.g. a
// clamp's probe reads minus the load applied at the tip. Sums over ranks (collective).
#include <string>
#include <vector>

#include "framework/io/diagnostics.hpp"
#include "modules/bdem/particle_sets.hpp"

namespace kinema::bdem {

class Probes {
 public:
  // Reads bdem.probes (a list of set names); an unknown set is an InputError naming the key.
  void read(const Config& c, const ParticleSets& sets);
  // After distribution: the owned particles of each probe (sceneIds: Domain::sceneIds()).
  void bind(const std::vector<GlobalId>& sceneIds);
  bool empty() const { return probes_.empty(); }
  // Appends the columns. gradV: grad_p V of the potential terms in the tangent layout (6 per
  // local particle, owned first, ghost contributions accumulated), Dirichlet rows included;
  // loads: the load of each owned particle (may be empty). Collective.
  void addColumns(const System& s, const double* gradV, const std::vector<Vec3>& loads, const Comm& comm,
                  io::Diagnostics::Row& row) const;

 private:
  struct Probe {
    std::string name;
    std::vector<GlobalId> ids;        // scene indices, sorted
    std::vector<std::size_t> owned;   // local indices of the owned members
    double count = 0;
  };
  std::vector<Probe> probes_;
};

}  // namespace kinema::bdem
