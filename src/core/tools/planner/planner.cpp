// SPDX-License-Identifier: GPL-3.0-or-later
// Grasp planning (docs/planner.md): candidates searched one by one, each from its own random
// stream, closed in the engine, and accepted in candidate order.
#include "handsim/planner/planner.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "handsim/planner/random.hpp"
#include "handsim/sim/step.hpp"

namespace handsim::planner {
namespace {

Eigen::Vector3d normal3(Random& rng) {
  return {rng.normal(), rng.normal(), rng.normal()};
}

// A rotation taking unit vector `from` to unit vector `to`.
Eigen::Matrix3d alignVectors(const Eigen::Vector3d& from, const Eigen::Vector3d& to) {
  return Eigen::Quaterniond::FromTwoVectors(from, to).toRotationMatrix();
}

Eigen::Matrix3d smallRotation(const Eigen::Vector3d& v) {
  const double angle = v.norm();
  if (!(angle > 0.0)) return Eigen::Matrix3d::Identity();
  return Eigen::AngleAxisd(angle, v / angle).toRotationMatrix();
}

// Largest distance of any hand body from the palm origin at the mid posture [m]: how far
// from the object the palm may go.
double handReach(const PlannerModel& pm) {
  const sim::Model& m = *pm.model;
  std::vector<double> mid;
  for (const auto& a : m.hand().actuators) mid.push_back(0.5 * (a.lower + a.upper));
  const sim::SimState s = sim::makeState(m, mid);
  const auto& g = *m.hand_geometry;
  double reach = g.palm.collision.centre.norm() + g.palm.collision.radius;
  for (std::size_t f = 0; f < g.links.size(); ++f)
    for (std::size_t r = 0; r < g.links[f].size(); ++r) {
      const auto& body = g.links[f][r].collision;
      if (body.empty()) continue;
      const Eigen::Isometry3d t =
          sim::linkPoseWorld(m, s, static_cast<int>(f), static_cast<int>(r));
      reach = std::max(reach, (t * body.centre).norm() + body.radius);
    }
  return reach;
}

// The search's working set for one candidate.
struct Search {
  const PlannerModel& pm;
  const PlannerOptions& opt;
  sim::SimState state;
  Eigen::Isometry3d palm = Eigen::Isometry3d::Identity();
  Eigen::VectorXd a;
  double energy = 0.0;

  Search(const PlannerModel& m, const PlannerOptions& o)
      : pm(m), opt(o), state(sim::makeState(*m.model)) {}

  Eigen::VectorXd clampAmplitudes(Eigen::VectorXd x) const {
    for (Eigen::Index j = 0; j < x.size(); ++j)
      x[j] = std::clamp(x[j], pm.eigengrasps.lower[j], pm.eigengrasps.upper[j]);
    return x;
  }
  // Energy of a configuration, or nothing when the hand intersects the object.
  std::optional<double> evaluate(const Eigen::Isometry3d& p, const Eigen::VectorXd& amp) {
    const Eigen::VectorXd posture = postureOf(pm.model->hand(), pm.eigengrasps, amp);
    setConfiguration(pm, p, posture, state);
    if (sim::handTouchesObjects(*pm.model, state)) return std::nullopt;
    if (opt.constraints.any() && !satisfiesConstraints(*pm.model, state, opt.constraints))
      return std::nullopt;
    const auto points = contactDistances(pm, state);
    if (opt.custom_energy) {
      const double e = opt.custom_energy(EnergyInput{pm, p, amp, posture, points, state});
      if (!std::isfinite(e))
        throw std::runtime_error("the custom energy returned " + std::to_string(e) +
                                 "; it must return a finite number");
      return e;
    }
    return opt.energy == EnergyKind::PotentialQuality ? potentialQualityEnergy(pm, points)
                                                      : contactEnergy(points);
  }
  // The hand intersects the object or reaches below the support plane (both obstacles).
  bool collides(const Eigen::Isometry3d& p, const Eigen::VectorXd& amp) {
    setConfiguration(pm, p, postureOf(pm.model->hand(), pm.eigengrasps, amp), state);
    if (sim::handTouchesObjects(*pm.model, state)) return true;
    const auto& plane = opt.constraints.support_plane;
    return plane && handDepthBelowPlane(*pm.model, state, *plane) > 1e-9;
  }
};

// The amplitudes of the open hand: closing actuators at the lower ends, the others drawn
// uniformly in range, projected on the eigengrasps.
Eigen::VectorXd openAmplitudes(const PlannerModel& pm, Random& rng) {
  const hand::HandModel& hand = pm.model->hand();
  Eigen::VectorXd posture(static_cast<Eigen::Index>(hand.actuators.size()));
  for (std::size_t i = 0; i < hand.actuators.size(); ++i) {
    const auto& act = hand.actuators[i];
    const bool closing = std::find(hand.closing_actuators.begin(), hand.closing_actuators.end(),
                                   static_cast<int>(i)) != hand.closing_actuators.end();
    posture[static_cast<Eigen::Index>(i)] = closing ? act.lower : rng.uniform(act.lower, act.upper);
  }
  return amplitudesOf(pm.eigengrasps, posture);
}

void annealCandidate(Search& s, Random& rng, double reach, PlannedGrasp& g) {
  const PlannerModel& pm = s.pm;
  const hand::HandModel& hand = pm.model->hand();
  const Eigen::VectorXd lo = pm.eigengrasps.lower, hi = pm.eigengrasps.upper;
  // A random start: a random orientation, the hand facing the object's centre from outside,
  // random amplitudes.
  if (const auto& cone = s.opt.constraints.approach_cone) {
    // Within the cone: the approach axis uniform on the cone's cap, the roll uniform.
    const double cos_a = rng.uniform(std::cos(cone->half_angle), 1.0);
    const double phi = rng.uniform(-M_PI, M_PI), roll = rng.uniform(-M_PI, M_PI);
    const double sin_a = std::sqrt(std::max(0.0, 1.0 - cos_a * cos_a));
    const Eigen::Matrix3d to_axis = alignVectors(Eigen::Vector3d::UnitZ(), cone->axis);
    const Eigen::Vector3d w =
        to_axis * Eigen::Vector3d(sin_a * std::cos(phi), sin_a * std::sin(phi), cos_a);
    s.palm.linear() =
        Eigen::AngleAxisd(roll, w).toRotationMatrix() * alignVectors(hand.approach_palm, w);
  } else {
    Eigen::Quaterniond q(rng.normal(), rng.normal(), rng.normal(), rng.normal());
    if (!(q.norm() > 1e-9)) q = Eigen::Quaterniond::Identity();
    q.normalize();
    s.palm.linear() = q.toRotationMatrix();
  }
  const Eigen::Vector3d u = s.palm.linear() * hand.approach_palm;
  s.palm.translation() =
      pm.centre - u * (pm.radius + 0.3 * reach) - s.palm.linear() * hand.approach_origin_palm;
  s.a.resize(lo.size());
  for (Eigen::Index j = 0; j < lo.size(); ++j) s.a[j] = rng.uniform(lo[j], hi[j]);
  // Out of collision: back along the approach, a bounded number of steps.
  const auto free = backOutOfCollision(pm, s.palm, postureOf(hand, pm.eigengrasps, s.a), -u,
                                       0.25 * pm.radius + 0.005, 40);
  if (!free) {
    g.start_collision = true;
    return;
  }
  s.palm = *free;
  const std::optional<double> e = s.evaluate(s.palm, s.a);
  if (!e) {
    g.start_collision = true;
    return;
  }
  s.energy = *e;
  Eigen::Isometry3d best_palm = s.palm;
  Eigen::VectorXd best_a = s.a;
  double best_e = s.energy;
  const double span = 2.0 * (pm.radius + reach);
  const AnnealingSchedule& sch = s.opt.schedule;
  for (int step = 0; step < s.opt.annealing_steps; ++step) {
    const std::int64_t k = sch.k0 + step;
    const double t = sch.temperature(k), f = sch.stepFraction(k);
    Eigen::Isometry3d p = s.palm;
    p.translation() += f * span * normal3(rng);
    p.linear() = smallRotation(f * M_PI * normal3(rng)) * p.linear();
    Eigen::VectorXd a = s.a;
    for (Eigen::Index j = 0; j < a.size(); ++j) a[j] += f * (hi[j] - lo[j]) * rng.normal();
    a = s.clampAmplitudes(a);
    const double u01 = rng.uniform();
    // Keep the palm near the object: a neighbour beyond the search range is rejected.
    if ((p.translation() - pm.centre).norm() > pm.radius + reach) continue;
    const std::optional<double> en = s.evaluate(p, a);
    if (!en) continue;  // in collision: rejected, one step spent (never a retry loop)
    const double de = *en - s.energy;
    if (de <= 0.0 || u01 < std::exp(-de / t)) {
      s.palm = p;
      s.a = a;
      s.energy = *en;
      if (s.energy < best_e) {
        best_e = s.energy;
        best_palm = p;
        best_a = a;
      }
    }
  }
  s.palm = best_palm;
  s.a = best_a;
  s.energy = best_e;
}

void surfaceCandidate(Search& s, Random& rng, double reach, PlannedGrasp& g) {
  const PlannerModel& pm = s.pm;
  const hand::HandModel& hand = pm.model->hand();
  const auto& mesh = pm.surface.mesh;
  // A surface point, uniform by area.
  std::vector<double> cdf;
  cdf.reserve(pm.surface.order.size());
  double total = 0.0;
  for (int t : pm.surface.order) {
    total += geometry::triangleArea(mesh, static_cast<std::size_t>(t));
    cdf.push_back(total);
  }
  const double free_start = 2.0 * pm.radius + reach;
  Eigen::Vector3d point, w;
  // The approach origin on the line point - D w.
  auto placeAt = [&](double d) {
    Eigen::Isometry3d p = s.palm;
    p.translation() = point - d * w - p.linear() * hand.approach_origin_palm;
    return p;
  };
  // With constraints, draws again (at most 64 times) until the approach lies in the cone and
  // the hand is free of the object and the support plane where the approach starts; without,
  // the first draw is taken.
  const PlannerConstraints& c = s.opt.constraints;
  bool legal = false;
  for (int attempt = 0; attempt < 64 && !legal; ++attempt) {
    const double pick = rng.uniform() * total;
    const std::size_t idx = static_cast<std::size_t>(
        std::min<std::ptrdiff_t>(std::lower_bound(cdf.begin(), cdf.end(), pick) - cdf.begin(),
                                 static_cast<std::ptrdiff_t>(cdf.size()) - 1));
    const int t = pm.surface.order[idx];
    const auto& tri = mesh.triangles[static_cast<std::size_t>(t)];
    double r1 = std::sqrt(rng.uniform()), r2 = rng.uniform();
    point = (1.0 - r1) * mesh.vertices[static_cast<std::size_t>(tri[0])] +
            r1 * (1.0 - r2) * mesh.vertices[static_cast<std::size_t>(tri[1])] +
            r1 * r2 * mesh.vertices[static_cast<std::size_t>(tri[2])];
    const Eigen::Vector3d n = mesh.normals[static_cast<std::size_t>(t)];
    // Approach along the inward normal, tilted a little, at a random roll about it.
    w = -n + 0.15 * normal3(rng);
    if (!(w.norm() > 1e-9)) w = -n;
    w.normalize();
    const double roll = rng.uniform(-M_PI, M_PI);
    s.palm.linear() =
        Eigen::AngleAxisd(roll, w).toRotationMatrix() * alignVectors(hand.approach_palm, w);
    s.a = s.clampAmplitudes(openAmplitudes(pm, rng));
    legal = !c.any() || ((!c.approach_cone || approachWithinCone(hand, s.palm, *c.approach_cone)) &&
                         !s.collides(placeAt(free_start), s.a));
  }
  if (!legal) {
    g.start_collision = true;
    return;
  }
  double free_d = free_start, hit_d = -2.0 * pm.radius;
  if (s.collides(placeAt(free_d), s.a)) {
    g.start_collision = true;
    return;
  }
  // March in by tenths of the radius to the first collision, then bisect.
  bool hit = false;
  const double march = std::max(0.1 * pm.radius, 1e-3);
  for (double d = free_d - march; d >= hit_d; d -= march) {
    if (s.collides(placeAt(d), s.a)) {
      hit_d = d;
      hit = true;
      break;
    }
    free_d = d;
  }
  if (hit)
    for (int i = 0; i < 12; ++i) {
      const double mid = 0.5 * (free_d + hit_d);
      (s.collides(placeAt(mid), s.a) ? hit_d : free_d) = mid;
    }
  s.palm = placeAt(hit ? free_d + 0.002 : 0.0);
  std::optional<double> e = s.evaluate(s.palm, s.a);
  for (int i = 0; i < 20 && !e; ++i) {  // bounded: back off if the end point still touches
    s.palm.translation() -= w * 0.002;
    e = s.evaluate(s.palm, s.a);
  }
  if (!e) {
    g.start_collision = true;
    return;
  }
  s.energy = *e;
  // Local descent: small random moves that lower the energy, shrinking as it goes.
  const Eigen::VectorXd lo = pm.eigengrasps.lower, hi = pm.eigengrasps.upper;
  for (int step = 0; step < s.opt.descent_steps; ++step) {
    const double f = 1.0 - double(step) / double(std::max(1, s.opt.descent_steps));
    Eigen::Isometry3d p = s.palm;
    p.translation() += f * 0.05 * pm.radius * normal3(rng);
    p.linear() = smallRotation(f * 0.05 * normal3(rng)) * p.linear();
    Eigen::VectorXd a = s.a;
    for (Eigen::Index j = 0; j < a.size(); ++j) a[j] += f * 0.03 * (hi[j] - lo[j]) * rng.normal();
    a = s.clampAmplitudes(a);
    const std::optional<double> en = s.evaluate(p, a);
    if (en && *en < s.energy) {
      s.palm = p;
      s.a = a;
      s.energy = *en;
    }
  }
}

}  // namespace

const char* strategyName(Strategy s) {
  return s == Strategy::Annealing ? "annealing" : "surface-normals";
}
Strategy parseStrategy(const std::string& name) {
  if (name == "annealing") return Strategy::Annealing;
  if (name == "surface-normals") return Strategy::SurfaceNormals;
  throw std::invalid_argument("unknown strategy '" + name + "' (annealing, surface-normals)");
}
const char* energyName(EnergyKind e) {
  return e == EnergyKind::PotentialQuality ? "potential" : "contact";
}
EnergyKind parseEnergy(const std::string& name) {
  if (name == "contact") return EnergyKind::ContactDistance;
  if (name == "potential") return EnergyKind::PotentialQuality;
  throw std::invalid_argument("unknown energy '" + name + "' (contact, potential)");
}

double AnnealingSchedule::temperature(std::int64_t k) const {
  return t0 * std::exp(-c * std::pow(static_cast<double>(k), 1.0 / d));
}
double AnnealingSchedule::stepFraction(std::int64_t k) const {
  return std::exp(-c * std::pow(static_cast<double>(k), 1.0 / d) / d);
}

double poseDistance(const Eigen::Isometry3d& a, const Eigen::Isometry3d& b, double radius,
                    double fraction, double angle_limit) {
  const double dp = (a.translation() - b.translation()).norm() / (fraction * radius);
  const double angle =
      Eigen::AngleAxisd(Eigen::Matrix3d(a.linear().transpose() * b.linear())).angle();
  return std::max(dp, angle / angle_limit);
}

std::optional<Eigen::Isometry3d> backOutOfCollision(const PlannerModel& pm, Eigen::Isometry3d palm,
                                                    const Eigen::VectorXd& posture,
                                                    const Eigen::Vector3d& direction, double step,
                                                    int max_steps) {
  sim::SimState state = sim::makeState(*pm.model);
  const Eigen::Vector3d d = direction.normalized();
  for (int i = 0; i <= max_steps; ++i) {
    if (i > 0) palm.translation() += step * d;
    setConfiguration(pm, palm, posture, state);
    if (!sim::handTouchesObjects(*pm.model, state)) return palm;
  }
  return std::nullopt;
}

std::int64_t candidateBudget(const PlannerOptions& o) {
  if (o.candidates > 0) return o.candidates;
  return o.grasps > 0 ? 100 * static_cast<std::int64_t>(o.grasps) : 2000;
}

std::shared_ptr<const sim::Model> closingModel(const PlannerModel& pm,
                                               const PlannerOptions& options) {
  if (options.constraints.support_plane) return withSupportTable(*pm.model);
  return pm.model;
}

PlannedGrasp planCandidate(const PlannerModel& pm, const PlannerOptions& options,
                           std::int64_t index,
                           const std::shared_ptr<const sim::Model>& closing_model) {
  Random rng(options.seed, static_cast<std::uint64_t>(index));
  Search s(pm, options);
  PlannedGrasp g;
  g.candidate = index;
  const double reach = handReach(pm);
  if (options.strategy == Strategy::Annealing)
    annealCandidate(s, rng, reach, g);
  else
    surfaceCandidate(s, rng, reach, g);
  g.palm_object = s.palm;
  g.amplitudes = s.a;
  g.pregrasp = postureOf(pm.model->hand(), pm.eigengrasps, s.a);
  g.energy = s.energy;
  if (g.start_collision) return g;
  // The table (with a support plane) where closingModel's plane puts it.
  std::optional<SupportPlane> table;
  if (options.constraints.support_plane)
    table = checkedConstraints(options.constraints).support_plane;
  g.closed = closeHand(pm, g.palm_object, g.pregrasp, options.closing,
                       closing_model ? closing_model : closingModel(pm, options), table);
  if (const auto& plane = options.constraints.support_plane; plane && !g.closed.start_collision) {
    // The closed hand in the object's final frame (a free object moves a little).
    setClosedConfiguration(*pm.model, g.palm_object, g.closed.q, g.closed.object_pose, s.state);
    g.violates_constraints = handDepthBelowPlane(*pm.model, s.state, *plane) > 1e-9;
  }
  return g;
}

namespace {
void checkOptions(const PlannerOptions& o) {
  if (o.grasps < 0) throw std::invalid_argument("planner: grasps must be >= 0");
  if (o.candidates < 0) throw std::invalid_argument("planner: candidates must be >= 0");
  if (o.shards < 1 || o.shard < 0 || o.shard >= o.shards)
    throw std::invalid_argument("planner: shard must be i/N with 0 <= i < N");
  if (o.annealing_steps < 0 || o.descent_steps < 0)
    throw std::invalid_argument("planner: step counts must be >= 0");
  if (!(o.distinct_fraction > 0.0) || !(o.distinct_angle > 0.0))
    throw std::invalid_argument("planner: the distinctness limits must be > 0");
  if (!(o.closing.close_time > 0.0) || !(o.closing.settle_time >= 0.0))
    throw std::invalid_argument("planner: closing times must be > 0");
}

// Adds `g` to `accepted` when it is in force closure and distinct from every one there.
bool accept(std::vector<PlannedGrasp>& accepted, PlannedGrasp&& g, double radius,
            const PlannerOptions& o) {
  if (g.start_collision || g.violates_constraints || !g.forceClosure()) return false;
  for (const auto& other : accepted)
    if (poseDistance(other.palm_object, g.palm_object, radius, o.distinct_fraction,
                     o.distinct_angle) < 1.0)
      return false;
  accepted.push_back(std::move(g));
  return true;
}
}  // namespace

std::vector<PlannedGrasp> selectGrasps(std::vector<PlannedGrasp> candidates, double radius,
                                       const PlannerOptions& options) {
  std::sort(candidates.begin(), candidates.end(),
            [](const PlannedGrasp& a, const PlannedGrasp& b) { return a.candidate < b.candidate; });
  std::vector<PlannedGrasp> accepted;
  for (auto& g : candidates) {
    if (options.grasps > 0 && static_cast<int>(accepted.size()) >= options.grasps) break;
    accept(accepted, std::move(g), radius, options);
  }
  return accepted;
}

std::vector<PlannedGrasp> planGrasps(const PlannerModel& pm, const PlannerOptions& requested,
                                     const PlannerProgress& progress, const PlannerHooks& hooks) {
  checkOptions(requested);
  PlannerOptions options = requested;
  options.constraints = checkedConstraints(requested.constraints);
  const std::int64_t budget = candidateBudget(options);
  // The candidates of this process: every index, or those of the shard.
  std::vector<std::int64_t> indices;
  for (std::int64_t i = options.shard; i < budget; i += options.shards) indices.push_back(i);
  unsigned threads =
      options.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : options.threads;
  threads = static_cast<unsigned>(
      std::min<std::size_t>(threads, std::max<std::size_t>(1, indices.size())));
  const bool sharded = options.shards > 1;
  const std::shared_ptr<const sim::Model> closing_model = closingModel(pm, options);

  std::vector<std::optional<PlannedGrasp>> results(indices.size());
  std::vector<PlannedGrasp> accepted;
  std::size_t next = 0, committed = 0, done = 0;
  bool stop = false;
  std::exception_ptr failure;
  std::mutex lock;
  auto worker = [&]() {
    for (;;) {
      std::size_t i;
      {
        const std::lock_guard<std::mutex> g(lock);
        if (hooks.stop && hooks.stop->load()) stop = true;
        if (stop || next >= indices.size()) return;
        i = next++;
      }
      PlannedGrasp g;
      try {
        g = planCandidate(pm, options, indices[i], closing_model);
      } catch (...) {
        const std::lock_guard<std::mutex> l(lock);
        if (!failure) failure = std::current_exception();
        stop = true;
        return;
      }
      const std::lock_guard<std::mutex> l(lock);
      results[i] = std::move(g);
      ++done;
      // Accept in candidate order only: the outcome does not depend on which thread was first.
      while (committed < results.size() && results[committed] && !stop) {
        PlannedGrasp& c = *results[committed];
        if (sharded) {
          if (!c.start_collision && !c.violates_constraints && c.forceClosure()) {
            accepted.push_back(std::move(c));
            if (hooks.accepted) hooks.accepted(accepted.back());
          }
        } else {
          if (accept(accepted, std::move(c), pm.radius, options) && hooks.accepted)
            hooks.accepted(accepted.back());
          if (options.grasps > 0 && static_cast<int>(accepted.size()) >= options.grasps)
            stop = true;
        }
        results[committed].reset();
        results[committed] = PlannedGrasp{};  // keep "finished" without holding the data
        ++committed;
      }
      if (progress)
        progress(static_cast<std::int64_t>(done), static_cast<int>(accepted.size()),
                 static_cast<std::int64_t>(indices.size()));
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return accepted;
}

}  // namespace handsim::planner
