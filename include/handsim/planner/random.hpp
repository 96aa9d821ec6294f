// SPDX-License-Identifier: GPL-3.0-or-later
// The planner's random numbers (docs/planner.md, "Reproducibility"): a SplitMix64 stream per
// candidate, seeded from the run's seed and the candidate's index, with uniform and normal
// variates written out here so that the same seed gives the same grasps bit for bit on any
// standard library (std::normal_distribution's algorithm is the library's choice).
#pragma once

#include <cmath>
#include <cstdint>

namespace handsim::planner {

class Random {
 public:
  /// The stream of candidate `index` of a run seeded with `seed`.
  Random(std::uint64_t seed, std::uint64_t index)
      : state_(mix(seed) ^ mix(index + 0x632be59bd9b4e019ULL)) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Standard normal (Box-Muller; one of the pair is dropped, so each call costs two uniforms).
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdULL;
    z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53ULL;
    return z ^ (z >> 33);
  }
  std::uint64_t state_;
};

}  // namespace handsim::planner
