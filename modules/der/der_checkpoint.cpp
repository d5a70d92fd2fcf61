// DerModule's checkpoints: per strand, one blob of doubles (der_checkpoint_format.hpp: the
// optimiser state, or rest state + results + simulator state), stored as slabs in strand order
// with the blob lengths, so a restart may use another number of ranks.
#include <algorithm>
#include <cmath>
#include <functional>

#include "framework/core/agree.hpp"
#include "framework/core/error.hpp"
#include "framework/io/hdf5_file.hpp"
#include "modules/der/der_checkpoint_format.hpp"
#include "modules/der/der_module.hpp"
#include "modules/der/parameters.hpp"

namespace kinema::der {

// ---- the blob format's reader and writer ------------------------------------------------------

double stopReasonCode(const std::string& reason) {
  for (std::size_t c = 1; c < std::size(kStopReasons); ++c)
    if (reason == kStopReasons[c]) return static_cast<double>(c);
  return 0.0;
}

void BlobWriter::reals(const char*, const std::vector<double>& v, std::size_t) {
  b_.push_back(static_cast<double>(v.size()));
  b_.insert(b_.end(), v.begin(), v.end());
}

void BlobWriter::vec3s(const char*, const std::vector<Vec3>& v, std::size_t) {
  b_.push_back(static_cast<double>(3 * v.size()));
  for (const auto& x : v) b_.insert(b_.end(), {x[0], x[1], x[2]});
}

void BlobWriter::vec4s(const char*, const std::vector<Vec4>& v, std::size_t) {
  b_.push_back(static_cast<double>(4 * v.size()));
  for (const auto& x : v) b_.insert(b_.end(), {x[0], x[1], x[2], x[3]});
}

void BlobReader::fail(const std::string& problem) const { throw InputError(str(where_, ": ", problem)); }

double BlobReader::get(const char* what) {
  if (at_ >= b_.size()) throw InputError(str(where_, ": its blob (", b_.size(), " values) ends before ", what));
  return b_[at_++];
}

double BlobReader::finite(const char* what) {
  const double v = get(what);
  if (!std::isfinite(v)) throw InputError(str(where_, ": ", what, " is ", v));
  return v;
}

double BlobReader::count(const char* what, double max) {
  const double v = get(what);
  if (!(v >= 0.0 && v <= max && v == std::floor(v)))
    throw InputError(str(where_, ": ", what, " is ", v, ", not a whole number from 0 to ", max));
  return v;
}

std::vector<double> BlobReader::array(const char* what, std::size_t n) {
  const double stored = get(what);
  if (stored != static_cast<double>(n))
    throw InputError(str(where_, ": ", what, " has ", stored, " values, the strand needs ", n));
  if (b_.size() - at_ < n) throw InputError(str(where_, ": its blob (", b_.size(), " values) ends inside ", what));
  std::vector<double> v(b_.begin() + static_cast<std::ptrdiff_t>(at_), b_.begin() + static_cast<std::ptrdiff_t>(at_ + n));
  at_ += n;
  for (std::size_t k = 0; k < n; ++k)
    if (!std::isfinite(v[k])) throw InputError(str(where_, ": ", what, " has the non-finite value ", v[k], " at ", k));
  return v;
}

void BlobReader::vec3s(const char* what, std::vector<Vec3>& v, std::size_t n) {
  const std::vector<double> flat = array(what, 3 * n);
  v.clear();
  for (std::size_t i = 0; i + 2 < flat.size(); i += 3) v.emplace_back(flat[i], flat[i + 1], flat[i + 2]);
}

void BlobReader::vec4s(const char* what, std::vector<Vec4>& v, std::size_t n) {
  const std::vector<double> flat = array(what, 4 * n);
  v.clear();
  for (std::size_t i = 0; i + 3 < flat.size(); i += 4) v.emplace_back(flat[i], flat[i + 1], flat[i + 2], flat[i + 3]);
}

void BlobReader::end() const {
  if (at_ != b_.size())
    throw InputError(str(where_, ": its blob holds ", b_.size(), " values, ", b_.size() - at_, " more than its state"));
}

// ---- saving -------------------------------------------------------------------------------------

namespace {

// Blob lengths first; then the blobs written in slabs of at most kChunk doubles (plus one
// strand), so the buffer is a bounded fixed cost rather than a second copy of every strand's
// state at the run's memory peak (docs/modules/der.md, "Memory"). Every rank makes the same
// number of (collective) slab writes, empty ones included. `blobOf(i, b)` puts strand i's blob
// into b (cleared first); it is called twice per strand.
void writeBlobs(io::H5File& f, const Comm& comm, const LocalStrands& local,
                const std::function<void(std::size_t, std::vector<double>&)>& blobOf) {
  constexpr std::size_t kChunk = std::size_t{1} << 18;
  const std::size_t mine = local.geometry.size();
  std::vector<double> b, lengths;
  std::size_t totalLocal = 0, chunks = 0, inChunk = 0, largest = 0;
  for (std::size_t i = 0; i < mine; ++i) {
    blobOf(i, b);
    lengths.push_back(static_cast<double>(b.size()));
    largest = std::max(largest, b.size());
    totalLocal += b.size();
    if (inChunk == 0) ++chunks;
    inChunk += b.size();
    if (inChunk >= kChunk) inChunk = 0;
  }
  const std::int64_t total = comm.sum(static_cast<std::int64_t>(totalLocal));
  std::uint64_t offset = static_cast<std::uint64_t>(comm.exscan(static_cast<std::int64_t>(totalLocal)));
  const std::int64_t rounds = comm.max(static_cast<std::int64_t>(chunks));
  f.writeSlab("/der/blob_length", {static_cast<std::uint64_t>(local.totalStrands)},
              static_cast<std::uint64_t>(local.firstStrand), lengths);
  std::vector<double> blobs;
  blobs.reserve(std::min(totalLocal, kChunk + largest));
  std::size_t next = 0;
  for (std::int64_t r = 0; r < rounds; ++r) {
    blobs.clear();
    while (next < mine && blobs.size() < kChunk) {
      blobOf(next++, b);
      blobs.insert(blobs.end(), b.begin(), b.end());
    }
    f.writeSlab("/der/blob", {static_cast<std::uint64_t>(total)}, offset, blobs);
    offset += blobs.size();
  }
}

}  // namespace

void DerModule::saveCheckpoint(run::RunContext& ctx, io::CheckpointWriter& out) const {
  out.writeInt("der_strands", local_.totalStrands);
  out.writeInt("der_optimize_step", optimizeStep_);
  out.writeInt("der_optimization_done", optimizationDone_ ? 1 : 0);
  out.writeInt("der_frame", frame_);
  out.writeString("der_scheme", scheme_);
  writeBlobs(out.file(), ctx.comm, local_, [&](std::size_t i, std::vector<double>& b) {
    b.clear();
    BlobWriter w(b);
    const std::size_t N = static_cast<std::size_t>(local_.geometry[i].vertices());
    if (!optimizationDone_) {
      const AlmState s = optimizers_[i]->state();
      blob::describe(w, s, blob::Sizes{N, 0, 0, 0.0});  // (sizes are checked on reading only)
      return;
    }
    FinishedStrand s{restOf(i), std::nullopt, std::nullopt};
    if (!local_.results.empty()) s.result = local_.results[i];
    if (!sims_.empty()) {
      const StrandSimulator& sim = *sims_[i];
      s.sim = SimulatorState{sim.q(), sim.qdot(), sim.frames(), sim.time(), sim.steps()};
    }
    blob::describeFinished(w, s, N);
  });
}

// ---- loading ------------------------------------------------------------------------------------

namespace {

// The checkpoint's scalars, checked against the scene.
struct CheckpointHeader {
  std::int64_t step = 0, frame = 0;
  bool done = false;
};

CheckpointHeader readHeader(const io::CheckpointReader& in, std::int64_t strands, const std::string& scheme,
                            long optimizeSteps, bool optimising) {
  const std::string& where = in.path();
  if (in.readInt("der_strands") != strands)
    throw InputError(str(where, ": checkpoint of ", in.readInt("der_strands"), " strands, but the scene has ", strands));
  if (in.readString("der_scheme") != scheme)
    throw InputError(str(where, ": checkpoint of scheme ", in.readString("der_scheme"), ", but the scene has ", scheme));
  const std::int64_t step = in.readInt("der_optimize_step"), doneFlag = in.readInt("der_optimization_done"),
                     frame = in.readInt("der_frame");
  if (step < 0 || (doneFlag == 0 && step > optimizeSteps))
    throw InputError(str(where, ": der_optimize_step is ", step, "; the optimisation has 0 to ", optimizeSteps, " steps"));
  if (doneFlag != 0 && doneFlag != 1)
    throw InputError(str(where, ": der_optimization_done is ", doneFlag, " (0 or 1)"));
  if (frame < 0 || (doneFlag == 0 && frame != 0))
    throw InputError(str(where, ": der_frame is ", frame, (doneFlag == 0 ? " before the optimisation has ended" : "")));
  if (doneFlag == 0 && !optimising)
    throw InputError(str(where, ": a checkpoint taken while optimising, but this scene does not optimise"));
  return {step, frame, doneFlag != 0};
}

// This rank's blobs: their lengths and their values, one after the other.
struct LocalBlobs {
  std::vector<double> lengths, values;
};

// The strands' states parsed from their blobs: the optimisers' while optimising, else the
// finished strands'. Per rank, hasResults / hasSims: 1 if its strands carry results / simulator
// states, 0 if not, -1 without strands.
struct ParsedStrands {
  std::vector<AlmState> optimising;
  std::vector<FinishedStrand> finished;
  int hasResults = -1, hasSims = -1;
};

// Blob lengths: this rank's strands only (a slab), checked, offsets by a prefix sum.
LocalBlobs readLocalBlobs(const io::CheckpointReader& in, const Comm& comm, const LocalStrands& local) {
  const std::string& where = in.path();
  const auto& f = in.file();
  for (const char* name : {"/der/blob_length", "/der/blob"})
    if (!f.exists(name)) throw InputError(str(where, ": dataset ", name, " is missing"));
  const io::Shape lengthShape = f.shape("/der/blob_length"), blobShape = f.shape("/der/blob");
  if (lengthShape.size() != 1 || lengthShape[0] != static_cast<std::uint64_t>(local.totalStrands))
    throw InputError(str(where, ": /der/blob_length has ", lengthShape.empty() ? 0 : lengthShape[0],
                         " entries, one per strand of the scene's ", local.totalStrands, " expected"));
  if (blobShape.size() != 1) throw InputError(str(where, ": /der/blob is not a list of values"));
  const std::uint64_t blobSize = blobShape[0];
  const std::size_t mine = local.geometry.size();
  LocalBlobs blobs;
  blobs.lengths = f.readSlab("/der/blob_length", static_cast<std::uint64_t>(local.firstStrand), mine);
  std::uint64_t rows = 0;
  raiseOnEveryRank(comm, [&] {
    for (std::size_t i = 0; i < mine; ++i) {
      const double n = blobs.lengths[i];
      if (!(n >= 0.0 && n <= static_cast<double>(blobSize) && n == std::floor(n)))
        throw InputError(str(where, ": strand ", local.firstStrand + static_cast<std::int64_t>(i),
                             ": /der/blob_length is ", n, ", not a whole number from 0 to the ", blobSize,
                             " values of /der/blob"));
      rows += static_cast<std::uint64_t>(n);
      if (rows > blobSize)
        throw InputError(str(where, ": strand ", local.firstStrand + static_cast<std::int64_t>(i),
                             ": the blob lengths up to this strand add up to more than the ", blobSize,
                             " values of /der/blob"));
    }
  });
  const auto offset = static_cast<std::uint64_t>(comm.exscan(static_cast<std::int64_t>(rows)));
  const auto total = static_cast<std::uint64_t>(comm.sum(static_cast<std::int64_t>(rows)));
  raiseOnEveryRank(comm, [&] {
    if (mine > 0 && offset + rows > blobSize)
      throw InputError(str(where, ": strand ", local.firstStrand, ": its blob starts at value ", offset,
                           " and the blobs of its rank's strands run past the ", blobSize, " values of /der/blob"));
  });
  if (total != blobSize)
    throw InputError(str(where, ": strand ", local.totalStrands - 1, ", the last, ends its blob at value ", total,
                         " of the ", blobSize, " in /der/blob: the lengths in /der/blob_length do not add up to it"));
  blobs.values = f.readSlab("/der/blob", offset, rows);
  return blobs;
}

// Parses and checks every strand's blob (nothing of the module changes yet). The strands of a
// rank must agree on having results and a simulator state (a strand that disagrees with the
// rank's first is named).
ParsedStrands parseBlobs(const std::string& where, const LocalBlobs& blobs, const LocalStrands& local, bool done,
                         long optimizeSteps) {
  ParsedStrands parsed;
  std::size_t at = 0;
  for (std::size_t i = 0; i < blobs.lengths.size(); ++i) {
    const auto n = static_cast<std::size_t>(blobs.lengths[i]);
    const std::int64_t s = local.firstStrand + static_cast<std::int64_t>(i);
    BlobReader rd(std::span<const double>(blobs.values).subspan(at, n), str(where, ": strand ", s));
    at += n;
    const auto N = static_cast<std::size_t>(local.geometry[i].vertices());
    if (!done) {
      const int Ni = static_cast<int>(N);
      const blob::Sizes sizes{N, static_cast<std::size_t>(parameterCount(Ni)),
                              static_cast<std::size_t>(constraintCount(Ni)), static_cast<double>(optimizeSteps)};
      AlmState st;  // stats as a fresh optimiser has them (without building its workspace)
      blob::describe(rd, st, sizes);
      rd.end();
      parsed.optimising.push_back(std::move(st));
      continue;
    }
    rd.onSection = [&](const char* flagName, bool present) {
      const bool results = std::string(flagName) == kResultsFlag;
      int& seen = results ? parsed.hasResults : parsed.hasSims;
      const int with = present ? 1 : 0;
      if (seen >= 0 && with != seen) {
        if (results)
          rd.fail(str("it ", with ? "has" : "lacks", " optimisation results, strand ", local.firstStrand, " ",
                      seen ? "has" : "lacks", " them"));
        rd.fail(str("it ", with ? "has" : "lacks", " a simulation state, strand ", local.firstStrand, " ",
                    seen ? "has" : "lacks", " one"));
      }
      seen = with;
    };
    FinishedStrand strand;
    blob::describeFinished(rd, strand, N);
    rd.end();
    parsed.finished.push_back(std::move(strand));
  }
  return parsed;
}

}  // namespace

// Every value read back is checked before any is used (docs/modules/der.md, "Checkpoints"): the
// counts against the scene, the blob lengths (whole, non-negative, adding up to /der/blob), and
// each strand's blob against its strand (array lengths, flags, finite values). A problem on one
// rank is raised on every rank (raiseOnEveryRank), with the same message, and every rank reaches
// the same collectives before it can throw, so none waits for ever.
void DerModule::loadCheckpoint(run::RunContext& ctx, const io::CheckpointReader& in) {
  const std::string where = in.path();
  const CheckpointHeader h =
      readHeader(in, local_.totalStrands, scheme_, optimizeSteps_, optimizers_.size() == local_.geometry.size());
  const Comm& comm = ctx.comm;
  const LocalBlobs blobs = readLocalBlobs(in, comm, local_);
  ParsedStrands parsed;
  raiseOnEveryRank(comm, [&] { parsed = parseBlobs(where, blobs, local_, h.done, optimizeSteps_); });
  // The same flags on every rank with strands (a rank whose strands disagree names its first).
  if (h.done) {
    const std::int64_t results1 = comm.max(static_cast<std::int64_t>(parsed.hasResults));
    const std::int64_t sims1 = comm.max(static_cast<std::int64_t>(parsed.hasSims));
    raiseOnEveryRank(comm, [&] {
      if (parsed.hasResults >= 0 && parsed.hasResults != results1)
        throw InputError(str(where, ": strand ", local_.firstStrand, ": ", parsed.hasResults ? "has" : "lacks",
                             " optimisation results, other strands ", results1 ? "have" : "lack", " them"));
      if (parsed.hasSims >= 0 && parsed.hasSims != sims1)
        throw InputError(str(where, ": strand ", local_.firstStrand, ": ", parsed.hasSims ? "has" : "lacks",
                             " a simulation state, other strands ", sims1 ? "have" : "lack", " one"));
    });
  }

  // Everything checked: the module takes the state over.
  optimizeStep_ = h.step;
  frame_ = h.frame;
  if (!h.done) {
    for (std::size_t i = 0; i < parsed.optimising.size(); ++i) optimizers_[i]->restore(parsed.optimising[i]);
    return;
  }
  optimizationDone_ = true;
  local_.rest.clear();
  local_.results.clear();
  for (FinishedStrand& s : parsed.finished) {
    local_.rest.push_back(std::move(s.rest));
    if (s.result) local_.results.push_back(*s.result);
  }
  optimizers_.clear();
  if (frames_ > 0) {
    startSimulation();
    for (std::size_t i = 0; i < parsed.finished.size(); ++i) {
      if (!parsed.finished[i].sim) continue;
      SimulatorState& sim = *parsed.finished[i].sim;
      sims_[i]->restoreState(sim.q, sim.qdot, sim.frames, sim.time, sim.steps);
    }
  }
}

}  // namespace kinema::der
