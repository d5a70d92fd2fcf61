// Cem Yuksel's HAIR format: strict reader and atomic writer (see hair_file.hpp for the layout).
#include "modules/der/hair_file.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "framework/core/error.hpp"

namespace kinema::der {

namespace {

constexpr std::size_t kHeaderBytes = 128;
constexpr std::size_t kInfoBytes = 88;
constexpr std::uint32_t kSegmentsBit = 1, kPointsBit = 2, kThicknessBit = 4, kTransparencyBit = 8,
                        kColourBit = 16;
constexpr std::uint32_t kKnownBits = kSegmentsBit | kPointsBit | kThicknessBit | kTransparencyBit | kColourBit;

// Little-endian decoding by bytes, so the reader is right on any host. `b` holds the file's bytes
// [base, base + b.size()) of a file of `total` bytes; offsets (`at`) are file offsets, so messages
// name the byte in the file whichever part of it was read.
class Bytes {
 public:
  Bytes(std::span<const std::byte> b, const std::string& name) : Bytes(b, name, 0, b.size()) {}
  Bytes(std::span<const std::byte> b, const std::string& name, std::uint64_t base, std::uint64_t total)
      : b_(b), name_(name), base_(base), total_(total) {}
  std::uint16_t u16(std::size_t at) const {
    return static_cast<std::uint16_t>(byte(at) | (byte(at + 1) << 8));
  }
  std::uint32_t u32(std::size_t at) const {
    return byte(at) | (byte(at + 1) << 8) | (byte(at + 2) << 16) | (byte(at + 3) << 24);
  }
  float f32(std::size_t at) const { return std::bit_cast<float>(u32(at)); }
  std::uint64_t size() const { return total_; }
  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw InputError(str(name_, ": byte ", at, ": ", what));
  }
  // Fails unless `count` bytes of `what` start at `at`.
  void need(std::size_t at, std::uint64_t count, const std::string& what) const {
    std::uint64_t left = at <= total_ ? total_ - at : 0;
    if (count > left)
      fail(at, str("truncated ", what, ": expected ", count, " bytes, the file has ", left, " left"));
  }

 private:
  std::uint32_t byte(std::size_t at) const { return std::to_integer<std::uint32_t>(b_[at - base_]); }
  std::span<const std::byte> b_;
  const std::string& name_;
  std::uint64_t base_ = 0, total_ = 0;
};

void putU16(std::vector<std::byte>& out, std::uint16_t v) {
  out.push_back(static_cast<std::byte>(v & 0xff));
  out.push_back(static_cast<std::byte>(v >> 8));
}
void putU32(std::vector<std::byte>& out, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::byte>((v >> (8 * k)) & 0xff));
}
void putF32(std::vector<std::byte>& out, float v) { putU32(out, std::bit_cast<std::uint32_t>(v)); }

std::string describe(float v) { return std::isnan(v) ? "NaN" : (v > 0 ? "+Inf" : "-Inf"); }

void requireScale(const std::string& name, double scale) {
  if (!(scale > 0.0) || !std::isfinite(scale))
    throw InputError(str(name, ": hair scale must be positive and finite, got ", scale));
}

// Fails unless the file starts with "HAIR" (the message shows the four bytes found, escaped).
void requireSignature(const Bytes& in, std::span<const std::byte> head) {
  if (std::memcmp(head.data(), "HAIR", 4) != 0) {
    std::string sig;
    for (int k = 0; k < 4; ++k) {
      auto c = std::to_integer<unsigned char>(head[static_cast<std::size_t>(k)]);
      if (c >= 32 && c < 127) {
        sig += static_cast<char>(c);
      } else {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        sig += buf;
      }
    }
    in.fail(0, str("bad signature \"", sig, "\", expected \"HAIR\" (not a HAIR file)"));
  }
}

// The header's counts, array bits, default thickness and free text into `out` (checks the bits).
void readHeader(const Bytes& in, std::span<const std::byte> head, std::uint64_t fileBytes, HairLayout& out) {
  const std::uint64_t strands = in.u32(4), points = in.u32(8);
  const std::uint32_t bits = in.u32(12);
  const float defaultThickness = in.f32(20);
  out.strands = strands;
  out.points = points;
  out.bits = bits;
  out.defaultThickness = defaultThickness;
  out.fileBytes = fileBytes;
  if (bits & ~kKnownBits)
    in.fail(12, str("unknown array bits 0x", std::hex, bits & ~kKnownBits, std::dec,
                    " in the array bit field (known: 1 segments, 2 points, 4 thickness, 8 transparency, "
                    "16 colour)"));
  if (!(bits & kPointsBit)) in.fail(12, "the file has no points array (value 2 of the array bit field)");
  {
    const char* info = reinterpret_cast<const char*>(head.data()) + 40;
    out.info.assign(info, std::find(info, info + kInfoBytes, '\0'));
  }
}

// Points per strand into out.pointOffset, from the segments array at `at` (whose end it returns)
// or from the default segments. Sizes are checked against the file before anything is allocated,
// so a corrupt header cannot ask for gigabytes.
std::size_t readPointOffsets(const Bytes& in, std::size_t at, std::uint32_t defaultSegments, HairLayout& out) {
  const std::uint64_t strands = out.strands, points = out.points;
  out.pointOffset.assign(1, 0);
  if (out.bits & kSegmentsBit) {
    in.need(at, 2 * strands, str("segments array (", strands, " strands x 2 bytes)"));
    out.pointOffset.reserve(strands + 1);
    for (std::uint64_t s = 0; s < strands; ++s) {
      const std::uint32_t count = in.u16(at + 2 * s) + 1u;
      if (count < 3)
        in.fail(at + 2 * s, str("strand ", s, " has ", count - 1, " segments (", count,
                                " points); DER needs at least 3 points per strand"));
      out.pointOffset.push_back(out.pointOffset.back() + count);
    }
    const std::uint64_t sum = out.pointOffset.back();
    if (sum != points)
      in.fail(8, str("the header says ", points, " points, but the segments array (byte ", at, ") gives its ",
                     strands, " strands ", sum, " points"));
    at += 2 * strands;
  } else {
    if (strands > 0 && defaultSegments < 2)
      in.fail(16, str("the default of ", defaultSegments, " segments per strand (no segments array) gives ",
                      std::uint64_t{defaultSegments} + 1, " points; DER needs at least 3 points per strand"));
    // < 2^64: strands < 2^32 and defaultSegments + 1 <= 2^32.
    std::uint64_t sum = strands * (std::uint64_t{defaultSegments} + 1);
    if (sum != points)
      in.fail(8, str("the header says ", points, " points, but its ", strands, " strands of ",
                     std::uint64_t{defaultSegments} + 1, " points (the default segments at byte 16, no segments "
                     "array) have ", sum));
    out.pointOffset.reserve(strands + 1);
    for (std::uint64_t s = 0; s < strands; ++s) out.pointOffset.push_back(out.pointOffset.back() + defaultSegments + 1u);
  }
  return at;
}

// The points array from `at` and the arrays after it (thickness, transparency, colour) are there
// in full, and the file ends right after them; sets out.pointsAt and out.thicknessAt.
void checkArrays(const Bytes& in, std::size_t at, HairLayout& out) {
  const std::uint64_t strands = out.strands, points = out.points, fileBytes = out.fileBytes;
  const std::uint32_t bits = out.bits;
  const float defaultThickness = out.defaultThickness;
  // Points: a file cut short names the first strand whose points are missing (the header
  // promises more strands or points than the file holds).
  out.pointsAt = at;
  {
    const std::uint64_t left = at <= fileBytes ? fileBytes - at : 0;
    if (12 * points > left) {
      const auto cut = std::upper_bound(out.pointOffset.begin(), out.pointOffset.end(), left / 12);
      const std::uint64_t strand = static_cast<std::uint64_t>(cut - out.pointOffset.begin()) - 1;
      in.fail(at, str("truncated points array (", points, " points x 12 bytes): expected ", 12 * points,
                      " bytes, the file has ", left, " left; strand ", strand, " of ", strands,
                      " is the first whose points are missing"));
    }
  }
  at += 12 * points;
  // Thickness: per point in the file (checked where the strands are read), or the header default.
  if (bits & kThicknessBit) {
    in.need(at, 4 * points, str("thickness array (", points, " points x 4 bytes)"));
    out.thicknessAt = at;
    at += 4 * points;
  } else if (strands > 0 && (!std::isfinite(defaultThickness) || defaultThickness < 0.0f)) {
    in.fail(20, str("default thickness ",
                    std::isfinite(defaultThickness) ? str(defaultThickness) : describe(defaultThickness),
                    ", expected a finite value >= 0"));
  }
  // Transparency and colour are of no use to DER but must be there in full.
  if (bits & kTransparencyBit) {
    in.need(at, 4 * points, str("transparency array (", points, " points x 4 bytes)"));
    at += 4 * points;
  }
  if (bits & kColourBit) {
    in.need(at, 12 * points, str("colour array (", points, " points x 12 bytes)"));
    at += 12 * points;
  }
  if (at != fileBytes)
    in.fail(at, str("file too long: ", fileBytes - at, " bytes after the last array (the file should end here)"));
}

}  // namespace

HairLayout parseHairLayout(std::span<const std::byte> head, std::uint64_t fileBytes, const std::string& name) {
  Bytes in(head, name, 0, fileBytes);
  in.need(0, kHeaderBytes, "header");
  requireSignature(in, head);
  HairLayout out;
  readHeader(in, head, fileBytes, out);
  const std::size_t at = readPointOffsets(in, kHeaderBytes, in.u32(16), out);
  checkArrays(in, at, out);
  return out;
}

namespace {

// Strands [first, first + count) of `layout` from their points (file bytes from
// layout.pointsAt + 12 pointOffset[first]) and, with a thickness array, their thickness values
// (from layout.thicknessAt + 4 pointOffset[first]).
HairData decodeStrands(const HairLayout& layout, std::uint64_t first, std::uint64_t count,
                       std::span<const std::byte> points, std::span<const std::byte> thickness,
                       const std::string& name, double scale) {
  const std::uint64_t p0 = layout.pointOffset[first];
  const Bytes pts(points, name, layout.pointsAt + 12 * p0, layout.fileBytes);
  HairData out;
  out.info = layout.info;
  out.strands.resize(count);
  std::uint64_t p = layout.pointsAt + 12 * p0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t s = first + i;
    const std::uint64_t n = layout.pointOffset[s + 1] - layout.pointOffset[s];
    StrandGeometry& g = out.strands[i];
    g.x.resize(n);
    g.theta.assign(n - 1, 0.0);
    for (std::uint64_t v = 0; v < n; ++v) {
      for (int c = 0; c < 3; ++c, p += 4) {
        float f = pts.f32(p);
        if (!std::isfinite(f))
          pts.fail(p, str("strand ", s, " vertex ", v, ": coordinate ", "xyz"[c], " is ", describe(f)));
        g.x[v][c] = scale * static_cast<double>(f);
      }
    }
  }
  // Thickness: per point in the file, per strand (mean) for DER.
  out.thickness.assign(count, scale * static_cast<double>(layout.defaultThickness));
  if (layout.bits & kThicknessBit) {
    out.hasThicknessArray = true;
    const Bytes th(thickness, name, layout.thicknessAt + 4 * p0, layout.fileBytes);
    std::uint64_t at = layout.thicknessAt + 4 * p0;
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t s = first + i;
      const std::uint64_t n = layout.pointOffset[s + 1] - layout.pointOffset[s];
      double total = 0.0;
      for (std::uint64_t v = 0; v < n; ++v, at += 4) {
        float t = th.f32(at);
        if (!std::isfinite(t) || t < 0.0f)
          th.fail(at, str("strand ", s, " vertex ", v, ": thickness ", std::isfinite(t) ? str(t) : describe(t),
                          ", expected a finite value >= 0"));
        total += t;
      }
      out.thickness[i] = scale * (total / static_cast<double>(n));
    }
  }
  return out;
}

}  // namespace

HairData parseHair(std::span<const std::byte> bytes, const std::string& name, double scale) {
  requireScale(name, scale);
  const HairLayout layout = parseHairLayout(bytes, bytes.size(), name);
  const std::uint64_t P = layout.points;
  return decodeStrands(layout, 0, layout.strands, bytes.subspan(layout.pointsAt, 12 * P),
                       (layout.bits & kThicknessBit) ? bytes.subspan(layout.thicknessAt, 4 * P)
                                                     : std::span<const std::byte>(),
                       name, scale);
}

namespace {

// `count` bytes of `f` from byte `at`, or an InputError naming the file and `what`.
std::vector<std::byte> readBytes(std::ifstream& f, const std::string& path, std::uint64_t at, std::uint64_t count,
                                 const std::string& what) {
  std::vector<std::byte> b(count);
  f.clear();
  f.seekg(static_cast<std::streamoff>(at));
  if (count > 0) f.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(count));
  if (!f || static_cast<std::uint64_t>(f.gcount()) != count)
    throw InputError(str(path, ": byte ", at, ": cannot read ", what, " (", count,
                         " bytes; was the file changed while it was read?)"));
  return b;
}

}  // namespace

HairLayout readHairLayout(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(str("cannot open hair file '", path, "'"));
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(str("cannot read hair file '", path, "': ", ec.message()));
  // The header, then header and segments array together (parseHairLayout checks both against
  // the file size before it reads them).
  std::vector<std::byte> head = readBytes(f, path, 0, std::min<std::uint64_t>(size, kHeaderBytes), "the header");
  if (head.size() == kHeaderBytes && (Bytes(head, path).u32(12) & kSegmentsBit)) {
    const std::uint64_t segments = 2 * std::uint64_t{Bytes(head, path).u32(4)};
    head = readBytes(f, path, 0, std::min<std::uint64_t>(size, kHeaderBytes + segments), "the segments array");
  }
  return parseHairLayout(head, size, path);
}

HairData readHairStrands(const std::string& path, const HairLayout& layout, std::uint64_t first, std::uint64_t count,
                         double scale) {
  requireScale(path, scale);
  if (first + count > layout.strands)
    throw InputError(str(path, ": asked for strands [", first, ", ", first + count, ") of ", layout.strands));
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(str("cannot open hair file '", path, "'"));
  const std::uint64_t p0 = layout.pointOffset[first], p1 = layout.pointOffset[first + count];
  const std::string which = str("strands ", first, " to ", first + count - 1);
  const std::vector<std::byte> points =
      readBytes(f, path, layout.pointsAt + 12 * p0, 12 * (p1 - p0), "the points of " + which);
  std::vector<std::byte> thickness;
  if (layout.bits & kThicknessBit)
    thickness = readBytes(f, path, layout.thicknessAt + 4 * p0, 4 * (p1 - p0), "the thickness of " + which);
  return decodeStrands(layout, first, count, points, thickness, path, scale);
}

HairData readHair(const std::string& path, double scale) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(str("cannot open hair file '", path, "'"));
  std::vector<char> raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw InputError(str("cannot read hair file '", path, "'"));
  return parseHair(std::as_bytes(std::span<const char>(raw)), path, scale);
}

void writeHair(const std::string& path, std::span<const StrandGeometry> strands,
               std::optional<std::span<const double>> thickness, const std::string& info) {
  if (strands.size() > 0xffffffffu) throw InputError(str(path, ": too many strands for a HAIR file"));
  if (thickness && thickness->size() != strands.size())
    throw InputError(str(path, ": ", thickness->size(), " thickness values for ", strands.size(), " strands"));
  std::uint64_t points = 0;
  for (std::size_t s = 0; s < strands.size(); ++s) {
    std::size_t n = strands[s].x.size();
    if (n < 1 || n > 65536)
      throw InputError(str(path, ": strand ", s, " has ", n, " points; a HAIR file holds 1 to 65536 per strand"));
    points += n;
  }
  if (points > 0xffffffffu) throw InputError(str(path, ": too many points for a HAIR file"));

  std::vector<std::byte> out;
  out.reserve(kHeaderBytes + 2 * strands.size() + 16 * points);
  for (char c : std::string("HAIR")) out.push_back(static_cast<std::byte>(c));
  putU32(out, static_cast<std::uint32_t>(strands.size()));
  putU32(out, static_cast<std::uint32_t>(points));
  putU32(out, kSegmentsBit | kPointsBit | (thickness ? kThicknessBit : 0u));
  putU32(out, 0);        // default segments: unused, every strand has its entry
  putF32(out, 1.0f);     // default thickness
  putF32(out, 0.0f);     // default transparency
  for (int c = 0; c < 3; ++c) putF32(out, 1.0f);  // default colour
  std::string text = info.substr(0, kInfoBytes - 1);
  for (std::size_t k = 0; k < kInfoBytes; ++k)
    out.push_back(static_cast<std::byte>(k < text.size() ? static_cast<unsigned char>(text[k]) : 0));

  for (const StrandGeometry& g : strands) putU16(out, static_cast<std::uint16_t>(g.x.size() - 1));
  for (std::size_t s = 0; s < strands.size(); ++s)
    for (std::size_t v = 0; v < strands[s].x.size(); ++v)
      for (int c = 0; c < 3; ++c) {
        auto f = static_cast<float>(strands[s].x[v][c]);
        if (!std::isfinite(f))
          throw InputError(str(path, ": strand ", s, " vertex ", v, ": coordinate ", strands[s].x[v][c],
                               " is not a finite float"));
        putF32(out, f);
      }
  if (thickness)
    for (std::size_t s = 0; s < strands.size(); ++s) {
      auto t = static_cast<float>((*thickness)[s]);
      if (!std::isfinite(t) || t < 0.0f)
        throw InputError(str(path, ": strand ", s, ": thickness ", (*thickness)[s], " is not a finite float >= 0"));
      for (std::size_t v = 0; v < strands[s].x.size(); ++v) putF32(out, t);
    }

  // Write then rename: `path` is either the old file or the complete new one.
  std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error(str("cannot write hair file '", tmp, "'"));
  bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  ok = (std::fclose(f) == 0) && ok;
  std::error_code ec;
  if (ok) std::filesystem::rename(tmp, path, ec);
  if (!ok || ec) {
    std::filesystem::remove(tmp, ec);
    throw Error(str("cannot write hair file '", path, "'"));
  }
}

}  // namespace kinema::der
