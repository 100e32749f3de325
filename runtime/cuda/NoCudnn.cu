//===- NoCudnn.cu - Convolutions where cuDNN was not found ---------------===//
//
// The CUDA backend builds without cuDNN (a GPU machine may have it only in a
// Python wheel, or not at all); everything but the convolutions still runs,
// and a convolution says what is missing instead of failing the build.
//
//===----------------------------------------------------------------------===//

#include "CudaCommon.h"

amprt_status amprt::cuda::convolution(amprt_context *ctx, ConvKind kind,
                                      const amprt_tensor *first,
                                      const amprt_tensor *second,
                                      amprt_tensor *result,
                                      const ConvGeometry &geo) {
  return fail(AMPRT_ERROR_UNSUPPORTED,
              "convolutions on the CUDA device need cuDNN, and this CUDA "
              "backend was built without it (neither the toolkit nor a "
              "Python wheel such as nvidia-cudnn-cu13 had cudnn.h and "
              "libcudnn when it was configured)");
}
