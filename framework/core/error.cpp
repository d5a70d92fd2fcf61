#include "framework/core/error.hpp"

namespace kinema {

Error::Error(const std::string& message) : std::runtime_error(message), message_(message) {
  rebuild();
}

Error& Error::addContext(const std::string& context) {
  contexts_.push_back(context);
  rebuild();
  return *this;
}

void Error::rebuild() {
  full_ = message_;
  for (const auto& c : contexts_) {
    full_.append("\n  ");
    full_.append(c);
  }
}

void throwAt(const char* file, int line, const std::string& message) {
  throw Error(str(message, " [", file, ":", line, "]"));
}

}  // namespace kinema
