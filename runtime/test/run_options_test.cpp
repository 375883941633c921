// Tests of kiln-run's command line (run_options.cpp): flags, strict numbers,
// --shapes, when the benchmark runs.
#include "run_options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace kiln::run;

namespace {

ParseResult parse(std::vector<const char *> args, RunOptions *options,
                  std::string *error) {
  args.insert(args.begin(), "kiln-run");
  return parseRunOptions(static_cast<int>(args.size()), args.data(), options,
                         error);
}

TEST(RunOptionsTest, ReadsFlagsAndLists) {
  RunOptions options;
  std::string error;
  ASSERT_EQ(
      parse({"m.kiln", "--inputs", "a.npy", "b.npy", "--expect", "dir",
             "--rtol=1e-3", "--atol", "0", "--device", "1", "--entry", "main",
             "--check-nan", "--algo-cache", "algorithms.txt", "--algo-log"},
            &options, &error),
      ParseResult::Run)
      << error;
  EXPECT_EQ(options.model, "m.kiln");
  EXPECT_EQ(options.inputs, (std::vector<std::string>{"a.npy", "b.npy"}));
  EXPECT_EQ(options.expect, std::vector<std::string>{"dir"});
  EXPECT_DOUBLE_EQ(options.tolerance.rtol, 1e-3);
  EXPECT_DOUBLE_EQ(options.tolerance.atol, 0);
  EXPECT_EQ(options.device, 1);
  EXPECT_EQ(options.entry, "main");
  EXPECT_TRUE(options.debug && options.checkNan);
  EXPECT_EQ(options.algorithmCache, "algorithms.txt");
  EXPECT_TRUE(options.algorithmLog);
  // Inputs given and no timing flag: a check, no benchmark.
  EXPECT_FALSE(options.benchmark);
}

TEST(RunOptionsTest, BenchmarksWithTimingFlagsJsonOrGeneratedInputs) {
  RunOptions generated;
  std::string error;
  ASSERT_EQ(parse({"m.kiln"}, &generated, &error), ParseResult::Run);
  EXPECT_TRUE(generated.benchmark);
  EXPECT_TRUE(generated.inputs.empty());
  RunOptions timed;
  ASSERT_EQ(parse({"m.kiln", "--inputs", "d", "--bench", "20", "--warmup", "0",
                   "--duration", "2.5"},
                  &timed, &error),
            ParseResult::Run);
  EXPECT_TRUE(timed.benchmark);
  EXPECT_EQ(timed.iterations, 20);
  EXPECT_EQ(timed.warmup, 0);
  EXPECT_DOUBLE_EQ(timed.durationSeconds, 2.5);
  RunOptions json;
  ASSERT_EQ(
      parse({"m.kiln", "--inputs", "d", "--json", "r.json"}, &json, &error),
      ParseResult::Run);
  EXPECT_TRUE(json.benchmark);
  EXPECT_EQ(json.json, "r.json");
}

TEST(RunOptionsTest, NumbersAreStrictAndNameTheFlag) {
  struct Case {
    std::vector<const char *> args;
    const char *error;
  } cases[] = {
      {{"m.kiln", "--bench", "abc"}, "--bench: 'abc' is not an integer"},
      {{"m.kiln", "--device", "abc"}, "--device: 'abc' is not an integer"},
      {{"m.kiln", "--device", "1x"}, "--device: '1x' is not an integer"},
      {{"m.kiln", "--device", " 1"}, "--device: ' 1' is not an integer"},
      {{"m.kiln", "--device", "-1"}, "--device: -1 is out of range"},
      {{"m.kiln", "--iterations", "0"}, "--iterations: 0 is out of range"},
      {{"m.kiln", "--iterations", "99999999999999999999"},
       "--iterations: '99999999999999999999' is not an integer"},
      {{"m.kiln", "--duration", "nan"}, "--duration: 'nan' is not a number"},
      {{"m.kiln", "--duration", "-1"}, "--duration: -1 is below"},
      {{"m.kiln", "--rtol", ""}, "--rtol: '' is not a number"},
      {{"m.kiln", "--seed", "0x10"}, "--seed: '0x10' is not an integer"},
      {{"m.kiln", "--bench"}, "--bench needs a value"},
      {{"m.kiln", "--debug=yes"}, "--debug takes no value"},
      {{"m.kiln", "--frobnicate"}, "unknown option '--frobnicate'"},
      {{"m.kiln", "extra"}, "unexpected argument 'extra'"},
      {{"--bench", "3"}, "no model"},
      {{"m.kiln", "--inputs"}, "--inputs needs at least one"},
      {{"m.kiln", "--expect", "d"}, "--expect needs --inputs"},
  };
  for (const Case &c : cases) {
    RunOptions options;
    std::string error;
    EXPECT_EQ(parse(c.args, &options, &error), ParseResult::UsageError)
        << c.error;
    EXPECT_NE(error.find(c.error), std::string::npos)
        << "expected '" << c.error << "' in '" << error << "'";
  }
}

TEST(RunOptionsTest, ShapesAndHelpAndVersion) {
  RunOptions options;
  std::string error;
  ASSERT_EQ(parse({"m.kiln", "--shapes", "x=8x128,mask=8x1", "--shapes", "s=7"},
                  &options, &error),
            ParseResult::Run)
      << error;
  ASSERT_EQ(options.shapes.size(), 3u);
  EXPECT_EQ(options.shapes[0].first, "x");
  EXPECT_EQ(options.shapes[0].second, (std::vector<int64_t>{8, 128}));
  EXPECT_EQ(options.shapes[1].second, (std::vector<int64_t>{8, 1}));
  EXPECT_EQ(options.shapes[2].second, std::vector<int64_t>{7});
  for (const char *bad : {"x", "=8", "x=", "x=8xx2", "x=8,"}) {
    RunOptions again;
    EXPECT_EQ(parse({"m.kiln", "--shapes", bad}, &again, &error),
              ParseResult::UsageError)
        << bad;
  }
  RunOptions help;
  EXPECT_EQ(parse({"m.kiln", "--bogus", "--help"}, &help, &error),
            ParseResult::UsageError);
  EXPECT_EQ(parse({"--help"}, &help, &error), ParseResult::Help);
  EXPECT_EQ(parse({"-h"}, &help, &error), ParseResult::Help);
  EXPECT_EQ(parse({"--version"}, &help, &error), ParseResult::Version);
}

} // namespace
