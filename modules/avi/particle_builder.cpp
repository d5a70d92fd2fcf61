// Free particles (particle_builder.hpp).
#include "modules/avi/particle_builder.hpp"

#include "framework/core/error.hpp"
#include "modules/avi/scene_assembly.hpp"

namespace kinema::avi {

int addParticles(Scene& scene, const std::string& name, const std::vector<Vec3>& x, const std::vector<Vec3>& v,
                 double mass) {
  if (x.size() != v.size())
    throw InputError(str("avi particles '", name, "': ", x.size(), " positions but ", v.size(), " velocities"));
  const int first = scene.vertices.size();
  reserveVertices(scene, x.size(), x.size());
  scene.contactPoints.reserve(scene.contactPoints.size() + x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    beginObject(scene, str(name, i));
    const int id = addVertex(scene, x[i], v[i], mass, false);
    scene.isolated[id] = 1;
    scene.contactPoints.push_back(id);
    endObject(scene);
  }
  return first;
}

}  // namespace kinema::avi
