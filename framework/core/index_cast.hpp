#pragma once
// u(i): a 64-bit signed index or count as a std::size_t, for indexing std containers.
#include <cstddef>
#include <cstdint>

namespace kinema {

inline std::size_t u(std::int64_t i) { return static_cast<std::size_t>(i); }

}  // namespace kinema
