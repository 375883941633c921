// Unit tests of DimExpr, the symbolic extents: canonical form, printing and
// parsing, exact division and overflow.
#include "kiln/Dialect/Kiln/IR/DimExpr.h"

#include <gtest/gtest.h>

#include <map>

using namespace kiln;

namespace {

DimExpr parsed(llvm::StringRef text) {
  std::optional<DimExpr> expr = DimExpr::parse(text);
  EXPECT_TRUE(expr) << text.str();
  return expr ? *expr : DimExpr();
}

TEST(DimExpr, ProductsAreCanonical) {
  DimExpr batch = DimExpr::symbol("batch"), seq = DimExpr::symbol("seq");
  std::optional<DimExpr> left = *(seq * DimExpr::constant(12)) * batch;
  std::optional<DimExpr> right = batch * *(DimExpr::constant(12) * seq);
  ASSERT_TRUE(left && right);
  EXPECT_EQ(*left, *right);
  EXPECT_EQ(left->str(), "batch*seq*12");
  EXPECT_EQ(left->getSymbols(), (std::vector<std::string>{"batch", "seq"}));
}

TEST(DimExpr, SumsMergeLikeTermsAndPrintTheConstantLast) {
  DimExpr seq = DimExpr::symbol("seq");
  std::optional<DimExpr> sum = seq + *(seq - DimExpr::constant(1));
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->str(), "seq*2 - 1");
  std::optional<DimExpr> zero = seq - seq;
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->getConstant(), 0);
  EXPECT_EQ(zero->str(), "0");
}

TEST(DimExpr, PrintedFormParsesBack) {
  for (const char *text : {"batch*seq*12", "seq*2 - 1", "-seq + 4", "768",
                           "\"a b\"*seq", "batch*batch"})
    EXPECT_EQ(parsed(text).str(), text);
  EXPECT_EQ(parsed(" 12 * seq*batch ").str(), "batch*seq*12");
  for (const char *bad : {"", "seq*", "seq**2", "seq +", "1..4", "\"open"})
    EXPECT_FALSE(DimExpr::parse(bad)) << bad;
}

TEST(DimExpr, DividesExactlyByOneTerm) {
  // Reshape's -1: batch*seq*768 elements over [batch, -1, 768].
  DimExpr total = parsed("batch*seq*768");
  std::optional<DimExpr> quotient = divideExactly(total, parsed("batch*768"));
  ASSERT_TRUE(quotient);
  EXPECT_EQ(quotient->str(), "seq");
  EXPECT_FALSE(divideExactly(total, parsed("heads")));
  EXPECT_FALSE(divideExactly(parsed("seq*3"), DimExpr::constant(2)));
  EXPECT_FALSE(divideExactly(total, parsed("batch + 1")));
}

TEST(DimExpr, OverflowIsUnknownNotWrong) {
  DimExpr big = DimExpr::constant(int64_t(1) << 62);
  EXPECT_FALSE(big * DimExpr::constant(4));
  EXPECT_FALSE(big + big);
  EXPECT_FALSE(DimExpr::parse("99999999999999999999*seq"));
}

TEST(DimExpr, EvaluatesWithSizes) {
  std::map<std::string, int64_t> sizes = {{"batch", 8}, {"seq", 77}};
  auto sizeOf = [&](const std::string &name) -> std::optional<int64_t> {
    auto found = sizes.find(name);
    return found == sizes.end() ? std::nullopt
                                : std::optional<int64_t>(found->second);
  };
  EXPECT_EQ(parsed("batch*seq*12 + 1").evaluate(sizeOf), 8 * 77 * 12 + 1);
  EXPECT_FALSE(parsed("heads").evaluate(sizeOf).has_value());
}

} // namespace
