#include "modules/der/strand_set_file.hpp"

#include <algorithm>
#include <cmath>

#include "framework/core/error.hpp"
#include "framework/io/hdf5_file.hpp"

namespace kinema::der {

namespace {

constexpr const char* kFormat = "kinema-der-strands";
constexpr std::int64_t kVersion = 1;

std::uint64_t u64(std::int64_t v) { return static_cast<std::uint64_t>(v); }

// Every strand of this rank has the vertex count its offsets give.
void checkVertexCounts(const LocalStrands& local, std::int64_t count) {
  for (std::int64_t s = 0; s < count; ++s) {
    const int N = local.geometry[u64(s)].vertices();
    KINEMA_CHECK(N == local.vertexOffset[u64(local.firstStrand + s + 1)] - local.vertexOffset[u64(local.firstStrand + s)],
                 "writeStrandSet: strand vertex count disagrees with vertexOffset");
  }
}

// The /strands group: its attributes (format, counts, material) and the vertex offsets.
void writeHeader(io::H5File& f, const LocalStrands& local, bool hasRest) {
  const std::int64_t S = local.totalStrands;
  const std::int64_t V = local.vertexOffset.back();
  f.createGroup("/strands");
  f.writeAttribute("/strands", "format", std::string(kFormat));
  f.writeAttribute("/strands", "version", kVersion);
  f.writeAttribute("/strands", "strands", S);
  f.writeAttribute("/strands", "vertices", V);
  f.writeAttribute("/strands", "has_rest", static_cast<std::int64_t>(hasRest ? 1 : 0));
  f.writeAttribute("/strands", "radius", local.material.radius);
  f.writeAttribute("/strands", "density", local.material.density);
  f.writeAttribute("/strands", "gravity_x", local.material.gravity.x());
  f.writeAttribute("/strands", "gravity_y", local.material.gravity.y());
  f.writeAttribute("/strands", "gravity_z", local.material.gravity.z());
  f.writeArray("/strands/vertex_offset", {u64(S + 1)}, std::span<const std::int64_t>(local.vertexOffset));
}

// Writes this rank's rows (rows [v0, v0 + rows) of V) of the per-vertex datasets, one dataset at a
// time through one buffer.
class VertexSlabWriter {
 public:
  VertexSlabWriter(io::H5File& f, const LocalStrands& local) : f_(f), local_(local) {
    count_ = static_cast<std::int64_t>(local.geometry.size());
    V_ = local.vertexOffset.back();
    v0_ = local.vertexOffset[u64(local.firstStrand)];
    rows_ = u64(local.vertexOffset[u64(local.firstStrand + count_)] - v0_);
  }
  // Fills buf with `width` values per vertex from get(strand, vertex, out) (entries get leaves
  // alone stay 0) and writes it as dataset `name`.
  template <class Get>
  void write(const char* name, int width, Get get) {
    buf_.assign(static_cast<std::size_t>(width) * rows_, 0.0);
    std::size_t row = 0;
    for (std::int64_t s = 0; s < count_; ++s) {
      const int N = local_.geometry[u64(s)].vertices();
      for (int v = 0; v < N; ++v, ++row) get(u64(s), v, N, &buf_[static_cast<std::size_t>(width) * row]);
    }
    if (width == 1) f_.writeSlab(name, {u64(V_)}, u64(v0_), buf_);
    else f_.writeSlab(name, {u64(V_), u64(width)}, u64(v0_), buf_);
  }

 private:
  io::H5File& f_;
  const LocalStrands& local_;
  std::int64_t count_ = 0, V_ = 0, v0_ = 0;
  std::size_t rows_ = 0;
  std::vector<double> buf_;
};

// The per-vertex datasets: positions and theta, and with hasRest the rest state and stiffness.
void writeVertexData(io::H5File& f, const LocalStrands& local, bool hasRest) {
  // One dataset at a time through one buffer: the largest (positions, kbar) is 3-4 doubles per
  // vertex, instead of all twelve at once (memory per strand, docs/modules/der.md).
  VertexSlabWriter slab(f, local);
  slab.write("/strands/positions", 3, [&](std::size_t s, int v, int, double* out) {
    for (int c = 0; c < 3; ++c) out[c] = local.geometry[s].x[u64(v)][c];
  });
  slab.write("/strands/theta", 1, [&](std::size_t s, int v, int N, double* out) {
    if (v < N - 1) out[0] = local.geometry[s].theta[u64(v)];
  });
  if (!hasRest) return;
  slab.write("/strands/rest_length", 1, [&](std::size_t s, int v, int N, double* out) {
    if (v < N - 1) out[0] = local.rest[s].restLength[u64(v)];
  });
  slab.write("/strands/rest_kappa", 4, [&](std::size_t s, int v, int, double* out) {
    for (int c = 0; c < 4; ++c) out[c] = local.rest[s].restKappa[u64(v)][c];
  });
  slab.write("/strands/rest_twist", 1, [&](std::size_t s, int v, int, double* out) {
    out[0] = local.rest[s].restTwist[u64(v)];
  });
  slab.write("/strands/c_stretch", 1, [&](std::size_t s, int v, int N, double* out) {
    if (v < N - 1) out[0] = local.rest[s].cStretch[u64(v)];
  });
  slab.write("/strands/c_bend", 1, [&](std::size_t s, int v, int, double* out) {
    out[0] = local.rest[s].cBend[u64(v)];
  });
  slab.write("/strands/c_twist", 1, [&](std::size_t s, int v, int, double* out) {
    out[0] = local.rest[s].cTwist[u64(v)];
  });
}

// The per-strand optimisation results (zeros where this rank has none).
void writeResults(io::H5File& f, const LocalStrands& local) {
  const std::int64_t S = local.totalStrands;
  const std::int64_t count = static_cast<std::int64_t>(local.geometry.size());
  std::vector<double> res(u64(count)), newton(u64(count)), mprgp(u64(count)), reason(u64(count)),
      mprgpTotal(u64(count)), seconds(u64(count));
  for (std::int64_t s = 0; s < count && !local.results.empty(); ++s) {
    res[u64(s)] = local.results[u64(s)].relativeResidual;
    newton[u64(s)] = local.results[u64(s)].newtonIterations;
    mprgp[u64(s)] = local.results[u64(s)].mprgpIterationsPerSolve;
    reason[u64(s)] = local.results[u64(s)].stopReason;
    mprgpTotal[u64(s)] = local.results[u64(s)].mprgpIterations;
    seconds[u64(s)] = local.results[u64(s)].seconds;
  }
  const std::uint64_t off = u64(local.firstStrand);
  f.writeSlab("/strands/results/relative_residual", {u64(S)}, off, res);
  f.writeSlab("/strands/results/newton_iterations", {u64(S)}, off, newton);
  f.writeSlab("/strands/results/mprgp_iterations_per_solve", {u64(S)}, off, mprgp);
  f.writeSlab("/strands/results/stop_reason", {u64(S)}, off, reason);
  f.writeSlab("/strands/results/mprgp_iterations", {u64(S)}, off, mprgpTotal);
  f.writeSlab("/strands/results/seconds", {u64(S)}, off, seconds);
}

}  // namespace

void writeStrandSet(const std::string& path, Comm comm, const LocalStrands& local) {
  const std::int64_t S = local.totalStrands;
  KINEMA_CHECK(static_cast<std::int64_t>(local.vertexOffset.size()) == S + 1,
               "writeStrandSet: vertexOffset must hold every strand's offset");
  const std::int64_t count = static_cast<std::int64_t>(local.geometry.size());
  const bool hasRest = comm.max(local.rest.empty() ? 0.0 : 1.0) > 0.0 && (count == 0 || !local.rest.empty());
  const bool hasResults = comm.max(local.results.empty() ? 0.0 : 1.0) > 0.0;
  checkVertexCounts(local, count);

  io::H5File f(path, io::H5File::Mode::create, comm);
  writeHeader(f, local, hasRest);
  writeVertexData(f, local, hasRest);
  if (hasResults) writeResults(f, local);
  f.flush();
}

namespace {

void requireFormat(const io::H5File& f, const std::string& path) {
  if (!f.exists("/strands") || !f.hasAttribute("/strands", "format") ||
      f.readAttributeString("/strands", "format") != kFormat)
    throw InputError(path + ": not a Kinema strand-set file (no /strands group with format = " +
                     std::string(kFormat) + "); .hair files are read with der.strands.source: hair");
  const std::int64_t version = f.readAttributeInt("/strands", "version");
  if (version != kVersion)
    throw InputError(str(path, ": strand-set file version ", version, ", this build reads version ", kVersion));
}

std::vector<std::int64_t> readOffsets(const io::H5File& f, const std::string& path) {
  const std::int64_t S = f.readAttributeInt("/strands", "strands");
  // The offsets' shape agrees with the strand count before they are read (and H5File bounds the
  // dataset by the file's size: docs/reliability.md, "HDF5 files").
  const io::Shape shape = f.shape("/strands/vertex_offset");
  if (S < 0) throw InputError(str(path, ": /strands has a negative strand count (", S, ")"));
  // Compared in unsigned arithmetic: S comes from the file and may be any int64, INT64_MAX included.
  if (shape.size() != 1 || shape[0] == 0 || shape[0] - 1 != u64(S))
    throw InputError(str(path, ": /strands/vertex_offset has shape (",
                         shape.empty() ? std::string() : std::to_string(shape[0]), shape.size() > 1 ? ", ..." : "",
                         ") for ", S, " strands (expected ", u64(S) + 1, " entries)"));
  std::vector<std::int64_t> off = f.readAllInt("/strands/vertex_offset");
  if (off.empty() || off.size() - 1 != u64(S) || off[0] != 0)
    throw InputError(str(path, ": /strands/vertex_offset has ", off.size(), " entries for ", S,
                         " strands (expected ", u64(S) + 1, ", starting at 0)"));
  // Increasing from 0, so every offset is >= 0 and no difference overflows.
  for (std::int64_t s = 0; s < S; ++s)
    if (off[u64(s + 1)] < off[u64(s)] || off[u64(s + 1)] - off[u64(s)] < 3)
      throw InputError(str(path, ": strand ", s, " has ",
                           off[u64(s + 1)] < off[u64(s)] ? std::string("a negative number of")
                                                         : std::to_string(off[u64(s + 1)] - off[u64(s)]),
                           " vertices; a DER strand needs at least 3"));
  if (off.back() != f.readAttributeInt("/strands", "vertices"))
    throw InputError(str(path, ": /strands/vertex_offset ends at ", off.back(), " but the file has ",
                         f.readAttributeInt("/strands", "vertices"), " vertices"));
  return off;
}

// radius, density and gravity of the file (the stiffness fields are unused and keep their defaults).
void readMaterial(const io::H5File& f, Material& material) {
  material.radius = f.readAttributeReal("/strands", "radius");
  material.density = f.readAttributeReal("/strands", "density");
  material.gravity = Vec3(f.readAttributeReal("/strands", "gravity_x"), f.readAttributeReal("/strands", "gravity_y"),
                          f.readAttributeReal("/strands", "gravity_z"));
}

// Every dataset this read needs is there with one row per vertex, checked on every rank before
// any slab is read (the same metadata everywhere, so every rank raises the same error): a
// missing or short dataset names the file, the dataset and the first strand it lacks.
void requireVertexDatasets(const io::H5File& f, const std::string& path, const LocalStrands& out, bool hasRest) {
  const std::int64_t V = out.vertexOffset.back();
  auto requireRows = [&](const char* name, std::uint64_t width) {
    if (!f.exists(name))
      throw InputError(str(path, ": dataset ", name, " is missing (strands 0 to ", out.totalStrands - 1,
                           " have their rows there)"));
    const io::Shape shape = f.shape(name);
    const std::uint64_t have = shape.empty() ? 0 : shape[0];
    const std::uint64_t w = shape.size() > 1 ? shape[1] : 1;
    if (have < u64(V) || w != width) {
      const auto cut = std::upper_bound(out.vertexOffset.begin(), out.vertexOffset.end(), static_cast<std::int64_t>(have));
      throw InputError(str(path, ": dataset ", name, " has ", have, " rows of ", w, " values, expected ", V, " rows of ",
                           width, " (one per vertex); strand ", (cut - out.vertexOffset.begin()) - 1,
                           " is the first whose rows are missing"));
    }
  };
  requireRows("/strands/positions", 3);
  requireRows("/strands/theta", 1);
  if (hasRest) {
    requireRows("/strands/rest_length", 1);
    requireRows("/strands/rest_kappa", 4);
    for (const char* name : {"/strands/rest_twist", "/strands/c_stretch", "/strands/c_bend", "/strands/c_twist"})
      requireRows(name, 1);
  }
}

// This rank's strands [first, first + count), sized from the offsets (values filled later).
void sizeLocalStrands(LocalStrands& out, std::int64_t first, std::int64_t count, bool hasRest) {
  for (std::int64_t s = first; s < first + count; ++s) {
    const auto N = u64(out.vertexOffset[u64(s + 1)] - out.vertexOffset[u64(s)]);
    StrandGeometry g;
    g.x.resize(N);
    g.theta.resize(N - 1);
    out.geometry.push_back(std::move(g));
    if (!hasRest) continue;
    RestState r;
    r.restLength.resize(N - 1);
    r.cStretch.resize(N - 1);
    r.restKappa.assign(N, Vec4::Zero());
    r.restTwist.resize(N);
    r.cBend.resize(N);
    r.cTwist.resize(N);
    out.rest.push_back(std::move(r));
  }
}

constexpr std::uint64_t kRoundRows = std::uint64_t{1} << 15;

// Reads this rank's rows (rows [v0, v0 + rows) of the file) of the per-vertex datasets in
// `rounds` collective slab reads of at most kRoundRows rows each.
struct RoundReader {
  const io::H5File& f;
  const LocalStrands& out;
  std::int64_t v0 = 0;
  std::uint64_t rows = 0;
  std::int64_t rounds = 0;
  // Reads dataset `name` of `width` values per row and gives each row to put(strand, vertex, row,
  // values) (strand: index in this rank's range).
  template <class Put>
  void read(const char* name, std::size_t width, Put put) const {
    std::size_t strand = 0;
    std::uint64_t vertex = 0, row = 0;
    for (std::int64_t round = 0; round < rounds; ++round) {
      const std::uint64_t at = std::min(rows, u64(round) * kRoundRows), n = std::min(kRoundRows, rows - at);
      const std::vector<double> buf = f.readSlab(name, u64(v0) + at, n);
      for (std::uint64_t k = 0; k < n; ++k, ++row, ++vertex) {
        while (vertex >= out.geometry[strand].x.size()) {
          ++strand;
          vertex = 0;
        }
        put(strand, vertex, row, &buf[width * k]);
      }
    }
  }
};

// Positions and theta; the first row with a non-finite position lowers badPosition to it.
void readGeometryRows(const RoundReader& reader, LocalStrands& out, std::uint64_t& badPosition) {
  reader.read("/strands/positions", 3, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
    Vec3& p = out.geometry[s].x[v];
    p = Vec3(x[0], x[1], x[2]);
    if (!p.allFinite()) badPosition = std::min(badPosition, row);
  });
  reader.read("/strands/theta", 1, [&](std::size_t s, std::uint64_t v, std::uint64_t, const double* x) {
    if (v + 1 < out.geometry[s].x.size()) out.geometry[s].theta[v] = x[0];
  });
}

// Rest state and stiffness; the first row with a non-finite value lowers badRest to it.
void readRestRows(const RoundReader& reader, LocalStrands& out, std::uint64_t& badRest) {
  auto note = [&](std::uint64_t row, double value) {
    if (!std::isfinite(value)) badRest = std::min(badRest, row);
  };
  reader.read("/strands/rest_length", 1, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
    if (v < out.rest[s].restLength.size()) out.rest[s].restLength[v] = x[0];
    note(row, x[0]);
  });
  reader.read("/strands/rest_kappa", 4, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
    out.rest[s].restKappa[v] = Vec4(x[0], x[1], x[2], x[3]);
    note(row, x[0] + x[1] + x[2] + x[3]);
  });
  reader.read("/strands/rest_twist", 1, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
    out.rest[s].restTwist[v] = x[0];
    note(row, x[0]);
  });
  reader.read("/strands/c_stretch", 1, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
    if (v < out.rest[s].cStretch.size()) out.rest[s].cStretch[v] = x[0];
    note(row, x[0]);
  });
  reader.read("/strands/c_bend", 1, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
    out.rest[s].cBend[v] = x[0];
    note(row, x[0]);
  });
  reader.read("/strands/c_twist", 1, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
    out.rest[s].cTwist[v] = x[0];
    note(row, x[0]);
  });
}

// Raises the first bad row (< rows), as strand and vertex (a position before a rest parameter of
// the same row); nothing if both are `rows` (all finite).
void throwIfNonFinite(const std::string& path, const LocalStrands& out, std::int64_t v0, std::uint64_t rows,
                      std::uint64_t badPosition, std::uint64_t badRest) {
  if (badPosition >= rows && badRest >= rows) return;
  const std::uint64_t bad = std::min(badPosition, badRest);
  const auto it = std::upper_bound(out.vertexOffset.begin(), out.vertexOffset.end(), v0 + static_cast<std::int64_t>(bad));
  const std::int64_t s = (it - out.vertexOffset.begin()) - 1;
  const std::int64_t v = v0 + static_cast<std::int64_t>(bad) - out.vertexOffset[u64(s)];
  if (badPosition <= badRest) throw InputError(str(path, ": strand ", s, " vertex ", v, " has a non-finite position"));
  throw InputError(str(path, ": strand ", s, " vertex ", v, " has a non-finite rest parameter"));
}

}  // namespace

std::vector<std::int64_t> readStrandOffsets(const std::string& path, Comm comm) {
  io::H5File f(path, io::H5File::Mode::read, comm);
  requireFormat(f, path);
  return readOffsets(f, path);
}

LocalStrands readStrandSet(const std::string& path, Comm comm, std::int64_t first, std::int64_t count) {
  io::H5File f(path, io::H5File::Mode::read, comm);
  requireFormat(f, path);
  LocalStrands out;
  out.vertexOffset = readOffsets(f, path);
  out.totalStrands = static_cast<std::int64_t>(out.vertexOffset.size()) - 1;
  if (first < 0 || count < 0 || first + count > out.totalStrands)
    throw InputError(str(path, ": asked for strands [", first, ", ", first + count, ") of ", out.totalStrands));
  out.firstStrand = first;
  readMaterial(f, out.material);
  const bool hasRest = f.readAttributeInt("/strands", "has_rest") != 0;
  const std::int64_t v0 = out.vertexOffset[u64(first)];
  const std::uint64_t rows = u64(out.vertexOffset[u64(first + count)] - v0);
  requireVertexDatasets(f, path, out, hasRest);
  // This rank's strands, sized from the offsets, then filled dataset by dataset in rounds of at
  // most kRoundRows rows per rank: one collective slab read per round (every rank makes the same
  // number, empty ones included). Reading a rank's whole range of a dataset in one collective read
  // made MPI-IO's two-phase buffers scale with the whole read (about the size of /strands/positions
  // on some ranks, whatever their share; docs/benchmarks/der.md); in rounds they are bounded by a
  // round, and the rank holds one round's rows besides its strands.
  sizeLocalStrands(out, first, count, hasRest);
  const std::int64_t rounds = comm.max(static_cast<std::int64_t>((rows + kRoundRows - 1) / kRoundRows));
  // Non-finite values are noted (the first row of each kind) and raised after every read, so that
  // no rank leaves the collective reads early.
  std::uint64_t badPosition = rows, badRest = rows;
  const RoundReader reader{f, out, v0, rows, rounds};
  readGeometryRows(reader, out, badPosition);
  if (hasRest) readRestRows(reader, out, badRest);
  throwIfNonFinite(path, out, v0, rows, badPosition, badRest);
  return out;
}

}  // namespace kinema::der
