// Escaping, shell quoting and the repeated-diagnostic cap of user messages.
#include "kiln/Dialect/Kiln/IR/Messages.h"
#include "kiln/escaped_text.h"

#include "llvm/ADT/StringExtras.h"

namespace kiln {

std::string escapeNonPrintable(llvm::StringRef message) {
  text::EscapeOptions options;
  options.keepNewlines = true;
  options.escapeQuotes = false;
  options.maxBytes = message.size();
  return text::escapeText(std::string_view(message.data(), message.size()),
                          options);
}

std::string quoteForShell(llvm::StringRef argument) {
  auto plain = [](char c) {
    return llvm::isAlnum(c) || llvm::StringRef("_./:=,+-@%").contains(c);
  };
  if (!argument.empty() && llvm::all_of(argument, plain))
    return argument.str();
  std::string quoted = "'";
  for (char c : argument)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

namespace {
/// The kind of |message|: its text without digits, quoted names and <...>.
std::string kindOf(llvm::StringRef message) {
  std::string kind;
  int angle = 0;
  bool quoted = false;
  for (char c : message) {
    if (c == '\'') {
      quoted = !quoted;
      kind += c;
    } else if (quoted) {
      continue;
    } else if (c == '<') {
      ++angle;
    } else if (c == '>' && angle > 0) {
      --angle;
    } else if (angle == 0 && !llvm::isDigit(c)) {
      kind += c;
    }
  }
  return kind;
}
} // namespace

bool RepeatedDiagnosticLimit::admit(llvm::StringRef message) {
  auto [it, inserted] =
      kindIndex.try_emplace(kindOf(message), unsigned(kinds.size()));
  if (inserted)
    kinds.push_back({message.str(), 0});
  Kind &kind = kinds[it->second];
  return ++kind.seen <= limit;
}

std::vector<std::string> RepeatedDiagnosticLimit::summary() const {
  std::vector<std::string> lines;
  for (const Kind &kind : kinds) {
    if (kind.seen <= limit)
      continue;
    llvm::StringRef example = llvm::StringRef(kind.example).split('\n').first;
    if (example.size() > 80)
      example = example.take_front(77);
    lines.push_back("... and " + std::to_string(kind.seen - limit) +
                    " more like it (" + example.str() +
                    (example.size() < kind.example.size() ? "...)" : ")"));
  }
  return lines;
}

} // namespace kiln
