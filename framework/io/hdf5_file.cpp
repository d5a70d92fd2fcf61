#include "framework/io/hdf5_file.hpp"

#include <hdf5.h>

#include <algorithm>
#include <filesystem>
#include <type_traits>
#include <utility>

#include "framework/core/error.hpp"

namespace kinema::io {

// The header keeps hid_t out of its interface by storing the handle as int64_t.
static_assert(std::is_same_v<hid_t, std::int64_t>, "hid_t is expected to be int64_t (HDF5 >= 1.10)");

namespace {

// Owns one HDF5 identifier and closes it with the matching H5*close.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*closer)(hid_t)) : id_(id), closer_(closer) {}
  ~Handle() { reset(); }
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, -1)), closer_(o.closer_) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, -1);
      closer_ = o.closer_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset() {
    if (id_ >= 0 && closer_) closer_(id_);
    id_ = -1;
  }

 private:
  hid_t id_ = -1;
  herr_t (*closer_)(hid_t) = nullptr;
};

// The innermost message on HDF5's error stack, which usually says what actually went wrong.
herr_t innermost(unsigned n, const H5E_error2_t* err, void* data) {
  if (n == 0 && err->desc) *static_cast<std::string*>(data) = err->desc;
  return 0;
}

std::string hdf5Reason() {
  std::string msg;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, innermost, &msg);
  H5Eclear2(H5E_DEFAULT);
  return msg.empty() ? std::string() : " (" + msg + ")";
}

// Leading "/" so that "frames/0" and "/frames/0" name the same object.
std::string normalize(const std::string& p) {
  if (p.empty()) return "/";
  return p[0] == '/' ? p : "/" + p;
}

std::uint64_t product(const Shape& s, std::size_t from = 0) {
  std::uint64_t n = 1;
  for (std::size_t i = from; i < s.size(); ++i) n *= s[i];
  return n;
}

std::string shapeText(const Shape& s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  return out + ")";
}

template <class T>
struct H5Type;
template <>
struct H5Type<double> {
  static hid_t memory() { return H5T_NATIVE_DOUBLE; }
  static hid_t file() { return H5T_IEEE_F64LE; }
  static H5T_class_t cls() { return H5T_FLOAT; }
};
template <>
struct H5Type<std::int64_t> {
  static hid_t memory() { return H5T_NATIVE_INT64; }
  static hid_t file() { return H5T_STD_I64LE; }
  static H5T_class_t cls() { return H5T_INTEGER; }
};

// Small helpers that need the file; free functions keep HDF5 types out of the header.
struct Ops {
  const H5File& f;
  hid_t fid;

  [[noreturn]] void fail(const std::string& what, const std::string& object) const {
    std::string reason = hdf5Reason();
    throw Error(str("HDF5: ", what, " '", object, "' in ", f.path(), reason));
  }

  Handle transfer() const {
    Handle dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    if (!dxpl.valid() || H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE) < 0)
      fail("cannot set up a collective transfer for", f.path());
    return dxpl;
  }

  Handle openObject(const std::string& path) const {
    if (!f.exists(path)) throw Error(str("HDF5: no object '", path, "' in ", f.path()));
    Handle obj(H5Oopen(fid, path.c_str(), H5P_DEFAULT), H5Oclose);
    if (!obj.valid()) fail("cannot open", path);
    return obj;
  }

  Handle openDataset(const std::string& path) const {
    if (!f.exists(path)) throw Error(str("HDF5: no dataset '", path, "' in ", f.path()));
    Handle ds(H5Dopen2(fid, path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!ds.valid()) fail("cannot open dataset", path);
    return ds;
  }

  Shape shapeOf(hid_t ds, const std::string& path) const {
    Handle space(H5Dget_space(ds), H5Sclose);
    if (!space.valid()) fail("cannot get the dataspace of", path);
    int nd = H5Sget_simple_extent_ndims(space.get());
    if (nd < 0) fail("cannot get the rank of", path);
    std::vector<hsize_t> dims(static_cast<std::size_t>(nd));
    if (nd > 0 && H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0)
      fail("cannot get the dimensions of", path);
    return Shape(dims.begin(), dims.end());
  }

  // Opens `path` if it exists with the same shape and kind of values (a restart overwrites),
  // else creates it with its intermediate groups.
  template <class T>
  Handle createOrOpen(const std::string& path, const Shape& shape) const {
    if (f.exists(path)) {
      Handle ds(H5Dopen2(fid, path.c_str(), H5P_DEFAULT), H5Dclose);
      if (!ds.valid()) fail("cannot open (an existing object that is not a dataset?)", path);
      Shape old = shapeOf(ds.get(), path);
      if (old != shape)
        throw Error(str("HDF5: dataset '", path, "' in ", f.path(), " exists with shape ", shapeText(old),
                        ", cannot write shape ", shapeText(shape)));
      Handle type(H5Dget_type(ds.get()), H5Tclose);
      if (!type.valid() || H5Tget_class(type.get()) != H5Type<T>::cls())
        throw Error(str("HDF5: dataset '", path, "' in ", f.path(), " exists with another value type"));
      return ds;
    }
    std::vector<hsize_t> dims(shape.begin(), shape.end());
    Handle space(shape.empty() ? H5Screate(H5S_SCALAR)
                               : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                 H5Sclose);
    if (!space.valid()) fail("cannot create the dataspace for", path);
    Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    // Every element is written right after creation; filling first would write the data twice.
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER);
    Handle ds(H5Dcreate2(fid, path.c_str(), H5Type<T>::file(), space.get(), lcpl.get(), dcpl.get(),
                         H5P_DEFAULT),
              H5Dclose);
    if (!ds.valid()) fail("cannot create dataset", path);
    return ds;
  }

  // A flat memory dataspace of n values (at least 1: HDF5 rejects empty simple dataspaces).
  Handle memorySpace(std::uint64_t n) const {
    hsize_t dims = std::max<std::uint64_t>(n, 1);
    return Handle(H5Screate_simple(1, &dims, nullptr), H5Sclose);
  }

  // Selects rows [row, row + count) of a dataset of `shape` in `filespace`, and the first n
  // values of `memspace`; an empty selection on both when n = 0 (the rank still takes part).
  void selectRows(const Handle& filespace, const Handle& memspace, const Shape& shape, std::uint64_t row,
                  std::uint64_t count, std::uint64_t n, const std::string& path) const {
    if (!filespace.valid() || !memspace.valid()) fail("cannot create dataspaces for", path);
    if (n == 0) {
      H5Sselect_none(filespace.get());
      H5Sselect_none(memspace.get());
    } else if (!shape.empty()) {
      std::vector<hsize_t> start(shape.size(), 0), cnt(shape.begin(), shape.end());
      start[0] = row;
      cnt[0] = count;
      if (H5Sselect_hyperslab(filespace.get(), H5S_SELECT_SET, start.data(), nullptr, cnt.data(), nullptr) < 0)
        fail("cannot select rows of", path);
    }
  }

  // Writes `count` rows starting at `row` of this rank's data (count may be 0; the rank still
  // takes part in the collective write with an empty selection).
  template <class T>
  void write(hid_t ds, const std::string& path, const Shape& shape, std::uint64_t row,
             std::uint64_t count, const T* data) const {
    // A dataset with no elements has no storage, and MPI-IO refuses to write to it; the shape is
    // the same on every rank, so all of them skip together.
    if (!shape.empty() && product(shape) == 0) return;
    std::uint64_t n = count * product(shape, 1);
    Handle filespace(H5Dget_space(ds), H5Sclose), memspace = memorySpace(n);
    selectRows(filespace, memspace, shape, row, count, n, path);
    Handle dxpl = transfer();
    T dummy{};  // some HDF5 versions reject a null buffer even for an empty selection
    if (H5Dwrite(ds, H5Type<T>::memory(), memspace.get(), filespace.get(), dxpl.get(),
                 n ? data : &dummy) < 0)
      fail("cannot write dataset", path);
  }

  template <class T>
  std::vector<T> read(const std::string& path, std::uint64_t row, std::uint64_t rows, bool all) const {
    Handle ds = openDataset(path);
    Shape shape = shapeOf(ds.get(), path);
    std::uint64_t total = shape.empty() ? 1 : shape[0];
    if (all) {
      row = 0;
      rows = total;
    }
    if (row + rows > total)
      throw Error(str("HDF5: rows [", row, ", ", row + rows, ") are outside dataset '", path,
                      "' of shape ", shapeText(shape), " in ", f.path()));
    std::uint64_t n = shape.empty() ? 1 : rows * product(shape, 1);
    std::vector<T> out(n);
    if (!shape.empty() && product(shape) == 0) return out;
    Handle filespace(H5Dget_space(ds.get()), H5Sclose), memspace = memorySpace(n);
    selectRows(filespace, memspace, shape, row, rows, n, path);
    Handle dxpl = transfer();
    T dummy{};
    if (H5Dread(ds.get(), H5Type<T>::memory(), memspace.get(), filespace.get(), dxpl.get(),
                n ? out.data() : &dummy) < 0)
      fail("cannot read dataset", path);
    return out;
  }

  // Replaces attribute `name` of `object` (created as a group if missing) with a scalar.
  Handle newAttribute(const std::string& object, const std::string& name, hid_t type) {
    Handle obj = openObject(object);
    htri_t has = H5Aexists(obj.get(), name.c_str());
    if (has < 0) fail(str("cannot query attribute '", name, "' of"), object);
    // Delete and recreate, so an attribute may change type or string length on overwrite.
    if (has > 0 && H5Adelete(obj.get(), name.c_str()) < 0)
      fail(str("cannot replace attribute '", name, "' of"), object);
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle attr(H5Acreate2(obj.get(), name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                H5Aclose);
    if (!attr.valid()) fail(str("cannot create attribute '", name, "' of"), object);
    return attr;
  }

  Handle openAttribute(const std::string& object, const std::string& name) const {
    Handle obj = openObject(object);
    htri_t has = H5Aexists(obj.get(), name.c_str());
    if (has <= 0) throw Error(str("HDF5: no attribute '", name, "' on '", object, "' in ", f.path()));
    Handle attr(H5Aopen(obj.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
    if (!attr.valid()) fail(str("cannot open attribute '", name, "' of"), object);
    return attr;
  }
};

}  // namespace

H5File::H5File(std::string path, Mode mode, Comm comm) : path_(std::move(path)), comm_(comm) {
  // Failures become exceptions with context; HDF5's own stack dump would only add noise.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (mode != Mode::create) {
    // all(): every rank throws together, so no rank is left waiting in a collective open.
    if (!comm_.all(std::filesystem::exists(path_)))
      throw InputError(str("file not found: ", path_));
  }
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!fapl.valid() || H5Pset_fapl_mpio(fapl.get(), comm_.raw(), MPI_INFO_NULL) < 0)
    throw Error(str("HDF5: cannot set up MPI-IO access for ", path_, hdf5Reason()));
  hid_t f = -1;
  if (mode == Mode::create) {
    f = H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
    if (f < 0) throw Error(str("HDF5: cannot create file ", path_, hdf5Reason()));
  } else {
    f = H5Fopen(path_.c_str(), mode == Mode::read ? H5F_ACC_RDONLY : H5F_ACC_RDWR, fapl.get());
    // The file exists, so the user gave us something that is not (readable) HDF5.
    if (f < 0) throw InputError(str("cannot open ", path_, " as an HDF5 file", hdf5Reason()));
  }
  file_ = f;
}

H5File::~H5File() {
  try {
    close();
  } catch (...) {
    // A destructor must not throw; close() already reported nothing useful to recover.
  }
}

void H5File::close() {
  if (file_ < 0) return;
  hid_t f = file_;
  file_ = -1;
  if (H5Fclose(f) < 0) throw Error(str("HDF5: cannot close ", path_, hdf5Reason()));
}

namespace {
hid_t requireOpen(std::int64_t file, const std::string& path) {
  if (file < 0) throw Error(str("HDF5: file ", path, " is closed"));
  return file;
}
}  // namespace

namespace {
template <class T>
void writeRows(const H5File& f, hid_t fid, const std::string& dataset, const Shape& globalShape,
               std::uint64_t rowOffset, std::span<const T> local) {
  Ops ops{f, fid};
  std::string p = normalize(dataset);
  KINEMA_CHECK(!globalShape.empty(), "writeSlab of '", p, "' needs a shape with rows");
  std::uint64_t rowSize = product(globalShape, 1);
  KINEMA_CHECK(rowSize == 0 ? local.empty() : local.size() % rowSize == 0, "writeSlab of '", p,
               "': ", local.size(), " values is not a whole number of rows of ", rowSize);
  std::uint64_t rows = rowSize == 0 ? 0 : local.size() / rowSize;
  KINEMA_CHECK(rows == 0 || rowOffset + rows <= globalShape[0], "writeSlab of '", p, "': rows [",
               rowOffset, ", ", rowOffset + rows, ") outside ", shapeText(globalShape));
  Handle ds = ops.createOrOpen<T>(p, globalShape);
  ops.write(ds.get(), p, globalShape, rowOffset, rows, local.data());
}
}  // namespace

void H5File::writeSlab(const std::string& dataset, const Shape& globalShape, std::uint64_t rowOffset,
                       std::span<const double> local) {
  writeRows(*this, requireOpen(file_, path_), dataset, globalShape, rowOffset, local);
}

void H5File::writeSlab(const std::string& dataset, const Shape& globalShape, std::uint64_t rowOffset,
                       std::span<const std::int64_t> local) {
  writeRows(*this, requireOpen(file_, path_), dataset, globalShape, rowOffset, local);
}

namespace {
// Replicated data: rank 0 writes everything, the others take part with empty selections.
template <class T>
void writeReplicated(const H5File& f, hid_t fid, const std::string& dataset, const Shape& shape,
                     std::span<const T> data) {
  Ops ops{f, fid};
  std::string p = normalize(dataset);
  KINEMA_CHECK(data.size() == product(shape), "writeArray of '", p, "': ", data.size(),
               " values for shape ", shapeText(shape));
  Handle ds = ops.createOrOpen<T>(p, shape);
  bool root = f.comm().isRoot();
  std::uint64_t rows = shape.empty() ? 1 : shape[0];
  ops.write(ds.get(), p, shape, 0, root ? rows : 0, data.data());
}
}  // namespace

void H5File::writeArray(const std::string& dataset, const Shape& shape, std::span<const double> data) {
  writeReplicated(*this, requireOpen(file_, path_), dataset, shape, data);
}

void H5File::writeArray(const std::string& dataset, const Shape& shape,
                        std::span<const std::int64_t> data) {
  writeReplicated(*this, requireOpen(file_, path_), dataset, shape, data);
}

void H5File::writeAttribute(const std::string& object, const std::string& name, double value) {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(object);
  if (!exists(p)) createGroup(p);
  Handle attr = ops.newAttribute(p, name, H5T_IEEE_F64LE);
  if (H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, &value) < 0)
    ops.fail(str("cannot write attribute '", name, "' of"), p);
}

void H5File::writeAttribute(const std::string& object, const std::string& name, std::int64_t value) {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(object);
  if (!exists(p)) createGroup(p);
  Handle attr = ops.newAttribute(p, name, H5T_STD_I64LE);
  if (H5Awrite(attr.get(), H5T_NATIVE_INT64, &value) < 0)
    ops.fail(str("cannot write attribute '", name, "' of"), p);
}

void H5File::writeAttribute(const std::string& object, const std::string& name, const std::string& value) {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(object);
  if (!exists(p)) createGroup(p);
  // Fixed-length, null-terminated: the simplest string type every HDF5 reader understands.
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), value.size() + 1);
  H5Tset_strpad(type.get(), H5T_STR_NULLTERM);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  Handle attr = ops.newAttribute(p, name, type.get());
  if (H5Awrite(attr.get(), type.get(), value.c_str()) < 0)
    ops.fail(str("cannot write attribute '", name, "' of"), p);
}

void H5File::createGroup(const std::string& group) {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(group);
  if (exists(p)) {
    Handle obj = ops.openObject(p);
    if (H5Iget_type(obj.get()) != H5I_GROUP)
      throw Error(str("HDF5: '", p, "' in ", path_, " exists and is not a group"));
    return;
  }
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  Handle g(H5Gcreate2(file_, p.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  if (!g.valid()) ops.fail("cannot create group", p);
}

void H5File::remove(const std::string& path) {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(path);
  if (p == "/" || !exists(p)) return;
  if (H5Ldelete(file_, p.c_str(), H5P_DEFAULT) < 0) ops.fail("cannot remove", p);
}

bool H5File::exists(const std::string& path) const {
  hid_t f = requireOpen(file_, path_);
  std::string p = normalize(path);
  // H5Lexists fails rather than answering false when an intermediate group is missing, so walk
  // the path one component at a time.
  std::size_t pos = 0;
  while (pos < p.size()) {
    std::size_t next = p.find('/', pos + 1);
    std::string prefix = p.substr(0, next);
    if (prefix.size() > 1 && prefix.back() != '/') {
      htri_t e = H5Lexists(f, prefix.c_str(), H5P_DEFAULT);
      if (e <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return false;
      }
    }
    if (next == std::string::npos) break;
    pos = next;
  }
  return true;
}

Shape H5File::shape(const std::string& dataset) const {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(dataset);
  Handle ds = ops.openDataset(p);
  return ops.shapeOf(ds.get(), p);
}

std::vector<std::string> H5File::children(const std::string& group) const {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(group);
  if (!exists(p)) throw Error(str("HDF5: no group '", p, "' in ", path_));
  Handle g(H5Gopen2(file_, p.c_str(), H5P_DEFAULT), H5Gclose);
  if (!g.valid()) ops.fail("cannot open group", p);
  H5G_info_t info;
  if (H5Gget_info(g.get(), &info) < 0) ops.fail("cannot list group", p);
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    ssize_t n = H5Lget_name_by_idx(g.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (n < 0) ops.fail("cannot list group", p);
    std::string name(static_cast<std::size_t>(n) + 1, '\0');
    H5Lget_name_by_idx(g.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
    name.resize(static_cast<std::size_t>(n));
    names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<double> H5File::readSlab(const std::string& dataset, std::uint64_t rowOffset,
                                     std::uint64_t rows) const {
  return Ops{*this, requireOpen(file_, path_)}.read<double>(normalize(dataset), rowOffset, rows, false);
}

std::vector<std::int64_t> H5File::readSlabInt(const std::string& dataset, std::uint64_t rowOffset,
                                              std::uint64_t rows) const {
  return Ops{*this, requireOpen(file_, path_)}.read<std::int64_t>(normalize(dataset), rowOffset, rows,
                                                                  false);
}

std::vector<double> H5File::readAll(const std::string& dataset) const {
  return Ops{*this, requireOpen(file_, path_)}.read<double>(normalize(dataset), 0, 0, true);
}

std::vector<std::int64_t> H5File::readAllInt(const std::string& dataset) const {
  return Ops{*this, requireOpen(file_, path_)}.read<std::int64_t>(normalize(dataset), 0, 0, true);
}

double H5File::readAttributeReal(const std::string& object, const std::string& name) const {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(object);
  Handle attr = ops.openAttribute(p, name);
  double v = 0;
  if (H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v) < 0)
    ops.fail(str("cannot read attribute '", name, "' (as a number) of"), p);
  return v;
}

std::int64_t H5File::readAttributeInt(const std::string& object, const std::string& name) const {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(object);
  Handle attr = ops.openAttribute(p, name);
  std::int64_t v = 0;
  if (H5Aread(attr.get(), H5T_NATIVE_INT64, &v) < 0)
    ops.fail(str("cannot read attribute '", name, "' (as an integer) of"), p);
  return v;
}

std::string H5File::readAttributeString(const std::string& object, const std::string& name) const {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(object);
  Handle attr = ops.openAttribute(p, name);
  Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING)
    throw Error(str("HDF5: attribute '", name, "' of '", p, "' in ", path_, " is not a string"));
  // Read both kinds: ours are fixed-length, other tools (h5py) write variable-length strings.
  if (H5Tis_variable_str(type.get()) > 0) {
    Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), H5T_VARIABLE);
    H5Tset_cset(mem.get(), H5Tget_cset(type.get()));  // HDF5 does not convert ASCII <-> UTF-8
    char* s = nullptr;
    if (H5Aread(attr.get(), mem.get(), &s) < 0) ops.fail(str("cannot read attribute '", name, "' of"), p);
    std::string out = s ? s : "";
    H5free_memory(s);
    return out;
  }
  // Read with the stored type (same size, padding and character set) into a buffer one longer,
  // so a space- or null-padded string without a terminator still ends.
  std::size_t size = H5Tget_size(type.get());
  std::string buf(size + 1, '\0');
  if (H5Aread(attr.get(), type.get(), buf.data()) < 0)
    ops.fail(str("cannot read attribute '", name, "' of"), p);
  buf.resize(std::char_traits<char>::length(buf.c_str()));
  return buf;
}

bool H5File::hasAttribute(const std::string& object, const std::string& name) const {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(object);
  if (!exists(p)) return false;
  htri_t e = H5Aexists_by_name(file_, p.c_str(), name.c_str(), H5P_DEFAULT);
  if (e < 0) ops.fail(str("cannot query attribute '", name, "' of"), p);
  return e > 0;
}

void H5File::flush() {
  Ops ops{*this, requireOpen(file_, path_)};
  if (H5Fflush(file_, H5F_SCOPE_GLOBAL) < 0) ops.fail("cannot flush", "/");
}

}  // namespace kinema::io
