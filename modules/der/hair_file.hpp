#pragma once
// Cem Yuksel's binary HAIR strand format (www.cemyuksel.com/research/hairmodels), the format of
// the public hair models (and of the Hu et al. data of specs/der.md section 5.6), read into and
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
