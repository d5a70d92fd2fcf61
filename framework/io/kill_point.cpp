#include "framework/io/kill_point.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace kinema::io {

namespace {

struct KillSpec {
  bool active = false;
  KillPoint point = KillPoint::frame;
  long index = -1;
  int rank = -1;  // -1: every rank
};

// Parses "<frame|checkpoint>:<index>[@<rank>]"; inactive (with a note on stderr) when malformed.
KillSpec parse(const char* text) {
  KillSpec s;
  if (!text || !*text) return s;
  const std::string v(text);
  const auto colon = v.find(':');
  const std::string what = v.substr(0, colon);
  bool ok = colon != std::string::npos && (what == "frame" || what == "checkpoint");
  if (ok) {
    s.point = what == "frame" ? KillPoint::frame : KillPoint::checkpoint;
    const char* p = v.c_str() + colon + 1;
    char* end = nullptr;
    s.index = std::strtol(p, &end, 10);
    ok = end != p && s.index >= 0;
    if (ok && *end == '@') {
      p = end + 1;
      const long r = std::strtol(p, &end, 10);
      ok = end != p && r >= 0;
      s.rank = static_cast<int>(r);
    }
    ok = ok && *end == '\0';
  }
  if (!ok) {
    std::fprintf(stderr, "kinema: KINEMA_TEST_KILL_AT='%s' ignored: expected frame:K[@R] or checkpoint:N[@R]\n", text);
    return {};
  }
  s.active = true;
  return s;
}

}  // namespace

void killPointReached(KillPoint point, long index, int rank) {
  static const KillSpec spec = parse(std::getenv("KINEMA_TEST_KILL_AT"));
  if (!spec.active || spec.point != point || spec.index != index) return;
  if (spec.rank >= 0 && spec.rank != rank) return;
  std::fflush(nullptr);  // the log so far reaches the test; the files get nothing more
  std::raise(SIGKILL);
}

}  // namespace kinema::io
