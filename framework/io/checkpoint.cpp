#include "framework/io/checkpoint.hpp"

#include <hdf5.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <system_error>

#include "framework/core/error.hpp"
#include "framework/io/kill_point.hpp"

namespace kinema::io {

// Layout: root attribute "kinema_checkpoint" = format version; vectors and arrays are datasets
// "/<name>" (vectors carry block_size and global_size); reals, ints and strings are attributes
// "<name>" of the root group. Format 2 adds the root attribute "kinema_checksums": one line per
// dataset ("/path <16 hex digits>") and per other root attribute ("@name <16 hex digits>").
namespace {
constexpr std::int64_t kFormatVersion = 2;
constexpr std::int64_t kLegacyVersion = 1;  // before checksums: read unchecked
const char* const kMarker = "kinema_checkpoint";
const char* const kChecksums = "kinema_checksums";

// splitmix64's finaliser: a bijection of 64-bit words, so two different elements at the same
// index never hash alike (a single altered value always changes the sum).
std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t fnv1a(const unsigned char* p, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ULL) {
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

std::string hex(std::uint64_t x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
  return buf;
}

// An hid_t closed by its closer when it leaves scope.
struct Hid {
  hid_t id;
  herr_t (*closer)(hid_t);
  Hid(hid_t i, herr_t (*c)(hid_t)) : id(i), closer(c) {}
  ~Hid() {
    if (id >= 0) closer(id);
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  bool ok() const { return id >= 0; }
};

// One checkpoint's checksums: "/dataset" and "@attribute" -> value.
using Checksums = std::map<std::string, std::uint64_t>;

struct LinkWalk {
  std::vector<std::string> names;
  std::uint64_t links = 0, limit = 0;
};

herr_t collectDataset(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  auto* walk = static_cast<LinkWalk*>(data);
  // Each link takes a symbol-table entry of the file (40 bytes with 8-byte addresses, more in the
  // newer link storage): more links than limit means a damaged file whose walk would not end.
  if (++walk->links > walk->limit) return -1;
  if (info->type != H5L_TYPE_HARD) return 0;
  Hid obj(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
  if (obj.ok() && H5Iget_type(obj.id) == H5I_DATASET) walk->names.push_back(std::string("/") + name);
  return 0;
}

// The datasets of the file, sorted (the same list on every rank). Bounded by the file's size.
std::vector<std::string> datasetsOf(hid_t file, const std::string& path, std::uint64_t fileBytes) {
  LinkWalk walk;
  walk.limit = fileBytes / 16 + 16;
  if (H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, collectDataset, &walk) < 0) {
    if (walk.links > walk.limit)
      throw InputError(str("HDF5: ", path, " is damaged: its groups hold more than ", walk.limit,
                           " links, more than a file of ", fileBytes, " bytes can"));
    throw InputError(str("HDF5: cannot list the datasets of ", path));
  }
  std::sort(walk.names.begin(), walk.names.end());
  return std::move(walk.names);
}

// This rank's share of a dataset's element sum: rows [r R / P, (r + 1) R / P), read in chunks.
// The extent is checked against the file's size first (checkStorage, hdf5_file.hpp): the buffer
// below is sized from it, and a damaged file's fill values would otherwise be read by the GB.
std::uint64_t partialDatasetSum(hid_t file, const std::string& path, std::uint64_t fileBytes, const std::string& name,
                                const Comm& comm, std::uint64_t& elements) {
  Hid d(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.ok()) throw InputError(str("HDF5: cannot open dataset '", name, "' in ", path));
  elements = checkStorage(d.id, name, path, fileBytes);
  Hid space(H5Dget_space(d.id), H5Sclose);
  Hid type(H5Dget_type(d.id), H5Tclose);
  if (!space.ok() || !type.ok()) throw InputError(str("HDF5: cannot query dataset '", name, "' in ", path));
  checkNumericType(type.id, str("dataset '", name, "'"), path);  // before H5Dread converts with it
  const int rank = H5Sget_simple_extent_ndims(space.id);
  if (rank < 0) throw InputError(str("HDF5: cannot query the shape of dataset '", name, "' in ", path));
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0) H5Sget_simple_extent_dims(space.id, dims.data(), nullptr);
  // (no overflow: checkStorage bounded rows x rowSize by the file's size, or found it 0)
  std::uint64_t rows = rank == 0 ? 1 : dims[0], rowSize = 1;
  for (int k = 1; k < rank; ++k) rowSize *= dims[static_cast<std::size_t>(k)];
  if (elements == 0) return 0;
  const H5T_class_t cls = H5Tget_class(type.id);
  if (cls == H5T_VLEN || (cls == H5T_STRING && H5Tis_variable_str(type.id) > 0)) return 0;  // not ours: shape only
  Hid mem(H5Tget_native_type(type.id, H5T_DIR_ASCEND), H5Tclose);
  if (!mem.ok()) throw InputError(str("HDF5: cannot map the type of dataset '", name, "' in ", path));
  const std::size_t size = H5Tget_size(mem.id);
  const auto P = static_cast<std::uint64_t>(comm.size()), r = static_cast<std::uint64_t>(comm.rank());
  std::uint64_t lo = rank == 0 ? (r == 0 ? 0 : 1) : rows * r / P;
  const std::uint64_t hi = rank == 0 ? 1 : rows * (r + 1) / P;
  const std::uint64_t chunkRows = std::max<std::uint64_t>(1, (std::uint64_t{1} << 20) / std::max<std::uint64_t>(1, rowSize));
  std::vector<unsigned char> buf;
  std::uint64_t sum = 0;
  for (; lo < hi; lo += chunkRows) {
    const std::uint64_t n = std::min(chunkRows, hi - lo);
    if (n * rowSize == 0) continue;
    buf.resize(n * rowSize * size);
    herr_t st;
    if (rank == 0) {
      st = H5Dread(d.id, mem.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data());
    } else {
      std::vector<hsize_t> start(dims.size(), 0), count = dims;
      start[0] = lo;
      count[0] = n;
      Hid fileSpace(H5Scopy(space.id), H5Sclose);
      Hid memSpace(H5Screate_simple(rank, count.data(), nullptr), H5Sclose);
      H5Sselect_hyperslab(fileSpace.id, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
      st = H5Dread(d.id, mem.id, memSpace.id, fileSpace.id, H5P_DEFAULT, buf.data());
    }
    if (st < 0) throw InputError(str("HDF5: cannot read dataset '", name, "' in ", path));
    const std::uint64_t first = lo * rowSize;
    for (std::uint64_t e = 0; e < n * rowSize; ++e) {
      const unsigned char* p = buf.data() + e * size;
      std::uint64_t x = 0;
      if (size == sizeof x) std::memcpy(&x, p, sizeof x);
      else x = fnv1a(p, size);
      sum += mix64(x ^ mix64(first + e));
    }
  }
  return sum;
}

struct AttributeWalk {
  hid_t file;
  Checksums* out;
  std::string path;
  std::uint64_t fileBytes;
  std::string problem;  // an InputError's message, raised after H5Aiterate2 returns
};

herr_t hashAttribute(hid_t location, const char* name, const H5A_info_t*, void* data) {
  if (std::strcmp(name, kChecksums) == 0) return 0;
  auto* walk = static_cast<AttributeWalk*>(data);
  Hid attr(H5Aopen(location, name, H5P_DEFAULT), H5Aclose);
  Hid type(H5Aget_type(attr.id), H5Tclose);
  Hid space(H5Aget_space(attr.id), H5Sclose);
  if (!attr.ok() || !type.ok() || !space.ok()) return -1;
  hssize_t n = 0;
  try {  // the buffers below are sized from the count: checked against the file first
    n = static_cast<hssize_t>(checkAttributeStorage(attr.id, str("attribute '", name, "' of '/'"), walk->path,
                                                    walk->fileBytes));
    checkNumericType(type.id, str("attribute '", name, "' of '/'"), walk->path);  // before H5Aread converts
  } catch (const InputError& e) {
    walk->problem = e.message();
    return -1;
  }
  std::vector<unsigned char> bytes;
  const H5T_class_t cls = H5Tget_class(type.id);
  if (cls == H5T_STRING && H5Tis_variable_str(type.id) > 0) {
    Hid mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.id, H5T_VARIABLE);
    H5Tset_cset(mem.id, H5Tget_cset(type.id));
    std::vector<char*> s(static_cast<std::size_t>(n), nullptr);
    if (H5Aread(attr.id, mem.id, s.data()) < 0) return -1;
    for (char* c : s) {
      if (c) bytes.insert(bytes.end(), c, c + std::strlen(c) + 1);
      H5free_memory(c);
    }
  } else {
    Hid mem(cls == H5T_STRING ? H5Tcopy(type.id) : H5Tget_native_type(type.id, H5T_DIR_ASCEND), H5Tclose);
    if (!mem.ok()) return -1;
    bytes.resize(static_cast<std::size_t>(n) * H5Tget_size(mem.id));
    if (!bytes.empty() && H5Aread(attr.id, mem.id, bytes.data()) < 0) return -1;
  }
  std::uint64_t h = fnv1a(reinterpret_cast<const unsigned char*>(name), std::strlen(name) + 1);
  h = fnv1a(bytes.data(), bytes.size(), h);
  (*walk->out)[std::string("@") + name] = mix64(h);
  return 0;
}

// The checksums of the closed file `path` (collective: each rank reads its share of every dataset).
// `reading`: the file is a checkpoint handed to a restart (a failure is bad input, InputError),
// not one this run just wrote (a failure is Kinema's or the file system's, Error).
Checksums computeChecksums(const std::string& path, const Comm& comm, bool reading) {
  Checksums out;
  std::string failure;
  std::vector<std::string> names;
  std::vector<std::uint64_t> sums, counts;
  try {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    std::error_code ec;
    const std::uint64_t fileBytes = std::filesystem::file_size(path, ec);
    if (ec) throw InputError(str("cannot get the size of ", path, ": ", ec.message()));
    Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.ok()) throw InputError(str("HDF5: cannot open ", path));
    names = datasetsOf(file.id, path, fileBytes);
    for (const auto& n : names) {
      std::uint64_t count = 0;
      sums.push_back(partialDatasetSum(file.id, path, fileBytes, n, comm, count));
      counts.push_back(count);
    }
    AttributeWalk walk{file.id, &out, path, fileBytes, {}};
    hsize_t idx = 0;
    if (H5Aiterate2(file.id, H5_INDEX_NAME, H5_ITER_INC, &idx, hashAttribute, &walk) < 0)
      throw InputError(walk.problem.empty() ? str("HDF5: cannot read the attributes of ", path) : walk.problem);
  } catch (const Error& e) {
    failure = e.message();
  }
  if (!comm.all(failure.empty())) {
    const std::int64_t bad = comm.max(failure.empty() ? std::int64_t{-1} : std::int64_t{comm.rank()});
    const std::string msg = str("cannot compute the checksums of checkpoint ", path, ": ",
                                comm.broadcast(failure, static_cast<int>(bad)));
    if (reading) throw InputError(msg);
    throw Error(msg);
  }
  // Every rank saw the same datasets; the sums are combined in two 32-bit halves (no overflow).
  for (std::size_t k = 0; k < names.size(); ++k) {
    const auto low = static_cast<std::uint64_t>(comm.sum(static_cast<std::int64_t>(sums[k] & 0xffffffffULL)));
    const auto high = static_cast<std::uint64_t>(comm.sum(static_cast<std::int64_t>(sums[k] >> 32)));
    const std::uint64_t total = low + (high << 32);
    out[names[k]] = mix64(total ^ mix64(counts[k] + 0x5bd1e995ULL));
  }
  return out;
}

std::string formatChecksums(const Checksums& c) {
  std::string s;
  for (const auto& [name, value] : c) s += name + " " + hex(value) + "\n";
  return s;
}

// Lines "<key> <hex>" as formatChecksums writes them; any other non-empty line (found by fuzzing:
// a hex value out of range or not hex made std::stoull throw out of the reader) is an InputError.
Checksums parseChecksums(const std::string& text, const std::string& path) {
  Checksums c;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto space = line.rfind(' ');
    const char* first = space == std::string::npos ? line.data() + line.size() : line.data() + space + 1;
    const char* last = line.data() + line.size();
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(first, last, value, 16);
    if (first == last || ec != std::errc() || end != last)
      throw InputError(str("checkpoint ", path, " is corrupted: its checksums (", kChecksums,
                           ") hold a malformed line '", line.substr(0, 80), "'"));
    c[line.substr(0, space)] = value;
  }
  return c;
}

// Rank 0 adds the checksum attribute to the closed file (a serial open; the others wait).
void storeChecksums(const std::string& path, const std::string& text) {
  Hid file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) throw Error(str("HDF5: cannot reopen ", path, " to store its checksums"));
  Hid type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.id, text.size() + 1);
  Hid space(H5Screate(H5S_SCALAR), H5Sclose);
  Hid attr(H5Acreate2(file.id, kChecksums, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.ok() || H5Awrite(attr.id, type.id, text.c_str()) < 0)
    throw Error(str("HDF5: cannot store the checksums of ", path));
}

std::string datasetPath(const std::string& name) {
  KINEMA_CHECK(!name.empty(), "checkpoint entry with an empty name");
  return name[0] == '/' ? name : "/" + name;
}
}  // namespace

CheckpointWriter::CheckpointWriter(std::string path, Comm comm)
    : path_(std::move(path)), tmp_(path_ + ".tmp"), comm_(comm) {
  bool ok = true;
  if (comm_.isRoot()) {
    std::error_code ec;
    std::filesystem::path parent = std::filesystem::path(path_).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    ok = !ec;
  }
  if (!comm_.all(ok)) throw Error(str("cannot create the directory of checkpoint ", path_));
  file_ = std::make_unique<H5File>(tmp_, H5File::Mode::create, comm_);
  file_->writeAttribute("/", kMarker, kFormatVersion);
}

CheckpointWriter::~CheckpointWriter() {
  if (committed_) return;
  // No barrier here: this may run while one rank unwinds an exception alone.
  try {
    if (file_) file_->close();
  } catch (...) {
  }
  if (comm_.isRoot()) {
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
}

void CheckpointWriter::writeVector(const std::string& name, const la::Vector& v) {
  KINEMA_CHECK(!committed_, "checkpoint ", path_, " is already committed");
  const la::IndexMap& map = v.map();
  std::string p = datasetPath(name);
  auto global = static_cast<std::uint64_t>(map.globalSize());
  auto offset = static_cast<std::uint64_t>(map.ownedBegin() * map.blockSize());
  {
    auto view = v.constView();
    file_->writeSlab(p, {global}, offset, view.owned());
  }
  file_->writeAttribute(p, "block_size", static_cast<std::int64_t>(map.blockSize()));
  file_->writeAttribute(p, "global_size", static_cast<std::int64_t>(map.globalSize()));
}

void CheckpointWriter::writeReal(const std::string& name, double value) {
  KINEMA_CHECK(!committed_, "checkpoint ", path_, " is already committed");
  file_->writeAttribute("/", name, value);
}

void CheckpointWriter::writeInt(const std::string& name, std::int64_t value) {
  KINEMA_CHECK(!committed_, "checkpoint ", path_, " is already committed");
  file_->writeAttribute("/", name, value);
}

void CheckpointWriter::writeString(const std::string& name, const std::string& value) {
  KINEMA_CHECK(!committed_, "checkpoint ", path_, " is already committed");
  file_->writeAttribute("/", name, value);
}

void CheckpointWriter::writeArray(const std::string& name, std::span<const double> replicated) {
  KINEMA_CHECK(!committed_, "checkpoint ", path_, " is already committed");
  file_->writeArray(datasetPath(name), {replicated.size()}, replicated);
}

void CheckpointWriter::commit() {
  KINEMA_CHECK(!committed_, "checkpoint ", path_, " is already committed");
  static long commits = 0;  // test-only kill point (kill_point.hpp): the N-th checkpoint of the process
  killPointReached(KillPoint::checkpoint, ++commits, comm_.rank());
  file_->close();
  comm_.barrier();  // every rank's data is on disk before it is read back and hashed
  // Hashed from the file as written (modules also write slabs through file() directly).
  const std::string checksums = formatChecksums(computeChecksums(tmp_, comm_, false));
  comm_.barrier();  // every rank closed its read-only handle
  bool ok = true;
  std::string why;
  if (comm_.isRoot()) {
    try {
      storeChecksums(tmp_, checksums);
    } catch (const Error& e) {
      ok = false;
      why = e.message();
    }
  }
  if (!comm_.all(ok)) {
    committed_ = false;
    throw Error(str("checkpoint ", path_, ": ", comm_.broadcast(why)));
  }
  if (comm_.isRoot()) {
    std::error_code ec;
    std::filesystem::rename(tmp_, path_, ec);  // atomic, replaces an older checkpoint
    ok = !ec;
    why = ec.message();
  }
  committed_ = true;
  if (!comm_.all(ok)) throw Error(str("cannot rename ", tmp_, " to ", path_, ": ", comm_.broadcast(why)));
  comm_.barrier();
}

CheckpointReader::CheckpointReader(std::string path, Comm comm) : path_(std::move(path)) {
  try {
    file_ = std::make_unique<H5File>(path_, H5File::Mode::read, comm);
  } catch (const InputError& e) {
    if (!comm.all(std::filesystem::exists(path_))) throw InputError(str("checkpoint not found: ", path_));
    // A damaged HDF5 file (H5File refused it before opening) keeps H5File's reason.
    if (e.message().rfind("HDF5: ", 0) == 0) throw InputError(str("checkpoint ", path_, ": ", e.message()));
    throw InputError(str(path_, " is not a Kinema checkpoint (not an HDF5 file)"));
  }
  if (!file_->hasAttribute("/", kMarker)) throw InputError(str(path_, " is not a Kinema checkpoint"));
  std::int64_t version = file_->readAttributeInt("/", kMarker);
  if (version != kFormatVersion && version != kLegacyVersion)
    throw InputError(str(path_, " is a Kinema checkpoint of format ", version, ", this build reads formats ",
                         kLegacyVersion, " and ", kFormatVersion));
  legacy_ = version == kLegacyVersion;
  if (legacy_) return;
  if (!file_->hasAttribute("/", kChecksums))
    throw InputError(str("checkpoint ", path_, " is corrupted: its checksums (", kChecksums, ") are missing"));
  const Checksums stored = parseChecksums(file_->readAttributeString("/", kChecksums), path_);
  // Verified through a separate read-only handle of the closed file, then opened again.
  file_.reset();
  const Checksums now = computeChecksums(path_, comm, true);
  std::vector<std::string> problems;
  auto what = [](const std::string& key) {
    return key[0] == '@' ? "value " + key.substr(1) : "dataset " + key;
  };
  for (const auto& [key, value] : stored) {
    auto it = now.find(key);
    if (it == now.end()) problems.push_back(str(what(key), " is missing"));
    else if (it->second != value)
      problems.push_back(str(what(key), " is corrupted (checksum ", hex(it->second), ", written as ", hex(value), ")"));
  }
  for (const auto& [key, value] : now)
    if (!stored.count(key)) problems.push_back(str(what(key), " was added after the checkpoint was written"));
  if (!problems.empty()) {
    std::string msg;
    for (const auto& p : problems) msg += str("checkpoint ", path_, ": ", p, "\n");
    throw InputError(msg + "restart from an earlier checkpoint (the run keeps the newest run.checkpoint_keep)");
  }
  file_ = std::make_unique<H5File>(path_, H5File::Mode::read, comm);
}

void CheckpointReader::readVector(const std::string& name, la::Vector& v) const {
  std::string p = datasetPath(name);
  if (!file_->exists(p)) throw InputError(str("checkpoint ", path_, " has no vector '", name, "'"));
  Shape shape = file_->shape(p);
  const la::IndexMap& map = v.map();
  if (shape.size() != 1 || static_cast<std::int64_t>(shape[0]) != map.globalSize())
    throw InputError(str("checkpoint ", path_, ": vector '", name, "' has global size ",
                         shape.empty() ? 0 : shape[0], ", the run expects ", map.globalSize()));
  // Global order makes the stored vector independent of the rank count that wrote it.
  auto offset = static_cast<std::uint64_t>(map.ownedBegin() * map.blockSize());
  std::vector<double> values = file_->readSlab(p, offset, static_cast<std::uint64_t>(map.ownedSize()));
  {
    auto view = v.view();
    std::copy(values.begin(), values.end(), view.owned().begin());
  }
  v.updateGhosts();
}

double CheckpointReader::readReal(const std::string& name) const {
  if (!file_->hasAttribute("/", name)) throw InputError(str("checkpoint ", path_, " has no value '", name, "'"));
  return file_->readAttributeReal("/", name);
}

std::int64_t CheckpointReader::readInt(const std::string& name) const {
  if (!file_->hasAttribute("/", name)) throw InputError(str("checkpoint ", path_, " has no value '", name, "'"));
  return file_->readAttributeInt("/", name);
}

std::string CheckpointReader::readString(const std::string& name) const {
  if (!file_->hasAttribute("/", name)) throw InputError(str("checkpoint ", path_, " has no value '", name, "'"));
  return file_->readAttributeString("/", name);
}

std::vector<double> CheckpointReader::readArray(const std::string& name) const {
  std::string p = datasetPath(name);
  if (!file_->exists(p)) throw InputError(str("checkpoint ", path_, " has no array '", name, "'"));
  return file_->readAll(p);
}

bool CheckpointReader::has(const std::string& name) const {
  if (name.empty()) return false;
  return file_->hasAttribute("/", name) || file_->exists(datasetPath(name));
}

}  // namespace kinema::io
