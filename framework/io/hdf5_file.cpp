#include "framework/io/hdf5_file.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

#include "framework/core/error.hpp"
#include "framework/io/hdf5_probe.hpp"

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

// What a datatype class is called in messages ("found integer values").
const char* className(H5T_class_t c) {
  switch (c) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "floating-point";
    case H5T_STRING: return "string";
    case H5T_BITFIELD: return "bitfield";
    case H5T_OPAQUE: return "opaque";
    case H5T_COMPOUND: return "compound";
    case H5T_REFERENCE: return "reference";
    case H5T_ENUM: return "enum";
    case H5T_VLEN: return "variable-length sequence";
    case H5T_ARRAY: return "array";
    case H5T_TIME: return "time";
    default: return "unknown";
  }
}

// n * m, or false when it does not fit in 64 bits (a crafted shape must not wrap around).
bool multiply(std::uint64_t n, std::uint64_t m, std::uint64_t& out) {
  if (m != 0 && n > std::numeric_limits<std::uint64_t>::max() / m) return false;
  out = n * m;
  return true;
}

// Physical memory of this machine in GiB (infinite if unknown: then nothing is refused for its size).
double physicalMemoryGiB() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::numeric_limits<double>::infinity();
  return static_cast<double>(pages) * static_cast<double>(page) / (1u << 30);
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
  // The same for a read: a file that HDF5 cannot read as expected is bad input (InputError),
  // with HDF5's innermost reason instead of its printed error stack.
  [[noreturn]] void failRead(const std::string& what, const std::string& object) const {
    std::string reason = hdf5Reason();
    throw InputError(str("HDF5: ", what, " '", object, "' in ", f.path(), reason));
  }
  // "HDF5: <subject> in <file> <problem>", e.g. subject "attribute 'step' of '/'".
  [[noreturn]] void bad(const std::string& subject, const std::string& problem) const {
    throw InputError(str("HDF5: ", subject, " in ", f.path(), " ", problem));
  }

  Handle transfer() const {
    Handle dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    if (!dxpl.valid() || H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE) < 0)
      fail("cannot set up a collective transfer for", f.path());
    return dxpl;
  }

  // Every check below reads only the file's metadata, which is the same on every rank: a bad
  // object fails on all ranks alike, at the same call, so these throws need no agreement. Only
  // what differs between ranks (the rows a rank reads, its allocation) is agreed on in read().
  Handle openObject(const std::string& path) const {
    if (!f.exists(path)) throw InputError(str("HDF5: no object '", path, "' in ", f.path()));
    Handle obj(H5Oopen(fid, path.c_str(), H5P_DEFAULT), H5Oclose);
    if (!obj.valid()) failRead("cannot open", path);
    return obj;
  }

  // Opens `path` as a dataset; a group (or a named datatype) there is refused by name.
  Handle openDataset(const std::string& path) const {
    if (!f.exists(path)) throw InputError(str("HDF5: no dataset '", path, "' in ", f.path()));
    Handle obj(H5Oopen(fid, path.c_str(), H5P_DEFAULT), H5Oclose);
    if (!obj.valid()) failRead("cannot open", path);
    H5I_type_t kind = H5Iget_type(obj.get());
    if (kind != H5I_DATASET)
      bad(str("'", path, "'"), kind == H5I_GROUP ? "is a group, where a dataset is expected"
                                                 : "is not a dataset, where a dataset is expected");
    return obj;  // H5Oclose closes a dataset as H5Dclose would
  }

  // The class of a datatype, checked against the one expected. Integers are also accepted where
  // reals are expected (HDF5 converts them; a file written with h5py's `attrs["r"] = 1` holds an
  // integer), never the other way round, and nothing converts to or from strings.
  void requireClass(hid_t type, H5T_class_t expected, const std::string& subject) const {
    if (type < 0) bad(subject, "has a datatype HDF5 cannot read" + hdf5Reason());
    H5T_class_t c = H5Tget_class(type);
    if (c == H5T_NO_CLASS) bad(subject, "has a datatype of no known class");
    if (c == expected || (expected == H5T_FLOAT && c == H5T_INTEGER)) {
      checkNumericType(type, subject, f.path());
      return;
    }
    const char* want = expected == H5T_FLOAT ? "floating-point (or integer)" : className(expected);
    bad(subject, str("holds ", className(c), " values, ", want, " values are expected"));
  }

  Shape shapeOf(hid_t ds, const std::string& path) const {
    Handle space(H5Dget_space(ds), H5Sclose);
    if (!space.valid()) fail("cannot get the dataspace of", path);
    // A null dataspace has no values at all (rank 0 would otherwise read as one scalar).
    if (H5Sget_simple_extent_type(space.get()) == H5S_NULL)
      bad(str("dataset '", path, "'"), "has a null dataspace (no values)");
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
    // Same metadata on every rank: these throw on all ranks alike (see openObject).
    Handle ds = openDataset(path);
    {
      Handle type(H5Dget_type(ds.get()), H5Tclose);
      requireClass(type.get(), H5Type<T>::cls(), str("dataset '", path, "'"));
    }
    Shape shape = shapeOf(ds.get(), path);
    std::uint64_t total = shape.empty() ? 1 : shape[0];
    // Shape products checked for 64-bit overflow: a crafted shape must not wrap to a small count.
    std::uint64_t rowSize = 1, size = 1;
    for (std::size_t i = 0; i < shape.size(); ++i)
      if ((i > 0 && !multiply(rowSize, shape[i], rowSize)) || !multiply(size, shape[i], size))
        bad(str("dataset '", path, "'"), str("has shape ", shapeText(shape), ", more values than fit in 64 bits"));
    checkStorage(ds.get(), path, f.path(), f.fileBytes());
    if (all) {
      row = 0;
      rows = total;
    }
    // What follows differs between ranks (each reads its own rows, allocates its own buffer):
    // a problem found on one rank is agreed on before the collective H5Dread, so that every rank
    // throws the same error instead of the others waiting in the read.
    std::string problem;
    std::vector<T> out;
    std::uint64_t n = 0;
    if (row > total || rows > total - row) {
      // (the end written as a sum when it does not fit in 64 bits)
      std::string end = rows > std::numeric_limits<std::uint64_t>::max() - row ? str(row, " + ", rows)
                                                                              : std::to_string(row + rows);
      problem = str("HDF5: rows [", row, ", ", end, ") are outside dataset '", path, "' of shape ",
                    shapeText(shape), " in ", f.path());
    } else if (!multiply(shape.empty() ? 1 : rows, rowSize, n)) {
      problem = str("HDF5: ", rows, " rows of dataset '", path, "' in ", f.path(), " are more values than fit in 64 bits");
    } else if (const double gib = static_cast<double>(n) * sizeof(T) / (1u << 30); gib > physicalMemoryGiB()) {
      // Refused before allocating: a sparse (chunked, never written) dataset can claim terabytes in
      // a file of a few kilobytes, and a vector that large would be killed while it is zeroed.
      problem = str("HDF5: reading ", n, " values of dataset '", path, "' of shape ", shapeText(shape), " in ",
                    f.path(), " needs ", gib, " GiB, more than this machine's ", physicalMemoryGiB(), " GiB of memory");
    } else {
      try {
        out.resize(n);
      } catch (const std::bad_alloc&) {
        problem = str("HDF5: cannot allocate ", gib, " GiB to read ", n, " values of dataset '", path,
                      "' of shape ", shapeText(shape), " in ", f.path());
      }
    }
    Handle filespace, memspace;
    const bool empty = !shape.empty() && size == 0;
    if (problem.empty() && !empty) {
      filespace = Handle(H5Dget_space(ds.get()), H5Sclose);
      memspace = memorySpace(n);
      if (!filespace.valid() || !memspace.valid()) {
        problem = str("HDF5: cannot create dataspaces for '", path, "' in ", f.path(), hdf5Reason());
      } else if (n > 0 && !shape.empty()) {
        std::vector<hsize_t> start(shape.size(), 0), cnt(shape.begin(), shape.end());
        start[0] = row;
        cnt[0] = rows;
        if (H5Sselect_hyperslab(filespace.get(), H5S_SELECT_SET, start.data(), nullptr, cnt.data(), nullptr) < 0)
          problem = str("HDF5: cannot select rows of '", path, "' in ", f.path(), hdf5Reason());
      } else if (n == 0) {
        H5Sselect_none(filespace.get());
        H5Sselect_none(memspace.get());
      }
      // The selection must hold exactly the values allocated: HDF5 writes what the file
      // selection holds into the buffer.
      if (problem.empty()) {
        hssize_t fileCount = H5Sget_select_npoints(filespace.get());
        hssize_t memCount = H5Sget_select_npoints(memspace.get());
        if (fileCount < 0 || memCount < 0 || static_cast<std::uint64_t>(fileCount) != n ||
            static_cast<std::uint64_t>(memCount) != n || (n > 0 && out.size() != n))
          problem = str("HDF5: selection of ", fileCount, " values does not match the ", n,
                        " values allocated to read dataset '", path, "' in ", f.path());
      }
    }
    agree(problem);
    if (empty) return out;
    Handle dxpl = transfer();
    T dummy{};
    if (H5Dread(ds.get(), H5Type<T>::memory(), memspace.get(), filespace.get(), dxpl.get(),
                n ? out.data() : &dummy) < 0)
      failRead("cannot read dataset", path);
    return out;
  }

  // Throws on every rank if `problem` is set on any: the message of the lowest such rank, so
  // all ranks report the same error (a collective over the file's communicator).
  void agree(const std::string& problem) const {
    const Comm& comm = f.comm();
    if (!comm.any(!problem.empty())) return;
    const std::int64_t size = comm.size();
    const std::int64_t first = comm.min(problem.empty() ? size : static_cast<std::int64_t>(comm.rank()));
    std::string msg = comm.broadcast(problem, static_cast<int>(first));
    if (size > 1) msg += str(" (on rank ", first, ")");
    throw InputError(msg);
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

  // Opens attribute `name` of `object` to be read as one value of class `expected`: the
  // attribute must hold exactly one value (a scalar dataspace or one element) of that class, so
  // H5Aread cannot write more than the one value the caller has room for.
  Handle openAttribute(const std::string& object, const std::string& name, H5T_class_t expected,
                       const char* expectedName) const {
    Handle obj = openObject(object);
    htri_t has = H5Aexists(obj.get(), name.c_str());
    if (has < 0) failRead(str("cannot query attribute '", name, "' of"), object);
    if (has == 0) throw InputError(str("HDF5: no attribute '", name, "' on '", object, "' in ", f.path()));
    Handle attr(H5Aopen(obj.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
    if (!attr.valid()) failRead(str("cannot open attribute '", name, "' of"), object);
    const std::string what = str("attribute '", name, "' of '", object, "'");
    Handle space(H5Aget_space(attr.get()), H5Sclose);
    if (!space.valid()) failRead(str("cannot get the dataspace of attribute '", name, "' of"), object);
    H5S_class_t sc = H5Sget_simple_extent_type(space.get());
    if (sc == H5S_NULL) bad(what, str("has a null dataspace (no value), a single ", expectedName, " value is expected"));
    if (sc != H5S_SCALAR) {
      int nd = H5Sget_simple_extent_ndims(space.get());
      hssize_t count = H5Sget_simple_extent_npoints(space.get());
      if (nd < 0 || count < 0) failRead(str("cannot get the dataspace of attribute '", name, "' of"), object);
      std::vector<hsize_t> dims(static_cast<std::size_t>(nd));
      if (nd > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
      if (count != 1)
        bad(what, str("holds ", count, " values (shape ", shapeText(Shape(dims.begin(), dims.end())),
                      "), a single ", expectedName, " value is expected"));
    }
    Handle type(H5Aget_type(attr.get()), H5Tclose);
    requireClass(type.get(), expected, what);
    return attr;
  }
};

}  // namespace

H5File::H5File(std::string path, Mode mode, Comm comm) : path_(std::move(path)), comm_(comm), mode_(mode) {
  // Failures become exceptions with context; HDF5's own stack dump would only add noise.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (mode != Mode::create) {
    // all(): every rank throws together, so no rank is left waiting in a collective open.
    if (!comm_.all(std::filesystem::exists(path_)))
      throw InputError(str("file not found: ", path_));
  }
  if (mode == Mode::read) {
    std::error_code ec;
    bytesOnDisk_ = std::filesystem::file_size(path_, ec);
    if (ec) bytesOnDisk_ = 0;
  }
  if (mode != Mode::create) {
    // Rank 0 reads the file for a looping local heap before HDF5 sees it (damagedLocalHeap);
    // every rank throws its answer. A file opened to append (frames.h5 of a restart) too: a kill
    // inside HDF5's flush can leave its metadata in any state, and a restart that hangs in HDF5
    // is worse than one that sets the file aside. The scan reads the file once (a restart of a run
    // with gigabytes of frames reads them once more).
    // Then a child process reads the file's metadata with HDF5 (hdf5_probe.hpp): a file on which
    // HDF5 crashes or hangs is refused before it is opened here.
    std::string problem;
    if (comm_.isRoot()) {
      try {
        problem = damagedLocalHeap(path_);
        if (problem.empty()) problem = probeHdf5InChild(path_, hdf5ProbeSettingsFromEnv());
      } catch (const InputError& e) {
        problem = e.message();
      }
    }
    problem = comm_.broadcast(problem, 0);
    if (!problem.empty()) throw InputError(problem);
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
  Handle ds = ops.openDataset(p);  // a group is refused: it has no shape
  Shape out = ops.shapeOf(ds.get(), p);
  // Callers size buffers from the shape: a shape the file cannot hold is refused here already.
  checkStorage(ds.get(), p, path_, fileBytes());
  return out;
}

std::vector<std::string> H5File::children(const std::string& group) const {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(group);
  if (!exists(p)) throw InputError(str("HDF5: no group '", p, "' in ", path_));
  Handle obj = ops.openObject(p);
  if (H5Iget_type(obj.get()) != H5I_GROUP) ops.bad(str("'", p, "'"), "is not a group, where a group is expected");
  hid_t g = obj.get();
  H5G_info_t info;
  if (H5Gget_info(g, &info) < 0) ops.failRead("cannot list group", p);
  // Each link takes at least a symbol-table entry of the file (40 bytes with 8-byte addresses): a
  // damaged group that claims more links than the file can hold is refused, not listed.
  if (info.nlinks > fileBytes() / 16 + 16)
    ops.bad(str("group '", p, "'"), str("claims ", info.nlinks, " links, more than a file of ", fileBytes(),
                                        " bytes can hold: the file is damaged"));
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    ssize_t n = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (n < 0) ops.failRead("cannot list group", p);
    std::string name(static_cast<std::size_t>(n) + 1, '\0');
    if (H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT) < 0)
      ops.failRead("cannot list group", p);
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
  Handle attr = ops.openAttribute(p, name, H5T_FLOAT, "floating-point");
  double v = 0;
  if (H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v) < 0)
    ops.failRead(str("cannot read attribute '", name, "' (as a number) of"), p);
  return v;
}

std::int64_t H5File::readAttributeInt(const std::string& object, const std::string& name) const {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(object);
  Handle attr = ops.openAttribute(p, name, H5T_INTEGER, "integer");
  std::int64_t v = 0;
  if (H5Aread(attr.get(), H5T_NATIVE_INT64, &v) < 0)
    ops.failRead(str("cannot read attribute '", name, "' (as an integer) of"), p);
  return v;
}

std::string H5File::readAttributeString(const std::string& object, const std::string& name) const {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(object);
  Handle attr = ops.openAttribute(p, name, H5T_STRING, "string");
  Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (!type.valid()) ops.failRead(str("cannot get the datatype of attribute '", name, "' of"), p);
  // Read both kinds: ours are fixed-length, other tools (h5py) write variable-length strings.
  if (H5Tis_variable_str(type.get()) > 0) {
    Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), H5T_VARIABLE);
    H5Tset_cset(mem.get(), H5Tget_cset(type.get()));  // HDF5 does not convert ASCII <-> UTF-8
    char* s = nullptr;
    checkAttributeStorage(attr.get(), str("attribute '", name, "' of '", p, "'"), path_, fileBytes());
    if (H5Aread(attr.get(), mem.get(), &s) < 0) ops.failRead(str("cannot read attribute '", name, "' of"), p);
    std::string out = s ? s : "";
    H5free_memory(s);
    return out;
  }
  // Read with the stored type (same size, padding and character set) into a buffer one longer,
  // so a space- or null-padded string without a terminator still ends.
  std::size_t size = H5Tget_size(type.get());
  if (size == 0) ops.failRead(str("cannot get the size of string attribute '", name, "' of"), p);
  // The stored length (up to 4 GiB in HDF5's format) sizes the buffer: checked against the file.
  checkAttributeStorage(attr.get(), str("attribute '", name, "' of '", p, "'"), path_, fileBytes());
  std::string buf(size + 1, '\0');
  if (H5Aread(attr.get(), type.get(), buf.data()) < 0)
    ops.failRead(str("cannot read attribute '", name, "' of"), p);
  buf.resize(std::char_traits<char>::length(buf.c_str()));
  return buf;
}

bool H5File::hasAttribute(const std::string& object, const std::string& name) const {
  Ops ops{*this, requireOpen(file_, path_)};
  std::string p = normalize(object);
  if (!exists(p)) return false;
  htri_t e = H5Aexists_by_name(file_, p.c_str(), name.c_str(), H5P_DEFAULT);
  if (e < 0) ops.failRead(str("cannot query attribute '", name, "' of"), p);
  return e > 0;
}

std::int64_t openHdf5Objects() {
  const ssize_t n = H5Fget_obj_count(static_cast<hid_t>(H5F_OBJ_ALL), H5F_OBJ_ALL);
  return n < 0 ? -1 : static_cast<std::int64_t>(n);
}

std::uint64_t H5File::fileBytes() const {
  if (mode_ == Mode::read) return bytesOnDisk_;
  hsize_t size = 0;
  if (file_ < 0 || H5Fget_filesize(file_, &size) < 0) return std::numeric_limits<std::uint64_t>::max();
  return size;
}

void H5File::flush() {
  Ops ops{*this, requireOpen(file_, path_)};
  if (H5Fflush(file_, H5F_SCOPE_GLOBAL) < 0) ops.fail("cannot flush", "/");
}

namespace {
std::string bytesText(std::uint64_t b) {
  return b >= (std::uint64_t{1} << 30) ? str(b, " bytes (", static_cast<double>(b) / (1u << 30), " GiB)")
                                       : str(b, " bytes");
}
}  // namespace

std::uint64_t checkStorage(std::int64_t dataset, const std::string& object, const std::string& file,
                           std::uint64_t fileBytes) {
  const std::string subject = str("HDF5: dataset '", object, "' in ", file);
  Handle space(H5Dget_space(dataset), H5Sclose);
  Handle type(H5Dget_type(dataset), H5Tclose);
  Handle dcpl(H5Dget_create_plist(dataset), H5Pclose);
  if (!space.valid() || !type.valid() || !dcpl.valid())
    throw InputError(str(subject, ": cannot read its dataspace, datatype or storage layout", hdf5Reason()));
  const int nd = H5Sget_simple_extent_ndims(space.get());
  if (nd < 0) throw InputError(str(subject, ": cannot read its rank", hdf5Reason()));
  std::vector<hsize_t> dims(static_cast<std::size_t>(nd));
  if (nd > 0 && H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0)
    throw InputError(str(subject, ": cannot read its dimensions", hdf5Reason()));
  const Shape shape(dims.begin(), dims.end());
  std::uint64_t count = 1;
  if (H5Sget_simple_extent_type(space.get()) == H5S_NULL) count = 0;
  for (std::uint64_t d : shape)
    if (!multiply(count, d, count))
      throw InputError(str(subject, " has shape ", shapeText(shape), ", more values than fit in 64 bits"));
  const std::size_t size = H5Tget_size(type.get());
  if (size == 0) throw InputError(str(subject, ": cannot read the size of its values", hdf5Reason()));
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  if (layout == H5D_VIRTUAL)
    throw InputError(str(subject, " is a virtual dataset (its values are in other files), which Kinema does not read"));
  const int external = H5Pget_external_count(dcpl.get());
  if (external != 0)
    throw InputError(str(subject, " stores its values in external files, which Kinema does not read"));
  std::uint64_t limit = fileBytes;
  const char* bound = "the file's size";
  const int filters = H5Pget_nfilters(dcpl.get());
  if (filters < 0) throw InputError(str(subject, ": cannot read its filters", hdf5Reason()));
  for (int k = 0; k < filters; ++k) {
    unsigned flags = 0, config = 0;
    std::size_t nvalues = 0;
    char name[64] = {0};
    const H5Z_filter_t id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(k), &flags, &nvalues, nullptr,
                                           sizeof name, name, &config);
    if (id == H5Z_FILTER_DEFLATE) {
      if (!multiply(fileBytes, kMaxDeflateRatio, limit)) limit = std::numeric_limits<std::uint64_t>::max();
      bound = "deflate's largest compression ratio (1032) times the file's size";
    } else if (id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32) {
      throw InputError(str(subject, " is stored through HDF5 filter ", id, name[0] ? str(" (", name, ")") : std::string(),
                           "; Kinema reads only uncompressed and deflate-compressed (gzip) datasets"));
    }
  }
  std::uint64_t bytes = 0;
  if (!multiply(count, size, bytes) || bytes > limit)
    throw InputError(str(subject, " has shape ", shapeText(shape), " of ", size, "-byte values, ",
                         bytes == 0 && count != 0 ? str(count, " x ", size, " bytes") : bytesText(bytes),
                         ", more than ", bound, " (", bytesText(limit),
                         "): the file is damaged (a dataset cannot hold more values than its file)"));
  // A compact dataset keeps its values in its own header: the stored block must hold them all.
  // HDF5 1.10.8 copies `bytes` from it unchecked, from address 0 where the block is empty
  // (SIGSEGV in H5VM_memcpyvv, found by fuzz_strands on 27 Nov 2026).
  if (layout == H5D_COMPACT && H5Dget_storage_size(dataset) < bytes)
    throw InputError(str(subject, " is a compact dataset of shape ", shapeText(shape), " (", bytesText(bytes),
                         ") whose stored values take ", bytesText(H5Dget_storage_size(dataset)),
                         ": the file is damaged"));
  return count;
}

namespace {
void checkNestedTypes(hid_t type, H5T_class_t c, const std::string& subject, const std::string& file, int depth);

// A numeric datatype's size, precision, offset and (float) fields fit one another; HDF5's
// conversions trust them.
void checkNumericTypeAt(hid_t type, const std::string& subject, const std::string& file, int depth) {
  const H5T_class_t c = H5Tget_class(type);
  if (c != H5T_INTEGER && c != H5T_FLOAT) return checkNestedTypes(type, c, subject, file, depth);
  auto bad = [&](const std::string& problem) { throw InputError(str("HDF5: ", subject, " in ", file, " ", problem)); };
  const std::size_t size = H5Tget_size(type);
  if (size == 0 || size > 16) bad(str("has a numeric datatype of ", size, " bytes"));
  const std::size_t bits = 8 * size, precision = H5Tget_precision(type);
  const int offset = H5Tget_offset(type);
  if (precision == 0 || offset < 0 || precision > bits || static_cast<std::size_t>(offset) > bits - precision)
    bad(str("has a numeric datatype whose ", precision, " bits at bit ", offset, " do not fit its ", size, " bytes"));
  if (c != H5T_FLOAT) return;
  std::size_t sign = 0, expAt = 0, expBits = 0, mantAt = 0, mantBits = 0;
  if (H5Tget_fields(type, &sign, &expAt, &expBits, &mantAt, &mantBits) < 0)
    bad("has a floating-point datatype whose fields HDF5 cannot read" + hdf5Reason());
  const std::size_t lo = static_cast<std::size_t>(offset), hi = lo + precision;
  auto inside = [&](std::size_t at, std::size_t n) { return n > 0 && at >= lo && at <= hi && n <= hi - at; };
  if (!inside(sign, 1) || !inside(expAt, expBits) || !inside(mantAt, mantBits) || expBits > 64 || mantBits > 128)
    bad(str("has a floating-point datatype whose sign, exponent or mantissa field (bits ", sign, "; ", expAt, "+",
            expBits, "; ", mantAt, "+", mantBits, ") lies outside its ", precision, " bits at bit ", offset));
}

// The members of a compound type, the base of an array or enumeration: checked like the top,
// to a nesting depth HDF5's own types never need.
void checkNestedTypes(hid_t type, H5T_class_t c, const std::string& subject, const std::string& file, int depth) {
  if (depth > 16) throw InputError(str("HDF5: ", subject, " in ", file, " has a datatype nested over 16 deep"));
  if (c == H5T_ARRAY || c == H5T_ENUM || c == H5T_VLEN) {
    Handle super(H5Tget_super(type), H5Tclose);
    if (super.valid()) checkNumericTypeAt(super.get(), subject, file, depth + 1);
  } else if (c == H5T_COMPOUND) {
    const int members = H5Tget_nmembers(type);
    for (int m = 0; m < members; ++m) {
      Handle member(H5Tget_member_type(type, static_cast<unsigned>(m)), H5Tclose);
      if (member.valid()) checkNumericTypeAt(member.get(), subject, file, depth + 1);
    }
  }
}
}  // namespace

void checkNumericType(std::int64_t typeId, const std::string& subject, const std::string& file) {
  checkNumericTypeAt(static_cast<hid_t>(typeId), subject, file, 0);
}

std::uint64_t checkAttributeStorage(std::int64_t attribute, const std::string& subject, const std::string& file,
                                    std::uint64_t fileBytes) {
  const std::string what = str("HDF5: ", subject, " in ", file);
  Handle space(H5Aget_space(attribute), H5Sclose);
  Handle type(H5Aget_type(attribute), H5Tclose);
  if (!space.valid() || !type.valid())
    throw InputError(str(what, ": cannot read its dataspace or datatype", hdf5Reason()));
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n < 0) throw InputError(str(what, ": cannot read its number of values", hdf5Reason()));
  const auto count = static_cast<std::uint64_t>(n);
  // A variable-length string is stored elsewhere in the file, at least one byte each.
  const std::size_t size = H5Tis_variable_str(type.get()) > 0 ? 1 : H5Tget_size(type.get());
  if (size == 0) throw InputError(str(what, ": cannot read the size of its values", hdf5Reason()));
  std::uint64_t bytes = 0;
  if (!multiply(count, size, bytes) || bytes > fileBytes)
    throw InputError(str(what, " claims ", count, " values of ", size, " bytes, more than the file's ",
                         bytesText(fileBytes), ": the file is damaged"));
  return count;
}

namespace {
// Little-endian unsigned of `n` bytes (HDF5's encoding of addresses and lengths).
std::uint64_t decode(const unsigned char* p, unsigned n) {
  std::uint64_t v = 0;
  for (unsigned i = n; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

// Reads exactly n bytes at `offset`, or returns false (past the end, or a read error).
bool readAt(int fd, std::uint64_t offset, unsigned char* out, std::size_t n) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd, out + done, n - done, static_cast<off_t>(offset + done));
    if (r <= 0) return false;
    done += static_cast<std::size_t>(r);
  }
  return true;
}

// A file scanned for local heaps: the open file and its size, and from its superblock the sizes of
// addresses (O) and lengths (L) and the base address that addresses are relative to.
struct HeapFile {
  int fd = -1;
  std::uint64_t fileSize = 0;
  unsigned sizeOffsets = 0, sizeLengths = 0;
  std::uint64_t base = 0;
};

// Fills the sizes and base of `hf` from its superblock; false if there is none or its sizes are
// not ones HDF5 writes.
bool readSuperblock(HeapFile& hf) {
  // The superblock (HDF5 file format specification, "Superblock"): at 0, 512, 1024, ... It gives
  // the sizes of addresses and lengths and the base address that addresses are relative to.
  static const unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char sb[48];
  std::uint64_t at = 0;
  bool found = false;
  for (; at + sizeof sb <= hf.fileSize; at = at == 0 ? 512 : 2 * at)
    if (readAt(hf.fd, at, sb, sizeof sb) && std::memcmp(sb, kSignature, 8) == 0) {
      found = true;
      break;
    }
  if (!found) return false;
  unsigned sizeOffsets = 0, sizeLengths = 0;
  std::uint64_t base = 0;
  if (sb[8] <= 1) {
    sizeOffsets = sb[13];
    sizeLengths = sb[14];
    const unsigned baseAt = sb[8] == 0 ? 24 : 28;
    if (sizeOffsets == 8 || sizeOffsets == 4 || sizeOffsets == 2) base = decode(sb + baseAt, sizeOffsets);
  } else {
    sizeOffsets = sb[9];
    sizeLengths = sb[10];
    if (sizeOffsets == 8 || sizeOffsets == 4 || sizeOffsets == 2) base = decode(sb + 12, sizeOffsets);
  }
  auto valid = [](unsigned n) { return n == 2 || n == 4 || n == 8 || n == 16; };
  if (!valid(sizeOffsets) || !valid(sizeLengths) || sizeOffsets > 8 || sizeLengths > 8) return false;
  hf.sizeOffsets = sizeOffsets;
  hf.sizeLengths = sizeLengths;
  hf.base = base;
  return true;
}

// The problem with the local heap at `heapAt` of `file` (a free list that loops), or empty where
// there is no such heap or its list ends.
std::string loopingFreeList(const HeapFile& hf, const std::string& file, std::uint64_t heapAt) {
  const int fd = hf.fd;
  const std::uint64_t fileSize = hf.fileSize, base = hf.base;
  const unsigned sizeOffsets = hf.sizeOffsets, sizeLengths = hf.sizeLengths;
  // Every local heap begins with "HEAP", version 0 (specification, "Local Heap"): signature,
  // version, 3 reserved bytes, data segment size (L), offset of the first free block (L; 1 = none),
  // address of the data segment (O). Each free block in the data segment starts with the offset of
  // the next (L; 1 = the last) and its size (L). HDF5 checks that each offset is inside the
  // segment, not that the list ends; a list that loops is what is refused here.
  const std::size_t header = 8 + 2 * sizeLengths + sizeOffsets;
  unsigned char h[8 + 3 * 8];
  if (!readAt(fd, heapAt, h, header) || h[4] != 0) return {};
  const std::uint64_t segment = decode(h + 8, sizeLengths), head = decode(h + 8 + sizeLengths, sizeLengths);
  const std::uint64_t data = decode(h + 8 + 2 * sizeLengths, sizeOffsets);
  if (segment > fileSize || data > fileSize || base > fileSize - data || base + data > fileSize - segment) return {};
  const std::uint64_t none = 1;
  // The next free block after `o`, or `none` where HDF5 itself stops (the end, or an error).
  auto next = [&](std::uint64_t o) -> std::uint64_t {
    unsigned char b[8];
    if (o == none || o >= segment || segment - o < sizeLengths || !readAt(fd, base + data + o, b, sizeLengths))
      return none;
    const std::uint64_t n = decode(b, sizeLengths);
    return n == 0 ? none : n;
  };
  // Floyd's cycle detection: the hare takes two steps per step of the tortoise.
  std::uint64_t slow = head, fast = head;
  while (true) {
    fast = next(next(fast));
    slow = next(slow);
    if (fast == none) return {};
    if (fast == slow)
      return str("HDF5: ", file, " is damaged: the local heap at byte ", heapAt,
                 " (the names of a group) has a free list that loops at offset ", slow,
                 "; HDF5 would follow it without end");
  }
}
}  // namespace

std::string damagedLocalHeap(const std::string& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};  // HDF5's open reports it
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::error_code ec;
  const std::uint64_t fileSize = std::filesystem::file_size(file, ec);
  if (ec) return {};
  HeapFile hf;
  hf.fd = fd;
  hf.fileSize = fileSize;
  if (!readSuperblock(hf)) return {};
  // Every local heap begins with "HEAP": each place the signature occurs is checked.
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::vector<unsigned char> buf(kChunk + 3);
  std::size_t carry = 0;  // the last 3 bytes of the previous chunk, for a signature across chunks
  for (std::uint64_t pos = 0; pos < fileSize;) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, fileSize - pos));
    if (!readAt(fd, pos, buf.data() + carry, want)) return {};
    const std::size_t n = carry + want;
    const std::uint64_t start = pos - carry;
    for (const unsigned char* p = buf.data(); (p = static_cast<const unsigned char*>(
                                                  std::memchr(p, 'H', n - static_cast<std::size_t>(p - buf.data())))) != nullptr;
         ++p) {
      const std::size_t i = static_cast<std::size_t>(p - buf.data());
      if (i + 4 > n) break;
      if (std::memcmp(p, "HEAP", 4) == 0)
        if (std::string problem = loopingFreeList(hf, file, start + i); !problem.empty()) return problem;
    }
    carry = std::min<std::size_t>(3, n);
    std::memmove(buf.data(), buf.data() + n - carry, carry);
    pos += want;
  }
  return {};
}

}  // namespace kinema::io
