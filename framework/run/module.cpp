#include "framework/run/module.hpp"

namespace kinema::run {

NamedRegistry<ModuleEntry>& modules() {
  static NamedRegistry<ModuleEntry> r("module");
  return r;
}

void requireFinite(const la::Vector& v, const std::string& what, long step) {
  if (v.hasNonFinite())
    throw Error(str("NaN or infinity in ", what, " at step ", step,
                    " (the run diverged; try a smaller step or a tighter solver tolerance)"))
        .onEveryRank();  // hasNonFinite() is collective: every rank throws
}

}  // namespace kinema::run
