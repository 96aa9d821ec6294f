// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/recorder.hpp"

#include <charconv>
#include <stdexcept>

#include "handsim/io/atomic_file.hpp"

namespace handsim::sim {

Recorder::Recorder(const hand::HandModel& hand) : hand_(hand) {
  columns_.push_back("time");
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    for (int j = 0; j < hand.fingers[f].dof(); ++j) {
      const std::string base = hand.jointName({static_cast<int>(f), j});
      for (const char* q : {"angle", "velocity", "acceleration", "torque", "contact_force"})
        columns_.push_back(base + "." + q);
    }
  }
  for (const auto& f : hand.fingers) columns_.push_back(f.name + ".tactile_force");
  for (const auto& a : hand.actuators)
    for (const char* q : {"position", "reference", "effort"}) columns_.push_back(a.name + "." + q);
  for (const auto& t : hand.tendons)
    for (const char* q : {"position", "tension"}) columns_.push_back(t.name + "." + q);
  for (const auto& c : hand.clutches) {
    const std::string finger = hand.fingers[static_cast<std::size_t>(c.inner.finger)].name;
    columns_.push_back(finger + ".clutch");
    columns_.push_back(finger + ".inner_load_torque");
  }
}

void Recorder::addChannel(const std::string& name, std::function<double(const SimState&)> value) {
  if (!data_.empty()) throw std::logic_error("Recorder::addChannel after the first record");
  columns_.push_back(name);
  channels_.push_back(std::move(value));
}

void Recorder::record(const SimState& s) {
  data_.push_back(s.time);
  for (std::size_t f = 0; f < hand_.fingers.size(); ++f) {
    const auto& chain = hand_.fingers[f];
    for (int j = 0; j < chain.dof(); ++j) {
      const int row = chain.rowOfJoint(j);
      Eigen::Vector3d sum = Eigen::Vector3d::Zero();
      // Forces on the link, all in the world frame.
      for (const auto& l : s.loads)
        if (l.finger == static_cast<int>(f) && l.row == row) sum += l.force_world;
      for (const auto& c : s.contacts)
        if (c.finger == static_cast<int>(f) && c.row == row) sum -= c.forceOnObjectWorld();
      data_.insert(data_.end(), {s.q[f][j], s.qd[f][j], s.qdd[f][j], s.tau[f][j], sum.norm()});
    }
  }
  // Tactile sensing (seed 002): normal contact forces on every phalanx, summed per finger.
  for (std::size_t f = 0; f < hand_.fingers.size(); ++f) {
    double sum = 0.0;
    for (const auto& c : s.contacts)
      if (c.finger == static_cast<int>(f)) sum += c.force;
    data_.push_back(sum);
  }
  for (std::size_t a = 0; a < hand_.actuators.size(); ++a)
    data_.insert(data_.end(),
                 {s.actuator_position[a], s.actuator_reference[a], s.actuator_effort[a]});
  for (std::size_t t = 0; t < hand_.tendons.size(); ++t)
    data_.insert(data_.end(), {s.tendon_position[t], s.tendon_tension[t]});
  for (std::size_t c = 0; c < hand_.clutches.size(); ++c)
    data_.insert(data_.end(), {s.clutches[c].broken ? 1.0 : 0.0, s.inner_load_torque[c]});
  for (const auto& channel : channels_) data_.push_back(channel(s));
}

int Recorder::columnIndex(const std::string& name) const {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == name) return static_cast<int>(i);
  return -1;
}

std::vector<double> Recorder::series(const std::string& name) const {
  const int c = columnIndex(name);
  if (c < 0) throw std::invalid_argument("no recorded signal named '" + name + "'");
  std::vector<double> out(rowCount());
  for (std::size_t r = 0; r < out.size(); ++r) out[r] = value(r, static_cast<std::size_t>(c));
  return out;
}

std::string Recorder::toCsv() const {
  std::string out;
  for (std::size_t i = 0; i < columns_.size(); ++i) out += (i ? "," : "") + columns_[i];
  out += '\n';
  char buf[32];
  for (std::size_t r = 0; r < rowCount(); ++r) {
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (c) out += ',';
      const auto res = std::to_chars(buf, buf + sizeof buf, value(r, c));
      out.append(buf, res.ptr);
    }
    out += '\n';
  }
  return out;
}

void Recorder::writeCsv(const std::string& path) const {
  io::writeFileAtomically(path, toCsv());
}

}  // namespace handsim::sim
