// SPDX-License-Identifier: GPL-3.0-or-later
// handsim's UTF-8 check against nlohmann's (dump throws type_error 316 on exactly the strings
// that are not UTF-8), over random byte strings biased towards the tricky lead bytes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "../support/cli_run.hpp"
#include "handsim/io/utf8.hpp"

namespace {

bool nlohmannAccepts(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

}  // namespace

TEST(Utf8, AgreesWithNlohmannOnRandomBytes) {
  const unsigned char interesting[] = {0x00, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                       0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3,
                                       0xF4, 0xF5, 0xFF, 0x8F, 0x90, 0x9F, 0xA0};
  std::mt19937 rng(12);
  std::uniform_int_distribution<int> length(0, 8), pick(0, sizeof interesting - 1);
  int valid = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    std::string s;
    for (int i = length(rng); i > 0; --i) s += static_cast<char>(interesting[pick(rng)]);
    const bool ok = handsim::io::isValidUtf8(s);
    ASSERT_EQ(ok, nlohmannAccepts(s)) << testing::PrintToString(s);
    const std::string fixed = handsim::io::toValidUtf8(s);
    ASSERT_TRUE(nlohmannAccepts(fixed));
    if (ok) {
      ASSERT_EQ(fixed, s);
      ++valid;
    }
  }
  EXPECT_GT(valid, 1000);  // both kinds were tried
}

TEST(Utf8, EachStrayByteBecomesOneReplacementCharacter) {
  EXPECT_EQ(handsim::io::toValidUtf8("caf\xe9.json"), "caf\xef\xbf\xbd.json");
  // A UTF-16 surrogate (U+D800) encoded as UTF-8 is three stray bytes.
  EXPECT_EQ(handsim::io::toValidUtf8("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(handsim::io::toValidUtf8("\xc3\xa9"), "\xc3\xa9");
}

// A VRML name that is not UTF-8 reaches handsim-cli mesh's JSON through a warning.
TEST(Utf8, CliMeshPrintsNonUtf8NamesAsValidJson) {
  const std::string path =
      ::testing::TempDir() + "/handsim_utf8_" + std::to_string(getpid()) + ".wrl";
  std::ofstream(path, std::ios::binary)
      << "#VRML V2.0 utf8\nShape { geometry Box { size 1 1 1 } }\nFoo\xe9 { }\n";
  const auto r = handsim::test::runCli("mesh '" + path + "'");
  std::remove(path.c_str());
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_NE(j["warnings"][0].get<std::string>().find("Foo\xef\xbf\xbd"), std::string::npos);
}
