// SPDX-License-Identifier: GPL-3.0-or-later
// Eigengrasp bases: from the hand file, or principal components of sampled closing postures.
#include "handsim/planner/eigengrasp.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "handsim/planner/random.hpp"

namespace handsim::planner {
namespace {

// Amplitude bounds: each direction alone keeps the origin's posture inside every range.
void fillBounds(const hand::HandModel& hand, EigengraspBasis& b) {
  const int k = b.size();
  b.lower.resize(k);
  b.upper.resize(k);
  for (int j = 0; j < k; ++j) {
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    for (Eigen::Index a = 0; a < b.directions.rows(); ++a) {
      const double d = b.directions(a, j);
      if (std::abs(d) < 1e-300) continue;
      const auto& act = hand.actuators[static_cast<std::size_t>(a)];
      double t0 = (act.lower - b.origin[a]) / d, t1 = (act.upper - b.origin[a]) / d;
      if (t0 > t1) std::swap(t0, t1);
      lo = std::max(lo, t0);
      hi = std::min(hi, t1);
    }
    if (!(lo <= hi)) lo = hi = 0.0;
    b.lower[j] = lo;
    b.upper[j] = hi;
  }
}

bool isClosing(const hand::HandModel& hand, std::size_t a) {
  return std::find(hand.closing_actuators.begin(), hand.closing_actuators.end(),
                   static_cast<int>(a)) != hand.closing_actuators.end();
}

}  // namespace

EigengraspBasis eigengraspBasis(const hand::HandModel& hand, std::uint64_t seed) {
  const std::size_t na = hand.actuators.size();
  if (na == 0)
    throw std::invalid_argument("eigengrasps: the hand '" + hand.id + "' has no actuators");
  if (hand.eigengrasps.empty() || hand.eigengrasp_origin.size() != na) {
    const int n = static_cast<int>(na);
    return computeEigengrasps(hand, na <= 4 ? std::min(n, 2) : std::min(n, 6), 400, seed);
  }
  EigengraspBasis b;
  b.origin = Eigen::Map<const Eigen::VectorXd>(hand.eigengrasp_origin.data(),
                                               static_cast<Eigen::Index>(na));
  b.directions.resize(static_cast<Eigen::Index>(na),
                      static_cast<Eigen::Index>(hand.eigengrasps.size()));
  for (std::size_t j = 0; j < hand.eigengrasps.size(); ++j) {
    const auto& e = hand.eigengrasps[j];
    if (e.direction.size() != na)
      throw std::invalid_argument("eigengrasps: direction '" + e.name + "' has the wrong size");
    for (std::size_t a = 0; a < na; ++a)
      b.directions(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(j)) = e.direction[a];
    b.names.push_back(e.name);
  }
  fillBounds(hand, b);
  return b;
}

EigengraspBasis eigengraspBasisFrom(const hand::HandModel& hand, const Eigen::VectorXd& origin,
                                    const Eigen::MatrixXd& directions) {
  const auto na = static_cast<Eigen::Index>(hand.actuators.size());
  if (na == 0)
    throw std::invalid_argument("eigengrasps: the hand '" + hand.id + "' has no actuators");
  if (origin.size() != na)
    throw std::invalid_argument("eigengrasps: the origin has " + std::to_string(origin.size()) +
                                " values, the hand '" + hand.id + "' " + std::to_string(na) +
                                " actuators");
  if (directions.rows() != na || directions.cols() < 1)
    throw std::invalid_argument("eigengrasps: the directions must be " + std::to_string(na) +
                                " x k with k >= 1 (one row per actuator), got " +
                                std::to_string(directions.rows()) + " x " +
                                std::to_string(directions.cols()));
  if (!origin.allFinite() || !directions.allFinite())
    throw std::invalid_argument("eigengrasps: origin and directions must be finite");
  for (Eigen::Index a = 0; a < na; ++a) {
    const auto& act = hand.actuators[static_cast<std::size_t>(a)];
    if (origin[a] < act.lower || origin[a] > act.upper)
      throw std::invalid_argument("eigengrasps: the origin of actuator '" + act.name +
                                  "' is outside its range");
  }
  EigengraspBasis b;
  b.origin = origin;
  b.directions = directions;
  for (Eigen::Index j = 0; j < directions.cols(); ++j) {
    if (directions.col(j).norm() < 1e-300)
      throw std::invalid_argument("eigengrasps: direction " + std::to_string(j) + " is zero");
    b.names.push_back("e" + std::to_string(j));
  }
  fillBounds(hand, b);
  return b;
}

EigengraspBasis computeEigengrasps(const hand::HandModel& hand, int k, int samples,
                                   std::uint64_t seed) {
  const auto na = static_cast<Eigen::Index>(hand.actuators.size());
  if (na == 0)
    throw std::invalid_argument("eigengrasps: the hand '" + hand.id + "' has no actuators");
  if (k < 1 || k > na)
    throw std::invalid_argument("eigengrasps: k must be from 1 to the actuator count");
  if (samples < 2) throw std::invalid_argument("eigengrasps: need at least 2 samples");
  Eigen::VectorXd lo(na), span(na);
  for (Eigen::Index a = 0; a < na; ++a) {
    const auto& act = hand.actuators[static_cast<std::size_t>(a)];
    lo[a] = act.lower;
    span[a] = act.upper - act.lower;
  }
  // Sampled closing postures, each actuator as a fraction of its range: the closing actuators
  // follow one shared closure with some scatter (a synergy), the others anywhere in range.
  Random rng(seed, 0x6569676eULL);
  Eigen::MatrixXd x(na, samples);
  for (int s = 0; s < samples; ++s) {
    const double closure = rng.uniform();
    for (Eigen::Index a = 0; a < na; ++a) {
      const double c = isClosing(hand, static_cast<std::size_t>(a))
                           ? std::clamp(closure + 0.15 * rng.normal(), 0.0, 1.0)
                           : rng.uniform();
      x(a, s) = c;
    }
  }
  const Eigen::VectorXd mean = x.rowwise().mean();
  const Eigen::MatrixXd centred = x.colwise() - mean;
  const Eigen::MatrixXd cov = centred * centred.transpose() / double(samples - 1);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(cov);
  EigengraspBasis b;
  b.computed = true;
  b.origin = lo + span.cwiseProduct(mean);
  b.directions.resize(na, k);
  for (int j = 0; j < k; ++j) {
    Eigen::VectorXd v = eig.eigenvectors().col(na - 1 - j);  // eigenvalues ascend
    // A fixed sign: the direction closes the hand (or its largest component is positive).
    double closing = 0.0;
    for (Eigen::Index a = 0; a < na; ++a)
      if (isClosing(hand, static_cast<std::size_t>(a))) closing += v[a];
    Eigen::Index big = 0;
    v.cwiseAbs().maxCoeff(&big);
    if (closing < -1e-9 || (std::abs(closing) <= 1e-9 && v[big] < 0.0)) v = -v;
    // Back to actuator units: one unit of amplitude moves an actuator by its whole range times
    // the component.
    b.directions.col(j) = span.cwiseProduct(v);
    b.names.push_back("PC" + std::to_string(j + 1));
  }
  fillBounds(hand, b);
  return b;
}

Eigen::VectorXd postureOf(const hand::HandModel& hand, const EigengraspBasis& basis,
                          const Eigen::VectorXd& a) {
  Eigen::VectorXd p = basis.origin + basis.directions * a;
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    const auto& act = hand.actuators[static_cast<std::size_t>(i)];
    p[i] = std::clamp(p[i], act.lower, act.upper);
  }
  return p;
}

Eigen::VectorXd amplitudesOf(const EigengraspBasis& basis, const Eigen::VectorXd& posture) {
  return basis.directions.colPivHouseholderQr().solve(posture - basis.origin);
}

std::string eigengraspJson(const hand::HandModel& hand, const EigengraspBasis& basis) {
  nlohmann::ordered_json origin = nlohmann::ordered_json::object();
  for (std::size_t a = 0; a < hand.actuators.size(); ++a)
    origin[hand.actuators[a].name] = basis.origin[static_cast<Eigen::Index>(a)];
  nlohmann::ordered_json dirs = nlohmann::ordered_json::array();
  for (int j = 0; j < basis.size(); ++j) {
    nlohmann::ordered_json acts = nlohmann::ordered_json::object();
    for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
      const double v = basis.directions(static_cast<Eigen::Index>(a), j);
      if (v != 0.0) acts[hand.actuators[a].name] = v;
    }
    dirs.push_back({{"name", basis.names[static_cast<std::size_t>(j)]}, {"actuators", acts}});
  }
  return nlohmann::ordered_json{{"eigengrasps", {{"origin", origin}, {"directions", dirs}}}}.dump(
      2);
}

}  // namespace handsim::planner
