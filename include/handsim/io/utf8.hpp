// SPDX-License-Identifier: GPL-3.0-or-later
// Text from users (file names, file contents) can hold any bytes; what handsim prints or puts in
// JSON must be UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace handsim::io {

/// True when `text` is well-formed UTF-8 (The Unicode Standard 15.0, sec. 3.9, table 3-7).
bool isValidUtf8(std::string_view text);

/// `text` with every byte that does not belong to a well-formed UTF-8 sequence replaced by
/// U+FFFD REPLACEMENT CHARACTER (as nlohmann's error_handler_t::replace does); valid text is
/// returned unchanged.
std::string toValidUtf8(std::string_view text);

}  // namespace handsim::io
