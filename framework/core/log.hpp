#pragma once
// Rank-aware logger. By default only rank 0 prints; `setAllRanks(true)` (or `run.log_all_ranks`)
// makes every rank print with a "[rank r]" prefix. Errors and warnings go to stderr.
#include <iostream>
#include <string>

#include "framework/core/error.hpp"

namespace kinema::log {

enum class Level { quiet = 0, error = 1, warn = 2, info = 3, debug = 4 };

void setLevel(Level level);
Level level();
void setAllRanks(bool all);
// Parses "quiet|error|warn|info|debug".
Level parseLevel(const std::string& name);

// Writes one line if `level` is enabled and this rank prints.
void write(Level level, const std::string& line);
// Writes from every rank regardless of the rank filter (for errors raised on one rank).
void writeAnyRank(Level level, const std::string& line);

template <class... A>
void error(const A&... a) { write(Level::error, str(a...)); }
template <class... A>
void warn(const A&... a) { write(Level::warn, str(a...)); }
template <class... A>
void info(const A&... a) { write(Level::info, str(a...)); }
template <class... A>
void debug(const A&... a) { write(Level::debug, str(a...)); }

}  // namespace kinema::log
