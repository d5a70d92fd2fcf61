#include "modules/bdem/particle_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <numbers>
#include <set>

#include "framework/core/comm.hpp"
#include "framework/core/error.hpp"
#include "framework/io/hdf5_file.hpp"
#include "modules/bdem/bond_builder.hpp"

namespace kinema::bdem {

namespace {

bool isHdf5(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".h5" || ext == ".hdf5";
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    out.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// One CSV file as (line number, fields) rows after its header; the header's names in `header`.
struct CsvTable {
  std::vector<std::string> header;
  std::size_t headerLine = 0;
  std::vector<std::pair<std::size_t, std::vector<std::string>>> rows;
};

CsvTable readCsv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(str(path, ": cannot open the file"));
  CsvTable t;
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::string s = trim(line);
    if (s.empty() || s[0] == '#') continue;
    if (t.header.empty()) {
      t.header = splitCsv(s);
      t.headerLine = n;
      continue;
    }
    t.rows.emplace_back(n, splitCsv(s));
  }
  if (t.header.empty()) throw InputError(str(path, ": empty file (expected a header line naming the columns)"));
  return t;
}

double parseReal(const std::string& where, const std::string& column, const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size())
    throw InputError(str(where, ": column ", column, ": '", text, "' is not a number"));
  if (!std::isfinite(x)) throw InputError(str(where, ": column ", column, ": ", text, " is not finite"));
  return x;
}

long long parseIndex(const std::string& where, const std::string& column, const std::string& text) {
  char* end = nullptr;
  const long long i = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size())
    throw InputError(str(where, ": column ", column, ": '", text, "' is not an integer"));
  return i;
}

// What a particle row carries, before the System is made.
struct Row {
  Vec3 p = Vec3::Zero(), v = Vec3::Zero();
  Vec4 q = Vec4(0, 0, 0, 1);
  double r = 0;
  long long material = 0;
};

void checkRow(const std::string& where, Row& row, std::size_t materials) {
  if (!(row.r > 0)) throw InputError(str(where, ": radius r = ", row.r, " must be positive"));
  const double qn = row.q.norm();
  if (std::abs(qn - 1.0) > 1e-3)
    throw InputError(str(where, ": orientation (qx, qy, qz, qw) has norm ", qn, ", expected a unit quaternion"));
  row.q /= qn;
  if (row.material < 0 || static_cast<std::size_t>(row.material) >= materials)
    throw InputError(str(where, ": material ", row.material, " does not exist (", materials,
                         materials == 1 ? " material: 0" : " materials: 0 to " + std::to_string(materials - 1), ")"));
}

std::vector<Row> readParticlesCsv(const std::string& path, std::size_t materials) {
  const CsvTable t = readCsv(path);
  const std::vector<std::string> known{"x", "y", "z", "r", "vx", "vy", "vz", "qx", "qy", "qz", "qw", "material"};
  std::vector<int> col(known.size(), -1);
  for (std::size_t k = 0; k < t.header.size(); ++k) {
    const auto it = std::find(known.begin(), known.end(), t.header[k]);
    const std::string at = str(path, ":", t.headerLine);
    if (it == known.end())
      throw InputError(str(at, ": unknown column '", t.header[k], "' (columns: x, y, z, r, optional vx, vy, vz, ",
                           "qx, qy, qz, qw, material)"));
    if (col[static_cast<std::size_t>(it - known.begin())] >= 0)
      throw InputError(str(at, ": column '", t.header[k], "' appears twice"));
    col[static_cast<std::size_t>(it - known.begin())] = static_cast<int>(k);
  }
  const std::string at = str(path, ":", t.headerLine);
  for (int k = 0; k < 4; ++k)
    if (col[static_cast<std::size_t>(k)] < 0) throw InputError(str(at, ": the header has no column '", known[static_cast<std::size_t>(k)], "' (x, y, z, r are required)"));
  const bool hasV = col[4] >= 0 || col[5] >= 0 || col[6] >= 0;
  if (hasV && (col[4] < 0 || col[5] < 0 || col[6] < 0)) throw InputError(str(at, ": give all of vx, vy, vz or none"));
  const bool hasQ = col[7] >= 0 || col[8] >= 0 || col[9] >= 0 || col[10] >= 0;
  if (hasQ && (col[7] < 0 || col[8] < 0 || col[9] < 0 || col[10] < 0))
    throw InputError(str(at, ": give all of qx, qy, qz, qw or none"));
  std::vector<Row> rows;
  rows.reserve(t.rows.size());
  for (const auto& entry : t.rows) {
    // Not a structured binding: clang 14 (the fuzzing build) cannot capture one in a lambda.
    const auto& line = entry.first;
    const auto& f = entry.second;
    const std::string where = str(path, ":", line);
    if (f.size() != t.header.size())
      throw InputError(str(where, ": ", f.size(), " columns, the header names ", t.header.size()));
    auto get = [&](std::size_t k) { return parseReal(where, known[k], f[static_cast<std::size_t>(col[k])]); };
    Row r;
    r.p = Vec3(get(0), get(1), get(2));
    r.r = get(3);
    if (hasV) r.v = Vec3(get(4), get(5), get(6));
    if (hasQ) r.q = Vec4(get(7), get(8), get(9), get(10));
    if (col[11] >= 0) r.material = parseIndex(where, "material", f[static_cast<std::size_t>(col[11])]);
    checkRow(where, r, materials);
    rows.push_back(r);
  }
  if (rows.empty()) throw InputError(str(path, ": the file holds no particle"));
  return rows;
}

// (i, j, where) of each bond.
struct BondRow {
  long long i = 0, j = 0;
  std::string where;
};

std::vector<BondRow> readBondsCsv(const std::string& path) {
  const CsvTable t = readCsv(path);
  if (t.header.size() != 2 || t.header[0] != "i" || t.header[1] != "j")
    throw InputError(str(path, ":", t.headerLine, ": a bond file's header is `i, j`"));
  std::vector<BondRow> out;
  for (const auto& [line, f] : t.rows) {
    const std::string where = str(path, ":", line);
    if (f.size() != 2) throw InputError(str(where, ": ", f.size(), " columns, expected 2 (i, j)"));
    out.push_back({parseIndex(where, "i", f[0]), parseIndex(where, "j", f[1]), where});
  }
  return out;
}

std::vector<Row> readParticlesHdf5(const io::H5File& f, std::size_t materials) {
  const std::string& path = f.path();
  // Each dataset's shape is checked before it is read: its columns, and its rows against the
  // positions' (H5File bounds every dataset by the file's size, docs/reliability.md).
  std::uint64_t particles = 0;
  auto need = [&](const std::string& d, std::size_t cols) -> std::vector<double> {
    if (!f.exists(d)) throw InputError(str(path, ": no dataset ", d));
    const io::Shape s = f.shape(d);
    const std::size_t c = s.size() > 1 ? static_cast<std::size_t>(s[1]) : 1;
    if (c != cols) throw InputError(str(path, ":", d, ": ", c, " columns, expected ", cols));
    const std::uint64_t rows = s.empty() ? 1 : s[0];
    if (d == "/particles/position") particles = rows;
    else if (rows != particles) throw InputError(str(path, ":", d, ": ", rows, " rows for ", particles, " particles"));
    return f.readAll(d);
  };
  const std::vector<double> pos = need("/particles/position", 3);
  const std::size_t n = pos.size() / 3;
  if (n == 0) throw InputError(str(path, ":/particles/position: the file holds no particle"));
  const std::vector<double> rad = need("/particles/radius", 1);
  if (rad.size() != n) throw InputError(str(path, ":/particles/radius: ", rad.size(), " rows for ", n, " particles"));
  std::vector<double> vel, ori;
  std::vector<std::int64_t> mat;
  if (f.exists("/particles/velocity")) vel = need("/particles/velocity", 3);
  if (f.exists("/particles/orientation")) ori = need("/particles/orientation", 4);
  if (f.exists("/particles/material")) {
    const io::Shape s = f.shape("/particles/material");
    if ((s.empty() ? 1 : s[0]) != particles)
      throw InputError(str(path, ":/particles/material: ", s.empty() ? 1 : s[0], " rows for ", particles, " particles"));
    mat = f.readAllInt("/particles/material");
  }
  if ((!vel.empty() && vel.size() != 3 * n) || (!ori.empty() && ori.size() != 4 * n) || (!mat.empty() && mat.size() != n))
    throw InputError(str(path, ":/particles: the velocity, orientation and material datasets need ", n, " rows"));
  std::vector<Row> rows(n);
  for (std::size_t a = 0; a < n; ++a) {
    Row& r = rows[a];
    auto finite = [&](const std::string& d, double x) {
      if (!std::isfinite(x)) throw InputError(str(path, ":", d, ":", a, ": ", x, " is not finite"));
      return x;
    };
    for (int k = 0; k < 3; ++k) r.p[k] = finite("/particles/position", pos[3 * a + static_cast<std::size_t>(k)]);
    r.r = finite("/particles/radius", rad[a]);
    if (!vel.empty())
      for (int k = 0; k < 3; ++k) r.v[k] = finite("/particles/velocity", vel[3 * a + static_cast<std::size_t>(k)]);
    if (!ori.empty())
      for (int k = 0; k < 4; ++k) r.q[k] = finite("/particles/orientation", ori[4 * a + static_cast<std::size_t>(k)]);
    if (!mat.empty()) r.material = mat[a];
    checkRow(str(path, ":/particles:", a), r, materials);
  }
  return rows;
}

std::vector<BondRow> readBondsHdf5(const io::H5File& f) {
  const io::Shape s = f.shape("/bonds");  // checked before the read
  if (s.size() != 2 || s[1] != 2) throw InputError(str(f.path(), ":/bonds: expected an M x 2 dataset of scene indices"));
  const std::vector<std::int64_t> b = f.readAllInt("/bonds");
  std::vector<BondRow> out;
  for (std::size_t k = 0; k + 1 < b.size(); k += 2) out.push_back({b[k], b[k + 1], str(f.path(), ":/bonds:", k / 2)});
  return out;
}

}  // namespace

System readParticleFile(const ParticleFileOptions& o) {
  if (o.path.empty()) throw InputError("file: path: no particle file given");
  if (!std::filesystem::is_regular_file(o.path)) throw InputError(str(o.path, ": no such file"));
  std::vector<Row> rows;
  std::vector<BondRow> bonds;
  bool haveBonds = false;
  if (isHdf5(o.path)) {
    io::H5File f(o.path, io::H5File::Mode::read, Comm::self());
    rows = readParticlesHdf5(f, o.materials.size());
    if (o.bondsPath.empty() && f.exists("/bonds")) {
      bonds = readBondsHdf5(f);
      haveBonds = true;
    }
  } else {
    rows = readParticlesCsv(o.path, o.materials.size());
  }
  if (!o.bondsPath.empty()) {
    if (!std::filesystem::is_regular_file(o.bondsPath)) throw InputError(str(o.bondsPath, ": no such file"));
    bonds = readBondsCsv(o.bondsPath);
    haveBonds = true;
  }

  System S;
  S.materials = o.materials;
  S.gravity = o.gravity;
  const std::size_t n = rows.size();
  for (std::size_t a = 0; a < n; ++a) {
    const Row& r = rows[a];
    const Material& m = o.materials[static_cast<std::size_t>(r.material)];
    const double mass = m.density * 4.0 / 3.0 * std::numbers::pi * r.r * r.r * r.r;
    S.P.add(r.p, r.r, mass, static_cast<GlobalId>(a), static_cast<int>(r.material));
    S.P.v[a] = r.v;
    S.P.q[a] = r.q;
    S.P.qRef[a] = r.q;
    // qdot stays 0 (no angular velocity column).
  }
  S.P.numOwned = n;
  if (haveBonds) {
    std::set<std::pair<long long, long long>> seen;
    for (const BondRow& b : bonds) {
      for (long long e : {b.i, b.j})
        if (e < 0 || static_cast<std::size_t>(e) >= n)
          throw InputError(str(b.where, ": bond (", b.i, ", ", b.j, ") names particle ", e, ", which does not exist (",
                               n, " particles, 0 to ", n - 1, ")"));
      if (b.i == b.j) throw InputError(str(b.where, ": bond (", b.i, ", ", b.j, ") joins a particle to itself"));
      const auto key = std::make_pair(std::min(b.i, b.j), std::max(b.i, b.j));
      if (!seen.insert(key).second)
        throw InputError(str(b.where, ": duplicate bond between particles ", key.first, " and ", key.second));
      const auto i = static_cast<std::int32_t>(key.first), j = static_cast<std::int32_t>(key.second);
      if ((S.P.p[static_cast<std::size_t>(j)] - S.P.p[static_cast<std::size_t>(i)]).norm() <= 0)
        throw InputError(str(b.where, ": bond (", b.i, ", ", b.j, ") joins two particles at the same position"));
      S.bonds.push_back(makeBond(S.P, i, j, o.materials[static_cast<std::size_t>(S.P.material[static_cast<std::size_t>(i)])]));
    }
    sortBonds(S);
  } else if (o.autoBonds) {
    buildBonds(S, o.bondDelta);
  }
  return S;
}

void writeParticleCsv(const System& s, const std::string& path, const std::string& bondsPath) {
  const Particles& P = s.P;
  std::vector<std::size_t> order(P.size());
  for (std::size_t a = 0; a < P.size(); ++a) order[static_cast<std::size_t>(P.gid[a])] = a;
  std::ofstream out(path);
  if (!out) throw Error(str(path, ": cannot write"));
  out << std::setprecision(17) << "x,y,z,r,vx,vy,vz,qx,qy,qz,qw,material\n";
  for (std::size_t a : order)
    out << P.p[a][0] << ',' << P.p[a][1] << ',' << P.p[a][2] << ',' << P.r[a] << ',' << P.v[a][0] << ',' << P.v[a][1]
        << ',' << P.v[a][2] << ',' << P.q[a][0] << ',' << P.q[a][1] << ',' << P.q[a][2] << ',' << P.q[a][3] << ','
        << P.material[a] << '\n';
  if (bondsPath.empty()) return;
  std::ofstream b(bondsPath);
  if (!b) throw Error(str(bondsPath, ": cannot write"));
  b << "i,j\n";
  for (const Bond& bond : s.bonds)
    if (bond.alive) b << bond.gi << ',' << bond.gj << '\n';
}

}  // namespace kinema::bdem
