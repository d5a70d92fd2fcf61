#pragma once
// Particles (and optionally bonds) read from a file, for users with their own packing: the
// `file` scene generator (docs/modules/bdem.md, "Particles from a file", documents the formats).
//
// CSV (.csv, .txt): a header line naming the columns, then one particle per line, comma-separated;
// blank lines and lines starting with '#' are skipped. Columns, in any order:
//   x, y, z, r                  required: centre [m] and radius [m]
//   vx, vy, vz                  optional (all three): velocity [m/s]
//   qx, qy, qz, qw              optional (all four): orientation, unit quaternion, scalar last
//   material                    optional: index into the materials (0: bdem.scene.material.*)
// Bond CSV: header `i, j`, one bond per line, scene indices (0-based row order of the particles).
//
// HDF5 (.h5, .hdf5): datasets /particles/position (N x 3), /particles/radius (N), optional
// /particles/velocity (N x 3), /particles/orientation (N x 4, scalar last), /particles/material
// (N, integer), and optional /bonds (M x 2, integer scene indices).
//
// Without a bond list the bonds are made by the rule of bond_builder.hpp, |p_i - p_j| <=
// (1 + bond_delta)(r_i + r_j) (§3.4; README decision 23), unless auto_bonds is off. Masses are rho (4/3) pi r^3
// with the particle's material density. Every problem (a value that is not a finite number, a
// radius <= 0, a quaternion of norm far from 1, a wrong column count, a bond to a missing
// particle, a bond of a particle with itself, a duplicate bond) is an InputError naming file:line
// (HDF5: file:dataset:row).
#include <string>
#include <vector>

#include "modules/bdem/system.hpp"

namespace kinema::bdem {

struct ParticleFileOptions {
  std::string path;       // CSV or HDF5 (by extension)
  std::string bondsPath;  // CSV bond list; empty: /bonds of an HDF5 file, else by the distance rule
  bool autoBonds = true;  // no bond list: bond by (1 + bondDelta)(r_i + r_j)
  double bondDelta = 5e-3;
  std::vector<Material> materials = std::vector<Material>(1);
  Vec3 gravity = Vec3(0, 0, -9.81);
};

System readParticleFile(const ParticleFileOptions& o);

// Writes the particles of `s` (p, r, v, q, material, in scene order) as a particle CSV, and its
// alive bonds (scene indices) as a bond CSV when bondsPath is not empty. Full precision (round
// trip exact). One rank's whole scene (before distribution).
void writeParticleCsv(const System& s, const std::string& path, const std::string& bondsPath = "");

}  // namespace kinema::bdem
