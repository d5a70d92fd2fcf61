#include "framework/io/checkpoint.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "framework/core/error.hpp"

namespace kinema::io {

// Layout: root attribute "kinema_checkpoint" = format version; vectors and arrays are datasets
// "/<name>" (vectors carry block_size and global_size); reals, ints and strings are attributes
// "<name>" of the root group.
namespace {
constexpr std::int64_t kFormatVersion = 1;
const char* const kMarker = "kinema_checkpoint";

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
  file_->close();
  comm_.barrier();  // every rank's data is on disk before the file gets its final name
  bool ok = true;
  std::string why;
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
  } catch (const InputError&) {
    if (!comm.all(std::filesystem::exists(path_))) throw InputError(str("checkpoint not found: ", path_));
    throw InputError(str(path_, " is not a Kinema checkpoint (not an HDF5 file)"));
  }
  if (!file_->hasAttribute("/", kMarker)) throw InputError(str(path_, " is not a Kinema checkpoint"));
  std::int64_t version = file_->readAttributeInt("/", kMarker);
  if (version != kFormatVersion)
    throw InputError(str(path_, " is a Kinema checkpoint of format ", version, ", this build reads format ",
                         kFormatVersion));
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
