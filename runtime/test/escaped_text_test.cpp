// Tests of kiln/escaped_text.h, the one escaping of names in the messages of
// the runtime, the tools and the compiler.
#include "kiln/escaped_text.h"

#include <gtest/gtest.h>

#include <string>

using kiln::text::escapeName;
using kiln::text::escapeText;
using namespace std::string_literals;

namespace {

TEST(EscapeNameTest, KeepsPrintableASCIIAndValidUTF8) {
  EXPECT_EQ(escapeName("relu_0/out:0"), "relu_0/out:0");
  EXPECT_EQ(escapeName("gr\xc3\xb6\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x94\xa5"),
            "gr\xc3\xb6\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x94\xa5");
  EXPECT_EQ(escapeName(""), "");
}

TEST(EscapeNameTest, WritesControlAndInvalidBytesAsHex) {
  EXPECT_EQ(escapeName("in\nput\xff"), "in\\x0aput\\xff");
  EXPECT_EQ(escapeName("nul\0end"s), "nul\\x00end");
  EXPECT_EQ(escapeName("\x1b[31mred\x7f"), "\\x1b[31mred\\x7f");
  EXPECT_EQ(escapeName("tab\there\r"), "tab\\x09here\\x0d");
  // A cut sequence, an overlong '/', a surrogate and a code point past
  // U+10FFFF are not UTF-8: each byte is escaped.
  EXPECT_EQ(escapeName("cut \xc3"), "cut \\xc3");
  EXPECT_EQ(escapeName("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(escapeName("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(escapeName("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
}

TEST(EscapeNameTest, EscapesQuotesAndBackslashes) {
  EXPECT_EQ(escapeName("it's \"x\"\\y"), "it\\'s \\\"x\\\"\\\\y");
}

TEST(EscapeNameTest, CutsLongNamesWithACount) {
  std::string name(kiln::text::kMaxShownNameBytes + 50, 'a');
  EXPECT_EQ(escapeName(name),
            std::string(kiln::text::kMaxShownNameBytes, 'a') +
                "... (50 more bytes)");
  EXPECT_EQ(escapeName(std::string(kiln::text::kMaxShownNameBytes, 'b')),
            std::string(kiln::text::kMaxShownNameBytes, 'b'));
}

TEST(EscapeTextTest, MessagesKeepNewlinesAndQuotes) {
  kiln::text::EscapeOptions options;
  options.keepNewlines = true;
  options.escapeQuotes = false;
  options.maxBytes = 1000;
  EXPECT_EQ(escapeText("node 'a\x01':\nnext", options),
            "node 'a\\x01':\nnext");
}

} // namespace
