// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/recorder.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "handsim/io/atomic_file.hpp"
#include "handsim/sim/carried_energy.hpp"
#include "handsim/sim/rigid_body.hpp"

namespace handsim::sim {

Recorder::Recorder(const hand::HandModel& hand) : hand_(hand) {
  const auto add = [this](std::string name, std::string unit) {
    columns_.push_back(std::move(name));
    units_.push_back(std::move(unit));
  };
  const auto prismatic = [&hand](hand::JointRef j) {
    const kinematics::Chain& chain = hand.fingers[static_cast<std::size_t>(j.finger)];
    return chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j.joint))].type ==
           kinematics::JointType::Prismatic;
  };
  add("time", "s");
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    for (int j = 0; j < hand.fingers[f].dof(); ++j) {
      const hand::JointRef ref{static_cast<int>(f), j};
      const std::string base = hand.jointName(ref);
      const bool linear = prismatic(ref);
      add(base + ".angle", linear ? "m" : "rad");
      add(base + ".velocity", linear ? "m/s" : "rad/s");
      add(base + ".acceleration", linear ? "m/s^2" : "rad/s^2");
      add(base + ".torque", linear ? "N" : "N m");
      add(base + ".contact_force", "N");
      add(base + ".impact_force", "N");
    }
  }
  for (const auto& f : hand.fingers) add(f.name + ".tactile_force", "N");
  for (const auto& a : hand.actuators) {
    add(a.name + ".position", a.unit);
    add(a.name + ".reference", a.unit);
    const bool linear = !a.drives.empty() && prismatic(a.drives.front().joint);
    add(a.name + ".effort", linear ? "N" : "N m");
    add(a.name + ".limit_reaction", linear ? "N" : "N m");
  }
  for (const auto& t : hand.tendons) {
    add(t.name + ".position", "m");
    add(t.name + ".tension", "N");
  }
  for (const auto& c : hand.clutches) {
    const std::string finger = hand.fingers[static_cast<std::size_t>(c.inner.finger)].name;
    add(finger + ".clutch", "");
    add(finger + ".inner_load_torque", "N m");
  }
}

void Recorder::addChannel(const std::string& name, const std::string& unit,
                          std::function<double(const SimState&)> value) {
  if (recorded_ > 0 || !data_.empty())
    throw std::logic_error("Recorder::addChannel after the first record");
  columns_.push_back(name);
  units_.push_back(unit);
  channels_.push_back(std::move(value));
}

Recorder::~Recorder() = default;

void Recorder::record(const SimState& s) {
  row_.clear();  // the row being built; keep() decides whether it stays
  row_.push_back(s.time);
  for (std::size_t f = 0; f < hand_.fingers.size(); ++f) {
    const auto& chain = hand_.fingers[f];
    for (int j = 0; j < chain.dof(); ++j) {
      const int row = chain.rowOfJoint(j);
      Eigen::Vector3d sum = Eigen::Vector3d::Zero(), impact = Eigen::Vector3d::Zero();
      // Forces on the link, all in the world frame.
      for (const auto& l : s.loads)
        if (l.finger == static_cast<int>(f) && l.row == row) sum += l.force_world;
      for (const auto& c : s.contacts)
        if (c.finger == static_cast<int>(f) && c.row == row) {
          sum -= c.forceOnObjectWorld();
          impact -= c.impact_force * c.normal_world;
        }
      // Another finger or the palm: the link either pushes (as above) or is pushed.
      for (const auto& c : s.link_contacts) {
        if (c.finger == static_cast<int>(f) && c.row == row) {
          sum -= c.forceOnObjectWorld();
          impact -= c.impact_force * c.normal_world;
        }
        if (c.other_finger == static_cast<int>(f) && c.other_row == row) {
          sum += c.forceOnObjectWorld();
          impact += c.impact_force * c.normal_world;
        }
      }
      row_.insert(row_.end(),
                  {s.q[f][j], s.qd[f][j], s.qdd[f][j], s.tau[f][j], sum.norm(), impact.norm()});
    }
  }
  // Tactile sensing (seed 002): normal contact forces on every phalanx, summed per finger.
  for (std::size_t f = 0; f < hand_.fingers.size(); ++f) {
    double sum = 0.0;
    for (const auto& c : s.contacts)
      if (c.finger == static_cast<int>(f)) sum += c.force;
    for (const auto& c : s.link_contacts)
      if (c.finger == static_cast<int>(f) || c.other_finger == static_cast<int>(f)) sum += c.force;
    row_.push_back(sum);
  }
  for (std::size_t a = 0; a < hand_.actuators.size(); ++a)
    row_.insert(row_.end(), {s.actuator_position[a], s.actuator_reference[a], s.actuator_effort[a],
                             s.actuator_limit_reaction[a]});
  for (std::size_t t = 0; t < hand_.tendons.size(); ++t)
    row_.insert(row_.end(), {s.tendon_position[t], s.tendon_tension[t]});
  for (std::size_t c = 0; c < hand_.clutches.size(); ++c)
    row_.insert(row_.end(), {s.clutches[c].broken ? 1.0 : 0.0, s.inner_load_torque[c]});
  for (const auto& channel : channels_) row_.push_back(channel(s));

  if (non_finite_.empty())
    for (std::size_t c = 0; c < row_.size(); ++c)
      if (!std::isfinite(row_[c])) {
        non_finite_ = columns_[c] + " at t = " + std::to_string(s.time) + " s";
        break;
      }
  if (stream_) {
    appendCsvRow(stream_buffer_, row_.data());
    writeStream(false);
  }
  keep(row_);
  ++recorded_;
}

void Recorder::keep(const std::vector<double>& row) {
  const std::size_t n = columns_.size();
  if (tail_) {  // the previous latest row was only kept for being the latest
    data_.resize(data_.size() - n);
    tail_ = false;
  }
  bool on_stride = recorded_ % stride_ == 0;
  while (on_stride && kept_limit_ > 0 && rowCount() >= kept_limit_) {
    // Kept rows are the recorded rows 0, s, 2s, ...: keep 0, 2s, 4s, ... and double s.
    const std::size_t rows = rowCount();
    std::size_t kept = 0;
    for (std::size_t r = 0; r < rows; r += 2, ++kept)
      if (kept != r)
        std::copy_n(data_.begin() + static_cast<std::ptrdiff_t>(r * n), n,
                    data_.begin() + static_cast<std::ptrdiff_t>(kept * n));
    data_.resize(kept * n);
    stride_ *= 2;
    on_stride = recorded_ % stride_ == 0;
  }
  // With a limit the kept rows never need more than limit + 1 rows: the vector grows by
  // doubling as rows come, but never past that (reserving it all up front would ask for
  // limit x columns doubles at once: gigabytes for a model with thousands of columns).
  if (kept_limit_ > 0 && data_.size() + n > data_.capacity()) {
    const std::size_t most = (kept_limit_ + 1) * n;
    data_.reserve(std::min(most, std::max(2 * data_.capacity(), data_.size() + n)));
  }
  data_.insert(data_.end(), row.begin(), row.end());
  tail_ = !on_stride;
}

void Recorder::clear() {
  data_.clear();
  recorded_ = 0;
  stride_ = 1;
  tail_ = false;
  non_finite_.clear();
  if (stream_) {
    stream_.reset();  // removes the temporary file
    stream_ = std::make_unique<io::AtomicFileWriter>(stream_path_);
    stream_buffer_ = header();
  }
}

void Recorder::adoptRows(const Recorder& earlier) {
  if (recorded_ > 0 || !data_.empty() || stream_)
    throw std::logic_error("Recorder::adoptRows: only on an empty recorder that does not stream");
  // Where each of this recorder's columns was in `earlier` (-1: a new column).
  std::vector<int> from(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) from[c] = earlier.columnIndex(columns_[c]);
  const std::size_t rows = earlier.rowCount();
  data_.resize(rows * columns_.size());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < columns_.size(); ++c)
      data_[r * columns_.size() + c] = from[c] < 0
                                           ? std::numeric_limits<double>::quiet_NaN()
                                           : earlier.value(r, static_cast<std::size_t>(from[c]));
  recorded_ = earlier.recorded_;
  stride_ = earlier.stride_;
  tail_ = earlier.tail_;
  non_finite_ = earlier.non_finite_;
}

void Recorder::streamCsv(const std::string& path, std::size_t kept_rows) {
  if (kept_rows < 2) throw std::invalid_argument("Recorder::streamCsv: keep at least 2 rows");
  if (stride_ > 1)
    throw std::logic_error("Recorder::streamCsv: rows were already dropped; stream from the start");
  auto stream = std::make_unique<io::AtomicFileWriter>(path);
  stream_buffer_ = header();
  for (std::size_t r = 0; r < rowCount(); ++r)
    appendCsvRow(stream_buffer_, data_.data() + r * columns_.size());
  stream_ = std::move(stream);
  stream_path_ = path;
  kept_limit_ = kept_rows;
  writeStream(false);
}

void Recorder::finishCsv() {
  if (!stream_) throw std::logic_error("Recorder::finishCsv: not streaming");
  writeStream(true);
  auto stream = std::move(stream_);
  stream->commit();
}

void Recorder::writeStream(bool force) {
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  if (!force && stream_buffer_.size() < kChunk) return;
  try {
    stream_->write(stream_buffer_);
  } catch (...) {
    stream_.reset();
    stream_buffer_.clear();
    throw;
  }
  stream_buffer_.clear();
}

std::string Recorder::header() const {
  std::string out;
  for (std::size_t i = 0; i < columns_.size(); ++i) out += (i ? "," : "") + columns_[i];
  out += '\n';
  return out;
}

void Recorder::appendCsvRow(std::string& out, const double* row) const {
  char buf[32];
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (c) out += ',';
    const auto res = std::to_chars(buf, buf + sizeof buf, row[c]);
    out.append(buf, res.ptr);
  }
  out += '\n';
}

int Recorder::columnIndex(const std::string& name) const {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == name) return static_cast<int>(i);
  return -1;
}

std::string Recorder::unit(const std::string& column) const {
  const int c = columnIndex(column);
  if (c < 0) throw std::invalid_argument("no recorded signal named '" + column + "'");
  return units_[static_cast<std::size_t>(c)];
}

std::vector<double> Recorder::series(const std::string& name) const {
  const int c = columnIndex(name);
  if (c < 0) throw std::invalid_argument("no recorded signal named '" + name + "'");
  std::vector<double> out(rowCount());
  for (std::size_t r = 0; r < out.size(); ++r) out[r] = value(r, static_cast<std::size_t>(c));
  return out;
}

std::string Recorder::toCsv() const {
  std::string out = header();
  for (std::size_t r = 0; r < rowCount(); ++r)
    appendCsvRow(out, data_.data() + r * columns_.size());
  return out;
}

void Recorder::writeCsv(const std::string& path) const {
  io::writeFileAtomically(path, toCsv());
}

namespace {

// A rotation as a unit quaternion with w >= 0: component i of (w, x, y, z).
double quaternionComponent(const Eigen::Matrix3d& rotation, int i) {
  Eigen::Quaterniond q(rotation);
  if (q.w() < 0.0) q.coeffs() = -q.coeffs();
  return i == 0 ? q.w() : q.vec()[i - 1];
}

}  // namespace

void addBodyChannels(Recorder& recorder, const std::shared_ptr<const Model>* model,
                     bool palm_moves) {
  const Model& m = **model;
  bool any = palm_moves;
  for (const ObjectModel& o : m.objects) any = any || !o.fixed;
  if (!any) return;
  const char* axes[] = {"x", "y", "z"};
  const char* quat[] = {"qw", "qx", "qy", "qz"};
  for (int i = 0; i < 3; ++i)
    recorder.addChannel(std::string("palm.") + axes[i], "m",
                        [i](const SimState& s) { return s.palm_pose_world.translation()[i]; });
  for (int i = 0; i < 4; ++i)
    recorder.addChannel(std::string("palm.") + quat[i], "", [i](const SimState& s) {
      return quaternionComponent(s.palm_pose_world.linear(), i);
    });
  for (std::size_t o = 0; o < m.objects.size(); ++o) {
    if (m.objects[o].fixed) continue;
    const std::string name = m.objects[o].name + ".";
    // Every value reads the model of the moment; an object index the state lacks reads NaN.
    auto has = [model, o](const SimState& s) {
      return o < s.object_pose_world.size() && o < (*model)->objects.size();
    };
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    for (int i = 0; i < 3; ++i)
      recorder.addChannel(name + axes[i], "m", [=](const SimState& s) {
        return has(s) ? (s.object_pose_world[o] * (*model)->objects[o].mass.centre_of_mass)[i]
                      : nan;
      });
    for (int i = 0; i < 4; ++i)
      recorder.addChannel(name + quat[i], "", [=](const SimState& s) {
        return has(s) ? quaternionComponent(s.object_pose_world[o].linear(), i) : nan;
      });
    for (int i = 0; i < 3; ++i)
      recorder.addChannel(name + "v" + axes[i], "m/s", [=](const SimState& s) {
        return has(s) ? s.object_twist_world[o][i] : nan;
      });
    for (int i = 0; i < 3; ++i)
      recorder.addChannel(name + "w" + axes[i], "rad/s", [=](const SimState& s) {
        return has(s) ? s.object_twist_world[o][3 + i] : nan;
      });
    recorder.addChannel(name + "kinetic_energy", "J", [=](const SimState& s) {
      if (!has(s)) return nan;
      const geometry::MassProperties& mp = (*model)->objects[o].mass;
      const Eigen::Matrix3d R = s.object_pose_world[o].linear();
      return kineticEnergy(mp.mass_kg, R * mp.inertia_com * R.transpose(),
                           s.object_twist_world[o].head<3>(), s.object_twist_world[o].tail<3>());
    });
    // What it would have if welded to the palm where it is now (seed 004's shaking metric,
    // sim/carried_energy.hpp).
    recorder.addChannel(name + "carried_kinetic_energy", "J", [=](const SimState& s) {
      if (!has(s)) return nan;
      const geometry::MassProperties& mp = (*model)->objects[o].mass;
      const Eigen::Matrix3d R = s.object_pose_world[o].linear();
      return carriedKineticEnergy(mp.mass_kg, R * mp.inertia_com * R.transpose(),
                                  s.object_pose_world[o] * mp.centre_of_mass, s.palm_pose_world,
                                  s.palm_twist_world);
    });
  }
  addContactPairChannels(recorder, m);
}

namespace {

// A body of a contact pair column: an object (index >= 0), the ground, the palm or a finger.
struct PairBody {
  enum Kind { Object, Ground, Palm, Finger } kind;
  int index = -1;
};

// True when `c` (of any contact list) is between bodies a and b, and the sign of its force on b.
int pairSign(const Contact& c, bool link_contact, const PairBody& a, const PairBody& b) {
  // The pushing side and the pushed side of the contact as PairBodies.
  PairBody pusher{PairBody::Finger, c.finger}, pushed{PairBody::Object, c.object};
  if (link_contact) {
    pushed = c.other_finger >= 0 ? PairBody{PairBody::Finger, c.other_finger}
                                 : PairBody{PairBody::Palm, -1};
  } else if (c.finger < 0) {
    pusher = c.other == kGround ? PairBody{PairBody::Ground, -1}
             : c.other == kPalm ? PairBody{PairBody::Palm, -1}
                                : PairBody{PairBody::Object, c.other};
  }
  auto same = [](const PairBody& x, const PairBody& y) {
    return x.kind == y.kind && x.index == y.index;
  };
  if (same(pusher, a) && same(pushed, b)) return 1;
  if (same(pusher, b) && same(pushed, a)) return -1;
  return 0;
}

}  // namespace

void addContactPairChannels(Recorder& recorder, const Model& m) {
  bool any = false;
  for (const ObjectModel& o : m.objects) any = any || !o.fixed;
  if (!any) return;
  const hand::HandModel& hand = m.hand();
  // Twisting couples exist with the constraint model's torsional rows and the volume penalty
  // model's anchor friction.
  const bool twisting = m.options.contact.volumePenalty()
                            ? m.options.contact.volumePenalty()->friction == PenaltyFriction::Anchor
                            : anyTorsional(m);
  // `spin`: the pair can twist (it has an object; link-link contacts are frictionless).
  auto add = [&recorder](const std::string& a, const std::string& b, PairBody pa, PairBody pb,
                         bool spin) {
    recorder.addChannel("contact." + a + "." + b + ".force", "N", [pa, pb](const SimState& s) {
      Eigen::Vector3d sum = Eigen::Vector3d::Zero();  // on the second body
      for (const Contact& c : s.contacts)
        sum += pairSign(c, false, pa, pb) * c.forceOnObjectWorld();
      for (const Contact& c : s.object_contacts)
        sum += pairSign(c, false, pa, pb) * c.forceOnObjectWorld();
      for (const Contact& c : s.link_contacts)
        sum += pairSign(c, true, pa, pb) * c.forceOnObjectWorld();
      return sum.norm();
    });
    if (!spin) return;
    // The pair's twisting couples on the second body (each contact's spin_moment about its
    // normal), summed as vectors: couples add wherever they act.
    recorder.addChannel("contact." + a + "." + b + ".spin_moment", "N m",
                        [pa, pb](const SimState& s) {
                          Eigen::Vector3d sum = Eigen::Vector3d::Zero();
                          for (const auto* list : {&s.contacts, &s.object_contacts})
                            for (const Contact& c : *list)
                              sum += pairSign(c, false, pa, pb) * c.spin_moment * c.normal_world;
                          return sum.norm();
                        });
  };
  const auto nf = hand.fingers.size();
  for (std::size_t o = 0; o < m.objects.size(); ++o) {
    const PairBody obj{PairBody::Object, static_cast<int>(o)};
    const std::string& name = m.objects[o].name;
    for (std::size_t f = 0; f < nf; ++f)
      add(hand.fingers[f].name, name, {PairBody::Finger, static_cast<int>(f)}, obj, twisting);
    if (m.objects[o].fixed) continue;
    add("palm", name, {PairBody::Palm, -1}, obj, twisting);
    if (m.options.ground.enabled) add("ground", name, {PairBody::Ground, -1}, obj, twisting);
    for (std::size_t p = 0; p < m.objects.size(); ++p)
      if (p != o && (m.objects[p].fixed || p > o))
        add(m.objects[p].name, name, {PairBody::Object, static_cast<int>(p)}, obj, twisting);
  }
  for (std::size_t f = 0; f < nf; ++f) {
    const PairBody finger{PairBody::Finger, static_cast<int>(f)};
    for (std::size_t g = f + 1; g < nf; ++g)
      add(hand.fingers[f].name, hand.fingers[g].name, finger,
          {PairBody::Finger, static_cast<int>(g)}, false);
    add(hand.fingers[f].name, "palm", finger, {PairBody::Palm, -1}, false);
  }
}

}  // namespace handsim::sim
