// Making user-facing messages safe and short: escaped names, shell-quoted
// hints and a cap on repeated diagnostics.
#ifndef KILN_DIALECT_KILN_IR_MESSAGES_H
#define KILN_DIALECT_KILN_IR_MESSAGES_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace kiln {

/// |text| with every byte that is not printable ASCII, a newline or part of a
/// valid UTF-8 sequence written as \xNN, so that corrupt names in a model
/// cannot reach a terminal as raw bytes (kiln::text::escapeText, shared with
/// the runtime, on a whole message).
std::string escapeNonPrintable(llvm::StringRef text);

/// |argument| as one shell word: unchanged when it holds only characters no
/// shell treats specially ([A-Za-z0-9_./:=,+-@%]), else in single quotes
/// ('weird name!=N'; a ' inside becomes '\''), so a hint can be pasted.
std::string quoteForShell(llvm::StringRef argument);

/// Shows each kind of diagnostic at most |limit| times and counts the rest.
/// Two messages are of one kind when they differ only in numbers, quoted
/// names and <...> types ("result type 'tensor<?xf32>' is not static").
class RepeatedDiagnosticLimit {
public:
  static constexpr unsigned kDefaultLimit = 20;
  explicit RepeatedDiagnosticLimit(unsigned limit = kDefaultLimit)
      : limit(limit) {}

  /// True when |message| should be shown; false when it is one too many of
  /// its kind (it is counted).
  bool admit(llvm::StringRef message);

  /// One line per kind that was cut, in the order the kinds first appeared:
  /// "... and 13283 more like it (result type '...' is not static ...)".
  std::vector<std::string> summary() const;

private:
  struct Kind {
    std::string example;
    unsigned seen = 0;
  };
  unsigned limit;
  llvm::StringMap<unsigned> kindIndex;
  std::vector<Kind> kinds;
};

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_MESSAGES_H
