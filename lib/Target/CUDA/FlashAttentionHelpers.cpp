// The device helpers of the flash attention kernel (tensor-core mma,
// cp.async copies, bf16/f16 packing) as CUDA text, with a plain C++ version
// of each for the host emulator; FlashAttentionEmitter.cpp writes the kernel.
#include "AttentionTemplates.h"

namespace kiln::cuda {
namespace {

// Device helpers of the flash kernel (mma, ldmatrix, exp2, cp.async); @MMA@, @STORAGE@, @PAIR@, @PACK@ and
// @TOFLOAT@ are filled in per dtype. The host-emulation branch (selected by
// the include guard of runtime/kernel-test/emulation/cuda_emulation.h)
// implements the same contracts in plain C++, so that the emulator checks the
// kernel's logic, fragment layouts included, without a GPU.
constexpr const char *kFlashHelpers =
    R"CUDA(// ---- flash attention helpers ----
// Two floats rounded into one 32-bit register of two @STORAGE@: |low| in
// bits 0-15 (the lower column or k index of a fragment pair).
KILN_DEVICE unsigned kiln_flash_pack(float low, float high) {
  @PAIR@ pair = @PACK@(low, high);
  return *reinterpret_cast<unsigned *>(&pair);
}
#ifndef KILN_KERNEL_TEST_CUDA_EMULATION_H
// D += A B for one warp on tensor cores (PTX mma.m16n8k16, fp32 D): A 16x16
// row major, B 16x8, D 16x8. With group = lane / 4 and pair = lane % 4,
// each 32-bit register holds two @STORAGE@ (lower column or k first):
//   a[0] = A[group][2 pair, 2 pair + 1]        a[1] = the same of row group + 8
//   a[2] = A[group][2 pair + 8, 2 pair + 9]    a[3] = the same of row group + 8
//   b0 = B[2 pair, 2 pair + 1][group]          b1 = B[2 pair + 8, 2 pair + 9][group]
//   d[0], d[1] = D[group][2 pair, 2 pair + 1]  d[2], d[3] = the same of row group + 8
KILN_DEVICE void kiln_flash_mma(float (&d)[4], const unsigned (&a)[4],
                                unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.@MMA@.@MMA@.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// Four 8x8 matrices of 16-bit elements from shared memory (ldmatrix .x4):
// lane i gives the address of row i % 8 of matrix i / 8 (16 bytes, aligned);
// with group = lane / 4 and pair = lane % 4, r[q] holds matrix q's elements
//   [group][2 pair, 2 pair + 1]                   (kiln_flash_ldmatrix)
//   [2 pair][group], [2 pair + 1][group]          (kiln_flash_ldmatrix_trans)
// the low one in bits 0-15: the mma's b0/b1 from a B stored [n][k] (keys of
// K) or, transposed, from one stored [k][n] (rows of V).
KILN_DEVICE void kiln_flash_ldmatrix(unsigned (&r)[4], const void *row) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(address));
}
KILN_DEVICE void kiln_flash_ldmatrix_trans(unsigned (&r)[4], const void *row) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(address));
}
// 2^x, one MUFU.EX2 (results below 2^-126 flush to 0; 2^-inf = 0).
KILN_DEVICE float kiln_flash_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// 16 bytes from global to shared memory, asynchronously; zeros when !valid
// (|global| must still be a valid address).
KILN_DEVICE void kiln_flash_copy16(void *shared, const void *global, bool valid) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               ::"r"(address), "l"(global), "r"(valid ? 16 : 0) : "memory");
}
// Closes this thread's current group of copies.
KILN_DEVICE void kiln_flash_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits for all of this thread's groups but the newest.
KILN_DEVICE void kiln_flash_wait_one() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }
// Waits for |threads| threads (whole warps) at named barrier |id| (1 ... 15;
// __syncthreads is barrier 0): one key group of the block, not all of them.
KILN_DEVICE void kiln_flash_group_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
#else
// Host emulation: synchronous copies; the mma gathers its operands from the
// warp's lanes through an exchange, by the layout written above.
static unsigned kiln_flash_exchange[32][32][6];
inline float kiln_flash_element(unsigned pair, unsigned high) {
  const unsigned short bits = static_cast<unsigned short>(high ? pair >> 16 : pair & 0xffffu);
  @STORAGE@ value;
  std::memcpy(&value, &bits, sizeof(bits));
  return @TOFLOAT@(value);
}
inline void kiln_flash_mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned *mine = kiln_flash_exchange[warp][lane];
  for (int i = 0; i < 4; ++i) mine[i] = a[i];
  mine[4] = b0;
  mine[5] = b1;
  __shfl_xor_sync(0xffffffffu, 0, 0);  // A warp barrier: every operand is posted.
  float result[4];
  for (unsigned i = 0; i < 4; ++i) {
    const unsigned row = (lane >> 2) + (i >= 2 ? 8 : 0), col = (lane & 3) * 2 + (i & 1);
    float sum = d[i];
    for (unsigned k = 0; k < 16; ++k) {
      const unsigned *aLane = kiln_flash_exchange[warp][(row & 7) * 4 + (k & 7) / 2];
      const unsigned *bLane = kiln_flash_exchange[warp][col * 4 + (k & 7) / 2];
      sum += kiln_flash_element(aLane[(row >= 8 ? 1 : 0) + (k >= 8 ? 2 : 0)], k & 1) *
             kiln_flash_element(bLane[k >= 8 ? 5 : 4], k & 1);
    }
    result[i] = sum;
  }
  __shfl_xor_sync(0xffffffffu, 0, 0);  // Every lane has read the exchange.
  for (int i = 0; i < 4; ++i) d[i] = result[i];
}
static const unsigned short *kiln_flash_rows[32][32];
inline void kiln_flash_ldmatrix_lanes(unsigned (&r)[4], const void *row, bool transposed) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned group = lane >> 2, pair = lane & 3;
  kiln_flash_rows[warp][lane] = static_cast<const unsigned short *>(row);
  __shfl_xor_sync(0xffffffffu, 0, 0);  // Every row address is posted.
  for (unsigned q = 0; q < 4; ++q) {
    const unsigned short *const *rows = &kiln_flash_rows[warp][8 * q];
    const unsigned low = transposed ? rows[2 * pair][group] : rows[group][2 * pair];
    const unsigned high = transposed ? rows[2 * pair + 1][group] : rows[group][2 * pair + 1];
    r[q] = low | high << 16;
  }
  __shfl_xor_sync(0xffffffffu, 0, 0);  // Every lane has read the addresses.
}
inline void kiln_flash_ldmatrix(unsigned (&r)[4], const void *row) {
  kiln_flash_ldmatrix_lanes(r, row, false);
}
inline void kiln_flash_ldmatrix_trans(unsigned (&r)[4], const void *row) {
  kiln_flash_ldmatrix_lanes(r, row, true);
}
inline float kiln_flash_exp2(float x) { return std::exp2(x); }
inline void kiln_flash_copy16(void *shared, const void *global, bool valid) {
  if (valid) std::memcpy(shared, global, 16);
  else std::memset(shared, 0, 16);
}
inline void kiln_flash_commit() {}
inline void kiln_flash_wait_one() {}
inline void kiln_flash_group_sync(int id, int threads) { kiln_named_barrier_sync(id, threads); }
#endif
// ---- end of flash attention helpers ----)CUDA";

} // namespace

std::string flashHelpers(mlir::Type type) {
  bool bf16 = type.isBF16();
  std::string text = kFlashHelpers;
  std::pair<std::string, std::string> fills[] = {
      {"@MMA@", bf16 ? "bf16" : "f16"},
      {"@STORAGE@", bf16 ? "__nv_bfloat16" : "__half"},
      {"@PAIR@", bf16 ? "__nv_bfloat162" : "__half2"},
      {"@PACK@", bf16 ? "__floats2bfloat162_rn" : "__floats2half2_rn"},
      {"@TOFLOAT@", bf16 ? "__bfloat162float" : "__half2float"}};
  for (const auto &[key, fill] : fills)
    for (size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at + fill.size()))
      text.replace(at, key.size(), fill);
  return text;
}

} // namespace kiln::cuda
