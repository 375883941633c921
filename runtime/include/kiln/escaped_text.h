// Escaping text from models and artifacts (tensor, node, step, kernel and
// section names) before a message shows it. Shared, header-only, by the
// compiler's messages, the runtime's statuses and the tools, so that every
// name reaches a terminal the same way. Not installed: no part of the API.
#ifndef KILN_ESCAPED_TEXT_H
#define KILN_ESCAPED_TEXT_H

#include <cstddef>
#include <string>
#include <string_view>

namespace kiln::text {

/// Bytes of a name shown before it is cut ("... (N more bytes)").
constexpr size_t kMaxShownNameBytes = 200;

struct EscapeOptions {
  /// Keep '\n' as it is (whole messages); names escape it.
  bool keepNewlines = false;
  /// Write ' " and \ as \' \" \\ (names, which messages put in quotes).
  bool escapeQuotes = true;
  /// Bytes of |text| shown; the rest is counted.
  size_t maxBytes = kMaxShownNameBytes;
};

/// The length of the valid UTF-8 sequence of 2 to 4 bytes at |bytes| (at
/// most |size| long): no overlong forms, surrogates or code points past
/// U+10FFFF; 0 when there is none.
inline size_t validUTF8SequenceLength(const unsigned char *bytes, size_t size) {
  unsigned char lead = bytes[0];
  size_t length = lead >= 0xc2 && lead <= 0xdf   ? 2
                  : lead >= 0xe0 && lead <= 0xef ? 3
                  : lead >= 0xf0 && lead <= 0xf4 ? 4
                                                 : 0;
  if (length == 0 || length > size)
    return 0;
  for (size_t i = 1; i < length; ++i)
    if ((bytes[i] & 0xc0) != 0x80)
      return 0;
  unsigned char second = bytes[1];
  if ((lead == 0xe0 && second < 0xa0) || (lead == 0xed && second > 0x9f) ||
      (lead == 0xf0 && second < 0x90) || (lead == 0xf4 && second > 0x8f))
    return 0;
  return length;
}

/// |text| with every control byte (and '\n' unless kept), DEL and byte that
/// is not part of valid UTF-8 written as \xNN, quotes and backslashes
/// escaped when asked, and cut after |options.maxBytes| bytes with a count
/// of the rest.
inline std::string escapeText(std::string_view text,
                              const EscapeOptions &options) {
  static const char kHex[] = "0123456789abcdef";
  size_t shown =
      text.size() < options.maxBytes ? text.size() : options.maxBytes;
  const auto *bytes = reinterpret_cast<const unsigned char *>(text.data());
  std::string out;
  out.reserve(shown + 16);
  for (size_t i = 0; i < shown;) {
    unsigned char byte = bytes[i];
    if (byte >= 0x80) {
      if (size_t length = validUTF8SequenceLength(bytes + i, shown - i)) {
        out.append(text.data() + i, length);
        i += length;
        continue;
      }
    } else if (options.escapeQuotes &&
               (byte == '\'' || byte == '"' || byte == '\\')) {
      out += '\\';
      out += char(byte);
      ++i;
      continue;
    } else if ((byte >= 0x20 && byte < 0x7f) ||
               (byte == '\n' && options.keepNewlines)) {
      out += char(byte);
      ++i;
      continue;
    }
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
    ++i;
  }
  if (shown < text.size())
    out += "... (" + std::to_string(text.size() - shown) + " more bytes)";
  return out;
}

/// A name from a model or an artifact, as a message shows it: every
/// non-printable byte, newline and invalid UTF-8 byte as \xNN, quotes
/// escaped, at most kMaxShownNameBytes bytes.
inline std::string escapeName(std::string_view name) {
  return escapeText(name, EscapeOptions());
}

} // namespace kiln::text

#endif // KILN_ESCAPED_TEXT_H
