// Unit tests of user-message hygiene: escaping, shell quoting and the cap
// on repeated diagnostics.
#include "kiln/Dialect/Kiln/IR/Messages.h"

#include <gtest/gtest.h>

using namespace kiln;

namespace {

TEST(EscapeNonPrintable, KeepsPrintableTextAndUTF8) {
  EXPECT_EQ(escapeNonPrintable("node 'relu_0': ok"), "node 'relu_0': ok");
  EXPECT_EQ(escapeNonPrintable("two\nlines"), "two\nlines");
  EXPECT_EQ(escapeNonPrintable("gr\xc3\xb6\xc3\x9f"
                               "e"),
            "gr\xc3\xb6\xc3\x9f"
            "e");
}

// The byte rules are kiln/escaped_text.h's (runtime/test/escaped_text_test.cpp);
// a whole message keeps its newlines and quotes.
TEST(EscapeNonPrintable, EscapesControlAndInvalidBytesOfAMessage) {
  using namespace std::string_literals;
  EXPECT_EQ(escapeNonPrintable("node 'a\x01\0':\n\xff"s),
            "node 'a\\x01\\x00':\n\\xff");
}

TEST(QuoteForShell, QuotesOnlyWhatAShellWouldSplitOrExpand) {
  EXPECT_EQ(quoteForShell("batch=N"), "batch=N");
  EXPECT_EQ(quoteForShell("x=4x?"), "'x=4x?'");
  EXPECT_EQ(quoteForShell("weird name!=N"), "'weird name!=N'");
  EXPECT_EQ(quoteForShell("it's=N"), "'it'\\''s=N'");
  EXPECT_EQ(quoteForShell(""), "''");
}

TEST(RepeatedDiagnosticLimit, ShowsTwentyOfAKindThenCounts) {
  RepeatedDiagnosticLimit limit;
  unsigned shown = 0;
  for (int i = 0; i < 13303; ++i)
    shown += limit.admit("node 'op" + std::to_string(i) +
                         "' (Sin): result type 'tensor<?xf32>' is not static");
  EXPECT_EQ(shown, 20u);
  EXPECT_TRUE(limit.admit("another kind of message"));
  std::vector<std::string> summary = limit.summary();
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(summary[0].rfind("... and 13283 more like it (node 'op0'", 0), 0u)
      << summary[0];
}

TEST(RepeatedDiagnosticLimit, NothingCutNoSummary) {
  RepeatedDiagnosticLimit limit(2);
  EXPECT_TRUE(limit.admit("a 1"));
  EXPECT_TRUE(limit.admit("a 2"));
  EXPECT_FALSE(limit.admit("a 3"));
  EXPECT_TRUE(limit.admit("b"));
  EXPECT_EQ(limit.summary().size(), 1u);
  RepeatedDiagnosticLimit quiet;
  EXPECT_TRUE(quiet.admit("x"));
  EXPECT_TRUE(quiet.summary().empty());
}

} // namespace
