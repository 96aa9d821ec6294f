// SPDX-License-Identifier: GPL-3.0-or-later
// k-DOP slab directions (Klosowski et al., IEEE TVCG 4(1), 1998, section 3).
#include "handsim/collision/kdop.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace handsim::collision {
namespace {

using Vec = Eigen::Vector3d;

const std::array<Vec, 7> kDirections14 = {Vec(1, 0, 0),  Vec(0, 1, 0),  Vec(0, 0, 1),  Vec(1, 1, 1),
                                          Vec(1, -1, 1), Vec(1, 1, -1), Vec(1, -1, -1)};

const std::array<Vec, 9> kDirections18 = {Vec(1, 0, 0),  Vec(0, 1, 0),  Vec(0, 0, 1),
                                          Vec(1, 1, 0),  Vec(1, -1, 0), Vec(1, 0, 1),
                                          Vec(1, 0, -1), Vec(0, 1, 1),  Vec(0, 1, -1)};

const std::array<Vec, 13> kDirections26 = {
    Vec(1, 0, 0),  Vec(0, 1, 0),   Vec(0, 0, 1), Vec(1, 1, 1),  Vec(1, -1, 1),
    Vec(1, 1, -1), Vec(1, -1, -1), Vec(1, 1, 0), Vec(1, -1, 0), Vec(1, 0, 1),
    Vec(1, 0, -1), Vec(0, 1, 1),   Vec(0, 1, -1)};

}  // namespace

bool isSupportedKdop(int k) {
  return k == 14 || k == 18 || k == 26;
}

const Eigen::Vector3d* kdopDirections(int k) {
  switch (k) {
    case 14:
      return kDirections14.data();
    case 18:
      return kDirections18.data();
    case 26:
      return kDirections26.data();
    default:
      throw std::invalid_argument("k-DOP with k = " + std::to_string(k) +
                                  " is not supported (use 14, 18 or 26)");
  }
}

}  // namespace handsim::collision
