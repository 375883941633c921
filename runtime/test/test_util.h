// Test helpers shared by the runtime tests: status matchers and a device check.
#ifndef KILN_RUNTIME_TEST_UTIL_H
#define KILN_RUNTIME_TEST_UTIL_H

#include "kiln/runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace kiln::testing {

/// Owns a status; frees it at scope exit.
struct StatusHolder {
  kiln_status_t status;
  explicit StatusHolder(kiln_status_t status) : status(status) {}
  ~StatusHolder() { kiln_status_free(status); }
  kiln_status_code_t code() const { return kiln_status_code(status); }
  std::string message() const { return kiln_status_message(status); }
};

/// Succeeds when |status| is OK; prints its message otherwise. Frees it.
inline ::testing::AssertionResult isOk(kiln_status_t status) {
  StatusHolder holder(status);
  if (!status)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << kiln_status_code_name(holder.code()) << ": " << holder.message();
}

/// Succeeds when |status| has |code| and its message contains |text|. Frees it.
inline ::testing::AssertionResult isError(kiln_status_t status,
                                          kiln_status_code_t code,
                                          const std::string &text = "") {
  StatusHolder holder(status);
  if (!status)
    return ::testing::AssertionFailure()
           << "expected " << kiln_status_code_name(code)
           << " but the call succeeded";
  if (holder.code() != code || holder.message().find(text) == std::string::npos)
    return ::testing::AssertionFailure()
           << "expected " << kiln_status_code_name(code) << " containing '"
           << text << "', got " << kiln_status_code_name(holder.code()) << ": "
           << holder.message();
  return ::testing::AssertionSuccess();
}

/// True when a CUDA device is usable (GPU tests skip otherwise).
bool hasCudaDevice();

/// Sets environment variable |name| to |value| (NULL: unsets it) for its
/// lifetime, then restores what it was.
class EnvironmentOverride {
public:
  EnvironmentOverride(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      previous = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~EnvironmentOverride() {
    if (previous)
      setenv(name.c_str(), previous->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
  EnvironmentOverride(const EnvironmentOverride &) = delete;
  EnvironmentOverride &operator=(const EnvironmentOverride &) = delete;

private:
  std::string name;
  std::optional<std::string> previous;
};

} // namespace kiln::testing

#endif // KILN_RUNTIME_TEST_UTIL_H
