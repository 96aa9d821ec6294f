// SPDX-License-Identifier: GPL-3.0-or-later
// Small hostile inputs of the kind the fuzzer (tests/fuzz) produces: each must load or throw
// InputError, never crash, hang or throw anything else. Inputs the fuzzer finds that break this
// rule are added here before they are fixed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "handsim/formats/vrml_reader.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::geometry {
namespace {

const std::vector<std::string>& inputs() {
  static const std::vector<std::string> kInputs = {
      "",
      "#VRML V2.0 utf8",
      "#VRML V2.0 utf8\n{",
      "#VRML V2.0 utf8\n}",
      "#VRML V2.0 utf8\n]",
      "DEF",
      "DEF x",
      "USE",
      "PROTO",
      "PROTO P",
      "PROTO P [",
      "PROTO P [ field",
      "PROTO P [ field SFFloat",
      "PROTO P [ field SFFloat a",
      "PROTO P [ ] {",
      "PROTO P [ ] { } P",
      "PROTO P [ ] { } P {",
      "EXTERNPROTO E [ ]",
      "ROUTE a",
      "ROUTE a.b TO",
      "ROUTE a.b FROM c.d",
      "\"",
      "Group { children \"\\",
      "0x",
      "-",
      ".",
      "1e",
      "+.e-",
      std::string("Group {\0}", 9),
      "Group { children [ NULL ] }",
      "NULL",
      "Group { children IS x }",
      "Shape { geometry IndexedFaceSet { coordIndex [ 0 1 2 ] } }",
      "Shape { geometry IndexedFaceSet { coord Coordinate { point [ 0 0 0 ] } coordIndex [ -2 ] } "
      "}",
      "Shape { geometry IndexedFaceSet { coord Coordinate { point [ 0 0 0 ] } coordIndex 0.5 } }",
      "Shape { geometry IndexedFaceSet { coord NULL coordIndex [ ] } }",
      "Shape { geometry IndexedFaceSet { coord Box { } coordIndex [ 0 ] } }",
      "Shape { geometry USE nothing }",
      "Shape { geometry Shape { geometry Box { } } }",
      "Shape { geometry [ Box { } Sphere { } ] }",
      "Shape { geometry 3 }",
      "Shape { appearance 1 geometry Box { } }",
      "Shape { appearance Appearance { material Material { diffuseColor TRUE } } geometry Box { } "
      "}",
      "Switch { whichChoice 2147483648 choice [ ] }",
      "Switch { whichChoice -2147483649 }",
      "Switch { whichChoice 0x7fffffff choice Shape { geometry Box { } } }",
      "Switch { whichChoice 0xffffffffffffffffffff }",
      "LOD { level [ ] }",
      "Transform { rotation 0 0 0 1 children Shape { geometry Box { } } }",
      "Transform { scale 0 0 0 children Shape { geometry Sphere { } } }",
      "Transform { translation 1e308 1e308 1e308 scale 1e308 1 1 children Shape { geometry Box { } "
      "} }",
      "Shape { geometry Extrusion { spine [ 0 0 0 ] } }",
      "Shape { geometry Extrusion { spine [ 0 0 0, 0 0 0, 0 0 0 ] } }",
      "Shape { geometry Extrusion { crossSection [ 0 0 ] } }",
      "Shape { geometry Extrusion { crossSection [ 0 0, 0 0, 0 0 ] convex FALSE } }",
      "Shape { geometry Extrusion { spine [ 0 0 0, 0 -1 0 ] orientation [ 0 0 0 0 ] scale [ 0 0 ] "
      "} }",
      "Shape { geometry Extrusion { spine [ 0 0 0, 1 0 0, 0 0 0 ] } }",
      "Shape { geometry Extrusion { spine [ 0 0 0, 1 0 0, 2 0 0, 0 0 0 ] } }",
      "Shape { geometry ElevationGrid { xDimension -1 zDimension 5 } }",
      "Shape { geometry ElevationGrid { xDimension 100000 zDimension 100000 height [ 0 ] } }",
      "Shape { geometry ElevationGrid { xDimension 2147483647 zDimension 2147483647 } }",
      "Shape { geometry Sphere { radius -1 } }",
      "Shape { geometry Cylinder { radius 0 height 0 } }",
      "Inline { url [ \"\" \"/\" \"..\" \"http://x\" ] }",
      "Inline { url 3 }",
      "Inline { }",
      "Script { eventIn SFBool IS }",
      "Script { field SFNode n USE }",
      "Script { field }",
      "PROTO P [ field MFNode c [ ] ] { Group { children IS c } } P { c [ P { } P { c P { } } ] }",
      "PROTO P [ field SFNode g NULL ] { Shape { geometry IS g } } P { g Box { } } P { }",
      "PROTO P [ ] { } PROTO P [ ] { Box { } } Shape { geometry P { } }",
      "DEF A Group { } DEF A Shape { geometry Box { } } USE A",
      "Group { children [ Group { children [ Group { } ] } ] ] }",
  };
  return kInputs;
}

TEST(VrmlHostileInput, LoadsOrThrowsInputError) {
  VrmlOptions o;
  o.max_triangles = 100'000;
  o.max_vertices = 100'000;
  for (const auto& body : inputs()) {
    for (const std::string& text : {body, "#VRML V2.0 utf8\n" + body}) {
      try {
        const auto m = parseVrml(text, "/nonexistent/hostile.wrl", o);
        (void)m.merged();
      } catch (const io::InputError& e) {
        EXPECT_EQ(e.location().file, "/nonexistent/hostile.wrl") << text;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "unexpected " << e.what() << " for:\n" << text;
      }
    }
  }
}

}  // namespace
}  // namespace handsim::geometry
