// The progress line: counts, and the ETA from the steps really left (a module's ProgressHint).
#include <gtest/gtest.h>

#include <string>

#include "framework/core/log.hpp"
#include "framework/core/progress.hpp"

namespace {

std::string lineOf(kinema::Progress& p, long step, const kinema::ProgressHint& hint = {}) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  p.update(step, 0.0, hint);
  std::string out = testing::internal::GetCapturedStdout() + testing::internal::GetCapturedStderr();
  return out;
}

}  // namespace

TEST(Progress, DefaultEtaCountsTheStepsToTheTotal) {
  kinema::log::setLevel(kinema::log::Level::info);
  kinema::Progress p(300, 0.0);
  const std::string line = lineOf(p, 300);  // the last step always prints
  EXPECT_NE(line.find("step 300/300"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA 0:00:00"), std::string::npos) << line;
  EXPECT_EQ(line.find("at most"), std::string::npos) << line;
}

TEST(Progress, HintGivesTheStepsLeftAndMarksACap) {
  kinema::log::setLevel(kinema::log::Level::info);
  kinema::Progress p(300, 0.0);
  // A module capped at 300 steps that has nothing left: the ETA is zero, not 299 steps' worth.
  kinema::ProgressHint h;
  h.stepsLeft = 0;
  h.upperBound = true;
  h.note = "10/10 strands converged";
  const std::string line = lineOf(p, 1, h);
  EXPECT_NE(line.find("step 1/300"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA at most 0:00:00"), std::string::npos) << line;
  EXPECT_NE(line.find("(10/10 strands converged)"), std::string::npos) << line;
}
