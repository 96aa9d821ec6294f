// SPDX-License-Identifier: GPL-3.0-or-later
// Force closure, epsilon and volume quality of a grasp from its L1 grasp wrench space.
// References: C. Ferrari and J. Canny, "Planning optimal grasps", ICRA 1992 (the L1 wrench
// space W_L1 = ConvexHull(union of primitive wrenches), epsilon = radius of the largest ball
// about the origin inside it, volume of W_L1); A. T. Miller and P. K. Allen, "GraspIt!", IEEE
// RAM 11(4) 2004 (the same measures, computed with qhull); seed 002 sec. VI (KTHand: epsilon
// of the unit grasp wrench space, force closure = success). Hull: C. B. Barber, D. P. Dobkin,
// H. Huhdanpaa, "The Quickhull algorithm for convex hulls", ACM TOMS 22(4) 1996.
#include "handsim/grasp/grasp_quality.hpp"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "handsim/grasp/grasp_wrench_space.hpp"

#include "../../engine/geometry/qhull_session.hpp"

namespace handsim::grasp {
namespace {

using Wrenches = Eigen::Matrix<double, 6, Eigen::Dynamic>;

/// Origin distances at or below this fraction of the largest wrench norm count as zero: the
/// origin then lies on the hull boundary (e.g. frictionless grasps that only just close) and
/// rounding must not decide force closure.
constexpr double kRelativeTolerance = 1e-10;

GraspQuality degenerate(std::string note) {
  GraspQuality q;
  q.note = std::move(note);
  return q;
}

/// Dimension of the affine hull of the columns: the numerical rank of the centred wrenches.
/// Singular values are accurate to rounding times the largest one, so the rank threshold is
/// relative to the largest (a Gram-matrix eigenvalue test would lose half the digits).
int affineDimension(const Wrenches& w) {
  const Eigen::Matrix<double, 6, 1> mean = w.rowwise().mean();
  const Eigen::Matrix<double, 6, Eigen::Dynamic> centred = w.colwise() - mean;
  const Eigen::JacobiSVD<Eigen::Matrix<double, 6, Eigen::Dynamic>> svd(centred);
  const auto& s = svd.singularValues();
  int rank = 0;
  for (Eigen::Index k = 0; k < s.size(); ++k)
    if (s[k] > kRelativeTolerance * s[0]) ++rank;
  return rank;
}

using geometry::detail::CapturedStream;
using geometry::detail::Qhull;

}  // namespace

void checkWrenchPointBudget(std::size_t contacts, int cone_edges) {
  if (cone_edges < 1) return;
  const std::size_t points = contacts * static_cast<std::size_t>(cone_edges);
  if (points > kMaxWrenchPoints)
    throw std::invalid_argument(
        std::to_string(contacts) + " contacts x " + std::to_string(cone_edges) +
        " cone edges = " + std::to_string(points) + " wrench points; at most " +
        std::to_string(kMaxWrenchPoints) + " are rated");
}

GraspQuality evaluateGrasp(const std::vector<GraspContact>& contacts,
                           const GraspQualityOptions& options) {
  // Not const: qhull's C interface takes a mutable pointer (it does not write to the points).
  Wrenches w = primitiveWrenches(contacts, options.cone_edges, options.torque_reference,
                                 options.torque_radius);
  if (contacts.empty()) return degenerate("no contacts");
  const double scale = w.colwise().norm().maxCoeff();
  // qhull needs a full-dimensional point set; a lower-dimensional one is never force closure
  // (some wrench direction is orthogonal to every contact wrench), so say why instead.
  const int dim = affineDimension(w);
  if (dim < 6)
    return degenerate("the " + std::to_string(w.cols()) + " primitive wrenches of " +
                      std::to_string(contacts.size()) + " contact(s) span only " +
                      std::to_string(dim) +
                      " of 6 dimensions: some wrench cannot be resisted (not force closure)");

  // Declared first, destroyed last: qhull may still report leaks while it frees its memory.
  CapturedStream messages;
  Qhull qhull(messages.file());
  qhT* qh = qhull.get();
  // Qt: triangulated output (simplicial facets, counted consistently); FA: total volume.
  // No QJ: joggling would make the result depend on random perturbations.
  char flags[] = "qhull Qt FA";
  const int status = qh_new_qhull(qh, 6, static_cast<int>(w.cols()), w.data(), False, flags,
                                  nullptr, messages.file());
  if (status != 0) {
    std::string msg = messages.firstLine();
    return degenerate("convex hull failed (" + (msg.empty() ? "qhull error" : msg) +
                      "): treated as degenerate, not force closure");
  }

  GraspQuality q;
  // Every facet is a hyperplane normal . x + offset = 0 with a unit outward normal, so -offset
  // is the origin's distance inside the facet (negative when it lies beyond it). The facet with
  // the smallest one bounds the ball (origin inside) or separates the origin (outside).
  const facetT* weakest = nullptr;
  for (const facetT* f = qh->facet_list; f && f->next; f = f->next) {
    ++q.hull_facets;
    if (!weakest || -f->offset < -weakest->offset) weakest = f;
  }
  if (!weakest) return degenerate("convex hull has no facets");
  q.volume = qh->totvol;
  q.force_closure = -weakest->offset > kRelativeTolerance * scale;
  q.epsilon = q.force_closure ? -weakest->offset : 0.0;
  for (int k = 0; k < 6; ++k) q.weakest_direction[k] = weakest->normal[k];
  return q;
}

double torqueRadius(const geometry::TriangleMesh& mesh, const Eigen::Vector3d& centre) {
  double radius = 0.0;
  for (const auto& v : mesh.vertices) radius = std::max(radius, (v - centre).norm());
  return radius;
}

}  // namespace handsim::grasp
