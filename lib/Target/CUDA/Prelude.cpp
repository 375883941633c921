// The CUDA prelude included in every generated kernel: device functions that
// reproduce the scalar-semantics table (ScalarSemantics.cpp) exactly, the
// dtype conversions, vector types and warp/block reductions; and the part
// bounds-checked kernels add (their fault record and index check).
#include "kiln/Target/CUDA/CUDAEmitter.h"
#include "kiln/artifact_format.h"

#include <string>

namespace kiln {

const char *getCUDAPrelude() {
  return R"CUDA(#include <cuda_fp16.h>
#include <cuda_bf16.h>

// ---- kiln prelude: the scalar-semantics table on the GPU ----
#define KILN_DEVICE static __device__ __forceinline__
// Float math: the float overloads serve f16/bf16/f32, the double ones f64.
KILN_DEVICE float kiln_exp(float x) { return expf(x); }
KILN_DEVICE double kiln_exp(double x) { return exp(x); }
KILN_DEVICE float kiln_log(float x) { return logf(x); }
KILN_DEVICE double kiln_log(double x) { return log(x); }
KILN_DEVICE float kiln_sqrt(float x) { return sqrtf(x); }
KILN_DEVICE double kiln_sqrt(double x) { return sqrt(x); }
KILN_DEVICE float kiln_tanh(float x) { return tanhf(x); }
KILN_DEVICE double kiln_tanh(double x) { return tanh(x); }
KILN_DEVICE float kiln_erf(float x) { return erff(x); }
KILN_DEVICE double kiln_erf(double x) { return erf(x); }
// GELU, exact and tanh forms (kiln.gelu); the float overloads serve f16/bf16.
KILN_DEVICE float kiln_gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
KILN_DEVICE double kiln_gelu(double x) { return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440)); }
KILN_DEVICE float kiln_gelu_tanh(float x) {
  return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
}
KILN_DEVICE double kiln_gelu_tanh(double x) {
  return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}
KILN_DEVICE float kiln_abs(float x) { return fabsf(x); }
KILN_DEVICE double kiln_abs(double x) { return fabs(x); }
KILN_DEVICE float kiln_pow(float x, float y) { return powf(x, y); }
KILN_DEVICE double kiln_pow(double x, double y) { return pow(x, y); }
// pow(x, 2) as one rounded product: powf's general path (log2, exp2) costs
// dozens of dependent instructions per element (T5's RMSNorm variance ran
// its row reduction at 0.03 of the copy bandwidth on the H200), and x * x
// is the correctly rounded square (powf is within 2 ulp of it).
KILN_DEVICE float kiln_square(float x) { return x * x; }
KILN_DEVICE double kiln_square(double x) { return x * x; }
KILN_DEVICE float kiln_reciprocal(float x) { return 1.0f / x; }  // 1/0 = inf
KILN_DEVICE double kiln_reciprocal(double x) { return 1.0 / x; }
// relu(NaN) = NaN.
KILN_DEVICE float kiln_relu(float x) { return x < 0.0f ? 0.0f : x; }
KILN_DEVICE double kiln_relu(double x) { return x < 0.0 ? 0.0 : x; }
// x >= 0: 1/(1+e^-x), else e^x/(1+e^x): no overflow. Written without a
// branch (e = e^-|x| serves both cases, the numerator is selected) and so
// bit-identical to the two-branch form; with a branch, a warp whose lanes
// have both signs ran two exps and two divisions per element, which made
// sigmoid chains compute-bound.
KILN_DEVICE float kiln_sigmoid(float x) {
  const float e = expf(-fabsf(x));
  return (x >= 0.0f ? 1.0f : e) / (1.0f + e);
}
KILN_DEVICE double kiln_sigmoid(double x) {
  const double e = exp(-fabs(x));
  return (x >= 0.0 ? 1.0 : e) / (1.0 + e);
}
// For an f16 result (the table's cudaHalf): the same form with the hardware
// exp2 and reciprocal (__expf within 2 + 1.2|x| ulp of f32, so at most
// 23 ulp for the |x| <= 17.4 where an f16 sigmoid is not 0 or 1: 2.7e-6
// relative, against f16's 4.9e-4 half-ulp; __fdividef 2 ulp for a divisor
// in [1, 2]); expf and the IEEE division took ~25 instructions a sigmoid,
// which made EfficientNet's SiLU (9.6M elements) as slow as its memory
// traffic. Subnormal e^-|x| (|x| > 87) flushes to 0, where the f16 result
// is 0 anyway.
KILN_DEVICE float kiln_sigmoid_f16(float x) {
  const float e = __expf(-fabsf(x));
  return __fdividef(x >= 0.0f ? 1.0f : e, 1.0f + e);
}
// NaN if either operand is NaN (the combiner of ReduceMax).
KILN_DEVICE float kiln_max(float a, float b) {
  if (a != a || b != b) return __int_as_float(0x7fc00000);
  return a < b ? b : a;
}
KILN_DEVICE double kiln_max(double a, double b) {
  if (a != a || b != b) return __longlong_as_double(0x7ff8000000000000LL);
  return a < b ? b : a;
}
// Integers are held as long long (u64 as its bit pattern); arithmetic wraps
// through unsigned, |u| selects unsigned semantics.
typedef unsigned long long kiln_u64;
KILN_DEVICE long long kiln_iadd(long long a, long long b) { return (long long)((kiln_u64)a + (kiln_u64)b); }
KILN_DEVICE long long kiln_isub(long long a, long long b) { return (long long)((kiln_u64)a - (kiln_u64)b); }
KILN_DEVICE long long kiln_imul(long long a, long long b) { return (long long)((kiln_u64)a * (kiln_u64)b); }
KILN_DEVICE long long kiln_ineg(long long a) { return (long long)(0ULL - (kiln_u64)a); }
KILN_DEVICE long long kiln_iabs(long long a, bool u) { return (u || a >= 0) ? a : kiln_ineg(a); }
KILN_DEVICE long long kiln_irelu(long long a, bool u) { return (u || a > 0) ? a : 0LL; }
KILN_DEVICE long long kiln_imax(long long a, long long b, bool u) {
  if (u) return (kiln_u64)a < (kiln_u64)b ? b : a;
  return a < b ? b : a;
}
KILN_DEVICE bool kiln_iless(long long a, long long b, bool u) {
  return u ? (kiln_u64)a < (kiln_u64)b : a < b;
}
// Truncates toward zero; INT_MIN / -1 wraps. Division by zero, an error in
// the CPU evaluator, is defined as 0 on the GPU.
KILN_DEVICE long long kiln_idiv(long long x, long long y, bool u) {
  if (y == 0) return 0;
  if (u) return (long long)((kiln_u64)x / (kiln_u64)y);
  if (x == (-9223372036854775807LL - 1) && y == -1) return x;
  return x / y;
}
// x^y wrapping; signed x^-n is trunc(1/x^n).
KILN_DEVICE long long kiln_ipow(long long x, long long y, bool u) {
  if (y < 0 && !u) {
    if (x == 1) return 1;
    if (x == -1) return (y & 1) ? -1 : 1;
    return 0;
  }
  kiln_u64 base = (kiln_u64)x, result = 1, e = (kiln_u64)y;
  while (e) {
    if (e & 1) result *= base;
    base *= base;
    e >>= 1;
  }
  return (long long)result;
}
// Cast float -> integer: truncate, saturate to [lo, hi], NaN -> 0.
KILN_DEVICE long long kiln_f2i(double v, double lo, double hi) {
  if (v != v) return 0;
  const double t = trunc(v);
  if (t <= lo) return (long long)lo;
  if (t >= hi) return (long long)hi;
  return (long long)t;
}
KILN_DEVICE long long kiln_f2i64(double v) {
  if (v != v) return 0;
  const double t = trunc(v);
  if (t <= -9223372036854775808.0) return (-9223372036854775807LL - 1);
  if (t >= 9223372036854775808.0) return 9223372036854775807LL;
  return (long long)t;
}
KILN_DEVICE long long kiln_f2u64(double v) {
  if (v != v) return 0;
  const double t = trunc(v);
  if (t <= 0.0) return 0;
  if (t >= 18446744073709551616.0) return (long long)~0ULL;
  return (long long)(kiln_u64)t;
}
// Round to f16 / bf16 (nearest even, overflow -> inf), computed in float.
KILN_DEVICE float kiln_round_f16(float x) { return __half2float(__float2half_rn(x)); }
KILN_DEVICE float kiln_round_f16(double x) { return __half2float(__double2half(x)); }
KILN_DEVICE float kiln_round_bf16(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }
KILN_DEVICE float kiln_round_bf16(double x) { return __bfloat162float(__double2bfloat16(x)); }
// Gather: a negative index counts from the back; out-of-range indices are
// clamped into [0, dim) (the CPU evaluator reports them as errors).
KILN_DEVICE long long kiln_gather_index(long long i, long long dim) {
  if (i < 0) i += dim;
  return i < 0 ? 0 : (i >= dim ? dim - 1 : i);
}
// ---- math and logic rows (KilnMathOps.td; CPU side in MathSemantics.cpp) ----
#define KILN_FLOAT_FN(name, f32, f64) \
  KILN_DEVICE float kiln_##name(float x) { return f32(x); } \
  KILN_DEVICE double kiln_##name(double x) { return f64(x); }
KILN_FLOAT_FN(acos, acosf, acos)
KILN_FLOAT_FN(acosh, acoshf, acosh)
KILN_FLOAT_FN(asin, asinf, asin)
KILN_FLOAT_FN(asinh, asinhf, asinh)
KILN_FLOAT_FN(atan, atanf, atan)
KILN_FLOAT_FN(atanh, atanhf, atanh)
KILN_FLOAT_FN(cos, cosf, cos)
KILN_FLOAT_FN(cosh, coshf, cosh)
KILN_FLOAT_FN(sin, sinf, sin)
KILN_FLOAT_FN(sinh, sinhf, sinh)
KILN_FLOAT_FN(tan, tanf, tan)
KILN_FLOAT_FN(ceil, ceilf, ceil)
KILN_FLOAT_FN(floor, floorf, floor)
KILN_FLOAT_FN(round, rintf, rint)  // Halfway cases to even.
#undef KILN_FLOAT_FN
// sign(±0) = ±0, sign(NaN) = NaN.
template <typename T> KILN_DEVICE T kiln_sign(T x) { return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x); }
KILN_DEVICE long long kiln_isign(long long a, bool u) { return u ? (long long)(a != 0) : (long long)((a > 0) - (a < 0)); }
template <typename T> KILN_DEVICE bool kiln_isinf(T x, T pos, T neg) {
  return isinf(x) && (x > T(0) ? pos != T(0) : neg != T(0));
}
// x > 0: x + ln(1 + e^-x), else ln(1 + e^x): no overflow.
KILN_DEVICE float kiln_softplus(float x) { return x > 0.0f ? x + log1pf(expf(-x)) : log1pf(expf(x)); }
KILN_DEVICE double kiln_softplus(double x) { return x > 0.0 ? x + log1p(exp(-x)) : log1p(exp(x)); }
template <typename T> KILN_DEVICE T kiln_softsign(T x) { return x / (T(1) + (x < T(0) ? -x : x)); }
template <typename T> KILN_DEVICE T kiln_clamp01(T v) { return v < T(0) ? T(0) : (v > T(1) ? T(1) : v); }
template <typename T> KILN_DEVICE T kiln_hard_swish(T x) { return x * kiln_clamp01(x / T(6) + T(0.5)); }
template <typename T> KILN_DEVICE T kiln_hard_sigmoid(T x, T alpha, T beta) { return kiln_clamp01(alpha * x + beta); }
KILN_DEVICE float kiln_expm1(float x) { return expm1f(x); }
KILN_DEVICE double kiln_expm1(double x) { return expm1(x); }
template <typename T> KILN_DEVICE T kiln_elu(T x, T alpha) { return x < T(0) ? alpha * kiln_expm1(x) : x; }
template <typename T> KILN_DEVICE T kiln_selu(T x, T alpha, T gamma) {
  return x <= T(0) ? gamma * (alpha * kiln_exp(x) - alpha) : gamma * x;
}
template <typename T> KILN_DEVICE T kiln_celu(T x, T alpha) {
  if (x != x) return x;
  const T neg = alpha * kiln_expm1(x / alpha);
  return (x > T(0) ? x : T(0)) + (neg < T(0) ? neg : T(0));
}
template <typename T> KILN_DEVICE T kiln_leaky_relu(T x, T alpha) { return x < T(0) ? alpha * x : x; }
template <typename T> KILN_DEVICE T kiln_thresholded_relu(T x, T alpha) { return x <= alpha ? T(0) : x; }
template <typename T> KILN_DEVICE T kiln_shrink(T x, T bias, T lambd) {
  if (x < -lambd) return x + bias;
  if (x > lambd) return x - bias;
  return x != x ? x : T(0);
}
template <typename T> KILN_DEVICE T kiln_prelu(T x, T slope) { return x < T(0) ? slope * x : x; }
KILN_DEVICE long long kiln_iprelu(long long a, long long b, bool u) { return (u || a >= 0) ? a : kiln_imul(a, b); }
// NaN if either operand is NaN.
KILN_DEVICE float kiln_min(float a, float b) {
  if (a != a || b != b) return __int_as_float(0x7fc00000);
  return b < a ? b : a;
}
KILN_DEVICE double kiln_min(double a, double b) {
  if (a != a || b != b) return __longlong_as_double(0x7ff8000000000000LL);
  return b < a ? b : a;
}
KILN_DEVICE long long kiln_imin(long long a, long long b, bool u) { return kiln_iless(b, a, u) ? b : a; }
// Mod: the sign of the divisor (Python %); FMod: the sign of the dividend.
// Integer x % 0, an error in the CPU evaluator, is 0 on the GPU.
KILN_DEVICE float kiln_fmod(float a, float b) { return fmodf(a, b); }
KILN_DEVICE double kiln_fmod(double a, double b) { return fmod(a, b); }
template <typename T> KILN_DEVICE T kiln_mod(T a, T b) {
  T r = kiln_fmod(a, b);
  if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
  return r;
}
KILN_DEVICE long long kiln_ifmod(long long a, long long b, bool u) {
  if (b == 0) return 0;
  if (u) return (long long)((kiln_u64)a % (kiln_u64)b);
  if (b == -1) return 0;
  return a % b;
}
KILN_DEVICE long long kiln_imod(long long a, long long b, bool u) {
  long long r = kiln_ifmod(a, b, u);
  if (!u && r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
// Shifts of the bits of unsigned values; 64 or more give 0.
KILN_DEVICE long long kiln_shl(long long a, long long b) { return (kiln_u64)b >= 64 ? 0 : (long long)((kiln_u64)a << b); }
KILN_DEVICE long long kiln_shr(long long a, long long b) { return (kiln_u64)b >= 64 ? 0 : (long long)((kiln_u64)a >> b); }
// min(max(x, lo), hi); NaN x stays NaN.
template <typename T> KILN_DEVICE T kiln_clip(T x, T lo, T hi) {
  const T v = x < lo ? lo : x;
  return v > hi ? hi : v;
}
KILN_DEVICE long long kiln_iclip(long long x, long long lo, long long hi, bool u) {
  const long long v = kiln_iless(x, lo, u) ? lo : x;
  return kiln_iless(hi, v, u) ? hi : v;
}
// Aligned vectors for 16-byte loads and stores.
template <typename T, int N> struct __align__(sizeof(T) * N) kiln_vec { T v[N]; };
// *p, or zeros where !inside: one predicated load into registers zeroed a
// word at a time (zeroing the elements would merge 16-bit halves with a PRMT
// each). p need not point into the tensor when !inside.
template <bool Words> struct kiln_load_word { typedef unsigned type; };
template <> struct kiln_load_word<false> { typedef unsigned short type; };
template <typename T, int N> KILN_DEVICE kiln_vec<T, N> kiln_load_or_zero(const kiln_vec<T, N> *p, bool inside) {
  typedef typename kiln_load_word<sizeof(T) * N % 4 == 0>::type word;
  typedef kiln_vec<word, sizeof(T) * N / sizeof(word)> words;
  union { words raw; kiln_vec<T, N> v; } bits;
  bits.raw = words();
  if (inside) bits.raw = *(const words *)p;
  return bits.v;
}
// Reductions.
struct kiln_sum_op {
  template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct kiln_max_op {
  template <typename T> __device__ T operator()(T a, T b) const { return kiln_max(a, b); }
};
struct kiln_isum_op {
  __device__ long long operator()(long long a, long long b) const { return kiln_iadd(a, b); }
};
template <bool U> struct kiln_imax_op {
  __device__ long long operator()(long long a, long long b) const { return kiln_imax(a, b, U); }
};
struct kiln_min_op {
  template <typename T> __device__ T operator()(T a, T b) const { return kiln_min(a, b); }
};
struct kiln_prod_op {
  template <typename T> __device__ T operator()(T a, T b) const { return a * b; }
};
template <bool U> struct kiln_imin_op {
  __device__ long long operator()(long long a, long long b) const { return kiln_imin(a, b, U); }
};
struct kiln_iprod_op {
  __device__ long long operator()(long long a, long long b) const { return kiln_imul(a, b); }
};
// Over aligned groups of Lanes lanes (a power of two): each group's result.
template <int Lanes = 32, typename T, typename Op> KILN_DEVICE T kiln_warp_allreduce(T v, Op op) {
#pragma unroll
  for (int offset = Lanes / 2; offset > 0; offset >>= 1)
    v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}
// Every thread of the block gets the result; |partials| holds >= 32 values.
template <typename T, typename Op> KILN_DEVICE T kiln_block_allreduce(T v, Op op, T *partials) {
  v = kiln_warp_allreduce(v, op);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int warps = (blockDim.x + 31) >> 5;
  __syncthreads();  // |partials| may still be read by a previous call.
  if (lane == 0) partials[warp] = v;
  __syncthreads();
  v = partials[0];
  for (int w = 1; w < warps; ++w) v = op(v, partials[w]);
  return v;
}
// ---- end of kiln prelude ----
)CUDA";
}

namespace {
/// The bounds-check functions, after kiln_bounds_record.
const char *const kBoundsCheckFunctions = R"CUDA(// A data-dependent index |i| into a dimension of size |dim|: a negative
// index counts from the back once; one still outside [0, dim) is recorded
// in |record| (the first fault of the run wins the flag) and reads index 0,
// so that no access leaves the tensor.
static __device__ __noinline__ long long kiln_checked_index(
    long long i, long long dim, int axis, unsigned site,
    kiln_bounds_record *record, unsigned long long step) {
  const long long wrapped = i < 0 ? i + dim : i;
  if (wrapped >= 0 && wrapped < dim) return wrapped;
  if (atomicCAS(&record->flag, 0u, 1u) == 0u) {
    record->site = site;
    record->step = step;
    record->index = i;
    record->bound = dim;
    record->axis = axis;
  }
  return 0;
}
// ---- end of kiln bounds checks ----
)CUDA";
} // namespace

// Appended after the prelude in kernels compiled with bounds checks only, so
// that kernels without them stay byte-identical. kiln_bounds_record is
// written from the runtime's list of BoundsFaultRecord's fields
// (KILN_BOUNDS_RECORD_FIELDS, runtime/include/kiln/artifact_format.h).
const char *getCUDABoundsCheckPrelude() {
  static const std::string text = [] {
    std::string record = "struct kiln_bounds_record {\n";
#define KILN_BOUNDS_RECORD_FIELD(host, cuda, name)                             \
  record += std::string("  ") + cuda + " " #name ";\n";
    KILN_BOUNDS_RECORD_FIELDS(KILN_BOUNDS_RECORD_FIELD)
#undef KILN_BOUNDS_RECORD_FIELD
    record += "};\n";
    return std::string("\n// ---- kiln bounds checks (kiln-compile "
                       "--bounds-checks) ----\n") +
           record + kBoundsCheckFunctions;
  }();
  return text.c_str();
}


} // namespace kiln
