// SPDX-License-Identifier: GPL-3.0-or-later
// VRML97 scene evaluation (ISO/IEC 14772-1:1997 clause 6 node semantics): walks the parsed
// scene graph with the accumulated transform, expands PROTO instances (4.8.3: the first node
// of the body is what the instance is; IS binds body fields to the instance's values), loads
// Inline files and tessellates the geometry of every Shape into world coordinates.
#include "handsim/formats/vrml_reader.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "handsim/geometry/primitives.hpp"
#include "handsim/io/input_error.hpp"
#include "vrml_geometry.hpp"
#include "vrml_parser.hpp"

namespace handsim::geometry {

namespace {

namespace fs = std::filesystem;
using vrml::Node;
using vrml::NodePtr;
using vrml::Value;

// Scene traversal depth over nesting, PROTO expansion and Inline files together; keeps the
// evaluator's recursion well inside the default stack.
constexpr int kMaxSceneDepth = 400;

using Clock = std::chrono::steady_clock;

// One budget for the whole load: the top-level file and every Inline instance draw from it, so
// that files inlining each other many times, or a small gzip that inflates enormously, fail
// quickly instead of exhausting memory or time.
class Budget {
 public:
  explicit Budget(const VrmlOptions& o)
      : opt_(o),
        deadline_(Clock::now() +
                  std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double>(std::clamp(o.max_load_seconds, 0.0, 1e6)))) {}

  std::size_t remainingBytes() const {
    return opt_.max_total_bytes - std::min(used_, opt_.max_total_bytes);
  }

  /// Counts `bytes` read or inflated; throws at `where` when the budget is spent.
  void chargeBytes(std::size_t bytes, const io::SourceLocation& where) {
    if (bytes > remainingBytes()) throw io::InputError(where, bytesProblem());
    used_ += bytes;
  }

  std::string bytesProblem() const {
    return "the load reads and inflates more than its budget of " +
           std::to_string(opt_.max_total_bytes) +
           " bytes (VrmlOptions::max_total_bytes; every Inline instance counts its file again)";
  }

  Clock::time_point deadline() const { return deadline_; }

  std::string timeProblem() const {
    std::ostringstream s;
    s << "the load takes longer than its budget of " << opt_.max_load_seconds
      << " s (VrmlOptions::max_load_seconds)";
    return s.str();
  }

  void checkTime(const io::SourceLocation& where) const {
    if (Clock::now() > deadline_) throw io::InputError(where, timeProblem());
  }

 private:
  const VrmlOptions& opt_;
  Clock::time_point deadline_;
  std::size_t used_ = 0;
};

// Inflates at most min(max_file_bytes, what the budget has left); errors about the data name
// `file`, errors about limits are located at `where` (the Inline that asked for the file).
std::string inflateGzip(std::string_view bytes, const std::string& file,
                        const io::SourceLocation& where, const VrmlOptions& opt, Budget& budget) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
    throw io::InputError({file, 0, 0, {}}, "cannot initialise zlib");
  std::string out;
  std::array<char, 1 << 16> chunk{};
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(std::min<std::size_t>(bytes.size(), 0xffffffffu));
  const std::size_t budget_left = budget.remainingBytes();
  int rc = Z_OK;
  const auto stop = [&](const io::SourceLocation& at, const std::string& problem) {
    inflateEnd(&zs);
    throw io::InputError(at, problem);
  };
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk.data());
    zs.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END)
      stop({file, 0, 0, {}}, std::string("corrupt or truncated gzip data (") +
                                 (zs.msg ? zs.msg : "zlib error " + std::to_string(rc)) + ")");
    out.append(chunk.data(), chunk.size() - zs.avail_out);
    if (out.size() > opt.max_file_bytes)
      stop(where, "decompressed size exceeds the limit of " + std::to_string(opt.max_file_bytes) +
                      " bytes (VrmlOptions::max_file_bytes)");
    if (out.size() > budget_left) stop(where, budget.bytesProblem());
    if (Clock::now() > budget.deadline()) stop(where, budget.timeProblem());
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0)
      stop({file, 0, 0, {}}, "truncated gzip data");
  }
  inflateEnd(&zs);
  budget.chargeBytes(out.size(), where);
  return out;
}

bool isGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Reads a whole file, charging its size to the budget before reading; limit errors are
// located at `where`.
std::string readFile(const std::string& path, const io::SourceLocation& where,
                     const VrmlOptions& opt, Budget& budget) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io::InputError({path, 0, 0, {}}, "cannot open file");
  std::string bytes;
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size < 0) throw io::InputError({path, 0, 0, {}}, "cannot read file");
  if (static_cast<std::size_t>(size) > opt.max_file_bytes)
    throw io::InputError(where, "file larger than the limit of " +
                                    std::to_string(opt.max_file_bytes) +
                                    " bytes (VrmlOptions::max_file_bytes)");
  budget.chargeBytes(static_cast<std::size_t>(size), where);
  bytes.resize(static_cast<std::size_t>(size));
  in.seekg(0);
  in.read(bytes.data(), size);
  if (!in) throw io::InputError({path, 0, 0, {}}, "cannot read file");
  return bytes;
}

// Node types that carry no solid geometry: read, counted, not tessellated.
bool isIgnoredType(const std::string& t) {
  static const std::set<std::string> kIgnored = {"IndexedLineSet",
                                                 "PointSet",
                                                 "Text",
                                                 "Script",
                                                 "TimeSensor",
                                                 "TouchSensor",
                                                 "PlaneSensor",
                                                 "SphereSensor",
                                                 "CylinderSensor",
                                                 "ProximitySensor",
                                                 "VisibilitySensor",
                                                 "PositionInterpolator",
                                                 "OrientationInterpolator",
                                                 "ColorInterpolator",
                                                 "ScalarInterpolator",
                                                 "CoordinateInterpolator",
                                                 "NormalInterpolator",
                                                 "Viewpoint",
                                                 "NavigationInfo",
                                                 "DirectionalLight",
                                                 "PointLight",
                                                 "SpotLight",
                                                 "Background",
                                                 "Fog",
                                                 "Sound",
                                                 "AudioClip",
                                                 "WorldInfo",
                                                 "MovieTexture",
                                                 "ImageTexture",
                                                 "PixelTexture"};
  return kIgnored.count(t) != 0;
}

bool isGeometryType(const std::string& t) {
  return t == "Box" || t == "Sphere" || t == "Cylinder" || t == "Cone" || t == "IndexedFaceSet" ||
         t == "Extrusion" || t == "ElevationGrid";
}

bool isGroupType(const std::string& t) {
  return t == "Group" || t == "Collision" || t == "Billboard" || t == "Anchor";
}

struct Env;
/// A field value together with the PROTO environment its own IS references resolve in.
struct Bound {
  const Value* value = nullptr;
  const Env* env = nullptr;
};
struct Env {
  std::map<std::string, Bound, std::less<>> fields;
};

struct FileCtx {
  std::string path;  ///< as shown in messages
  fs::path dir;      ///< folder for relative Inline urls
};

// Warnings kept in LoadedModel::warnings; the rest are counted (an Inline amplification
// could otherwise fill memory with copies of one warning).
constexpr std::size_t kMaxWarnings = 1000;

// Header check for inlined files: a file that is not VRML is never parsed, so that no error
// can quote its text.
bool looksLikeVrml(std::string_view text) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  for (const std::string_view h : {"#VRML V2.0", "#VRML V1.0", "#X3D", "#Inventor"})
    if (text.substr(0, h.size()) == h) return true;
  return false;
}

// True when `p` (canonical) is `root` (canonical) or lies below it.
bool isInside(const fs::path& p, const fs::path& root) {
  auto it = p.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++it) {
    // A trailing separator leaves an empty last element.
    if (r->empty() && std::next(r) == root.end()) return true;
    if (it == p.end() || *it != *r) return false;
  }
  return true;
}

class Evaluator {
 public:
  /// `top` names the top-level file; its folder is the first place Inlines may come from.
  Evaluator(const VrmlOptions& options, LoadedModel& out, Budget& budget, const std::string& top)
      : opt_(options), out_(out), budget_(budget) {
    std::error_code ec;
    fs::path dir = fs::path(top).parent_path();
    if (dir.empty()) dir = ".";
    fs::path root = fs::weakly_canonical(dir, ec);
    if (!ec) roots_.push_back(root);
    for (const auto& extra : options.inline_search_paths) {
      root = fs::weakly_canonical(fs::path(extra), ec);
      if (!ec) {
        roots_.push_back(root);
        search_dirs_.push_back(root);
      }
    }
    root = fs::weakly_canonical(fs::path(top), ec);
    if (!ec) inline_stack_.push_back(root.string());
  }

  /// Parses and evaluates the top-level text (plain or gzip).
  void evaluateTop(std::string_view bytes, const std::string& name) {
    std::string inflated;
    if (isGzip(bytes)) {
      inflated = inflateGzip(bytes, name, {name, 0, 0, {}}, opt_, budget_);
      bytes = inflated;
    }
    const auto parsed = parseText(bytes, name);
    evaluateFile(parsed, {name, fs::path(name).parent_path()}, Eigen::Affine3d::Identity(), -1);
    reportNonFinite(*parsed, name);
    if (suppressed_ > 0)
      out_.warnings.push_back(std::to_string(suppressed_) +
                              " more warnings not shown (only the first " +
                              std::to_string(kMaxWarnings) + " are kept)");
  }

 private:
  [[noreturn]] void fail(const FileCtx& ctx, vrml::Pos p, const std::string& field,
                         const std::string& what) const {
    throw io::InputError({ctx.path, p.line, p.column, field}, what);
  }

  void warn(const FileCtx& ctx, vrml::Pos p, const std::string& what) {
    addWarning(io::formatLocation({ctx.path, p.line, p.column, {}}) + what);
  }

  void addWarning(std::string w) {
    if (out_.warnings.size() < kMaxWarnings)
      out_.warnings.push_back(std::move(w));
    else
      ++suppressed_;
  }

  static Bound field(const Node& n, std::string_view name, const Env* env) {
    const Value* v = n.find(name);
    if (!v) return {};
    if (v->kind == Value::Kind::kIs) {
      if (!env) return {};
      const auto it = env->fields.find(v->is_name);
      return it == env->fields.end() ? Bound{} : it->second;
    }
    return {v, env};
  }

  // Typed access to a field; a value of the wrong shape is an error at the value's position.
  const std::vector<double>* numbers(const FileCtx& ctx, const Node& n, const char* name,
                                     const Env* env, std::size_t multiple, const char* type) const {
    const Bound b = field(n, name, env);
    if (!b.value || b.value->kind == Value::Kind::kEmpty) return nullptr;
    if (b.value->kind != Value::Kind::kNumbers || b.value->numbers.size() % multiple != 0)
      fail(ctx, b.value->pos, n.type + "." + name,
           std::string("expected ") + type + " (a multiple of " + std::to_string(multiple) +
               " numbers)");
    // NaN and infinity are errors wherever handsim uses the numbers.
    if (b.value->nonfinite_count > 0)
      fail(ctx, b.value->nonfinite_pos, {}, b.value->nonfinite_problem);
    return &b.value->numbers;
  }

  const std::vector<double>& single(const FileCtx& ctx, const Node& n, const char* name,
                                    const Env* env, std::size_t count, const char* type,
                                    const std::vector<double>& fallback) const {
    const auto* v = numbers(ctx, n, name, env, 1, type);
    if (!v) return fallback;
    if (v->size() != count)
      fail(ctx, field(n, name, env).value->pos, n.type + "." + name,
           std::string("expected ") + type + " (" + std::to_string(count) + " numbers), got " +
               std::to_string(v->size()));
    return *v;
  }

  double getFloat(const FileCtx& ctx, const Node& n, const char* name, const Env* env,
                  double def) const {
    static const std::vector<double> kNone;
    const auto& v = single(ctx, n, name, env, 1, "SFFloat", kNone);
    return v.empty() ? def : v[0];
  }

  int getInt(const FileCtx& ctx, const Node& n, const char* name, const Env* env, int def) const {
    static const std::vector<double> kNone;
    const auto& v = single(ctx, n, name, env, 1, "SFInt32", kNone);
    if (v.empty()) return def;
    if (v[0] != std::floor(v[0]) || std::abs(v[0]) > 2147483647.0)
      fail(ctx, field(n, name, env).value->pos, n.type + "." + name, "expected an SFInt32 integer");
    return static_cast<int>(v[0]);
  }

  Eigen::Vector3d getVec3(const FileCtx& ctx, const Node& n, const char* name, const Env* env,
                          const Eigen::Vector3d& def) const {
    static const std::vector<double> kNone;
    const auto& v = single(ctx, n, name, env, 3, "SFVec3f", kNone);
    return v.empty() ? def : Eigen::Vector3d(v[0], v[1], v[2]);
  }

  Eigen::AngleAxisd getRotation(const FileCtx& ctx, const Node& n, const char* name,
                                const Env* env) const {
    static const std::vector<double> kNone;
    const auto& v = single(ctx, n, name, env, 4, "SFRotation", kNone);
    if (v.empty()) return Eigen::AngleAxisd::Identity();
    return toRotation(v.data());
  }

  static Eigen::AngleAxisd toRotation(const double* v) {
    const Eigen::Vector3d axis(v[0], v[1], v[2]);
    // A zero axis can only mean "no rotation".
    if (axis.norm() == 0.0) return Eigen::AngleAxisd::Identity();
    return Eigen::AngleAxisd(v[3], axis.normalized());
  }

  bool getBool(const FileCtx& ctx, const Node& n, const char* name, const Env* env,
               bool def) const {
    const Bound b = field(n, name, env);
    if (!b.value || b.value->kind == Value::Kind::kEmpty) return def;
    if (b.value->kind != Value::Kind::kBools || b.value->bools.size() != 1)
      fail(ctx, b.value->pos, n.type + "." + name, "expected SFBool (TRUE or FALSE)");
    return b.value->bools[0];
  }

  std::vector<std::pair<NodePtr, const Env*>> getNodes(const FileCtx& ctx, const Node& n,
                                                       const char* name, const Env* env) const {
    std::vector<std::pair<NodePtr, const Env*>> out;
    const Bound b = field(n, name, env);
    if (!b.value || b.value->kind == Value::Kind::kEmpty) return out;
    if (b.value->kind != Value::Kind::kNodes)
      fail(ctx, b.value->pos, n.type + "." + name, "expected nodes");
    for (const auto& c : b.value->nodes) out.emplace_back(c, b.env);
    return out;
  }

  std::pair<NodePtr, const Env*> getNode(const FileCtx& ctx, const Node& n, const char* name,
                                         const Env* env) const {
    auto all = getNodes(ctx, n, name, env);
    if (all.empty()) return {nullptr, nullptr};
    return all.front();
  }

  // Builds the environment of a PROTO instance: instance values (bound where the instance is
  // written) or the interface defaults.
  const Env* instanceEnv(const Node& instance, const Env* outer) {
    auto env = std::make_unique<Env>();
    for (const auto& decl : instance.proto->fields) {
      const Value* given = instance.find(decl.name);
      if (given && given->kind == Value::Kind::kIs) {
        const Bound b = field(instance, decl.name, outer);
        if (b.value) env->fields[decl.name] = b;
      } else if (given) {
        env->fields[decl.name] = {given, outer};
      } else {
        env->fields[decl.name] = {&decl.default_value, nullptr};
      }
    }
    envs_.push_back(std::move(env));
    return envs_.back().get();
  }

  // Follows PROTO instances to the node they stand for (used for non-grouping fields such as
  // geometry, appearance, material and coord).
  std::pair<const Node*, const Env*> resolve(const FileCtx& ctx, NodePtr node, const Env* env) {
    int guard = 0;
    while (node && node->proto) {
      if (node->proto->external) {
        warnExtern(ctx, *node);
        return {nullptr, nullptr};
      }
      if (++guard > opt_.max_proto_depth)
        fail(ctx, node->pos, {},
             "PROTO expansion deeper than " + std::to_string(opt_.max_proto_depth) + " levels");
      env = instanceEnv(*node, env);
      if (node->proto->body.empty()) return {nullptr, nullptr};
      node = node->proto->body.front();
    }
    return {node.get(), env};
  }

  void warnExtern(const FileCtx& ctx, const Node& n) {
    ++out_.ignored_nodes[n.type];
    warn(ctx, n.pos, "instance of EXTERNPROTO " + n.type + " skipped");
  }

  void countVisit(const FileCtx& ctx, const Node& n) {
    if ((visits_ & 1023u) == 0) budget_.checkTime({ctx.path, n.pos.line, n.pos.column, {}});
    if (++visits_ > opt_.max_node_visits)
      fail(ctx, n.pos, {},
           "scene expands to more than " + std::to_string(opt_.max_node_visits) +
               " nodes (DEF/USE amplification?)");
  }

  void visit(const NodePtr& node, const Env* env, const Eigen::Affine3d& xf,
             const std::string& name, const FileCtx& ctx, int depth) {
    if (!node) return;
    countVisit(ctx, *node);
    if (depth > kMaxSceneDepth)
      fail(ctx, node->pos, {},
           "scene nesting deeper than " + std::to_string(kMaxSceneDepth) +
               " levels (PROTO or Inline recursion?)");
    const std::string& nm = node->def_name.empty() ? name : node->def_name;
    if (node->proto) {
      if (node->proto->external) return warnExtern(ctx, *node);
      if (++proto_depth_ > opt_.max_proto_depth)
        fail(ctx, node->pos, {},
             "PROTO expansion deeper than " + std::to_string(opt_.max_proto_depth) + " levels");
      const Env* inner = instanceEnv(*node, env);
      if (!node->proto->body.empty())
        visit(node->proto->body.front(), inner, xf, nm, ctx, depth + 1);
      --proto_depth_;
      return;
    }
    const Node& n = *node;
    const std::string& t = n.type;
    if (t == "Transform") {
      visitChildren(getNodes(ctx, n, "children", env), xf * transformOf(ctx, n, env), nm, ctx,
                    depth);
    } else if (isGroupType(t)) {
      visitChildren(getNodes(ctx, n, "children", env), xf, nm, ctx, depth);
    } else if (t == "Switch") {
      auto choice = getNodes(ctx, n, "choice", env);
      if (choice.empty()) choice = getNodes(ctx, n, "children", env);
      const int which = getInt(ctx, n, "whichChoice", env, -1);
      if (which >= 0 && static_cast<std::size_t>(which) < choice.size())
        visit(choice[static_cast<std::size_t>(which)].first,
              choice[static_cast<std::size_t>(which)].second, xf, nm, ctx, depth + 1);
    } else if (t == "LOD") {
      // The most detailed level is the one a simulation wants.
      auto level = getNodes(ctx, n, "level", env);
      if (level.empty()) level = getNodes(ctx, n, "children", env);
      if (!level.empty()) visit(level[0].first, level[0].second, xf, nm, ctx, depth + 1);
    } else if (t == "Shape") {
      shape(ctx, n, env, xf, nm);
    } else if (t == "Inline") {
      inlineFile(ctx, n, env, xf, depth);
    } else if (isGeometryType(t)) {
      // Not valid VRML97, but Open Inventor habits put geometry straight into groups.
      warn(ctx, n.pos,
           "geometry node " + t + " outside a Shape; read as a Shape without appearance");
      MeshShape s;
      s.name = nm;
      if (tessellate(ctx, n, env, s) && !s.mesh.triangles.empty()) {
        compact(s.mesh);
        transformShape(s, xf);
        addShape(ctx, n, std::move(s));
      }
    } else if (isIgnoredType(t)) {
      ++out_.ignored_nodes[t];
    } else {
      ++out_.ignored_nodes[t];
      warn(ctx, n.pos, "unsupported node type '" + t + "' skipped");
    }
  }

  void visitChildren(const std::vector<std::pair<NodePtr, const Env*>>& children,
                     const Eigen::Affine3d& xf, const std::string& name, const FileCtx& ctx,
                     int depth) {
    for (const auto& [child, child_env] : children)
      visit(child, child_env, xf, name, ctx, depth + 1);
  }

  // 6.52: P' = T * C * R * SR * S * -SR * -C * P.
  Eigen::Affine3d transformOf(const FileCtx& ctx, const Node& n, const Env* env) const {
    const Eigen::Vector3d T = getVec3(ctx, n, "translation", env, Eigen::Vector3d::Zero());
    const Eigen::Vector3d C = getVec3(ctx, n, "center", env, Eigen::Vector3d::Zero());
    const Eigen::AngleAxisd R = getRotation(ctx, n, "rotation", env);
    const Eigen::Vector3d S = getVec3(ctx, n, "scale", env, Eigen::Vector3d::Ones());
    const Eigen::AngleAxisd SR = getRotation(ctx, n, "scaleOrientation", env);
    Eigen::Affine3d m = Eigen::Affine3d::Identity();
    m.translate(T).translate(C).rotate(R).rotate(SR).scale(S).rotate(SR.inverse()).translate(-C);
    return m;
  }

  void shape(const FileCtx& ctx, const Node& n, const Env* env, const Eigen::Affine3d& xf,
             const std::string& name) {
    MeshShape s;
    s.name = name;
    // Without a Material the shape is unlit white (6.5); Material's default is 0.8 grey.
    const auto app_ref = getNode(ctx, n, "appearance", env);
    auto [app, app_env] = resolve(ctx, app_ref.first, app_ref.second);
    if (app) {
      const auto mat_ref = getNode(ctx, *app, "material", app_env);
      auto [mat, mat_env] = resolve(ctx, mat_ref.first, mat_ref.second);
      if (mat) {
        const Eigen::Vector3d c =
            getVec3(ctx, *mat, "diffuseColor", mat_env, Eigen::Vector3d::Constant(0.8));
        s.diffuse_color = c.cwiseMax(0.0).cwiseMin(1.0).cast<float>();
      }
    }
    const auto geo_ref = getNode(ctx, n, "geometry", env);
    auto [geo, geo_env] = resolve(ctx, geo_ref.first, geo_ref.second);
    if (!geo) return;
    countVisit(ctx, *geo);
    if (!tessellate(ctx, *geo, geo_env, s)) return;
    if (s.mesh.triangles.empty()) return;
    compact(s.mesh);
    transformShape(s, xf);
    addShape(ctx, *geo, std::move(s));
  }

  void checkBudget(const FileCtx& ctx, const Node& geo, std::size_t tris, std::size_t verts) {
    if (triangles_ + tris > opt_.max_triangles)
      fail(ctx, geo.pos, {},
           "model exceeds the limit of " + std::to_string(opt_.max_triangles) +
               " triangles (VrmlOptions::max_triangles)");
    if (vertices_ + verts > opt_.max_vertices)
      fail(ctx, geo.pos, {},
           "model exceeds the limit of " + std::to_string(opt_.max_vertices) +
               " vertices (VrmlOptions::max_vertices)");
  }

  void addShape(const FileCtx& ctx, const Node& geo, MeshShape s) {
    checkBudget(ctx, geo, s.mesh.triangles.size(), s.mesh.vertices.size());
    // Finite inputs can still overflow (a scale of 1e200 on a coordinate of 1e200).
    for (const auto& v : s.mesh.vertices)
      if (!v.allFinite())
        fail(ctx, geo.pos, {}, "coordinates overflow to infinity after the transforms");
    triangles_ += s.mesh.triangles.size();
    vertices_ += s.mesh.vertices.size();
    out_.shapes.push_back(std::move(s));
  }

  // Keeps only the vertices that triangles use, so vertex counts mean something.
  static void compact(TriangleMesh& m) {
    std::vector<int> remap(m.vertices.size(), -1);
    std::vector<Eigen::Vector3d> used;
    for (auto& t : m.triangles)
      for (int& i : t) {
        auto& r = remap[static_cast<std::size_t>(i)];
        if (r < 0) {
          r = static_cast<int>(used.size());
          used.push_back(m.vertices[static_cast<std::size_t>(i)]);
        }
        i = r;
      }
    m.vertices = std::move(used);
  }

  std::vector<Eigen::Vector3d> points(const FileCtx& ctx, const Node& geo, const Env* env) {
    std::vector<Eigen::Vector3d> pts;
    const auto coord_ref = getNode(ctx, geo, "coord", env);
    auto [coord, coord_env] = resolve(ctx, coord_ref.first, coord_ref.second);
    if (!coord) return pts;
    const auto* p = numbers(ctx, *coord, "point", coord_env, 3, "MFVec3f");
    if (!p) return pts;
    checkBudget(ctx, geo, 0, p->size() / 3);
    pts.reserve(p->size() / 3);
    for (std::size_t i = 0; i + 2 < p->size(); i += 3)
      pts.emplace_back((*p)[i], (*p)[i + 1], (*p)[i + 2]);
    return pts;
  }

  // Tessellates into shape.mesh (a Sphere also sets shape.sphere). Returns false when the node
  // is not solid geometry (and counts it).
  bool tessellate(const FileCtx& ctx, const Node& g, const Env* env, MeshShape& shape) {
    TriangleMesh& mesh = shape.mesh;
    const std::string& t = g.type;
    const int seg = opt_.segments;
    if (t == "Box") {
      mesh = makeBox(getVec3(ctx, g, "size", env, Eigen::Vector3d(2, 2, 2)));
    } else if (t == "Sphere") {
      const double radius = getFloat(ctx, g, "radius", env, 1.0);
      mesh = makeSphere(radius, seg);
      if (radius > 0.0 && std::isfinite(radius))
        shape.sphere = Sphere{Eigen::Vector3d::Zero(), radius};
    } else if (t == "Cylinder") {
      mesh =
          makeCylinder(getFloat(ctx, g, "radius", env, 1.0), getFloat(ctx, g, "height", env, 2.0),
                       seg, getBool(ctx, g, "bottom", env, true),
                       getBool(ctx, g, "side", env, true), getBool(ctx, g, "top", env, true));
    } else if (t == "Cone") {
      mesh =
          makeCone(getFloat(ctx, g, "bottomRadius", env, 1.0), getFloat(ctx, g, "height", env, 2.0),
                   seg, getBool(ctx, g, "bottom", env, true), getBool(ctx, g, "side", env, true));
    } else if (t == "IndexedFaceSet") {
      const auto pts = points(ctx, g, env);
      std::vector<int> index;
      if (const auto* ci = numbers(ctx, g, "coordIndex", env, 1, "MFInt32")) {
        index.reserve(ci->size());
        const vrml::Pos at = field(g, "coordIndex", env).value->pos;
        for (double d : *ci) {
          if (d != std::floor(d) || d >= static_cast<double>(pts.size()) || d < -1.0)
            fail(ctx, at, "IndexedFaceSet.coordIndex",
                 "index " +
                     std::to_string(static_cast<long long>(std::max(std::min(d, 9e18), -9e18))) +
                     " is outside the " + std::to_string(pts.size()) + " coordinates");
          index.push_back(static_cast<int>(d));
        }
      }
      checkBudget(ctx, g, index.size(), 0);
      auto r = vrml::buildIndexedFaceSet(pts, index, getBool(ctx, g, "ccw", env, true),
                                         getBool(ctx, g, "convex", env, true),
                                         opt_.max_polygon_for_ear_clipping);
      out_.dropped_degenerate_faces += r.degenerate_faces;
      mesh = std::move(r.mesh);
    } else if (t == "ElevationGrid") {
      const int xd = getInt(ctx, g, "xDimension", env, 0);
      const int zd = getInt(ctx, g, "zDimension", env, 0);
      const double xs = getFloat(ctx, g, "xSpacing", env, 1.0);
      const double zs = getFloat(ctx, g, "zSpacing", env, 1.0);
      static const std::vector<double> kNone;
      const auto* h = numbers(ctx, g, "height", env, 1, "MFFloat");
      if (xd < 0 || zd < 0)
        fail(ctx, g.pos, "ElevationGrid", "xDimension and zDimension must not be negative");
      const auto cells = static_cast<std::size_t>(xd) * static_cast<std::size_t>(zd);
      if ((h ? h->size() : 0) < cells)
        fail(ctx, g.pos, "ElevationGrid.height",
             "expected xDimension * zDimension = " + std::to_string(cells) + " heights, got " +
                 std::to_string(h ? h->size() : 0));
      checkBudget(ctx, g, 2 * cells, cells);
      mesh = vrml::buildElevationGrid(xd, zd, xs, zs, h ? *h : kNone,
                                      getBool(ctx, g, "ccw", env, true));
    } else if (t == "Extrusion") {
      extrusion(ctx, g, env, mesh);
    } else {
      ++out_.ignored_nodes[t];
      if (!isIgnoredType(t)) warn(ctx, g.pos, "unsupported geometry node '" + t + "' skipped");
      return false;
    }
    return true;
  }

  void extrusion(const FileCtx& ctx, const Node& g, const Env* env, TriangleMesh& mesh) {
    vrml::ExtrusionInput in;
    static const std::vector<double> kCross = {1, 1, 1, -1, -1, -1, -1, 1, 1, 1};
    static const std::vector<double> kSpine = {0, 0, 0, 0, 1, 0};
    const auto* cs = numbers(ctx, g, "crossSection", env, 2, "MFVec2f");
    const auto* sp = numbers(ctx, g, "spine", env, 3, "MFVec3f");
    const auto* sc = numbers(ctx, g, "scale", env, 2, "MFVec2f");
    const auto* orient = numbers(ctx, g, "orientation", env, 4, "MFRotation");
    const auto& csv = cs ? *cs : kCross;
    const auto& spv = sp ? *sp : kSpine;
    // The side alone has (spine points) x (cross-section points) x 2 triangles: refuse before
    // allocating when that exceeds the budget.
    const std::size_t estimate = (spv.size() / 3) * (csv.size() / 2) * 2;
    checkBudget(ctx, g, estimate, estimate / 2);
    for (std::size_t i = 0; i + 1 < csv.size(); i += 2)
      in.cross_section.emplace_back(csv[i], csv[i + 1]);
    for (std::size_t i = 0; i + 2 < spv.size(); i += 3)
      in.spine.emplace_back(spv[i], spv[i + 1], spv[i + 2]);
    if (sc)
      for (std::size_t i = 0; i + 1 < sc->size(); i += 2)
        in.scale.emplace_back((*sc)[i], (*sc)[i + 1]);
    if (orient)
      for (std::size_t i = 0; i + 3 < orient->size(); i += 4)
        in.orientation.push_back(toRotation(&(*orient)[i]));
    in.begin_cap = getBool(ctx, g, "beginCap", env, true);
    in.end_cap = getBool(ctx, g, "endCap", env, true);
    in.ccw = getBool(ctx, g, "ccw", env, true);
    in.convex = getBool(ctx, g, "convex", env, true);
    auto r = vrml::buildExtrusion(in, opt_.max_polygon_for_ear_clipping);
    out_.dropped_degenerate_faces += r.degenerate_faces;
    mesh = std::move(r.mesh);
  }

  /// Where an Inline candidate path leads.
  struct Resolved {
    enum class Kind { kFile, kMissing, kOutside } kind = Kind::kMissing;
    std::string canonical;
  };

  // Canonical paths (symlinks followed) decide whether a file is inside the allowed folders;
  // results are cached because an amplified scene asks for the same path many times.
  const Resolved& resolvePath(const fs::path& p) {
    const auto [it, inserted] = resolved_.try_emplace(p.string());
    if (!inserted) return it->second;
    Resolved& r = it->second;
    std::error_code ec;
    const fs::path c = fs::weakly_canonical(p, ec);
    if (ec) return r;
    r.kind = Resolved::Kind::kOutside;
    for (const auto& root : roots_)
      if (isInside(c, root)) r.kind = Resolved::Kind::kMissing;
    if (r.kind == Resolved::Kind::kOutside) return r;
    if (fs::is_regular_file(c, ec)) {
      r.kind = Resolved::Kind::kFile;
      r.canonical = c.string();
    }
    return r;
  }

  void inlineFile(const FileCtx& ctx, const Node& n, const Env* env, const Eigen::Affine3d& xf,
                  int depth) {
    const Bound b = field(n, "url", env);
    if (!b.value || b.value->kind != Value::Kind::kStrings || b.value->strings.empty()) {
      warn(ctx, n.pos, "Inline without a url skipped");
      return;
    }
    std::string tried;
    for (const std::string& written : b.value->strings) {
      std::string url = written;
      if (url.rfind("file://", 0) == 0) url = url.substr(7);
      if (url.find("://") != std::string::npos || url.rfind("urn:", 0) == 0) {
        warn(ctx, n.pos, "Inline url '" + written + "' is not a local file; skipped");
        continue;
      }
      if (url.empty()) continue;
      // Relative urls: beside the including file first, then in the search paths.
      std::vector<fs::path> candidates;
      if (fs::path(url).is_absolute()) {
        candidates.emplace_back(url);
      } else {
        candidates.push_back(ctx.dir / url);
        for (const auto& d : search_dirs_) candidates.push_back(d / url);
      }
      bool outside = false;
      for (const auto& p : candidates) {
        const Resolved& r = resolvePath(p);
        if (r.kind == Resolved::Kind::kOutside) {
          outside = true;
        } else if (r.kind == Resolved::Kind::kMissing) {
          tried += (tried.empty() ? "" : ", ") + p.string();
        } else {
          loadInline(ctx, n, written, p, r.canonical, xf, depth);
          return;
        }
      }
      if (outside)
        warn(ctx, n.pos,
             "Inline url '" + written +
                 "' leads outside the folder of the top-level file and the search paths "
                 "(VrmlOptions::inline_search_paths); skipped without reading it");
    }
    if (!tried.empty()) warn(ctx, n.pos, "Inline file not found (tried " + tried + "); skipped");
  }

  /// A file read and parsed once, however many Inlines instantiate it.
  struct CachedFile {
    std::shared_ptr<const vrml::ParsedFile> parsed;  ///< null: not a VRML file
    std::size_t bytes = 0;                           ///< read + inflated, charged per instance
    bool reported = false;                           ///< non-finite fields already reported
  };

  void loadInline(const FileCtx& ctx, const Node& n, const std::string& url, const fs::path& p,
                  const std::string& canonical, const Eigen::Affine3d& xf, int depth) {
    if (std::find(inline_stack_.begin(), inline_stack_.end(), canonical) != inline_stack_.end()) {
      warn(ctx, n.pos, "Inline cycle: '" + p.string() + "' is already being loaded; skipped");
      return;
    }
    // The stack holds the top-level file too: its size is the depth of the new file.
    if (static_cast<int>(inline_stack_.size()) > opt_.max_inline_depth) {
      warn(ctx, n.pos,
           "Inline nesting deeper than " + std::to_string(opt_.max_inline_depth) + " files; '" +
               p.string() + "' skipped");
      return;
    }
    const io::SourceLocation where{ctx.path, n.pos.line, n.pos.column, {}};
    auto found = cache_.find(canonical);
    if (found == cache_.end()) {
      CachedFile f;
      const std::string raw = readFile(p.string(), where, opt_, budget_);
      f.bytes = raw.size();
      std::string inflated;
      std::string_view text = raw;
      if (isGzip(text)) {
        inflated = inflateGzip(text, p.string(), where, opt_, budget_);
        f.bytes += inflated.size();
        text = inflated;
      }
      if (looksLikeVrml(text)) f.parsed = parseText(text, p.string());
      found = cache_.emplace(canonical, std::move(f)).first;
    } else {
      budget_.chargeBytes(found->second.bytes, where);
    }
    CachedFile& file = found->second;
    if (!file.parsed) {
      warn(ctx, n.pos,
           "Inline url '" + url + "' is not a VRML97 file (no '#VRML V2.0 utf8' header); skipped");
      return;
    }
    inline_stack_.push_back(canonical);
    evaluateFile(file.parsed, {p.string(), p.parent_path()}, xf, depth);
    inline_stack_.pop_back();
    if (!file.reported) {
      file.reported = true;
      reportNonFinite(*file.parsed, p.string());
    }
  }

  std::shared_ptr<const vrml::ParsedFile> parseText(std::string_view text,
                                                    const std::string& name) {
    vrml::ParseLimits limits;
    limits.max_nesting = opt_.max_nesting;
    limits.deadline = budget_.deadline();
    limits.deadline_problem = budget_.timeProblem();
    auto parsed = std::make_shared<const vrml::ParsedFile>(vrml::parse(text, name, limits));
    for (const auto& w : parsed->warnings) addWarning(w);
    return parsed;
  }

  void evaluateFile(const std::shared_ptr<const vrml::ParsedFile>& parsed, const FileCtx& ctx,
                    const Eigen::Affine3d& xf, int depth) {
    for (const auto& root : parsed->roots) visit(root, nullptr, xf, {}, ctx, depth + 1);
  }

  // Every use of a non-finite number throws, so the ones left after a successful evaluation
  // sit in fields handsim does not read (normals, colours, texture coordinates).
  void reportNonFinite(const vrml::ParsedFile& parsed, const std::string& path) {
    for (const auto& f : parsed.nonfinite)
      addWarning(io::formatLocation({path, f.pos.line, f.pos.column, f.where}) + f.problem +
                 (f.count > 1 ? " (" + std::to_string(f.count) + " such numbers here)" : "") +
                 "; handsim does not use this field, so the file is read anyway");
  }

  const VrmlOptions& opt_;
  LoadedModel& out_;
  Budget& budget_;
  std::vector<fs::path> roots_;        ///< canonical folders Inline files may come from
  std::vector<fs::path> search_dirs_;  ///< VrmlOptions::inline_search_paths, canonical
  std::map<std::string, Resolved> resolved_;
  // Parsed files stay alive for the whole load: PROTO environments point into them.
  std::map<std::string, CachedFile> cache_;
  std::vector<std::unique_ptr<Env>> envs_;
  std::vector<std::string> inline_stack_;  ///< canonical paths, the top-level file first
  std::size_t suppressed_ = 0;
  int proto_depth_ = 0;
  std::size_t visits_ = 0;
  std::size_t triangles_ = 0;
  std::size_t vertices_ = 0;
};

}  // namespace

namespace {

LoadedModel load(std::string_view text, const std::string& name, const VrmlOptions& options,
                 Budget& budget) {
  LoadedModel model;
  Evaluator ev(options, model, budget, name);
  ev.evaluateTop(text, name);
  return model;
}

}  // namespace

LoadedModel parseVrml(std::string_view text, const std::string& name_for_errors,
                      const VrmlOptions& options) {
  Budget budget(options);
  if (text.size() > options.max_file_bytes)
    throw io::InputError({name_for_errors, 0, 0, {}}, "input larger than the limit of " +
                                                          std::to_string(options.max_file_bytes) +
                                                          " bytes (VrmlOptions::max_file_bytes)");
  budget.chargeBytes(text.size(), {name_for_errors, 0, 0, {}});
  return load(text, name_for_errors, options, budget);
}

LoadedModel loadVrml(const std::string& path, const VrmlOptions& options) {
  Budget budget(options);
  const std::string bytes = readFile(path, {path, 0, 0, {}}, options, budget);
  return load(bytes, path, options, budget);
}

}  // namespace handsim::geometry
