// JSON text for kiln-run's outputs (--profile's trace, --json's report).
#ifndef KILN_RUN_JSON_TEXT_H
#define KILN_RUN_JSON_TEXT_H

#include <string>

namespace kiln::run {

/// |text| as a quoted JSON string (quotes, backslashes and control
/// characters escaped).
std::string jsonString(const std::string &text);

/// |value| as a JSON number; NaN and infinities (not JSON) as null.
std::string jsonNumber(double value);

} // namespace kiln::run

#endif // KILN_RUN_JSON_TEXT_H
