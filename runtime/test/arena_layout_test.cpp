// Tests of the session arena layout: one 256-byte-aligned cuBLASLt workspace
// per stream after the activations, and overflow-checked rounding.
#include "arena_layout.h"
#include "artifact_builder.h"
#include "session.h"
#include "test_util.h"

#include "kiln/artifact_format.h"

using namespace kiln::testing;
using namespace kiln::runtime;
using namespace kiln::artifact;

namespace {

TEST(ArenaLayoutTest, OneWorkspaceSlicePerStream) {
  ArenaLayout layout;
  ASSERT_TRUE(isOk(computeArenaLayout(300, 1000, 3, &layout)));
  EXPECT_EQ(layout.workspaceBytes, 1000u);
  ASSERT_EQ(layout.workspaceOffsets.size(), 3u);
  // Activations round up to 512; each 1000-byte slice takes 1024.
  EXPECT_EQ(layout.workspaceOffsets[0], 512u);
  EXPECT_EQ(layout.workspaceOffsets[1], 1536u);
  EXPECT_EQ(layout.workspaceOffsets[2], 2560u);
  EXPECT_EQ(layout.totalBytes, 3584u);
  for (size_t i = 0; i < layout.workspaceOffsets.size(); ++i) {
    EXPECT_EQ(layout.workspaceOffsets[i] % 256, 0u) << "slice " << i;
    if (i > 0) {
      EXPECT_GE(layout.workspaceOffsets[i] - layout.workspaceOffsets[i - 1],
                layout.workspaceBytes)
          << "slices " << i - 1 << " and " << i << " overlap";
    }
  }
}

TEST(ArenaLayoutTest, NoWorkspaceWithoutGemms) {
  ArenaLayout layout;
  ASSERT_TRUE(isOk(computeArenaLayout(256, 0, 4, &layout)));
  EXPECT_TRUE(layout.workspaceOffsets.empty());
  EXPECT_EQ(layout.totalBytes, 256u);
  ASSERT_TRUE(isOk(computeArenaLayout(0, 0, 1, &layout)));
  EXPECT_EQ(layout.totalBytes, 0u);
}

TEST(ArenaLayoutTest, OverflowIsAnError) {
  ArenaLayout layout;
  EXPECT_TRUE(isError(computeArenaLayout(UINT64_MAX, 0, 1, &layout),
                      KILN_STATUS_DATA_LOSS, "do not fit in 64 bits"));
  EXPECT_TRUE(isError(computeArenaLayout(256, UINT64_MAX - 10, 1, &layout),
                      KILN_STATUS_DATA_LOSS, "do not fit in 64 bits"));
  EXPECT_TRUE(isError(computeArenaLayout(256, uint64_t(1) << 62, 8, &layout),
                      KILN_STATUS_DATA_LOSS, "do not fit in 64 bits"));
}

TEST(ArenaLayoutTest, CheckedAlignUp) {
  using kiln::artifact::checkedAlignUp;
  uint64_t value = 7;
  EXPECT_TRUE(checkedAlignUp(0, 256, &value));
  EXPECT_EQ(value, 0u);
  EXPECT_TRUE(checkedAlignUp(257, 256, &value));
  EXPECT_EQ(value, 512u);
  EXPECT_TRUE(checkedAlignUp(UINT64_MAX - 255, 256, &value));
  EXPECT_EQ(value, UINT64_MAX - 255);
  value = 7;
  EXPECT_FALSE(checkedAlignUp(UINT64_MAX - 254, 256, &value));
  EXPECT_EQ(value, 7u) << "a failed align-up must not write its result";
}

// keep_step_outputs: each activation its own 256-byte-aligned range, in
// buffer order, whatever the manifest's shared offsets; other kinds none.
TEST(ArenaLayoutTest, PrivateActivationOffsetsDoNotOverlap) {
  EntryPointT entryT;
  entryT.name = "main";
  entryT.buffers.push_back(makeBuffer(BufferKind_Input, {4}, 0, 0));
  entryT.buffers.push_back(makeBuffer(BufferKind_Activation, {100}, 0));
  entryT.buffers.push_back(makeBuffer(BufferKind_Activation, {3}, 0));
  entryT.buffers.push_back(makeBuffer(BufferKind_Alias, {3}));
  entryT.buffers.back()->alias_of = 2;
  entryT.buffers.push_back(makeBuffer(BufferKind_Activation, {64}, 512));
  entryT.buffers.push_back(makeBuffer(BufferKind_Output, {64}, 0, 0));
  entryT.activation_arena_bytes = 768;
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(EntryPoint::Pack(builder, &entryT));
  const EntryPoint *entry =
      flatbuffers::GetRoot<EntryPoint>(builder.GetBufferPointer());
  std::vector<uint64_t> offsets;
  uint64_t bytes = 0;
  ASSERT_TRUE(isOk(privateActivationOffsets(*entry, &offsets, &bytes)));
  // 400 bytes round up to 512, 12 to 256, 256 stays.
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 0, 512, 0, 768, 0}));
  EXPECT_EQ(bytes, 1024u);

  entryT.buffers[4]->bytes = UINT64_MAX - 100;
  flatbuffers::FlatBufferBuilder huge;
  huge.Finish(EntryPoint::Pack(huge, &entryT));
  EXPECT_TRUE(isError(
      privateActivationOffsets(
          *flatbuffers::GetRoot<EntryPoint>(huge.GetBufferPointer()), &offsets,
          &bytes),
      KILN_STATUS_DATA_LOSS, "take more than 64 bits"));
}

// A slice view (an alias with an offset) of a slice view reads from the sum
// of the chain's offsets; a reshape of one keeps its offset.
TEST(ArenaLayoutTest, AliasOffsetsAddAlongTheChain) {
  EntryPointT entryT;
  entryT.name = "main";
  entryT.buffers.push_back(makeBuffer(BufferKind_Activation, {3, 256}, 512));
  entryT.buffers.push_back(makeBuffer(BufferKind_Alias, {2, 256}, 1024));
  entryT.buffers.back()->alias_of = 0;
  entryT.buffers.push_back(makeBuffer(BufferKind_Alias, {1, 256}, 1024));
  entryT.buffers.back()->alias_of = 1;
  entryT.buffers.push_back(makeBuffer(BufferKind_Alias, {256}));
  entryT.buffers.back()->alias_of = 2;
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(EntryPoint::Pack(builder, &entryT));
  const EntryPoint *entry =
      flatbuffers::GetRoot<EntryPoint>(builder.GetBufferPointer());
  EXPECT_EQ(aliasByteOffset(*entry, 0), 0u) << "not an alias";
  EXPECT_EQ(aliasByteOffset(*entry, 1), 1024u);
  EXPECT_EQ(aliasByteOffset(*entry, 2), 2048u);
  EXPECT_EQ(aliasByteOffset(*entry, 3), 2048u);
}

} // namespace
