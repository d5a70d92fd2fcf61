#pragma once
// Free particles (point masses) for the balls scenes (the paper's §8.2): each an isolated contact point
// (point-point pairs with every other isolated point, point-plane pairs with every plane), its
// own object, no material potential. With eta = the ball radius, layer 1 of a point-point pair
// starts where the two balls touch (centre distance 2 eta).
#include <string>
#include <vector>

#include "modules/avi/scene.hpp"

namespace kinema::avi {

// Appends particles at x with velocities v (same size) and mass m; returns the first index.
int addParticles(Scene& scene, const std::string& name, const std::vector<Vec3>& x, const std::vector<Vec3>& v,
                 double mass);

}  // namespace kinema::avi
