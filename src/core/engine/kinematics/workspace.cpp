// SPDX-License-Identifier: GPL-3.0-or-later
// Workspace sampling over joint limits and the reach range of a planar three-link finger.
// The planar reach analysis follows the classical argument for planar chains (Craig,
// Introduction to Robotics, 3rd ed., section 4.3 "Workspace"): the distance of the tip from the
// first axis depends only on the relative angles; its extremes lie at box corners, at edge
// points where one link lines up with the tip direction, or at interior singular points.
#include "handsim/kinematics/workspace.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::kinematics {
namespace {

constexpr double kPi = 3.14159265358979323846;

const DhRow& jointRow(const Chain& chain, int j) {
  return chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
}

// Per joint: the interval sampled, or one value for a held or zero-width joint.
struct JointRange {
  double lower = 0.0;
  double upper = 0.0;
  bool single = false;  // held or zero-width: one value (lower)
};

std::vector<JointRange> jointRanges(const Chain& chain, const WorkspaceOptions& options) {
  std::vector<JointRange> ranges(static_cast<std::size_t>(chain.dof()));
  for (int j = 0; j < chain.dof(); ++j) {
    const DhRow& row = jointRow(chain, j);
    ranges[static_cast<std::size_t>(j)] = {row.lower, row.upper, row.lower == row.upper};
  }
  for (const auto& [j, value] : options.held) {
    if (j < 0 || j >= chain.dof())
      throw std::invalid_argument("held joint index " + std::to_string(j) + " is not a joint of '" +
                                  chain.name + "' (0.." + std::to_string(chain.dof() - 1) + ")");
    const DhRow& row = jointRow(chain, j);
    if (!std::isfinite(value) || value < row.lower - 1e-12 || value > row.upper + 1e-12)
      throw std::invalid_argument("held value of joint '" +
                                  chain.joint_names[static_cast<std::size_t>(chain.rowOfJoint(j))] +
                                  "' is outside its limits");
    const double v = std::clamp(value, row.lower, row.upper);  // within 1e-12 of the limits
    ranges[static_cast<std::size_t>(j)] = {v, v, true};
  }
  return ranges;
}

// Uniform in [0, 1) from the top 53 bits: unlike std::uniform_real_distribution, whose
// algorithm the standard leaves open, this gives the same numbers with every library.
double unitDraw(std::mt19937_64& gen) {
  return static_cast<double>(gen() >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace

std::size_t workspaceSampleCount(const Chain& chain, const WorkspaceOptions& options) {
  const auto ranges = jointRanges(chain, options);
  if (options.sampling == WorkspaceSampling::Random) {
    if (options.random_samples == 0) throw std::invalid_argument("random_samples must be > 0");
    return options.random_samples;
  }
  if (options.samples_per_joint < 2)
    throw std::invalid_argument("samples_per_joint must be at least 2 (both limits), got " +
                                std::to_string(options.samples_per_joint));
  // Saturate instead of overflowing: anything above the budget is rejected anyway.
  const auto n = static_cast<std::size_t>(options.samples_per_joint);
  const std::size_t most = std::numeric_limits<std::size_t>::max();
  std::size_t count = 1;
  for (const auto& r : ranges) {
    if (!r.single) count = count > most / n ? most : count * n;
  }
  return count;
}

std::vector<JointVector> workspaceJointSamples(const Chain& chain,
                                               const WorkspaceOptions& options) {
  const std::size_t count = workspaceSampleCount(chain, options);
  if (count > options.max_points)
    throw std::invalid_argument("workspace of '" + chain.name + "' needs " + std::to_string(count) +
                                " samples, above the budget of " +
                                std::to_string(options.max_points) +
                                " points; use fewer samples per joint or random sampling");
  const auto ranges = jointRanges(chain, options);
  const int dof = chain.dof();
  std::vector<JointVector> out;
  out.reserve(count);
  if (options.sampling == WorkspaceSampling::Random) {
    std::mt19937_64 gen(options.seed);
    for (std::size_t s = 0; s < count; ++s) {
      JointVector q(dof);
      for (int j = 0; j < dof; ++j) {
        const JointRange& r = ranges[static_cast<std::size_t>(j)];
        q[j] = r.single ? r.lower : r.lower + (r.upper - r.lower) * unitDraw(gen);
      }
      out.push_back(q);
    }
    return out;
  }
  // Grid: an odometer over the joints, last joint fastest.
  const int n = options.samples_per_joint;
  std::vector<int> index(static_cast<std::size_t>(dof), 0);
  for (std::size_t s = 0; s < count; ++s) {
    JointVector q(dof);
    for (int j = 0; j < dof; ++j) {
      const JointRange& r = ranges[static_cast<std::size_t>(j)];
      const int k = index[static_cast<std::size_t>(j)];
      // The last value is the upper limit itself, not lower + (n-1) * step with rounding.
      q[j] =
          r.single ? r.lower : (k == n - 1 ? r.upper : r.lower + (r.upper - r.lower) * k / (n - 1));
    }
    out.push_back(q);
    for (int j = dof - 1; j >= 0; --j) {
      if (ranges[static_cast<std::size_t>(j)].single) continue;
      if (++index[static_cast<std::size_t>(j)] < n) break;
      index[static_cast<std::size_t>(j)] = 0;
    }
  }
  return out;
}

std::vector<Eigen::Vector3d> sampleWorkspace(const Chain& chain, const WorkspaceOptions& options) {
  const auto qs = workspaceJointSamples(chain, options);
  std::vector<Eigen::Vector3d> points;
  points.reserve(qs.size());
  for (const auto& q : qs) points.push_back(forwardKinematics(chain, q).tip().translation());
  return points;
}

WorkspaceSummary summarizeWorkspace(const std::vector<Eigen::Vector3d>& points,
                                    const Eigen::Vector3d& origin) {
  if (points.empty()) throw std::invalid_argument("summarizeWorkspace: no points");
  WorkspaceSummary s;
  s.count = points.size();
  s.min = s.max = points.front();
  s.min_reach = std::numeric_limits<double>::infinity();
  s.max_reach = 0.0;
  for (const auto& p : points) {
    s.min = s.min.cwiseMin(p);
    s.max = s.max.cwiseMax(p);
    const double r = (p - origin).norm();
    s.min_reach = std::min(s.min_reach, r);
    s.max_reach = std::max(s.max_reach, r);
  }
  return s;
}

Chain distalChain(const Chain& chain, int first_row, const Eigen::Ref<const Eigen::VectorXd>& q) {
  const int rows = static_cast<int>(chain.rows.size());
  if (first_row < 0 || first_row >= rows)
    throw std::invalid_argument("distalChain: first_row " + std::to_string(first_row) +
                                " is not a row of '" + chain.name + "' (0.." +
                                std::to_string(rows - 1) + ")");
  const ChainFrames frames = forwardKinematics(chain, q);
  Chain out;
  out.name = chain.name;
  out.base = chain.base * frames.at(first_row);
  const auto from = static_cast<std::ptrdiff_t>(first_row);
  out.rows.assign(chain.rows.begin() + from, chain.rows.end());
  out.joint_names.assign(chain.joint_names.begin() + from, chain.joint_names.end());
  if (chain.links.size() == chain.rows.size())
    out.links.assign(chain.links.begin() + from, chain.links.end());
  return out;
}

PlanarReach planarWorkspaceBounds(const Chain& chain) {
  if (!isPlanarThreeLinkFinger(chain))
    throw std::invalid_argument("planarWorkspaceBounds: the last three rows of '" + chain.name +
                                "' are not planar revolute joints");
  const std::size_t n = chain.rows.size();
  const DhRow& r1 = chain.rows[n - 3];
  const DhRow& r2 = chain.rows[n - 2];
  const DhRow& r3 = chain.rows[n - 1];
  const double l1 = r1.a, l2 = r2.a, l3 = r3.a;
  // Relative angles including the DH offsets: phi2 in [lo2, hi2], phi3 in [lo3, hi3].
  const double lo2 = r2.lower + r2.theta, hi2 = r2.upper + r2.theta;
  const double lo3 = r3.lower + r3.theta, hi3 = r3.upper + r3.theta;
  using C = std::complex<double>;
  const auto reach = [&](double p2, double p3) {
    return std::abs(l1 + l2 * std::polar(1.0, p2) + l3 * std::polar(1.0, p2 + p3));
  };
  PlanarReach out{std::numeric_limits<double>::infinity(), 0.0};
  const auto consider = [&](double p2, double p3) {
    const double r = reach(p2, p3);
    out.min_reach = std::min(out.min_reach, r);
    out.max_reach = std::max(out.max_reach, r);
  };
  // Every representative of angle c (mod 2 pi) inside [lo, hi].
  const auto inRange = [](double c, double lo, double hi, auto&& f) {
    for (int k = -4; k <= 4; ++k) {
      const double v = c + 2.0 * kPi * k;
      if (v >= lo - 1e-12 && v <= hi + 1e-12) f(std::clamp(v, lo, hi));
    }
  };
  for (double p2 : {lo2, hi2}) {
    for (double p3 : {lo3, hi3}) consider(p2, p3);
    // phi2 fixed: the tip circles J3's origin A; distance extremal when link 3 lines up with A.
    const double arg_a = std::arg(C(l1) + l2 * std::polar(1.0, p2));
    for (double c : {arg_a - p2, arg_a - p2 + kPi})
      inRange(c, lo3, hi3, [&](double p3) { consider(p2, p3); });
  }
  for (double p3 : {lo3, hi3}) {
    // phi3 fixed: links 2-3 form a rigid arm B; extremal when B lines up with link 1.
    const double arg_b = std::arg(C(l2) + l3 * std::polar(1.0, p3));
    for (double c : {-arg_b, -arg_b + kPi})
      inRange(c, lo2, hi2, [&](double p2) { consider(p2, p3); });
  }
  // Interior critical points: all links collinear (stretched or folded)...
  for (double c2 : {0.0, kPi})
    inRange(c2, lo2, hi2, [&](double p2) {
      for (double c3 : {0.0, kPi}) inRange(c3, lo3, hi3, [&](double p3) { consider(p2, p3); });
    });
  // ...or the tip on the first axis (distance 0): links 1 and 2 end at distance l3.
  const double cos2 = (l3 * l3 - l1 * l1 - l2 * l2) / (2.0 * l1 * l2);
  if (l1 > 0.0 && l2 > 0.0 && std::abs(cos2) <= 1.0) {
    for (double c2 : {std::acos(cos2), -std::acos(cos2)}) {
      const double arg_tip = std::arg(-(C(l1) + l2 * std::polar(1.0, c2)));
      inRange(c2, lo2, hi2, [&](double p2) {
        inRange(arg_tip - p2, lo3, hi3, [&](double p3) { consider(p2, p3); });
      });
    }
  }
  return out;
}

}  // namespace handsim::kinematics
