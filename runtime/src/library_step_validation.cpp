// Validation of the library steps (Gemm through cuBLASLt, Conv through
// cuDNN): operand buffers against the dims, dtypes, writable outputs, the
// epilogues. Called by the manifest validator for each such step.
#include "library_step_validation.h"
#include "status.h"

namespace kiln::runtime {

using namespace kiln::artifact;

namespace {
/// Checks that a matrix operand with |rows| x |cols| elements per batch
/// and |stride| between batches fits in its buffer.
kiln_status_t checkOperand(const BufferChecks &checks, int64_t id,
                           const char *role, const Gemm &gemm, int64_t rows,
                           int64_t cols, int64_t stride) {
  KILN_RETURN_IF_ERROR(checks.checkBuffer(id, role));
  const Buffer &buffer =
      *checks.entry.buffers()->Get(static_cast<uint32_t>(id));
  if (stride < 0)
    return Error(KILN_STATUS_DATA_LOSS)
           << role << ": negative batch stride " << stride;
  // Sizes are below 2^31 and strides below 2^63: 128 bits cannot overflow.
  unsigned __int128 elements =
      static_cast<unsigned __int128>(rows) * cols +
      static_cast<unsigned __int128>(gemm.batch() - 1) * stride;
  if (elements > buffer.bytes() / dtypeSize(buffer.dtype()))
    return Error(KILN_STATUS_DATA_LOSS)
           << role << " buffer " << id << " holds " << buffer.bytes()
           << " bytes, too few for its " << rows << "x" << cols << " matrices";
  return nullptr;
}

/// The dtype combinations cuBLASLt runs (scale type 32F): a, b, c and out
/// of one type (f32, f16 or bf16), or f16/bf16 a and b with c and out in f32
/// (a cast fused into the call; 32F compute, C/D 32F). The bias is in out's
/// type (CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE) when out differs from a.
kiln_status_t checkGemmDTypes(const BufferChecks &checks, const Gemm &gemm,
                              bool bias) {
  auto dtypeOf = [&](int64_t id) {
    return checks.entry.buffers()->Get(static_cast<uint32_t>(id))->dtype();
  };
  DType in = dtypeOf(gemm.a()), out = dtypeOf(gemm.out());
  if (out != DType_F32 && out != DType_F16 && out != DType_BF16)
    return Error(KILN_STATUS_DATA_LOSS)
           << "gemm dtype must be f32, f16 or bf16";
  if (dtypeOf(gemm.b()) != in)
    return Error(KILN_STATUS_DATA_LOSS)
           << "gemm a is " << EnumNameDType(in) << " but b is "
           << EnumNameDType(dtypeOf(gemm.b()));
  bool cast = (in == DType_F16 || in == DType_BF16) && out == DType_F32;
  if (in != out && !cast)
    return Error(KILN_STATUS_DATA_LOSS)
           << "gemm a and b are " << EnumNameDType(in) << " but out is "
           << EnumNameDType(out)
           << "; cuBLASLt runs a, b and out of one type, or F16/BF16 a and b "
              "with an F32 out";
  if (gemm.c() >= 0 && dtypeOf(gemm.c()) != out)
    return Error(KILN_STATUS_DATA_LOSS)
           << "gemm c is " << EnumNameDType(dtypeOf(gemm.c())) << " but out is "
           << EnumNameDType(out);
  if (cast && bias && dtypeOf(gemm.bias()) != out)
    return Error(KILN_STATUS_DATA_LOSS)
           << "gemm bias is " << EnumNameDType(dtypeOf(gemm.bias()))
           << " but out is " << EnumNameDType(out)
           << "; with a fused cast the bias must have out's type";
  return nullptr;
}

} // namespace

kiln_status_t validateGemmStep(const BufferChecks &checks, const Gemm *gemm) {
  if (!gemm)
    return Error(KILN_STATUS_DATA_LOSS) << "a Gemm step without gemm";
  const int64_t limit = int64_t(1) << 31;
  if (gemm->m() <= 0 || gemm->n() <= 0 || gemm->k() <= 0 ||
      gemm->batch() <= 0 || gemm->m() >= limit || gemm->n() >= limit ||
      gemm->k() >= limit || gemm->batch() >= limit)
    return Error(KILN_STATUS_DATA_LOSS)
           << "invalid gemm sizes m=" << gemm->m() << " n=" << gemm->n()
           << " k=" << gemm->k() << " batch=" << gemm->batch();
  if (gemm->epilogue() < GemmEpilogue_MIN ||
      gemm->epilogue() > GemmEpilogue_MAX)
    return Error(KILN_STATUS_DATA_LOSS) << "invalid gemm epilogue";
  KILN_RETURN_IF_ERROR(checkOperand(checks, gemm->a(), "gemm a", *gemm,
                                    gemm->m(), gemm->k(), gemm->stride_a()));
  KILN_RETURN_IF_ERROR(checkOperand(checks, gemm->b(), "gemm b", *gemm,
                                    gemm->k(), gemm->n(), gemm->stride_b()));
  KILN_RETURN_IF_ERROR(checkOperand(checks, gemm->out(), "gemm out", *gemm,
                                    gemm->m(), gemm->n(), gemm->stride_out()));
  KILN_RETURN_IF_ERROR(checks.checkWritable(gemm->out(), "gemm out"));
  if (gemm->c() >= 0)
    KILN_RETURN_IF_ERROR(checkOperand(checks, gemm->c(), "gemm c", *gemm,
                                      gemm->m(), gemm->n(), gemm->stride_c()));
  bool bias = gemm->epilogue() == GemmEpilogue_Bias ||
              gemm->epilogue() == GemmEpilogue_BiasRelu ||
              gemm->epilogue() == GemmEpilogue_BiasGelu;
  if (bias) {
    KILN_RETURN_IF_ERROR(checks.checkBuffer(gemm->bias(), "gemm bias"));
    const Buffer &buffer =
        *checks.entry.buffers()->Get(static_cast<uint32_t>(gemm->bias()));
    if (buffer.bytes() <
        static_cast<uint64_t>(gemm->n()) * dtypeSize(buffer.dtype()))
      return Error(KILN_STATUS_DATA_LOSS)
             << "gemm bias buffer is shorter than n";
  }
  return checkGemmDTypes(checks, *gemm, bias);
}

namespace {
/// Checks that conv operand |id| holds exactly |elements| of the conv's
/// dtype and returns it through |dtype|.
kiln_status_t checkConvOperand(const BufferChecks &checks, int64_t id,
                               const char *role, unsigned __int128 elements,
                               DType *dtype) {
  KILN_RETURN_IF_ERROR(checks.checkBuffer(id, role));
  const Buffer &buffer =
      *checks.entry.buffers()->Get(static_cast<uint32_t>(id));
  *dtype = buffer.dtype();
  if (elements * dtypeSize(buffer.dtype()) != buffer.bytes())
    return Error(KILN_STATUS_DATA_LOSS)
           << role << " buffer " << id << " holds " << buffer.bytes()
           << " bytes, but the convolution's dims give "
           << static_cast<uint64_t>(elements) << " elements";
  return nullptr;
}

} // namespace

kiln_status_t validateConvStep(const BufferChecks &checks, const Conv *conv) {
  if (!conv)
    return Error(KILN_STATUS_DATA_LOSS) << "a Conv step without conv";
  // cuDNN describes dims and element counts with ints.
  const int64_t limit = int64_t(1) << 31;
  auto size = [&](int64_t v) { return v >= 1 && v < limit; };
  if (!size(conv->n()) || !size(conv->c()) || !size(conv->h()) ||
      !size(conv->width()) || !size(conv->k()) || !size(conv->r()) ||
      !size(conv->s()) || !size(conv->out_h()) || !size(conv->out_w()) ||
      !size(conv->stride_h()) || !size(conv->stride_w()) ||
      !size(conv->dilation_h()) || !size(conv->dilation_w()) ||
      !size(conv->groups()) || conv->pad_h() < 0 || conv->pad_h() >= limit ||
      conv->pad_w() < 0 || conv->pad_w() >= limit ||
      conv->c() % conv->groups() != 0 || conv->k() % conv->groups() != 0)
    return Error(KILN_STATUS_DATA_LOSS)
           << "invalid conv sizes n=" << conv->n() << " c=" << conv->c()
           << " h=" << conv->h() << " w=" << conv->width() << " k=" << conv->k()
           << " r=" << conv->r() << " s=" << conv->s()
           << " groups=" << conv->groups();
  if (conv->layout() != ConvLayout_NCHW && conv->layout() != ConvLayout_NHWC)
    return Error(KILN_STATUS_DATA_LOSS)
           << "unknown conv layout " << int(conv->layout());
  // Below 2^31 each, so no product here overflows 64 bits.
  int64_t spanH =
      conv->h() + 2 * conv->pad_h() - conv->dilation_h() * (conv->r() - 1) - 1;
  int64_t spanW = conv->width() + 2 * conv->pad_w() -
                  conv->dilation_w() * (conv->s() - 1) - 1;
  int64_t outH = spanH < 0 ? 0 : spanH / conv->stride_h() + 1;
  int64_t outW = spanW < 0 ? 0 : spanW / conv->stride_w() + 1;
  if (outH != conv->out_h() || outW != conv->out_w())
    return Error(KILN_STATUS_DATA_LOSS)
           << "conv output [" << conv->out_h() << ", " << conv->out_w()
           << "] but the window gives [" << outH << ", " << outW << "]";
  using Wide = unsigned __int128;
  Wide x = Wide(conv->n()) * conv->c() * conv->h() * conv->width();
  Wide w =
      Wide(conv->k()) * (conv->c() / conv->groups()) * conv->r() * conv->s();
  Wide out = Wide(conv->n()) * conv->k() * conv->out_h() * conv->out_w();
  if (x >= Wide(limit) || w >= Wide(limit) || out >= Wide(limit))
    return Error(KILN_STATUS_DATA_LOSS)
           << "conv tensors of 2^31 elements or more";
  DType types[4] = {DType_F32, DType_F32, DType_F32, DType_F32};
  KILN_RETURN_IF_ERROR(
      checkConvOperand(checks, conv->x(), "conv x", x, &types[0]));
  KILN_RETURN_IF_ERROR(
      checkConvOperand(checks, conv->w(), "conv w", w, &types[1]));
  KILN_RETURN_IF_ERROR(
      checkConvOperand(checks, conv->out(), "conv out", out, &types[2]));
  KILN_RETURN_IF_ERROR(checks.checkWritable(conv->out(), "conv out"));
  types[3] = types[2];
  if (conv->bias() >= 0)
    KILN_RETURN_IF_ERROR(checkConvOperand(checks, conv->bias(), "conv bias",
                                          conv->k(), &types[3]));
  else if (conv->bias() != -1)
    return Error(KILN_STATUS_DATA_LOSS)
           << "conv bias buffer " << conv->bias() << " is not a buffer";
  if (types[2] != DType_F32 && types[2] != DType_F16 && types[2] != DType_BF16)
    return Error(KILN_STATUS_DATA_LOSS)
           << "conv dtype must be f32, f16 or bf16";
  // The fused epilogue: a residual shaped like out, an activation, both
  // only with a bias (cudnnConvolutionBiasActivationForward needs one).
  DType residualType = types[2];
  if (conv->activation() != ConvActivation_None &&
      conv->activation() != ConvActivation_Relu)
    return Error(KILN_STATUS_DATA_LOSS)
           << "unknown conv activation " << int(conv->activation());
  if (conv->residual() >= 0) {
    KILN_RETURN_IF_ERROR(checkConvOperand(checks, conv->residual(),
                                          "conv residual", out, &residualType));
  } else if (conv->residual() != -1) {
    return Error(KILN_STATUS_DATA_LOSS)
           << "conv residual buffer " << conv->residual() << " is not a buffer";
  }
  if ((conv->residual() >= 0 || conv->activation() != ConvActivation_None) &&
      conv->bias() < 0)
    return Error(KILN_STATUS_DATA_LOSS)
           << "a conv with a residual or an activation needs a bias";
  if (types[0] != types[2] || types[1] != types[2] || types[3] != types[2] ||
      residualType != types[2])
    return Error(KILN_STATUS_DATA_LOSS)
           << "conv operands have different dtypes";
  return nullptr;
}

} // namespace kiln::runtime
