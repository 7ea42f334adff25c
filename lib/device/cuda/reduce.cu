/*
 * Device reduction kernels (kernels.h): one grid-stride kernel per (dtype, op), made from
 * templates over an element operation. The float16 and bfloat16 conversions are the host
 * kernels' own code (half.h) compiled for the device, not CUDA's intrinsics, so that a
 * NaN or a tie rounds to the same bits on both sides.
 */
#include <stdint.h>

#include "base/half.h"
#include "device/cuda/kernels.h"
extern "C" {
#include "base/reduction.h"
}

namespace {

/* ---- element operations: a OP b, a the left operand --------------------------------- */

/* __fadd_rn and friends: never contracted into a fused multiply-add, as on the host. */
struct FSum {
    __device__ static float f(float a, float b) { return __fadd_rn(a, b); }
    __device__ static double f(double a, double b) { return __dadd_rn(a, b); }
};
struct FProd {
    __device__ static float f(float a, float b) { return __fmul_rn(a, b); }
    __device__ static double f(double a, double b) { return __dmul_rn(a, b); }
};
struct FMin {
    template <typename T> __device__ static T f(T a, T b) { return (a < b || a != a) ? a : b; }
};
struct FMax {
    template <typename T> __device__ static T f(T a, T b) { return (a > b || a != a) ? a : b; }
};

/* Integers: T the type, U its unsigned twin, for wrap-around sums and products. */
template <typename T, typename U> struct ISum {
    __device__ static T f(T a, T b) { return (T)((U)a + (U)b); }
};
template <typename T, typename U> struct IProd {
    __device__ static T f(T a, T b) { return (T)((U)a * (U)b); }
};
template <typename T, typename U> struct IMin {
    __device__ static T f(T a, T b) { return a < b ? a : b; }
};
template <typename T, typename U> struct IMax {
    __device__ static T f(T a, T b) { return a > b ? a : b; }
};
template <typename T, typename U> struct IAnd {
    __device__ static T f(T a, T b) { return (T)(a & b); }
};
template <typename T, typename U> struct IOr {
    __device__ static T f(T a, T b) { return (T)(a | b); }
};
template <typename T, typename U> struct IXor {
    __device__ static T f(T a, T b) { return (T)(a ^ b); }
};

/* Storage types: how an element is loaded into its compute type and stored back. */
template <typename T> struct Plain {
    typedef T S;
    typedef T C;
    __device__ static C load(S s) { return s; }
    __device__ static S store(C c) { return c; }
};
/* Bool: any non-zero byte is true, results 0 or 1; with 0/1 operands the integer ops are
 * the logical ones (a sum of two trues stores as true). */
struct BoolK {
    typedef uint8_t S;
    typedef uint8_t C;
    __device__ static C load(S s) { return s != 0; }
    __device__ static S store(C c) { return c != 0; }
};
struct Half {
    typedef uint16_t S;
    typedef float C;
    __device__ static C load(S s) { return shmc__h2f(s); }
    __device__ static S store(C c) { return shmc__f2h(c); }
};
struct BHalf {
    typedef uint16_t S;
    typedef float C;
    __device__ static C load(S s) { return shmc__bf2f(s); }
    __device__ static S store(C c) { return shmc__f2bf(c); }
};

template <typename K, typename Op>
__global__ void combine(typename K::S *acc, const typename K::S *in, size_t n, int left)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        typename K::C a = K::load(acc[i]), b = K::load(in[i]);
        acc[i] = K::store(left ? Op::f(a, b) : Op::f(b, a));
    }
}

template <typename K>
__global__ void divide(typename K::S *buf, size_t n, typename K::C d)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        buf[i] = K::store(K::load(buf[i]) / d);
}

/* The pointers of a fold, passed by value: no device memory to fill first. */
struct FoldArgs {
    const void *in[SHMC_CUDA_FOLD_MAX];
    void *out[SHMC_CUDA_FOLD_MAX];
    int nin, nout;
};

template <typename K, typename Op> __global__ void fold(FoldArgs a, size_t n, int avg)
{
    typedef typename K::S S;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        S s = ((const S *)a.in[0])[i];
        for (int q = 1; q < a.nin; q++)
            s = K::store(Op::f(K::load(s), K::load(((const S *)a.in[q])[i])));
        if (avg)
            s = K::store(K::load(s) / (typename K::C)a.nin);
        for (int q = 0; q < a.nout; q++)
            ((S *)a.out[q])[i] = s;
    }
}

/* Enough blocks to cover n once, at most 1024 of them; the loops stride over the rest. */
void grid(size_t n, unsigned *blocks, unsigned *threads)
{
    *threads = 256;
    size_t b = (n + 255) / 256;
    *blocks = (unsigned)(b < 1 ? 1 : b > 1024 ? 1024 : b);
}

/* What a launch reduces: two operands in place (Pair, combine) or many into many
 * (FoldArgs, fold). One dispatch over dtype and op below serves both. */
struct Pair {
    void *acc;
    const void *in;
    int left;
};

template <typename K, typename Op> int launch(const Pair &p, size_t n, int avg, cudaStream_t s)
{
    unsigned b, t;
    (void)avg; /* a pair's AVG is divided once, by shmc__cuda_reduce_finish */
    grid(n, &b, &t);
    combine<K, Op><<<b, t, 0, s>>>((typename K::S *)p.acc, (const typename K::S *)p.in, n,
                                   p.left);
    return cudaGetLastError() == cudaSuccess ? SHMC_OK : SHMC_ERR_CUDA;
}

template <typename K, typename Op> int launch(const FoldArgs &f, size_t n, int avg, cudaStream_t s)
{
    unsigned b, t;
    grid(n, &b, &t);
    fold<K, Op><<<b, t, 0, s>>>(f, n, avg);
    return cudaGetLastError() == cudaSuccess ? SHMC_OK : SHMC_ERR_CUDA;
}

template <typename K, typename A> int float_op(const A &a, size_t n, shmc_op op, cudaStream_t s)
{
    switch (op) {
    case SHMC_SUM:
        return launch<K, FSum>(a, n, 0, s);
    case SHMC_AVG:
        return launch<K, FSum>(a, n, 1, s);
    case SHMC_PROD:
        return launch<K, FProd>(a, n, 0, s);
    case SHMC_MIN:
        return launch<K, FMin>(a, n, 0, s);
    case SHMC_MAX:
        return launch<K, FMax>(a, n, 0, s);
    default:
        return SHMC_ERR_ARG;
    }
}

template <typename T, typename U, typename A, typename K = Plain<T> >
int int_op(const A &a, size_t n, shmc_op op, cudaStream_t s)
{
    switch (op) {
    case SHMC_SUM:
        return launch<K, ISum<T, U> >(a, n, 0, s);
    case SHMC_PROD:
        return launch<K, IProd<T, U> >(a, n, 0, s);
    case SHMC_MIN:
        return launch<K, IMin<T, U> >(a, n, 0, s);
    case SHMC_MAX:
        return launch<K, IMax<T, U> >(a, n, 0, s);
    case SHMC_BAND:
        return launch<K, IAnd<T, U> >(a, n, 0, s);
    case SHMC_BOR:
        return launch<K, IOr<T, U> >(a, n, 0, s);
    case SHMC_BXOR:
        return launch<K, IXor<T, U> >(a, n, 0, s);
    default:
        return SHMC_ERR_ARG;
    }
}

template <typename A> int by_dtype(const A &a, size_t n, shmc_dtype dt, shmc_op op, cudaStream_t s)
{
    switch (dt) {
    case SHMC_INT8:
        return int_op<int8_t, uint8_t>(a, n, op, s);
    case SHMC_UINT8:
        return int_op<uint8_t, uint8_t>(a, n, op, s);
    case SHMC_INT32:
        return int_op<int32_t, uint32_t>(a, n, op, s);
    case SHMC_UINT32:
        return int_op<uint32_t, uint32_t>(a, n, op, s);
    case SHMC_INT64:
        return int_op<int64_t, uint64_t>(a, n, op, s);
    case SHMC_UINT64:
        return int_op<uint64_t, uint64_t>(a, n, op, s);
    case SHMC_FLOAT16:
        return float_op<Half>(a, n, op, s);
    case SHMC_BFLOAT16:
        return float_op<BHalf>(a, n, op, s);
    case SHMC_FLOAT32:
        return float_op<Plain<float> >(a, n, op, s);
    case SHMC_FLOAT64:
        return float_op<Plain<double> >(a, n, op, s);
    case SHMC_INT16:
        return int_op<int16_t, uint16_t>(a, n, op, s);
    case SHMC_UINT16:
        return int_op<uint16_t, uint16_t>(a, n, op, s);
    case SHMC_BOOL:
        return int_op<uint8_t, uint8_t, A, BoolK>(a, n, op, s);
    default:
        return SHMC_ERR_ARG;
    }
}

template <typename K> int divide_by(void *buf, size_t n, typename K::C d, cudaStream_t s)
{
    unsigned b, t;
    grid(n, &b, &t);
    divide<K><<<b, t, 0, s>>>((typename K::S *)buf, n, d);
    return cudaGetLastError() == cudaSuccess ? SHMC_OK : SHMC_ERR_CUDA;
}

} // namespace

extern "C" int shmc__cuda_reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op,
                                 int order, cudaStream_t stream)
{
    if (shmc__reduce_check(dt, op) != SHMC_OK)
        return SHMC_ERR_ARG;
    if (n == 0)
        return SHMC_OK;
    Pair p = {acc, in, order == SHMC_ACC_LEFT};
    return by_dtype(p, n, dt, op, stream);
}

extern "C" int shmc__cuda_reduce_finish(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks,
                                        cudaStream_t stream)
{
    if (op != SHMC_AVG || nranks == 1 || n == 0)
        return SHMC_OK;
    switch (dt) {
    case SHMC_FLOAT32:
        return divide_by<Plain<float> >(buf, n, (float)nranks, stream);
    case SHMC_FLOAT64:
        return divide_by<Plain<double> >(buf, n, (double)nranks, stream);
    case SHMC_FLOAT16:
        return divide_by<Half>(buf, n, (float)nranks, stream);
    case SHMC_BFLOAT16:
        return divide_by<BHalf>(buf, n, (float)nranks, stream);
    default:
        return SHMC_ERR_ARG;
    }
}

extern "C" int shmc__cuda_reduce_fold(const void *const *ins, int nin, void *const *outs, int nout,
                                      size_t n, shmc_dtype dt, shmc_op op, cudaStream_t stream)
{
    if (shmc__reduce_check(dt, op) != SHMC_OK || nin < 1 || nin > SHMC_CUDA_FOLD_MAX ||
        nout < 0 || nout > SHMC_CUDA_FOLD_MAX)
        return SHMC_ERR_ARG;
    if (n == 0 || nout == 0)
        return SHMC_OK;
    FoldArgs a;
    a.nin = nin;
    a.nout = nout;
    for (int q = 0; q < nin; q++)
        a.in[q] = ins[q];
    for (int q = 0; q < nout; q++)
        a.out[q] = outs[q];
    return by_dtype(a, n, dt, op, stream);
}
