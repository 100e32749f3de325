/*===- amprt.h - The amp runtime C API ------------------------------------===*
 *
 * What compiled training steps call: devices, tensors with explicit
 * lifetime, host<->device copies, and one entry per tg/amp op with the op's
 * attributes as arguments. Output tensors are created by the caller with the
 * shape the compiler inferred; every entry checks shapes and element types
 * and returns a status code, with a message from amprt_last_error(). No
 * entry aborts or throws on bad arguments.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMPRT_AMPRT_H
#define AMPRT_AMPRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the entries' signatures and meanings, raised whenever one
 * changes. A step compiled ahead of time records the version it calls
 * (its manifest's runtime_abi), and amp-train refuses to run it on a
 * runtime of another. */
#define AMPRT_ABI_VERSION 2

typedef enum amprt_status {
  AMPRT_OK = 0,
  AMPRT_ERROR_INVALID_ARGUMENT = 1, /* null pointer, bad attribute value */
  AMPRT_ERROR_SHAPE = 2,            /* shapes do not fit the op */
  AMPRT_ERROR_DTYPE = 3,            /* element types do not fit the op */
  AMPRT_ERROR_OUT_OF_MEMORY = 4,
  AMPRT_ERROR_DEVICE = 5,           /* no such device, or a device failure */
  AMPRT_ERROR_UNSUPPORTED = 6,      /* valid, but not on this backend */
  AMPRT_ERROR_INDEX = 7,            /* an index or label out of range */
  AMPRT_STATUS_MAX_ENUM = 0x7FFFFFFF
} amprt_status;

typedef enum amprt_dtype {
  AMPRT_F32 = 0,
  AMPRT_F16 = 1,
  AMPRT_BF16 = 2,
  AMPRT_F64 = 3,
  AMPRT_I32 = 4,
  AMPRT_I64 = 5,
  AMPRT_I1 = 6, /* one byte per element, 0 or 1 */
  /* FP8 storage (amprt_quantize / amprt_dequantize only). */
  AMPRT_F8E4M3FN = 7,
  AMPRT_F8E5M2 = 8,
  AMPRT_DTYPE_MAX_ENUM = 0x7FFFFFFF
} amprt_dtype;

/* Each enum ends in a *_MAX_ENUM member (as Vulkan's do) so that any
 * non-negative int32 value a caller passes is a valid value of the type:
 * the entry points then reject unknown values with
 * AMPRT_ERROR_INVALID_ARGUMENT instead of the program having undefined
 * behaviour on loading them. (The types' values are 0 to 0x7FFFFFFF; a
 * negative value is outside them, as UBSan reports.) */
typedef enum amprt_device {
  AMPRT_DEVICE_CPU = 0,
  AMPRT_DEVICE_CUDA = 1,
  AMPRT_DEVICE_MAX_ENUM = 0x7FFFFFFF
} amprt_device;
typedef enum amprt_layout {
  AMPRT_NHWC = 0,
  AMPRT_NCHW = 1,
  AMPRT_LAYOUT_MAX_ENUM = 0x7FFFFFFF
} amprt_layout;
typedef enum amprt_predicate {
  AMPRT_EQ = 0, AMPRT_NE, AMPRT_LT, AMPRT_LE, AMPRT_GT, AMPRT_GE,
  AMPRT_PREDICATE_MAX_ENUM = 0x7FFFFFFF
} amprt_predicate;

/* The activation a product's epilogue applies (amprt_matmul_bias_act,
 * amprt_conv2d_bias_act): the function of the amprt_ call of that name,
 * from 0 in amprt_activation.def's order (RELU, GELU, TANH, SIGMOID, SILU,
 * LEAKY_RELU, whose slope is the call's alpha). */
typedef enum amprt_activation {
#define AMPRT_ACTIVATION(CODE, Kind) AMPRT_ACTIVATION_##CODE,
#include "amprt_activation.def"
  AMPRT_ACTIVATION_MAX_ENUM = 0x7FFFFFFF
} amprt_activation;

/* The ops of an elementwise chain (amprt_elementwise_chain): the function
 * of the amprt_ call of that name. */
typedef enum amprt_chain_op {
/* The unary ops from 0, in amprt_unary.def's order (leaky relu's slope:
 * the step's alpha). */
#define AMPRT_UNARY(name, Kind, CODE) AMPRT_CHAIN_##CODE,
#include "amprt_unary.def"
  /* The binary ops from 64, in amprt_binary.def's order. */
#define AMPRT_BINARY_FIRST(name, Kind, CODE) AMPRT_CHAIN_##CODE = 64,
#define AMPRT_BINARY(name, Kind, CODE) AMPRT_CHAIN_##CODE,
#include "amprt_binary.def"
  AMPRT_CHAIN_OP_MAX_ENUM = 0x7FFFFFFF
} amprt_chain_op;
#define AMPRT_CHAIN_MAX_INPUTS 8
#define AMPRT_CHAIN_MAX_STEPS 16

typedef struct amprt_context amprt_context;
typedef struct amprt_tensor amprt_tensor;

/* --- Errors ------------------------------------------------------------- */

/* The message of the last failed call on this thread ("" if none). */
const char *amprt_last_error(void);
const char *amprt_status_string(amprt_status status);
/* AMPRT_ABI_VERSION of the runtime library in use (not of the header a
 * caller was compiled with). */
int amprt_abi_version(void);

/* --- Devices and contexts ----------------------------------------------- */

/* Number of usable CUDA devices; 0 without a driver, a device or the CUDA
 * backend (never an error). */
int amprt_cuda_device_count(void);
/* Why amprt_cuda_device_count() returns 0, for users and tests to tell "no
 * GPU" from "a GPU the runtime cannot use": "no CUDA driver
 * (libcuda.so.1 ...)", the reason libamprt_cuda.so did not load (a
 * library it needs missing: the loader's message), or the driver's answer
 * to cudaGetDeviceCount. "" when a device is usable. A static string,
 * valid until the next call. */
const char *amprt_cuda_unavailable_reason(void);
/* What the CPU backend runs on this machine, for reports and benchmark
 * tables: the CPU's vector features that decide kernels (those of "AVX2
 * AVX-512 AVX-512-BF16 AVX-512-FP16 AMX" it has), what runs the GEMMs
 * oneDNN does not take ("; GEMM OpenBLAS", or "; GEMM built-in loops" in a
 * build without OpenBLAS or with AMPRT_BLAS=0), and last the instruction
 * set oneDNN's products and convolutions run after its ONEDNN_MAX_CPU_ISA
 * cap ("; oneDNN avx512_core_amx"), or "; no oneDNN" when it is not built
 * in or AMPRT_DNNL=0 turns it off. A static string. */
const char *amprt_cpu_kernels(void);
/* A context owns a device, its stream and its caching allocator. */
amprt_status amprt_context_create(amprt_device device, int index,
                                  amprt_context **out);
void amprt_context_destroy(amprt_context *ctx);
/* Compute capability for CUDA (major, minor); 0, 0 on the CPU. */
amprt_status amprt_context_device(const amprt_context *ctx,
                                  amprt_device *device, int *major,
                                  int *minor);
/* Waits for the context's queued work. On a CUDA context this call and
 * amprt_tensor_read also report an index or label out of range that a
 * gather, gather_grad or cross-entropy met since the last of them
 * (AMPRT_ERROR_INDEX, naming the op, the value and its position): the
 * device checks indices as it reads them, so those ops neither copy them
 * to the host nor wait. On the CPU the op itself reports it. */
amprt_status amprt_synchronize(amprt_context *ctx);
/* Bytes held by live tensors now and at most since the last reset. */
amprt_status amprt_memory_stats(const amprt_context *ctx, size_t *current,
                                size_t *peak);
void amprt_memory_reset_peak(amprt_context *ctx);
/* Bytes of memory the context's device has: physical memory for the CPU,
 * global memory for a GPU. Allocations beyond it fail up front. */
amprt_status amprt_memory_capacity(const amprt_context *ctx, size_t *bytes);

/* --- Tensors ------------------------------------------------------------ */

amprt_status amprt_tensor_create(amprt_context *ctx, amprt_dtype dtype,
                                 int rank, const int64_t *shape,
                                 amprt_tensor **out);
/* Frees the tensor; its memory goes back to the context's cache. */
void amprt_tensor_release(amprt_tensor *tensor);
amprt_dtype amprt_tensor_dtype(const amprt_tensor *tensor);
int amprt_tensor_rank(const amprt_tensor *tensor);
const int64_t *amprt_tensor_shape(const amprt_tensor *tensor);
int64_t amprt_tensor_numel(const amprt_tensor *tensor);
size_t amprt_dtype_size(amprt_dtype dtype);
/* Copies `bytes` (which must equal the tensor's size) from / to the host. */
amprt_status amprt_tensor_write(amprt_tensor *tensor, const void *host,
                                size_t bytes);
amprt_status amprt_tensor_read(const amprt_tensor *tensor, void *host,
                               size_t bytes);

/* --- For compiled code: sticky status ------------------------------------ *
 * Lowered training steps call ops back to back without branching: they
 * record each status with amprt_record_status, which keeps the first
 * failure (and its message) on the context; the step returns
 * amprt_context_status at its end. Every entry accepts null tensors and
 * reports them, so a failed allocation cannot crash later calls. */

void amprt_record_status(amprt_context *ctx, amprt_status status);
amprt_status amprt_context_status(const amprt_context *ctx);
/* The message of the first recorded failure ("" if none). */
const char *amprt_context_error(const amprt_context *ctx);
void amprt_context_clear_status(amprt_context *ctx);
/* amprt_tensor_create returning the handle (null on failure, recorded). */
amprt_tensor *amprt_tensor_new(amprt_context *ctx, int32_t dtype,
                               int32_t rank, const int64_t *shape);
/* A tensor of `shape` over x's elements in the same order (the same element
   count), sharing x's storage instead of copying it: valid while x is, and
   neither may be written while the other is read. Releasing the view frees
   only the view; x still owns the storage. Null on failure (recorded). */
amprt_tensor *amprt_tensor_view(amprt_context *ctx, const amprt_tensor *x,
                                int32_t rank, const int64_t *shape);
/* Fills a tensor with one value (rounded to its type). */
amprt_status amprt_tensor_fill(amprt_tensor *tensor, double value);

/* --- Elementwise (binary ops broadcast like NumPy) ------------------------ */

#define AMPRT_DECLARE_UNARY(name)                                              \
  amprt_status amprt_##name(amprt_context *ctx, const amprt_tensor *x,         \
                            amprt_tensor *y);
#define AMPRT_DECLARE_UNARY_ALPHA(name)                                        \
  amprt_status amprt_##name(amprt_context *ctx, const amprt_tensor *x,         \
                            double alpha, amprt_tensor *y);
/* The unary ops of amprt_unary.def (amprt_neg ... amprt_silu, and
 * amprt_leaky_relu with its slope `alpha`). */
#define AMPRT_UNARY(name, Kind, CODE) AMPRT_DECLARE_UNARY(name)
#define AMPRT_UNARY_ALPHA(name, Kind, CODE) AMPRT_DECLARE_UNARY_ALPHA(name)
#include "amprt_unary.def"
#undef AMPRT_DECLARE_UNARY
#undef AMPRT_DECLARE_UNARY_ALPHA

/* y = the last value of a chain of `num_steps` elementwise ops over
 * `num_inputs` tensors of y's float type and shape (no broadcasting), in
 * one pass: values 0 .. num_inputs-1 are the inputs, and step s computes
 * value num_inputs+s = op(value a, value b) with op, a, b =
 * program[3s], program[3s+1], program[3s+2] (op an amprt_chain_op; a
 * unary op ignores b; leaky relu's slope is alphas[s]), each operand an
 * earlier value. Every value is rounded to y's type as the op's own call
 * would store it, so y has the bits of the calls one by one; only y is
 * written. At most AMPRT_CHAIN_MAX_INPUTS inputs and AMPRT_CHAIN_MAX_STEPS
 * steps. y may be one of the inputs. The lowering calls it for a tree of
 * tg elementwise ops whose intermediates have one reader each. */
amprt_status amprt_elementwise_chain(amprt_context *ctx,
                                     const amprt_tensor *const *inputs,
                                     int num_inputs, const int64_t *program,
                                     const double *alphas, int num_steps,
                                     amprt_tensor *y);

#define AMPRT_DECLARE_BINARY(name)                                             \
  amprt_status amprt_##name(amprt_context *ctx, const amprt_tensor *a,         \
                            const amprt_tensor *b, amprt_tensor *c);
/* The binary ops of amprt_binary.def (amprt_add ... amprt_minimum).
 * amprt_pow on f32, f16 and bf16: exponents 0, 1, 2, -1 and 0.5 give 1,
 * a, a * a, 1 / a and sqrt(a) correctly rounded (signed zeros and
 * infinities as C's pow), any other one powf's result; a one-element b
 * (one exponent for every element) runs without a call for those five.
 * f64 is libm's pow. */
#define AMPRT_BINARY(name, Kind, CODE) AMPRT_DECLARE_BINARY(name)
#include "amprt_binary.def"
#undef AMPRT_DECLARE_BINARY

amprt_status amprt_compare(amprt_context *ctx, amprt_predicate predicate,
                           const amprt_tensor *a, const amprt_tensor *b,
                           amprt_tensor *c);
amprt_status amprt_select(amprt_context *ctx, const amprt_tensor *cond,
                          const amprt_tensor *a, const amprt_tensor *b,
                          amprt_tensor *c);
/* amprt_select for a caller that frees `a` (a_dies != 0) or `b` right
   after it and never reads it again: where `cond` is one flag on the host
   and the operand it picks dies, `c` takes that operand's storage instead
   of a copy, and the operand keeps `c`'s old storage until it is released.
   A guard that keeps or drops a whole optimizer update costs no copy. A
   view (amprt_tensor_view) is copied. */
amprt_status amprt_select_moving(amprt_context *ctx, const amprt_tensor *cond,
                                 amprt_tensor *a, amprt_tensor *b,
                                 amprt_tensor *c, int32_t a_dies,
                                 int32_t b_dies);
amprt_status amprt_is_finite(amprt_context *ctx, const amprt_tensor *x,
                             amprt_tensor *y);

/* dy and the forward input (relu, gelu, leaky) or output (tanh, sigmoid). */
#define AMPRT_DECLARE_ACT_GRAD(name)                                           \
  amprt_status amprt_##name(amprt_context *ctx, const amprt_tensor *dy,        \
                            const amprt_tensor *saved, amprt_tensor *dx);
AMPRT_DECLARE_ACT_GRAD(relu_grad)
AMPRT_DECLARE_ACT_GRAD(gelu_grad)
AMPRT_DECLARE_ACT_GRAD(tanh_grad)
AMPRT_DECLARE_ACT_GRAD(sigmoid_grad)
#undef AMPRT_DECLARE_ACT_GRAD
amprt_status amprt_leaky_relu_grad(amprt_context *ctx, const amprt_tensor *dy,
                                   const amprt_tensor *x, double alpha,
                                   amprt_tensor *dx);

/* --- Contractions and convolution (f32 accumulation) ---------------------- */

/* c = op(a) x op(b). a and b are c's type, or f32 when c is f16 or bf16:
 * such an operand is rounded to c's type first, exactly as amprt_cast
 * would, and the product is the one the cast operands get, bit for bit on
 * every CPU, so a product of cast weights needs no cast tensor (the
 * lowering folds amp.cast f32 -> f16 into the products that are its only
 * users). Which kernel sums the product (and so its last bits) depends on
 * the CPU: see amprt_cpu_kernels. */
amprt_status amprt_matmul(amprt_context *ctx, const amprt_tensor *a,
                          const amprt_tensor *b, int transpose_a,
                          int transpose_b, amprt_tensor *c);
/* c = op(a) x op(b) + bias: amprt_matmul followed by amprt_bias_add of
 * `bias` ([n], c's type) in one call, the bias added in the rounding pass
 * of a staged 16-bit product on the CPU and in a pass over the result
 * otherwise. Values are those of the two calls, bit for bit, on every CPU:
 * a 16-bit product is rounded to c's type before the bias is added and
 * the sum rounded again. The lowering calls it for a tg.matmul read only
 * by a tg.bias_add. */
amprt_status amprt_matmul_bias(amprt_context *ctx, const amprt_tensor *a,
                               const amprt_tensor *b, int transpose_a,
                               int transpose_b, const amprt_tensor *bias,
                               amprt_tensor *c);
/* c = act(op(a) x op(b) + bias): amprt_matmul_bias (amprt_matmul when
 * `bias` is NULL) and the activation's own call in one, the activation
 * applied in the product's epilogue where the backend has one (the
 * rounding pass of a staged 16-bit product on the CPU) and in a pass over
 * the result otherwise. Values are those of the separate calls: the
 * product (and bias) is rounded to c's type before the activation.
 * A non-NULL `pre` (c's type and shape, not c) also receives product +
 * bias, the input an activation's gradient reads (gelu's). `alpha` is
 * read by AMPRT_ACTIVATION_LEAKY_RELU only. The lowering calls it for a
 * tg.matmul (and tg.bias_add) read by a tg.relu, tg.gelu, tg.tanh,
 * tg.sigmoid, tg.silu or tg.leaky_relu. */
amprt_status amprt_matmul_bias_act(amprt_context *ctx, const amprt_tensor *a,
                                   const amprt_tensor *b, int transpose_a,
                                   int transpose_b, const amprt_tensor *bias,
                                   amprt_activation act, double alpha,
                                   amprt_tensor *pre, amprt_tensor *c);
amprt_status amprt_batch_matmul(amprt_context *ctx, const amprt_tensor *a,
                                const amprt_tensor *b, int transpose_a,
                                int transpose_b, amprt_tensor *c);
/* c = a x b batched, each operand read and the result written through a
 * strided view of its tensor's storage: a view is 1 + 2 * rank int64s,
 * {offset, shape[rank], strides[rank]} in elements, its element (i_0, ..,
 * i_{rank-1}) at offset + sum of i_d * strides[d]. Shapes [batch..., m,
 * k] x [batch..., k, n] = [batch..., m, n], rank 3 to 8; a transposed
 * operand is a view with its last two strides swapped. a, b and c are one
 * float type; each view lies inside its tensor; c's names no element
 * twice, and c's storage is neither a's nor b's. Elements of c outside
 * its view are left as they are. The values are amprt_batch_matmul's on
 * copies of the views (where the CPU's oneDNN multiplies the views in
 * place, its kernel for those strides). The lowering calls it for a
 * tg.batch_matmul whose operands are transposes (of reshapes, of slices)
 * or whose result is read by one transpose: attention's heads, read and
 * written where they lie. A k of 0 writes zeros into c's view (sums of no
 * terms); a c view with no element is no work; views that name no
 * element share no storage. */
amprt_status amprt_batch_matmul_strided(amprt_context *ctx, int rank,
                                        const amprt_tensor *a,
                                        const int64_t *a_view,
                                        const amprt_tensor *b,
                                        const int64_t *b_view, amprt_tensor *c,
                                        const int64_t *c_view);
/* o = softmax(scale q k^T) v for each head, in one call:
 * q [batch..., tq, d], k [batch..., tk, d], v [batch..., tk, e] and
 * o [batch..., tq, e] are strided views as amprt_batch_matmul_strided's
 * (rank 3 to 8, tk >= 1), of one float type. With `causal`, query i sees
 * keys 0..i only (a top-left mask, as amprt_causal_softmax). `scale`
 * (finite; 1 for none, 1/sqrt(d) as transformers scale) multiplies the
 * f32 scores, rounded to f32. The scores and their softmax are f32 and
 * never stored: the CPU computes a head's block of queries in cache (bf16
 * products in bf16 pairs where the CPU has AVX-512 BF16, others in f32)
 * and rounds only the probabilities that multiply v (to the operands'
 * type) and o. A backend without a fused kernel, and f64, run
 * amprt_batch_matmul_strided, amprt_scale of the scores (unless scale is
 * 1), amprt_(causal_)softmax and amprt_batch_matmul_strided, with their
 * roundings (a graph that scaled q before its product rounded c q
 * instead). o's view names no element twice, and o's storage is none of
 * the operands' (views that name no element share nothing). A dimension
 * may be 0 but tk: o with no element is no work; heads 0 wide (d = 0)
 * score every key 0, so o is the mean of the values each query sees. A
 * NaN or infinite score makes its query's row NaN; a non-finite value in
 * k or v may reach rows whose mask hides it (0 x inf is NaN: the unfused
 * product sums every key into every row, a fused head the keys of its
 * block of rows). Heads whose buffers cannot fit in memory give
 * AMPRT_ERROR_OUT_OF_MEMORY before any work. */
amprt_status amprt_attention(amprt_context *ctx, int rank, int causal,
                             double scale, const amprt_tensor *q,
                             const int64_t *q_view, const amprt_tensor *k,
                             const int64_t *k_view, const amprt_tensor *v,
                             const int64_t *v_view, amprt_tensor *o,
                             const int64_t *o_view);
/* The gradients of amprt_attention's o with respect to q, k and v given
 * grad_o (o's shape), each written through its view (q's, k's and v's
 * shapes; each names no element twice, and the three results' storage is
 * distinct and none of the operands'). The scores and probabilities are
 * recomputed, not read: nothing of the forward but its operands is kept.
 * The softmax gradient is f32, times `scale` (so grad_q and grad_k are
 * the gradients of q and k themselves); the same backends and types as
 * amprt_attention run the unfused ops (products, amprt_softmax_grad,
 * amprt_scale). With no queries (tq = 0) grad_k and grad_v are zeros;
 * with no values (e = 0) grad_q and grad_k are; results with no element
 * are not written, and with none at all the call is no work. A query's
 * NaN reaches no key it does not see through grad_v. */
amprt_status
amprt_attention_grad(amprt_context *ctx, int rank, int causal, double scale,
                     const amprt_tensor *q, const int64_t *q_view,
                     const amprt_tensor *k, const int64_t *k_view,
                     const amprt_tensor *v, const int64_t *v_view,
                     const amprt_tensor *grad_o, const int64_t *grad_o_view,
                     amprt_tensor *grad_q, const int64_t *grad_q_view,
                     amprt_tensor *grad_k, const int64_t *grad_k_view,
                     amprt_tensor *grad_v, const int64_t *grad_v_view);
/* strides[2], padding[4] = top, bottom, left, right, dilations[2]. */
amprt_status amprt_conv2d(amprt_context *ctx, const amprt_tensor *x,
                          const amprt_tensor *w, const int64_t *strides,
                          const int64_t *padding, const int64_t *dilations,
                          amprt_layout layout, amprt_tensor *y);
/* y = amprt_conv2d(x, w) + bias ([o], y's type) along y's channels, in one
 * call; values as amprt_matmul_bias describes. */
amprt_status amprt_conv2d_bias(amprt_context *ctx, const amprt_tensor *x,
                               const amprt_tensor *w, const amprt_tensor *bias,
                               const int64_t *strides, const int64_t *padding,
                               const int64_t *dilations, amprt_layout layout,
                               amprt_tensor *y);
/* y = act(amprt_conv2d(x, w) + bias), `bias` optional, `pre` as in
 * amprt_matmul_bias_act. */
amprt_status amprt_conv2d_bias_act(
    amprt_context *ctx, const amprt_tensor *x, const amprt_tensor *w,
    const amprt_tensor *bias, const int64_t *strides, const int64_t *padding,
    const int64_t *dilations, amprt_layout layout, amprt_activation act,
    double alpha, amprt_tensor *pre, amprt_tensor *y);
amprt_status amprt_conv2d_backward_input(
    amprt_context *ctx, const amprt_tensor *dy, const amprt_tensor *w,
    const int64_t *strides, const int64_t *padding, const int64_t *dilations,
    amprt_layout layout, amprt_tensor *dx);
amprt_status amprt_conv2d_backward_filter(
    amprt_context *ctx, const amprt_tensor *x, const amprt_tensor *dy,
    const int64_t *strides, const int64_t *padding, const int64_t *dilations,
    amprt_layout layout, amprt_tensor *dw);

/* --- Bias, pooling, normalization ---------------------------------------- */

amprt_status amprt_bias_add(amprt_context *ctx, const amprt_tensor *x,
                            const amprt_tensor *b, amprt_layout layout,
                            amprt_tensor *y);
/* db = the sums of dy over every dimension but the channel one. db is dy's
 * type, or f32 when dy is f16 or bf16: the sums are those of dy widened to
 * f32 (exact), so a bias gradient of a cast gradient needs no cast tensor
 * (the lowering folds amp.cast f16/bf16 -> f32 into the tg.bias_add_grad
 * that is its only user). */
amprt_status amprt_bias_add_grad(amprt_context *ctx, const amprt_tensor *dy,
                                 amprt_layout layout, amprt_tensor *db);
/* window[2], strides[2], padding[4]. */
amprt_status amprt_max_pool2d(amprt_context *ctx, const amprt_tensor *x,
                              const int64_t *window, const int64_t *strides,
                              const int64_t *padding, amprt_layout layout,
                              amprt_tensor *y);
amprt_status amprt_avg_pool2d(amprt_context *ctx, const amprt_tensor *x,
                              const int64_t *window, const int64_t *strides,
                              const int64_t *padding, amprt_layout layout,
                              amprt_tensor *y);
amprt_status amprt_max_pool2d_grad(amprt_context *ctx, const amprt_tensor *dy,
                                   const amprt_tensor *x,
                                   const amprt_tensor *y,
                                   const int64_t *window,
                                   const int64_t *strides,
                                   const int64_t *padding,
                                   amprt_layout layout, amprt_tensor *dx);
amprt_status amprt_avg_pool2d_grad(amprt_context *ctx, const amprt_tensor *dy,
                                   const int64_t *window,
                                   const int64_t *strides,
                                   const int64_t *padding,
                                   amprt_layout layout, amprt_tensor *dx);
amprt_status amprt_batch_norm(amprt_context *ctx, const amprt_tensor *x,
                              const amprt_tensor *scale,
                              const amprt_tensor *offset, double epsilon,
                              amprt_layout layout, amprt_tensor *y,
                              amprt_tensor *mean, amprt_tensor *inv_std);
amprt_status amprt_batch_norm_grad(
    amprt_context *ctx, const amprt_tensor *dy, const amprt_tensor *x,
    const amprt_tensor *scale, const amprt_tensor *mean,
    const amprt_tensor *inv_std, amprt_layout layout, amprt_tensor *dx,
    amprt_tensor *dscale, amprt_tensor *doffset);
amprt_status amprt_layer_norm(amprt_context *ctx, const amprt_tensor *x,
                              const amprt_tensor *gamma,
                              const amprt_tensor *beta, double epsilon,
                              amprt_tensor *y, amprt_tensor *mean,
                              amprt_tensor *inv_std);
amprt_status amprt_layer_norm_grad(
    amprt_context *ctx, const amprt_tensor *dy, const amprt_tensor *x,
    const amprt_tensor *gamma, const amprt_tensor *mean,
    const amprt_tensor *inv_std, amprt_tensor *dx, amprt_tensor *dgamma,
    amprt_tensor *dbeta);

/* --- Softmax and loss ------------------------------------------------------ */

amprt_status amprt_softmax(amprt_context *ctx, const amprt_tensor *x,
                           int64_t axis, amprt_tensor *y);
/* Softmax over the last axis of x [..., queries, keys] where query i sees
 * keys 0..i only (a top-left causal mask, as torch's is_causal): the masked
 * entries of y are 0. amprt_softmax_grad is its gradient. */
amprt_status amprt_causal_softmax(amprt_context *ctx, const amprt_tensor *x,
                                  amprt_tensor *y);
amprt_status amprt_log_softmax(amprt_context *ctx, const amprt_tensor *x,
                               int64_t axis, amprt_tensor *y);
amprt_status amprt_softmax_grad(amprt_context *ctx, const amprt_tensor *dy,
                                const amprt_tensor *y, int64_t axis,
                                amprt_tensor *dx);
amprt_status amprt_log_softmax_grad(amprt_context *ctx,
                                    const amprt_tensor *dy,
                                    const amprt_tensor *y, int64_t axis,
                                    amprt_tensor *dx);
/* labels: i32/i64 [N] class indices, or a float [N, C] distribution. */
amprt_status amprt_softmax_cross_entropy(amprt_context *ctx,
                                         const amprt_tensor *logits,
                                         const amprt_tensor *labels,
                                         amprt_tensor *loss);
amprt_status amprt_softmax_cross_entropy_grad(amprt_context *ctx,
                                              const amprt_tensor *dloss,
                                              const amprt_tensor *logits,
                                              const amprt_tensor *labels,
                                              amprt_tensor *dlogits);

/* --- Reductions and shape ------------------------------------------------- */

/* dims: the reduced dimensions of x; y has them removed or kept as 1. */
amprt_status amprt_reduce_sum(amprt_context *ctx, const amprt_tensor *x,
                              const int64_t *dims, int num_dims,
                              amprt_tensor *y);
amprt_status amprt_reduce_mean(amprt_context *ctx, const amprt_tensor *x,
                               const int64_t *dims, int num_dims,
                               amprt_tensor *y);
amprt_status amprt_reduce_max(amprt_context *ctx, const amprt_tensor *x,
                              const int64_t *dims, int num_dims,
                              amprt_tensor *y);
amprt_status amprt_reshape(amprt_context *ctx, const amprt_tensor *x,
                           amprt_tensor *y);
/* amprt_reshape for a caller that frees `x` right after it and never reads
   it again: `y` takes `x`'s storage instead of a copy (the elements are the
   same bytes in the same order), and `x` keeps `y`'s old storage until it
   is released. A view (amprt_tensor_view) on either side is copied. */
amprt_status amprt_reshape_moving(amprt_context *ctx, amprt_tensor *x,
                                  amprt_tensor *y);
amprt_status amprt_broadcast_to(amprt_context *ctx, const amprt_tensor *x,
                                amprt_tensor *y);
amprt_status amprt_transpose(amprt_context *ctx, const amprt_tensor *x,
                             const int64_t *perm, amprt_tensor *y);
amprt_status amprt_concat(amprt_context *ctx, const amprt_tensor *const *xs,
                          int count, int64_t axis, amprt_tensor *y);
/* sizes are y's shape; strides may be null (ones). */
amprt_status amprt_slice(amprt_context *ctx, const amprt_tensor *x,
                         const int64_t *offsets, const int64_t *strides,
                         amprt_tensor *y);
amprt_status amprt_pad(amprt_context *ctx, const amprt_tensor *x,
                       const int64_t *low, const int64_t *high, double value,
                       amprt_tensor *y);
amprt_status amprt_gather(amprt_context *ctx, const amprt_tensor *table,
                          const amprt_tensor *indices, amprt_tensor *y);
amprt_status amprt_gather_grad(amprt_context *ctx, const amprt_tensor *dy,
                               const amprt_tensor *indices,
                               amprt_tensor *dtable);
/* Fills `seed` with ones (the root of the backward pass). */
amprt_status amprt_grad_seed(amprt_context *ctx, amprt_tensor *seed);

/* --- Optimizer (f32 or f64 operands; lr is a rank-0 f32 tensor) ----------- */

amprt_status amprt_sgd_update(amprt_context *ctx, const amprt_tensor *param,
                              const amprt_tensor *grad,
                              const amprt_tensor *lr, amprt_tensor *new_param);
/* torch.optim.SGD with momentum (no dampening): g = grad + weight_decay *
 * param (when weight_decay is not 0), v' = momentum * v + g, param' = param
 * - lr * v' (nesterov: param - lr * (g + momentum * v')). */
amprt_status amprt_momentum_update(
    amprt_context *ctx, const amprt_tensor *param, const amprt_tensor *grad,
    const amprt_tensor *velocity, const amprt_tensor *lr, double momentum,
    double weight_decay, int nesterov, amprt_tensor *new_param,
    amprt_tensor *new_velocity);
/* step: rank-0 i64, the 1-based step number for bias correction. */
amprt_status amprt_adam_update(
    amprt_context *ctx, const amprt_tensor *param, const amprt_tensor *grad,
    const amprt_tensor *m, const amprt_tensor *v, const amprt_tensor *step,
    const amprt_tensor *lr, double beta1, double beta2, double epsilon,
    double weight_decay, amprt_tensor *new_param, amprt_tensor *new_m,
    amprt_tensor *new_v);
amprt_status amprt_clip_by_global_norm(amprt_context *ctx,
                                       const amprt_tensor *const *grads,
                                       int count, double max_norm,
                                       amprt_tensor *const *clipped);

/* --- Precision and loss scaling ------------------------------------------- */

amprt_status amprt_cast(amprt_context *ctx, const amprt_tensor *x,
                        amprt_tensor *y);
/* scale: rank-0 f32. */
amprt_status amprt_scale(amprt_context *ctx, const amprt_tensor *x,
                         const amprt_tensor *scale, amprt_tensor *y);
amprt_status amprt_unscale(amprt_context *ctx, const amprt_tensor *g,
                           const amprt_tensor *scale, amprt_tensor *y);
/* finite: rank-0 i1. */
amprt_status amprt_all_finite(amprt_context *ctx,
                              const amprt_tensor *const *gs, int count,
                              amprt_tensor *finite);
/* Unscale every gradient and check it for inf/NaN in one pass. */
amprt_status amprt_unscale_all_finite(amprt_context *ctx,
                                      const amprt_tensor *const *gs, int count,
                                      const amprt_tensor *scale,
                                      amprt_tensor *const *unscaled,
                                      amprt_tensor *finite);
/* All operands rank 0: scale f32, good_steps i64, finite i1. Runs on the
 * device side: nothing is read back to decide. */
amprt_status amprt_update_scale(amprt_context *ctx, const amprt_tensor *scale,
                                const amprt_tensor *good_steps,
                                const amprt_tensor *finite,
                                double growth_factor, double backoff_factor,
                                int64_t growth_interval, double min_scale,
                                double max_scale, amprt_tensor *new_scale,
                                amprt_tensor *new_good_steps);

/* --- FP8 with delayed scaling ----------------------------------------------
 * q = fp8(x * scale), rounded to nearest-even and saturating at the format's
 * largest finite value; y = q * (1 / scale). x and y f32, f16 or bf16, q
 * AMPRT_F8E4M3FN or AMPRT_F8E5M2, scale a rank-0 f32; shapes equal. */
amprt_status amprt_quantize(amprt_context *ctx, const amprt_tensor *x,
                            const amprt_tensor *scale, amprt_tensor *q);
amprt_status amprt_dequantize(amprt_context *ctx, const amprt_tensor *q,
                              const amprt_tensor *scale, amprt_tensor *y);
/* amax: rank-0 f32, max |x| (NaN if x holds NaN). */
amprt_status amprt_amax(amprt_context *ctx, const amprt_tensor *x,
                        amprt_tensor *amax);
/* The largest power of two s with max(history) * s <= fp8_max / 2^margin,
 * 1 while the history holds no positive finite value (amp.fp8_scale).
 * format: AMPRT_F8E4M3FN or AMPRT_F8E5M2; history: f32 of rank 0 or 1. */
amprt_status amprt_fp8_scale(amprt_context *ctx, const amprt_tensor *history,
                             int32_t format, int64_t margin,
                             amprt_tensor *scale);
/* c = (op(a) x op(b)) / (scale_a * scale_b), f32 accumulation: a and b
 * FP8 (any mix of formats) of rank 2 (as amprt_matmul) or of equal rank >= 3
 * (as amprt_batch_matmul); c f32, f16 or bf16. */
amprt_status amprt_scaled_matmul(amprt_context *ctx, const amprt_tensor *a,
                                 const amprt_tensor *scale_a,
                                 const amprt_tensor *b,
                                 const amprt_tensor *scale_b, int transpose_a,
                                 int transpose_b, amprt_tensor *c);
/* Why the last amprt_scaled_matmul on ctx dequantized its operands into c's
 * type for the backend's ordinary GEMM instead of multiplying the FP8
 * tensors (cuBLASLt's FP8 GEMM, CUDA sm_89 and later): a sentence, valid
 * until the next amprt_scaled_matmul on ctx; NULL when it multiplied them
 * as FP8, failed, or none has run. */
const char *amprt_scaled_matmul_fallback(const amprt_context *ctx);
/* new_history = [amax, history[0..n-2]], or history when amax is inf/NaN. */
amprt_status amprt_record_amax(amprt_context *ctx, const amprt_tensor *history,
                               const amprt_tensor *amax,
                               amprt_tensor *new_history);

/* --- Numeric validation ---------------------------------------------------- *
 * How far `candidate` (a low-precision result, any float type) is from
 * `reference` (the f32 result of the same op on the same inputs), written
 * to `stats`, a rank-1 f32 tensor of AMPRT_NUMERIC_STATS elements indexed by
 * the enum below. Pairs whose reference is inf or NaN are only counted.
 * Norms rather than ratios are returned so that a host adds runs up
 * (sum the squares) before dividing. Computed on the host in f64: it is a
 * diagnostic, not a step's hot path. */
enum {
  AMPRT_NUMERIC_ELEMENTS = 0,  /* pairs with a finite reference */
  AMPRT_NUMERIC_DIFF_NORM = 1, /* ||candidate - reference||_2, finite pairs */
  AMPRT_NUMERIC_REF_NORM = 2,  /* ||reference||_2 over the same pairs */
  AMPRT_NUMERIC_MAX_DIFF = 3,  /* max |candidate - reference|, finite pairs */
  AMPRT_NUMERIC_MAX_REF = 4,   /* max |reference| */
  AMPRT_NUMERIC_OVERFLOW = 5,  /* finite reference, infinite candidate */
  AMPRT_NUMERIC_NAN = 6,       /* reference not NaN, candidate NaN */
  AMPRT_NUMERIC_FLUSHED = 7,   /* candidate zero where the reference is
                                  at least the candidate type's unit
                                  roundoff times max |reference| (smaller
                                  values are below the tensor's rounding
                                  noise) */
  AMPRT_NUMERIC_SUBNORMAL = 8, /* 0 < |reference| < candidate type's
                                  smallest normal (precision lost) */
  AMPRT_NUMERIC_REF_NONFINITE = 9, /* reference inf or NaN: not compared */
  AMPRT_NUMERIC_STATS = 10
};
amprt_status amprt_numeric_error(amprt_context *ctx,
                                 const amprt_tensor *reference,
                                 const amprt_tensor *candidate,
                                 amprt_tensor *stats);

/* --- Collectives (data-parallel training) -----------------------------------
 * * One process group per process, the "world": a single process until
 * amprt_comm_init joins a launcher's job (mpirun, srun). Compiled steps
 * name it with a communicator tensor (rank-0 i64, value 0 = the world).
 * Results are identical on every rank and do not depend on how the job is
 * scheduled: each element is reduced once, by one rank, over the ranks'
 * contributions in rank order with f32 accumulation for 16-bit floats, and
 * the result is sent to all (a reduce-scatter and an all-gather, the traffic
 * of a ring all-reduce). A rank that dies or hangs makes the others' next
 * collective fail after the timeout with an error instead of waiting. */
typedef enum amprt_reduction {
  AMPRT_REDUCE_SUM = 0,
  AMPRT_REDUCE_MEAN = 1, /* sum / number of ranks */
  AMPRT_REDUCE_MIN = 2,  /* on i1: logical and */
  AMPRT_REDUCE_MAX = 3,  /* on i1: logical or */
  AMPRT_REDUCTION_MAX_ENUM = 0x7FFFFFFF
} amprt_reduction;

/* Joins a process group: "self" (this process alone), "mpi" (the job that
 * mpirun or srun started; loads libamprt_mpi.so beside this library, or the
 * file AMPRT_MPI_LIBRARY names) or "nccl" (the MPI job, with CUDA tensors
 * all-reduced on the device by libamprt_nccl.so, or AMPRT_NCCL_LIBRARY's
 * file). A collective not complete after `timeout_seconds` fails. A process
 * is in one group at a time; after amprt_comm_finalize it may join "self"
 * again, but not MPI (which cannot start twice in a process). */
amprt_status amprt_comm_init(const char *backend, double timeout_seconds);
/* Changes the timeout of later collectives (start-up, when every rank
 * compiles at its own pace, may wait longer than a training step). */
amprt_status amprt_comm_set_timeout(double timeout_seconds);
/* This process's rank and the number of ranks (0 and 1 before init). */
int amprt_comm_rank(void);
int amprt_comm_size(void);
/* The name of the process group's transport ("self", "mpi"). */
const char *amprt_comm_backend(void);
/* `tensor` takes rank `root`'s value on every rank. */
amprt_status amprt_comm_broadcast(amprt_tensor *tensor, int root);
/* Fails on every rank, naming `what`, unless every rank passed the same
 * `value` (a hash of the step, the batch size...). */
amprt_status amprt_comm_agree(uint64_t value, const char *what);
/* Bytes this rank has sent and collectives it has run since init. */
amprt_status amprt_comm_stats(uint64_t *bytes_sent, uint64_t *collectives);
/* Ends every rank of the job with `code` (after an error that leaves a
 * collective half done). Does not return. */
void amprt_comm_abort(int code);
/* Leaves the process group (MPI_Finalize); collectives fail afterwards,
 * until the process joins "self" again. Leaving no group is not an error. */
amprt_status amprt_comm_finalize(void);

/* ys[i] = the reduction of xs[i] over the ranks of `comm` (rank-0 i64). All
 * xs share one element type; ys[i] has xs[i]'s shape and type. The tensors
 * travel together in one message (a bucket). sum and mean take float
 * tensors, min and max any type. */
amprt_status amprt_all_reduce(amprt_context *ctx, const amprt_tensor *comm,
                              const amprt_tensor *const *xs, int count,
                              amprt_reduction reduction,
                              amprt_tensor *const *ys);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMPRT_AMPRT_H */
