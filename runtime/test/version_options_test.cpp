// Tests of kiln_runtime_version and of option structs that can grow
// (struct_size): defaults, older and newer callers, uninitialised structs.
#include "kiln/artifact_format.h"
#include "options.h"
#include "test_util.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

using namespace kiln::runtime;
using namespace kiln::testing;

namespace {

TEST(VersionTest, ReportsTheLibraryApiAndFormatVersions) {
  std::string version = kiln_runtime_version();
  // MAJOR.MINOR.PATCH, digits only.
  EXPECT_EQ(std::count(version.begin(), version.end(), '.'), 2) << version;
  EXPECT_EQ(version.find_first_not_of("0123456789."), std::string::npos)
      << version;
  EXPECT_EQ(kiln_runtime_api_version(), uint32_t(KILN_RUNTIME_API_VERSION));
  EXPECT_EQ(kiln_runtime_artifact_format_version(),
            kiln::artifact::kNewestFormatVersion);
}

TEST(OptionsTest, InitSetsTheStructSizeAndDefaults) {
  kiln_load_options_t load;
  std::memset(&load, 0x5a, sizeof(load));
  kiln_load_options_init(&load);
  EXPECT_EQ(load.struct_size, sizeof(kiln_load_options_t));
  EXPECT_EQ(load.device_ordinal, 0);
  EXPECT_EQ(load.external_data_dir, nullptr);
  kiln_session_options_t session;
  std::memset(&session, 0x5a, sizeof(session));
  kiln_session_options_init(&session);
  EXPECT_EQ(session.struct_size, sizeof(kiln_session_options_t));
  EXPECT_EQ(session.device_ordinal, -1);
  EXPECT_EQ(session.entry_point, nullptr);
  EXPECT_EQ(session.debug, 0);
}

TEST(OptionsTest, NullMeansDefaults) {
  kiln_session_options_t out;
  EXPECT_EQ(readSessionOptions(nullptr, &out), nullptr);
  EXPECT_EQ(out.struct_size, sizeof(kiln_session_options_t));
  EXPECT_EQ(out.device_ordinal, -1);
}

TEST(OptionsTest, ACallerFieldIsRead) {
  kiln_load_options_t given;
  kiln_load_options_init(&given);
  given.device_ordinal = 3;
  given.external_data_dir = "/weights";
  kiln_load_options_t out;
  EXPECT_EQ(readLoadOptions(&given, &out), nullptr);
  EXPECT_EQ(out.device_ordinal, 3);
  EXPECT_STREQ(out.external_data_dir, "/weights");
}

TEST(OptionsTest, AnOlderCallerGetsDefaultsForFieldsItDoesNotKnow) {
  // A caller whose header ends after |profile| (API version 1): bytes after
  // its struct_size are never read, even when they hold garbage.
  kiln_session_options_t given;
  std::memset(&given, 0x5a, sizeof(given));
  kiln_session_options_init(&given);
  given.profile = 1;
  size_t version1 = offsetof(kiln_session_options_t, profile) + sizeof(int);
  given.struct_size = version1;
  std::vector<unsigned char> bytes(sizeof(given), 0x5a);
  std::memcpy(bytes.data(), &given, version1);
  kiln_session_options_t out;
  EXPECT_EQ(
      readSessionOptions(
          reinterpret_cast<const kiln_session_options_t *>(bytes.data()), &out),
      nullptr);
  EXPECT_EQ(out.profile, 1);
  EXPECT_EQ(out.struct_size, sizeof(kiln_session_options_t));
  kiln_session_options_t defaults;
  kiln_session_options_init(&defaults);
  EXPECT_EQ(std::memcmp(reinterpret_cast<const char *>(&out) + version1,
                        reinterpret_cast<const char *>(&defaults) + version1,
                        sizeof(out) - version1),
            0);
}

TEST(OptionsTest, UninitialisedAndNewerStructsAreRejected) {
  kiln_session_options_t given;
  std::memset(&given, 0, sizeof(given));
  kiln_session_options_t out;
  EXPECT_TRUE(isError(readSessionOptions(&given, &out),
                      KILN_STATUS_INVALID_ARGUMENT,
                      "fill the struct with kiln_session_options_init"));
  kiln_session_options_init(&given);
  given.struct_size += 8;
  EXPECT_TRUE(isError(readSessionOptions(&given, &out),
                      KILN_STATUS_INVALID_ARGUMENT, "a newer kiln runtime"));
  kiln_load_options_t load;
  kiln_load_options_init(&load);
  load.struct_size = sizeof(int);
  kiln_load_options_t loadOut;
  EXPECT_TRUE(isError(readLoadOptions(&load, &loadOut),
                      KILN_STATUS_INVALID_ARGUMENT,
                      "kiln_load_options_t.struct_size is 4"));
}

TEST(OptionsTest, TheApiChecksStructSizeBeforeAnythingElse) {
  kiln_load_options_t load;
  std::memset(&load, 0, sizeof(load));
  kiln_model_t *model = reinterpret_cast<kiln_model_t *>(1);
  std::vector<char> bytes(128, 'x'); // Long enough, but no artifact.
  const char *garbage = bytes.data();
  EXPECT_TRUE(
      isError(kiln_model_load_from_memory(garbage, bytes.size(), &load, &model),
              KILN_STATUS_INVALID_ARGUMENT, "struct_size is 0"));
  EXPECT_EQ(model, nullptr);
  // Initialised: the options pass, the bytes fail.
  kiln_load_options_init(&load);
  EXPECT_TRUE(
      isError(kiln_model_load_from_memory(garbage, bytes.size(), &load, &model),
              KILN_STATUS_INVALID_ARGUMENT, "not a kiln artifact"));
  kiln_session_options_t session;
  std::memset(&session, 0, sizeof(session));
  kiln_session_t *out = nullptr;
  EXPECT_TRUE(isError(kiln_session_create(nullptr, &session, &out),
                      KILN_STATUS_INVALID_ARGUMENT, "struct_size is 0"));
}

} // namespace
