// GPU kernel tests of the flash kernel with two to four key groups
// (block_size 256 to 512, pinned on hand-tiled kernels; kiln-tile-kernels
// gives two groups only to long key ranges over few query tiles,
// flashKeyGroups), against the CPU
// evaluator: the paths of the two-group kernel that tiling's shapes reach
// seldom. g2_causal_grid_stride: a causal mask known at compile time, grid 5
// for 12 query tiles (grid stride), 1 to 4 key tiles per query tile (odd
// counts; group 1 without a tile in query tile 0). g2_posts_overlap: a mask
// read at run time, head sizes 16/128, so the merge's posts reach into
// group 1's own tiles, 9 key tiles (the last predicated), grid stride.
// g2_group0_all_inf: rows whose keys in group 0's tiles are all -inf (key
// j <= i - 64 masked, read at run time): the merge takes group 1's alone.
// Past 48 KiB the tiles are dynamic shared memory (the launch's shared
// bytes): g4_causal_grid_stride, four groups (block_size 512, 73728 bytes)
// over 1 to 8 key tiles per query tile, grid stride; g3_posts_overlap, three
// groups whose posts (69632 bytes) outgrow their tiles (61440); g2_head_128,
// two groups of head size 128 (69632 bytes), a mask read at run time.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case attention_key_groups.g2_causal_grid_stride (2 kernels, 2 launches)
// CHECK: wrote case attention_key_groups.g2_posts_overlap (1 kernels, 1 launches)
// CHECK: wrote case attention_key_groups.g2_group0_all_inf (2 kernels, 2 launches)
// CHECK: wrote case attention_key_groups.g4_causal_grid_stride (2 kernels, 2 launches)
// CHECK: wrote case attention_key_groups.g3_posts_overlap (1 kernels, 1 launches)
// CHECK: wrote case attention_key_groups.g2_head_128 (1 kernels, 1 launches)
// RUN: grep '^launch kiln_attention' %t/attention_key_groups.g2_posts_overlap/manifest.txt | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: launch kiln_attention_{{[0-9a-f]+}} 5 256 0
// RUN: grep '^launch kiln_attention' %t/attention_key_groups.g4_causal_grid_stride/manifest.txt | FileCheck %s --check-prefix=G4
// G4: launch kiln_attention_{{[0-9a-f]+}} 5 512 73728
// RUN: grep '^launch kiln_attention' %t/attention_key_groups.g3_posts_overlap/manifest.txt | FileCheck %s --check-prefix=G3
// G3: launch kiln_attention_{{[0-9a-f]+}} 7 384 69632
// RUN: grep '^launch kiln_attention' %t/attention_key_groups.g2_head_128/manifest.txt | FileCheck %s --check-prefix=G2D128
// G2D128: launch kiln_attention_{{[0-9a-f]+}} 8 256 69632


func.func @g2_causal_grid_stride(%q: tensor<1x3x256x64xf16>, %k: tensor<1x3x256x64xf16>, %v: tensor<1x3x256x64xf16>) -> tensor<1x3x256x64xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %e = kiln.empty : tensor<1x1x256x256xf16>
  %mask = kiln.kernel "causal_mask" data_movement outs(%e : tensor<1x1x256x256xf16>) attributes {block_size = 256 : i64, elements_per_thread = 1 : i64, grid_size = 256 : i64, vector_width = 1 : i64} {
  ^bb0(%o: tensor<1x1x256x256xf16>):
    %big = kiln.constant dense<-65504.0> : tensor<1x1x256x256xf16>
    %one = kiln.constant dense<1> : tensor<i64>
    %m = kiln.trilu %big, %one {upper = true} : tensor<1x1x256x256xf16>, tensor<i64> -> tensor<1x1x256x256xf16>
    kiln.yield %m : tensor<1x1x256x256xf16>
  } -> tensor<1x1x256x256xf16>
  %out = kiln.empty : tensor<1x3x256x64xf16>
  %r = kiln.kernel "attention_strided" attention ins(%q, %k, %v, %mask : tensor<1x3x256x64xf16>, tensor<1x3x256x64xf16>, tensor<1x3x256x64xf16>, tensor<1x1x256x256xf16>) outs(%out : tensor<1x3x256x64xf16>) attributes {block_size = 256 : i64, grid_size = 5 : i64, variant = #kiln.variant<flash>} {
  ^bb0(%a: tensor<1x3x256x64xf16>, %b: tensor<1x3x256x64xf16>, %c: tensor<1x3x256x64xf16>, %d: tensor<1x1x256x256xf16>, %o: tensor<1x3x256x64xf16>):
    %0 = kiln.attention %a, %b, %c, %d {scale = 1.250000e-01 : f32} : tensor<1x3x256x64xf16>, tensor<1x3x256x64xf16>, tensor<1x3x256x64xf16>, tensor<1x1x256x256xf16> -> tensor<1x3x256x64xf16>
    kiln.yield %0 : tensor<1x3x256x64xf16>
  } -> tensor<1x3x256x64xf16>
  return %r : tensor<1x3x256x64xf16>
}

func.func @g2_posts_overlap(%q: tensor<2x3x77x16xf16>, %k: tensor<2x3x520x16xf16>, %v: tensor<2x3x520x128xf16>, %m: tensor<2x1x1x520xf16> {kiln.test_range = [-4.0, 0.0]}) -> tensor<2x3x77x128xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %out = kiln.empty : tensor<2x3x77x128xf16>
  %r = kiln.kernel "attention_g2" attention ins(%q, %k, %v, %m : tensor<2x3x77x16xf16>, tensor<2x3x520x16xf16>, tensor<2x3x520x128xf16>, tensor<2x1x1x520xf16>) outs(%out : tensor<2x3x77x128xf16>) attributes {block_size = 256 : i64, grid_size = 5 : i64, variant = #kiln.variant<flash>} {
  ^bb0(%a: tensor<2x3x77x16xf16>, %b: tensor<2x3x520x16xf16>, %c: tensor<2x3x520x128xf16>, %d: tensor<2x1x1x520xf16>, %o: tensor<2x3x77x128xf16>):
    %0 = kiln.attention %a, %b, %c, %d {scale = 2.500000e-01 : f32} : tensor<2x3x77x16xf16>, tensor<2x3x520x16xf16>, tensor<2x3x520x128xf16>, tensor<2x1x1x520xf16> -> tensor<2x3x77x128xf16>
    kiln.yield %0 : tensor<2x3x77x128xf16>
  } -> tensor<2x3x77x128xf16>
  return %r : tensor<2x3x77x128xf16>
}

func.func @g2_group0_all_inf(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %e = kiln.empty : tensor<1x1x128x128xf16>
  %mask = kiln.kernel "lower_mask" data_movement outs(%e : tensor<1x1x128x128xf16>) attributes {block_size = 256 : i64, elements_per_thread = 1 : i64, grid_size = 64 : i64, vector_width = 1 : i64} {
  ^bb0(%o: tensor<1x1x128x128xf16>):
    %big = kiln.constant dense<0xFC00> : tensor<1x1x128x128xf16>
    %kk = kiln.constant dense<-64> : tensor<i64>
    %m = kiln.trilu %big, %kk {upper = false} : tensor<1x1x128x128xf16>, tensor<i64> -> tensor<1x1x128x128xf16>
    kiln.yield %m : tensor<1x1x128x128xf16>
  } -> tensor<1x1x128x128xf16>
  %out = kiln.empty : tensor<1x2x128x64xf16>
  %r = kiln.kernel "attention_g2c" attention ins(%q, %k, %v, %mask : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x1x128x128xf16>) outs(%out : tensor<1x2x128x64xf16>) attributes {block_size = 256 : i64, grid_size = 1 : i64, variant = #kiln.variant<flash>} {
  ^bb0(%a: tensor<1x2x128x64xf16>, %b: tensor<1x2x128x64xf16>, %c: tensor<1x2x128x64xf16>, %d: tensor<1x1x128x128xf16>, %o: tensor<1x2x128x64xf16>):
    %0 = kiln.attention %a, %b, %c, %d {scale = 1.250000e-01 : f32} : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x1x128x128xf16> -> tensor<1x2x128x64xf16>
    kiln.yield %0 : tensor<1x2x128x64xf16>
  } -> tensor<1x2x128x64xf16>
  return %r : tensor<1x2x128x64xf16>
}

func.func @g4_causal_grid_stride(%q: tensor<1x3x512x64xf16>, %k: tensor<1x3x512x64xf16>, %v: tensor<1x3x512x64xf16>) -> tensor<1x3x512x64xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %e = kiln.empty : tensor<1x1x512x512xf16>
  %mask = kiln.kernel "causal_mask" data_movement outs(%e : tensor<1x1x512x512xf16>) attributes {block_size = 256 : i64, elements_per_thread = 1 : i64, grid_size = 1024 : i64, vector_width = 1 : i64} {
  ^bb0(%o: tensor<1x1x512x512xf16>):
    %big = kiln.constant dense<-65504.0> : tensor<1x1x512x512xf16>
    %one = kiln.constant dense<1> : tensor<i64>
    %m = kiln.trilu %big, %one {upper = true} : tensor<1x1x512x512xf16>, tensor<i64> -> tensor<1x1x512x512xf16>
    kiln.yield %m : tensor<1x1x512x512xf16>
  } -> tensor<1x1x512x512xf16>
  %out = kiln.empty : tensor<1x3x512x64xf16>
  %r = kiln.kernel "attention_g4" attention ins(%q, %k, %v, %mask : tensor<1x3x512x64xf16>, tensor<1x3x512x64xf16>, tensor<1x3x512x64xf16>, tensor<1x1x512x512xf16>) outs(%out : tensor<1x3x512x64xf16>) attributes {block_size = 512 : i64, grid_size = 5 : i64, variant = #kiln.variant<flash>} {
  ^bb0(%a: tensor<1x3x512x64xf16>, %b: tensor<1x3x512x64xf16>, %c: tensor<1x3x512x64xf16>, %d: tensor<1x1x512x512xf16>, %o: tensor<1x3x512x64xf16>):
    %0 = kiln.attention %a, %b, %c, %d {scale = 1.250000e-01 : f32} : tensor<1x3x512x64xf16>, tensor<1x3x512x64xf16>, tensor<1x3x512x64xf16>, tensor<1x1x512x512xf16> -> tensor<1x3x512x64xf16>
    kiln.yield %0 : tensor<1x3x512x64xf16>
  } -> tensor<1x3x512x64xf16>
  return %r : tensor<1x3x512x64xf16>
}

func.func @g3_posts_overlap(%q: tensor<2x3x77x16xf16>, %k: tensor<2x3x520x16xf16>, %v: tensor<2x3x520x128xf16>, %m: tensor<2x1x1x520xf16> {kiln.test_range = [-4.0, 0.0]}) -> tensor<2x3x77x128xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %out = kiln.empty : tensor<2x3x77x128xf16>
  %r = kiln.kernel "attention_g3" attention ins(%q, %k, %v, %m : tensor<2x3x77x16xf16>, tensor<2x3x520x16xf16>, tensor<2x3x520x128xf16>, tensor<2x1x1x520xf16>) outs(%out : tensor<2x3x77x128xf16>) attributes {block_size = 384 : i64, grid_size = 7 : i64, variant = #kiln.variant<flash>} {
  ^bb0(%a: tensor<2x3x77x16xf16>, %b: tensor<2x3x520x16xf16>, %c: tensor<2x3x520x128xf16>, %d: tensor<2x1x1x520xf16>, %o: tensor<2x3x77x128xf16>):
    %0 = kiln.attention %a, %b, %c, %d {scale = 2.500000e-01 : f32} : tensor<2x3x77x16xf16>, tensor<2x3x520x16xf16>, tensor<2x3x520x128xf16>, tensor<2x1x1x520xf16> -> tensor<2x3x77x128xf16>
    kiln.yield %0 : tensor<2x3x77x128xf16>
  } -> tensor<2x3x77x128xf16>
  return %r : tensor<2x3x77x128xf16>
}

func.func @g2_head_128(%q: tensor<1x2x256x128xf16>, %k: tensor<1x2x300x128xf16>, %v: tensor<1x2x300x128xf16>, %m: tensor<1x1x1x300xf16> {kiln.test_range = [-4.0, 0.0]}) -> tensor<1x2x256x128xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %out = kiln.empty : tensor<1x2x256x128xf16>
  %r = kiln.kernel "attention_g2d" attention ins(%q, %k, %v, %m : tensor<1x2x256x128xf16>, tensor<1x2x300x128xf16>, tensor<1x2x300x128xf16>, tensor<1x1x1x300xf16>) outs(%out : tensor<1x2x256x128xf16>) attributes {block_size = 256 : i64, grid_size = 8 : i64, variant = #kiln.variant<flash>} {
  ^bb0(%a: tensor<1x2x256x128xf16>, %b: tensor<1x2x300x128xf16>, %c: tensor<1x2x300x128xf16>, %d: tensor<1x1x1x300xf16>, %o: tensor<1x2x256x128xf16>):
    %0 = kiln.attention %a, %b, %c, %d {scale = 8.838835e-02 : f32} : tensor<1x2x256x128xf16>, tensor<1x2x300x128xf16>, tensor<1x2x300x128xf16>, tensor<1x1x1x300xf16> -> tensor<1x2x256x128xf16>
    kiln.yield %0 : tensor<1x2x256x128xf16>
  } -> tensor<1x2x256x128xf16>
  return %r : tensor<1x2x256x128xf16>
}
