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

}  // namespace

void writeStrandSet(const std::string& path, Comm comm, const LocalStrands& local) {
  const std::int64_t S = local.totalStrands;
  KINEMA_CHECK(static_cast<std::int64_t>(local.vertexOffset.size()) == S + 1,
               "writeStrandSet: vertexOffset must hold every strand's offset");
  const std::int64_t V = local.vertexOffset.back();
  const std::int64_t count = static_cast<std::int64_t>(local.geometry.size());
  const bool hasRest = comm.max(local.rest.empty() ? 0.0 : 1.0) > 0.0 && (count == 0 || !local.rest.empty());
  const bool hasResults = comm.max(local.results.empty() ? 0.0 : 1.0) > 0.0;
  const std::int64_t v0 = local.vertexOffset[u64(local.firstStrand)];
  const std::int64_t v1 = local.vertexOffset[u64(local.firstStrand + count)];
  const std::size_t rows = u64(v1 - v0);

  for (std::int64_t s = 0; s < count; ++s) {
    const int N = local.geometry[u64(s)].vertices();
    KINEMA_CHECK(N == local.vertexOffset[u64(local.firstStrand + s + 1)] - local.vertexOffset[u64(local.firstStrand + s)],
                 "writeStrandSet: strand vertex count disagrees with vertexOffset");
  }

  io::H5File f(path, io::H5File::Mode::create, comm);
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
  // One dataset at a time through one buffer: the largest (positions, kbar) is 3-4 doubles per
  // vertex, instead of all twelve at once (memory per strand, docs/modules/der.md).
  std::vector<double> buf;
  // Fills buf with `width` values per vertex from get(strand, vertex, out) (entries get leaves
  // alone stay 0) and writes it as dataset `name`.
  auto write = [&](const char* name, int width, auto get) {
    buf.assign(static_cast<std::size_t>(width) * rows, 0.0);
    std::size_t row = 0;
    for (std::int64_t s = 0; s < count; ++s) {
      const int N = local.geometry[u64(s)].vertices();
      for (int v = 0; v < N; ++v, ++row) get(u64(s), v, N, &buf[static_cast<std::size_t>(width) * row]);
    }
    if (width == 1) f.writeSlab(name, {u64(V)}, u64(v0), buf);
    else f.writeSlab(name, {u64(V), u64(width)}, u64(v0), buf);
  };
  write("/strands/positions", 3, [&](std::size_t s, int v, int, double* out) {
    for (int c = 0; c < 3; ++c) out[c] = local.geometry[s].x[u64(v)][c];
  });
  write("/strands/theta", 1, [&](std::size_t s, int v, int N, double* out) {
    if (v < N - 1) out[0] = local.geometry[s].theta[u64(v)];
  });
  if (hasRest) {
    write("/strands/rest_length", 1, [&](std::size_t s, int v, int N, double* out) {
      if (v < N - 1) out[0] = local.rest[s].restLength[u64(v)];
    });
    write("/strands/rest_kappa", 4, [&](std::size_t s, int v, int, double* out) {
      for (int c = 0; c < 4; ++c) out[c] = local.rest[s].restKappa[u64(v)][c];
    });
    write("/strands/rest_twist", 1, [&](std::size_t s, int v, int, double* out) { out[0] = local.rest[s].restTwist[u64(v)]; });
    write("/strands/c_stretch", 1, [&](std::size_t s, int v, int N, double* out) {
      if (v < N - 1) out[0] = local.rest[s].cStretch[u64(v)];
    });
    write("/strands/c_bend", 1, [&](std::size_t s, int v, int, double* out) { out[0] = local.rest[s].cBend[u64(v)]; });
    write("/strands/c_twist", 1, [&](std::size_t s, int v, int, double* out) { out[0] = local.rest[s].cTwist[u64(v)]; });
  }
  buf.clear();
  buf.shrink_to_fit();
  if (hasResults) {
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
  out.material.radius = f.readAttributeReal("/strands", "radius");
  out.material.density = f.readAttributeReal("/strands", "density");
  out.material.gravity = Vec3(f.readAttributeReal("/strands", "gravity_x"), f.readAttributeReal("/strands", "gravity_y"),
                              f.readAttributeReal("/strands", "gravity_z"));
  const bool hasRest = f.readAttributeInt("/strands", "has_rest") != 0;
  const std::int64_t v0 = out.vertexOffset[u64(first)];
  const std::uint64_t rows = u64(out.vertexOffset[u64(first + count)] - v0);
  // Every dataset this read needs is there with one row per vertex, checked on every rank before
  // any slab is read (the same metadata everywhere, so every rank raises the same error): a
  // missing or short dataset names the file, the dataset and the first strand it lacks.
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
  // This rank's strands, sized from the offsets, then filled dataset by dataset in rounds of at
  // most kRoundRows rows per rank: one collective slab read per round (every rank makes the same
  // number, empty ones included). Reading a rank's whole range of a dataset in one collective read
  // made MPI-IO's two-phase buffers scale with the whole read (about the size of /strands/positions
  // on some ranks, whatever their share; docs/benchmarks/der.md); in rounds they are bounded by a
  // round, and the rank holds one round's rows besides its strands.
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
  constexpr std::uint64_t kRoundRows = std::uint64_t{1} << 15;
  const std::int64_t rounds = comm.max(static_cast<std::int64_t>((rows + kRoundRows - 1) / kRoundRows));
  // Non-finite values are noted (the first row of each kind) and raised after every read, so that
  // no rank leaves the collective reads early.
  std::uint64_t badPosition = rows, badRest = rows;
  // Reads dataset `name` of `width` values per row and gives each row to put(strand, vertex, row,
  // values) (strand: index in this rank's range).
  auto readRows = [&](const char* name, std::size_t width, auto put) {
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
  };
  readRows("/strands/positions", 3, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
    Vec3& p = out.geometry[s].x[v];
    p = Vec3(x[0], x[1], x[2]);
    if (!p.allFinite()) badPosition = std::min(badPosition, row);
  });
  readRows("/strands/theta", 1, [&](std::size_t s, std::uint64_t v, std::uint64_t, const double* x) {
    if (v + 1 < out.geometry[s].x.size()) out.geometry[s].theta[v] = x[0];
  });
  if (hasRest) {
    auto note = [&](std::uint64_t row, double value) {
      if (!std::isfinite(value)) badRest = std::min(badRest, row);
    };
    readRows("/strands/rest_length", 1, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
      if (v < out.rest[s].restLength.size()) out.rest[s].restLength[v] = x[0];
      note(row, x[0]);
    });
    readRows("/strands/rest_kappa", 4, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
      out.rest[s].restKappa[v] = Vec4(x[0], x[1], x[2], x[3]);
      note(row, x[0] + x[1] + x[2] + x[3]);
    });
    readRows("/strands/rest_twist", 1, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
      out.rest[s].restTwist[v] = x[0];
      note(row, x[0]);
    });
    readRows("/strands/c_stretch", 1, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
      if (v < out.rest[s].cStretch.size()) out.rest[s].cStretch[v] = x[0];
      note(row, x[0]);
    });
    readRows("/strands/c_bend", 1, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
      out.rest[s].cBend[v] = x[0];
      note(row, x[0]);
    });
    readRows("/strands/c_twist", 1, [&](std::size_t s, std::uint64_t v, std::uint64_t row, const double* x) {
      out.rest[s].cTwist[v] = x[0];
      note(row, x[0]);
    });
  }
  // The first bad row, as strand and vertex (a position before a rest parameter of the same row).
  if (badPosition < rows || badRest < rows) {
    const std::uint64_t bad = std::min(badPosition, badRest);
    const auto it = std::upper_bound(out.vertexOffset.begin(), out.vertexOffset.end(), v0 + static_cast<std::int64_t>(bad));
    const std::int64_t s = (it - out.vertexOffset.begin()) - 1;
    const std::int64_t v = v0 + static_cast<std::int64_t>(bad) - out.vertexOffset[u64(s)];
    if (badPosition <= badRest) throw InputError(str(path, ": strand ", s, " vertex ", v, " has a non-finite position"));
    throw InputError(str(path, ": strand ", s, " vertex ", v, " has a non-finite rest parameter"));
  }
  return out;
}

}  // namespace kinema::der
