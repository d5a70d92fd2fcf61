#pragma once
// Cem Yuksel's binary HAIR strand format (www.cemyuksel.com/research/hairmodels), the format of
// the public hair models (and of the Hu et al. data of the paper's §VI-F), read into and
// written from DER strand geometries.
//
// Layout (little-endian, no padding): a 128-byte header
//   offset  0  char[4]   "HAIR"
//           4  uint32    number of strands S
//           8  uint32    total number of points P
//          12  uint32    bit array of the arrays present: 1 segments, 2 points, 4 thickness,
//                        8 transparency, 16 colour
//          16  uint32    default number of segments per strand (used without a segments array)
//          20  float     default thickness
//          24  float     default transparency
//          28  float[3]  default colour
//          40  char[88]  free text (file information)
// then the arrays present, in this order: segments (uint16 per strand: points - 1), points
// (float x, y, z per point), thickness (float per point), transparency (float per point),
// colour (float r, g, b per point).
//
// Reading is strict: anything that is not exactly such a file (wrong signature, counts that
// disagree, truncated or extra bytes, a strand too short for DER, NaN/Inf coordinates) is a
// kinema::InputError naming the file, the byte offset and what was expected there.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "modules/der/strand.hpp"

namespace kinema::der {

struct HairData {
  std::vector<StrandGeometry> strands;  // theta = 0; positions scaled by the read's scale
  // Per strand: the mean of its points' thickness (the thickness array, or the header default
  // when the file has none); scaled like the positions. A renderer's "thickness" is a diameter,
  // so a DER radius is thickness / 2. Empty only if the file has no strands.
  std::vector<double> thickness;
  bool hasThicknessArray = false;  // whether the thickness came per point from the file
  std::string info;                // the header's free text, up to its first NUL
};

// What the header and segments array say (O(strands), no points): the strand sizes, where the
// arrays start, and the file size they add up to. Enough to partition the strands over ranks
// and to read any range of them by seeking (readHairStrands), so that a rank reads only the
// strands it owns (docs/modules/der.md, "Several ranks").
struct HairLayout {
  std::uint64_t strands = 0, points = 0;
  std::uint32_t bits = 0;             // the array bit field
  float defaultThickness = 1.0f;
  std::vector<std::uint64_t> pointOffset;  // strands + 1: points of strand s are [pointOffset[s], pointOffset[s+1])
  std::uint64_t pointsAt = 0;         // byte offset of the points array
  std::uint64_t thicknessAt = 0;      // byte offset of the thickness array (0 without one)
  std::uint64_t fileBytes = 0;
  std::string info;
};

// The layout from the file's first bytes `head` (at least its header and segments array, or all
// of it) and its size. Every check that needs no point values is made here with the same message
// as parseHair's: signature, counts, strands too short for DER, truncated or extra bytes (a file
// cut short names the first strand whose points are missing).
HairLayout parseHairLayout(std::span<const std::byte> head, std::uint64_t fileBytes, const std::string& name);
// The same from a file: reads the header and the segments array only.
HairLayout readHairLayout(const std::string& path);
// Strands [first, first + count) of a file whose layout is `layout`: seeks to their points (and
// thickness) and reads only those; coordinates and thickness are checked as parseHair checks
// them, errors naming the file, the byte and the strand. Bitwise the same strands as readHair.
HairData readHairStrands(const std::string& path, const HairLayout& layout, std::uint64_t first, std::uint64_t count,
                         double scale = 1.0);

// Reads `path`; every coordinate and thickness is multiplied by `scale` (> 0, finite): hair
// models are often in centimetre-like units, DER scenes in metres (scale 0.01).
HairData readHair(const std::string& path, double scale = 1.0);
// The same from bytes in memory; `name` stands for the file in error messages.
HairData parseHair(std::span<const std::byte> bytes, const std::string& name, double scale = 1.0);

// Writes strands (each 2..65536 points; coordinates rounded to float) with a segments and a
// points array, plus a thickness array (one value per strand, repeated on its points) if
// `thickness` is given. `info` is cut to 87 characters. The file is written to `<path>.tmp` and
// renamed, so a crash never leaves half a file at `path`.
void writeHair(const std::string& path, std::span<const StrandGeometry> strands,
               std::optional<std::span<const double>> thickness = std::nullopt, const std::string& info = "");

}  // namespace kinema::der
