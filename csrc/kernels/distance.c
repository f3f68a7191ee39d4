/* distance.c - the cross product (cross, linalg_cross) and pairwise distances (cdist, pdist).
 *
 * cross broadcasts its two inputs (of one dtype and rank) and walks every position of the result
 * outside `dim`, where the three components are read through each input's strides (0 along
 * broadcast dimensions) and combined by the textbook formula in the dtype's own arithmetic:
 * integers wrap (computed in uint64, whose low bits are the narrow type's), float16 and bfloat16
 * round each product and difference to the dtype as torch's Half arithmetic does, complex numbers
 * multiply by the textbook formula.
 *
 * cdist broadcasts the batch dimensions of x1 [..., r1, m] and x2 [..., r2, m] and computes every
 * p-norm distance directly, accumulating in double: sum |d|^p then the 1/p power, with p = 0
 * (count of differing coordinates), 1, 2 and inf done without pow. torch's compute_mode only
 * chooses how it computes p = 2 (a matrix product for more than 25 rows by default); here it is
 * checked and every mode gets the direct, more accurate sum, so results may differ from torch's
 * in the last digits. pdist is the upper triangle of cdist(x, x) in row-major order. Both take
 * float32 and float64 only, as torch's CPU kernels do; rows of the result go to OpenMP threads
 * when the work is large.
 *
 * The backward kernels (_cdist_backward, _pdist_backward) give each row of the input the sum,
 * over the rows it was compared with, of grad times the derivative of that distance, in double;
 * rows go to threads as in the forward.
 */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "half.h"
#include "native.h"
#include "sort_common.h"

/* ---------------------------------------------------------------- shapes */

/* t's element strides over `shape` (nd dims, t's dims aligned to the right; 0 where broadcast). */
static void expanded_strides(int32_t tnd, const int64_t *tsizes, const int64_t *tstrides,
                             int32_t nd, const int64_t *shape, int64_t *out)
{
    for (int32_t d = 0, td = tnd - nd; d < nd; d++, td++)
        out[d] = td < 0 || (tsizes[td] == 1 && shape[d] != 1) ? 0 : tstrides[td];
}

/* The element offset of position `pos` (row-major over nd dims of `shape`) in strides. */
static int64_t offset_of(int32_t nd, const int64_t *shape, const int64_t *strides, int64_t pos)
{
    int64_t off = 0;
    for (int32_t d = nd - 1; d >= 0; d--) {
        off += (pos % shape[d]) * strides[d];
        pos /= shape[d];
    }
    return off;
}

/* ---------------------------------------------------------------- cross */

typedef struct cross_plan {
    int32_t dtype, nd;
    int64_t shape[PT_MAX_DIMS]; /* the result's dims without `dim` */
    int64_t strides[3][PT_MAX_DIMS];
    int64_t along[3];
    char *data[3]; /* out, self, other */
} cross_plan;

/* r = a x b for three components at element steps sa, sb, sr. */
#define CROSS_INT(T)                                                                               \
    {                                                                                              \
        const T *a = (const T *)pa, *b = (const T *)pb;                                            \
        T *r = (T *)pr;                                                                            \
        uint64_t a0 = (uint64_t)a[0], a1 = (uint64_t)a[sa], a2 = (uint64_t)a[2 * sa];              \
        uint64_t b0 = (uint64_t)b[0], b1 = (uint64_t)b[sb], b2 = (uint64_t)b[2 * sb];              \
        r[0] = (T)(a1 * b2 - a2 * b1);                                                             \
        r[sr] = (T)(a2 * b0 - a0 * b2);                                                            \
        r[2 * sr] = (T)(a0 * b1 - a1 * b0);                                                        \
        return;                                                                                    \
    }
#define CROSS_FLOAT(T)                                                                             \
    {                                                                                              \
        const T *a = (const T *)pa, *b = (const T *)pb;                                            \
        T *r = (T *)pr;                                                                            \
        r[0] = a[sa] * b[2 * sb] - a[2 * sa] * b[sb];                                              \
        r[sr] = a[2 * sa] * b[0] - a[0] * b[2 * sb];                                               \
        r[2 * sr] = a[0] * b[sb] - a[sa] * b[0];                                                   \
        return;                                                                                    \
    }

typedef float (*half_load)(uint16_t);
typedef uint16_t (*half_store)(float);

/* Each product and the difference rounded to the 16-bit type, as torch's Half/BFloat16 do. */
static void cross_half(const uint16_t *a, const uint16_t *b, uint16_t *r, int64_t sa, int64_t sb,
                       int64_t sr, half_load ld, half_store st)
{
    float x[3] = {ld(a[0]), ld(a[sa]), ld(a[2 * sa])}, y[3] = {ld(b[0]), ld(b[sb]), ld(b[2 * sb])};
    for (int c = 0; c < 3; c++) {
        int i = (c + 1) % 3, j = (c + 2) % 3;
        float p = ld(st(x[i] * y[j])), q = ld(st(x[j] * y[i]));
        r[c * sr] = st(p - q);
    }
}

static void cross_complex(const double *a, const double *b, double *r, int64_t sa, int64_t sb,
                          int64_t sr)
{
    /* a, b, r point at (re, im) pairs; strides count complex elements */
    for (int c = 0; c < 3; c++) {
        int i = (c + 1) % 3, j = (c + 2) % 3;
        const double *ai = a + 2 * i * sa, *aj = a + 2 * j * sa;
        const double *bi = b + 2 * i * sb, *bj = b + 2 * j * sb;
        r[2 * c * sr] = (ai[0] * bj[0] - ai[1] * bj[1]) - (aj[0] * bi[0] - aj[1] * bi[1]);
        r[2 * c * sr + 1] = (ai[0] * bj[1] + ai[1] * bj[0]) - (aj[0] * bi[1] + aj[1] * bi[0]);
    }
}

static void cross_complex64(const float *a, const float *b, float *r, int64_t sa, int64_t sb,
                            int64_t sr)
{
    for (int c = 0; c < 3; c++) {
        int i = (c + 1) % 3, j = (c + 2) % 3;
        const float *ai = a + 2 * i * sa, *aj = a + 2 * j * sa;
        const float *bi = b + 2 * i * sb, *bj = b + 2 * j * sb;
        r[2 * c * sr] = (ai[0] * bj[0] - ai[1] * bj[1]) - (aj[0] * bi[0] - aj[1] * bi[1]);
        r[2 * c * sr + 1] = (ai[0] * bj[1] + ai[1] * bj[0]) - (aj[0] * bi[1] + aj[1] * bi[0]);
    }
}

static void cross_one(int32_t dtype, char *pr, const char *pa, const char *pb, int64_t sr,
                      int64_t sa, int64_t sb)
{
    switch (dtype) {
    case PT_UINT8: CROSS_INT(uint8_t)
    case PT_INT8: CROSS_INT(int8_t)
    case PT_INT16: CROSS_INT(int16_t)
    case PT_INT32: CROSS_INT(int32_t)
    case PT_INT64: CROSS_INT(int64_t)
    case PT_FLOAT32: CROSS_FLOAT(float)
    case PT_FLOAT64: CROSS_FLOAT(double)
    case PT_FLOAT16:
        cross_half((const uint16_t *)pa, (const uint16_t *)pb, (uint16_t *)pr, sa, sb, sr,
                   pt_half_to_float_inline, pt_float_to_half_inline);
        return;
    case PT_BFLOAT16:
        cross_half((const uint16_t *)pa, (const uint16_t *)pb, (uint16_t *)pr, sa, sb, sr,
                   pt_bfloat16_to_float_inline, pt_float_to_bfloat16_inline);
        return;
    case PT_COMPLEX64:
        cross_complex64((const float *)pa, (const float *)pb, (float *)pr, sa, sb, sr);
        return;
    default:
        cross_complex((const double *)pa, (const double *)pb, (double *)pr, sa, sb, sr);
        return;
    }
}
#undef CROSS_INT
#undef CROSS_FLOAT

static void cross_run(const cross_plan *p, int64_t count)
{
    int64_t isz = pt_dtype_itemsize(p->dtype);
    for (int64_t pos = 0; pos < count; pos++) {
        char *ptr[3];
        for (int k = 0; k < 3; k++)
            ptr[k] = p->data[k] + offset_of(p->nd, p->shape, p->strides[k], pos) * isz;
        cross_one(p->dtype, ptr[0], ptr[1], ptr[2], p->along[0], p->along[1], p->along[2]);
    }
}

static pt_status cross_check(const pt_tensor *self, const pt_tensor *other, int64_t dim,
                             int32_t *wrapped)
{
    PT_TRY(pt_iter_check_operand(self, "cross", "self"));
    PT_TRY(pt_iter_check_operand(other, "cross", "other"));
    if (self->ndim != other->ndim)
        return PT_ERROR(PT_ERR_RUNTIME, "linalg.cross: inputs must have the same number of "
                        "dimensions.");
    if (self->ndim == 0)
        return PT_ERROR(PT_ERR_INDEX, "Dimension specified as %lld but tensor has no dimensions",
                        (long long)dim);
    PT_TRY(pt_wrap_dim(dim, self->ndim, wrapped));
    if (self->sizes[*wrapped] != 3 || other->sizes[*wrapped] != 3)
        return PT_ERROR(PT_ERR_RUNTIME, "linalg.cross: inputs dimension %lld must have length 3. "
                        "Got %lld and %lld", (long long)dim, (long long)self->sizes[*wrapped],
                        (long long)other->sizes[*wrapped]);
    if (self->dtype != other->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        pt_iter_type_name(self->dtype), pt_iter_type_name(other->dtype));
    if (self->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"cross\" not implemented for 'Bool'");
    if ((self->device.type == PT_DEV_META) != (other->device.type == PT_DEV_META))
        return PT_ERROR(PT_ERR_RUNTIME, "linalg.cross: expected both inputs on one device, got "
                        "%s and %s", pt_device_type_name(self->device.type),
                        pt_device_type_name(other->device.type));
    return PT_OK;
}

pt_status pt_kernel_linalg_cross(const pt_tensor *self, const pt_tensor *other, int64_t dim,
                                 pt_tensor **ret)
{
    int32_t d, nd;
    PT_TRY(cross_check(self, other, dim, &d));
    int64_t shape[PT_MAX_DIMS], ss[PT_MAX_DIMS], os[PT_MAX_DIMS];
    PT_TRY(pt_broadcast_sizes(self->ndim, self->sizes, other->ndim, other->sizes, &nd, shape));
    pt_tensor *out;
    PT_TRY(pt_tensor_empty(nd, shape, self->dtype, self->device, &out));
    *ret = out;
    if (out->device.type != PT_DEV_CPU || out->numel == 0) return PT_OK;
    expanded_strides(self->ndim, self->sizes, self->strides, nd, shape, ss);
    expanded_strides(other->ndim, other->sizes, other->strides, nd, shape, os);
    cross_plan p = {.dtype = self->dtype, .nd = 0,
                    .data = {pt_tensor_data(out), pt_tensor_data(self), pt_tensor_data(other)}};
    const int64_t *st[3] = {out->strides, ss, os};
    int64_t count = 1;
    for (int32_t k = 0; k < nd; k++) {
        if (k == d) continue;
        p.shape[p.nd] = shape[k];
        for (int j = 0; j < 3; j++) p.strides[j][p.nd] = st[j][k];
        count *= shape[k];
        p.nd++;
    }
    for (int j = 0; j < 3; j++) p.along[j] = st[j][d];
    cross_run(&p, count);
    return PT_OK;
}

pt_status pt_kernel_linalg_cross_out(const pt_tensor *self, const pt_tensor *other, int64_t dim,
                                     pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r;
    PT_TRY(pt_kernel_linalg_cross(self, other, dim, &r));
    return pt_sort_move_out("linalg_cross", "out", r, out, ret);
}

/* torch.cross without dim: the first dimension of self of size 3. */
static pt_status default_dim(const pt_tensor *self, const int64_t *dim, int64_t *out)
{
    if (dim) {
        *out = *dim;
        return PT_OK;
    }
    PT_TRY(pt_iter_check_operand(self, "cross", "self"));
    for (int32_t d = 0; d < self->ndim; d++)
        if (self->sizes[d] == 3) {
            *out = d;
            return PT_OK;
        }
    return PT_ERROR(PT_ERR_RUNTIME, "no dimension of size 3 in input");
}

pt_status pt_kernel_cross(const pt_tensor *self, const pt_tensor *other, const int64_t *dim,
                          pt_tensor **ret)
{
    int64_t d = -1;
    PT_TRY(default_dim(self, dim, &d));
    return pt_kernel_linalg_cross(self, other, d, ret);
}

pt_status pt_kernel_cross_out(const pt_tensor *self, const pt_tensor *other, const int64_t *dim,
                              pt_tensor *out, pt_tensor **ret)
{
    int64_t d = -1;
    PT_TRY(default_dim(self, dim, &d));
    return pt_kernel_linalg_cross_out(self, other, d, out, ret);
}

/* ---------------------------------------------------------------- p-norm distances */

/* The p-norm of the difference of two m-vectors (element strides sa, sb), accumulated in double. */
#define PNORM(T)                                                                                   \
    static double pnorm_##T(const T *a, const T *b, int64_t m, int64_t sa, int64_t sb, double p)   \
    {                                                                                              \
        double acc = 0;                                                                            \
        if (p == 0) {                                                                              \
            for (int64_t i = 0; i < m; i++) acc += a[i * sa] != b[i * sb];                         \
            return acc;                                                                            \
        }                                                                                          \
        if (p == 1) {                                                                              \
            for (int64_t i = 0; i < m; i++) acc += fabs((double)a[i * sa] - (double)b[i * sb]);    \
            return acc;                                                                            \
        }                                                                                          \
        if (p == 2) {                                                                              \
            for (int64_t i = 0; i < m; i++) {                                                      \
                double d = (double)a[i * sa] - (double)b[i * sb];                                  \
                acc += d * d;                                                                      \
            }                                                                                      \
            return sqrt(acc);                                                                      \
        }                                                                                          \
        if (isinf(p)) {                                                                            \
            for (int64_t i = 0; i < m; i++) acc = fmax(acc, fabs((double)a[i * sa] - b[i * sb]));  \
            return acc;                                                                            \
        }                                                                                          \
        for (int64_t i = 0; i < m; i++) acc += pow(fabs((double)a[i * sa] - b[i * sb]), p);        \
        return pow(acc, 1.0 / p);                                                                  \
    }
PNORM(float)
PNORM(double)
#undef PNORM

/* One pairwise-distance job: rows of x1 (r1 per batch) against rows of x2 (r2 per batch). */
typedef struct dist_plan {
    int32_t dtype, nb;
    int64_t batch[PT_MAX_DIMS];
    int64_t bstrides[2][PT_MAX_DIMS]; /* batch strides of x1, x2 */
    int64_t r1, r2, m, row[2], col[2]; /* row and column strides of x1, x2 */
    double p;
    const char *x[2];
    char *out;
    bool upper; /* pdist: only j > i, packed */
} dist_plan;

static void dist_rows(const dist_plan *q, int64_t first, int64_t last)
{
    int64_t isz = pt_dtype_itemsize(q->dtype);
    for (int64_t br = first; br < last; br++) {
        int64_t b = br / q->r1, i = br % q->r1;
        const char *a = q->x[0] + (offset_of(q->nb, q->batch, q->bstrides[0], b) +
                                   i * q->row[0]) * isz;
        const char *xb = q->x[1] + offset_of(q->nb, q->batch, q->bstrides[1], b) * isz;
        int64_t j0 = q->upper ? i + 1 : 0;
        /* pdist packs row i's pairs after those of rows 0..i-1: i * n - i * (i + 1) / 2 */
        char *o = q->out + (q->upper ? i * q->r2 - i * (i + 1) / 2 : br * q->r2) * isz;
        for (int64_t j = j0; j < q->r2; j++, o += isz) {
            const char *c = xb + j * q->row[1] * isz;
            if (q->dtype == PT_FLOAT32)
                *(float *)o = (float)pnorm_float((const float *)a, (const float *)c, q->m,
                                                 q->col[0], q->col[1], q->p);
            else
                *(double *)o = pnorm_double((const double *)a, (const double *)c, q->m, q->col[0],
                                            q->col[1], q->p);
        }
    }
}

/* Rows to threads when there is enough work (the same grain as the sort's). */
enum { DIST_GRAIN = 32768 };

static void dist_run(const dist_plan *q, int64_t rows)
{
#ifdef _OPENMP
    int64_t work = rows * q->r2 * (q->m > 0 ? q->m : 1);
    int threads = pt_get_num_threads();
    if (rows > 1 && work >= 2 * DIST_GRAIN && threads > 1 && !omp_in_parallel()) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (int64_t r = 0; r < rows; r++) dist_rows(q, r, r + 1);
        return;
    }
#endif
    dist_rows(q, 0, rows);
}

static pt_status check_float(const char *op, const pt_tensor *t)
{
    if (t->dtype == PT_FLOAT16 || t->dtype == PT_BFLOAT16)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for '%s'", op,
                        pt_iter_type_name(t->dtype));
    return PT_OK;
}

static bool floating(int32_t id)
{
    return id == PT_FLOAT16 || id == PT_BFLOAT16 || id == PT_FLOAT32 || id == PT_FLOAT64;
}

static pt_status cdist_check(const pt_tensor *x1, const pt_tensor *x2, double p,
                             const int64_t *mode)
{
    PT_TRY(pt_iter_check_operand(x1, "cdist", "x1"));
    PT_TRY(pt_iter_check_operand(x2, "cdist", "x2"));
    if (x1->ndim < 2)
        return PT_ERROR(PT_ERR_RUNTIME, "cdist only supports at least 2D tensors, X1 got: %dD",
                        (int)x1->ndim);
    if (x2->ndim < 2)
        return PT_ERROR(PT_ERR_RUNTIME, "cdist only supports at least 2D tensors, X2 got: %dD",
                        (int)x2->ndim);
    int64_t c1 = x1->sizes[x1->ndim - 1], c2 = x2->sizes[x2->ndim - 1];
    if (c1 != c2)
        return PT_ERROR(PT_ERR_RUNTIME, "X1 and X2 must have the same number of columns. X1: %lld "
                        "X2: %lld", (long long)c1, (long long)c2);
    if (!floating(x1->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "cdist only supports floating-point dtypes, X1 got: %s",
                        pt_iter_type_name(x1->dtype));
    if (!floating(x2->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "cdist only supports floating-point dtypes, X2 got: %s",
                        pt_iter_type_name(x2->dtype));
    if (!(p >= 0)) return PT_ERROR(PT_ERR_RUNTIME, "cdist only supports non-negative p values");
    if (mode && (*mode < 0 || *mode > 2))
        return PT_ERROR(PT_ERR_RUNTIME, "possible modes: 0, 1, 2, but was: %lld",
                        (long long)*mode);
    if (x1->dtype != x2->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        pt_iter_type_name(x1->dtype), pt_iter_type_name(x2->dtype));
    if ((x1->device.type == PT_DEV_META) != (x2->device.type == PT_DEV_META))
        return PT_ERROR(PT_ERR_RUNTIME, "cdist: X1 and X2 must be on one device, got %s and %s",
                        pt_device_type_name(x1->device.type),
                        pt_device_type_name(x2->device.type));
    return check_float("cdist", x1);
}

pt_status pt_kernel_cdist(const pt_tensor *x1, const pt_tensor *x2, double p,
                          const int64_t *compute_mode, pt_tensor **ret)
{
    PT_TRY(cdist_check(x1, x2, p, compute_mode));
    dist_plan q = {.dtype = x1->dtype, .p = p, .r1 = x1->sizes[x1->ndim - 2],
                   .r2 = x2->sizes[x2->ndim - 2], .m = x1->sizes[x1->ndim - 1]};
    PT_TRY(pt_broadcast_sizes(x1->ndim - 2, x1->sizes, x2->ndim - 2, x2->sizes, &q.nb, q.batch));
    int64_t sizes[PT_MAX_DIMS], batches = 1;
    for (int32_t d = 0; d < q.nb; d++) batches *= sizes[d] = q.batch[d];
    sizes[q.nb] = q.r1;
    sizes[q.nb + 1] = q.r2;
    pt_tensor *out;
    PT_TRY(pt_tensor_empty(q.nb + 2, sizes, x1->dtype, x1->device, &out));
    *ret = out;
    if (out->device.type != PT_DEV_CPU || out->numel == 0) return PT_OK;
    const pt_tensor *xs[2] = {x1, x2};
    for (int k = 0; k < 2; k++) {
        const pt_tensor *t = xs[k];
        expanded_strides(t->ndim - 2, t->sizes, t->strides, q.nb, q.batch, q.bstrides[k]);
        q.row[k] = t->strides[t->ndim - 2];
        q.col[k] = t->strides[t->ndim - 1];
        q.x[k] = pt_tensor_data(t);
    }
    q.out = pt_tensor_data(out);
    dist_run(&q, batches * q.r1);
    return PT_OK;
}

pt_status pt_kernel_cdist_out(const pt_tensor *x1, const pt_tensor *x2, double p,
                              const int64_t *compute_mode, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r;
    PT_TRY(pt_kernel_cdist(x1, x2, p, compute_mode, &r));
    return pt_sort_move_out("_cdist_forward", "out", r, out, ret);
}

pt_status pt_kernel_pdist(const pt_tensor *self, double p, pt_tensor **ret)
{
    PT_TRY(pt_iter_check_operand(self, "pdist", "self"));
    if (self->ndim != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "pdist only supports 2D tensors, got: %dD",
                        (int)self->ndim);
    if (!floating(self->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "pdist only supports floating-point dtypes");
    if (!(p >= 0)) return PT_ERROR(PT_ERR_RUNTIME, "pdist only supports non-negative p values");
    PT_TRY(check_float("pdist", self));
    int64_t n = self->sizes[0], pairs = n * (n - 1) / 2;
    pt_tensor *out;
    PT_TRY(pt_tensor_empty(1, &pairs, self->dtype, self->device, &out));
    *ret = out;
    if (out->device.type != PT_DEV_CPU || pairs == 0) return PT_OK;
    dist_plan q = {.dtype = self->dtype, .p = p, .r1 = n, .r2 = n, .m = self->sizes[1],
                   .upper = true, .out = pt_tensor_data(out)};
    for (int k = 0; k < 2; k++) {
        q.row[k] = self->strides[0];
        q.col[k] = self->strides[1];
        q.x[k] = pt_tensor_data(self);
    }
    dist_run(&q, n);
    return PT_OK;
}

pt_status pt_kernel_pdist_out(const pt_tensor *self, double p, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *r;
    PT_TRY(pt_kernel_pdist(self, p, &r));
    return pt_sort_move_out("_pdist_forward", "out", r, out, ret);
}

/* ---------------------------------------------------------------- backward of the distances */
/* d dist(a, b) / d a_k times grad, for diff = a_k - b_k (in the dtype, as torch's kernels take
 * it) and dist = the forward's result; torch's cases: p = 0 has no gradient, 1 gives sign(diff),
 * p < 2 and the general p the power formulas (0 where dist is 0, and for p < 1 where diff is 0,
 * whose power would be infinite), 2 diff / dist, inf sign(diff) at the coordinates that reach the
 * maximum. The function is odd in diff: b's gradient is the negation, with diff = b_k - a_k. */
static double dist_grad(double diff, double grad, double dist, double p)
{
    const double sgn = (double)(diff > 0) - (double)(diff < 0);
    if (p == 0) return 0;
    if (p == 1) return grad * sgn;
    if (p < 2) {
        if (dist == 0 || (diff == 0 && p < 1)) return 0;
        return sgn * pow(fabs(diff), p - 1) * grad / pow(dist, p - 1);
    }
    if (p == 2) return dist == 0 ? 0 : grad * diff / dist;
    if (isinf(p)) return fabs(diff) == dist ? grad * sgn : 0;
    return dist == 0 ? 0 : diff * pow(fabs(diff), p - 2) * grad / pow(dist, p - 1);
}

static inline double load_real(int32_t dtype, const char *base, int64_t off)
{
    return dtype == PT_FLOAT32 ? (double)((const float *)base)[off]
                               : ((const double *)base)[off];
}

/* a - b rounded to the dtype (torch takes the difference in the dtype's arithmetic). */
static inline double diff_in(int32_t dtype, double a, double b)
{
    return dtype == PT_FLOAT32 ? (double)((float)a - (float)b) : a - b;
}

static inline void store_real(int32_t dtype, char *base, int64_t off, double v)
{
    if (dtype == PT_FLOAT32) ((float *)base)[off] = (float)v;
    else ((double *)base)[off] = v;
}

/* One backward job: the gradient of rows of x (r1 per batch) against the rows of y (r2 per
 * batch), through grad and dist of shape [batch, r1, r2]. pdist uses it with x = y = self and the
 * packed upper triangle for grad and dist (upper). */
typedef struct dist_bw_plan {
    int32_t dtype, nb;
    int64_t batch[PT_MAX_DIMS];
    int64_t bstrides[4][PT_MAX_DIMS]; /* x, y, grad, dist */
    int64_t r1, r2, m, row[4], col[4];
    const char *src[4];
    char *out; /* contiguous [batch, r1, m] */
    double p;
    bool upper;
} dist_bw_plan;

static void dist_bw_rows(const dist_bw_plan *q, int64_t first, int64_t last)
{
    const int32_t dt = q->dtype;
    for (int64_t br = first; br < last; br++) {
        const int64_t b = br / q->r1, i = br % q->r1;
        int64_t base[4];
        for (int k = 0; k < 4; k++) base[k] = offset_of(q->nb, q->batch, q->bstrides[k], b);
        for (int64_t c = 0; c < q->m; c++) {
            const double xi = load_real(dt, q->src[0], base[0] + i * q->row[0] + c * q->col[0]);
            double acc = 0;
            for (int64_t j = 0; j < q->r2; j++) {
                int64_t gi;
                if (q->upper) {
                    if (j == i) continue;
                    const int64_t lo = i < j ? i : j, hi = i < j ? j : i;
                    gi = lo * q->r2 - lo * (lo + 1) / 2 + (hi - lo - 1);
                } else {
                    gi = i * q->row[2] + j * q->col[2];
                }
                const int64_t di = q->upper ? gi : i * q->row[3] + j * q->col[3];
                const double yj = load_real(dt, q->src[1], base[1] + j * q->row[1] + c * q->col[1]);
                const double g = load_real(dt, q->src[2], base[2] + (q->upper ? gi * q->col[2] : gi));
                const double d = load_real(dt, q->src[3], base[3] + (q->upper ? di * q->col[3] : di));
                acc += dist_grad(diff_in(dt, xi, yj), g, d, q->p);
            }
            store_real(dt, q->out, br * q->m + c, acc);
        }
    }
}

static void dist_bw_run(const dist_bw_plan *q, int64_t rows)
{
#ifdef _OPENMP
    int64_t work = rows * q->r2 * (q->m > 0 ? q->m : 1);
    int threads = pt_get_num_threads();
    if (rows > 1 && work >= 2 * DIST_GRAIN && threads > 1 && !omp_in_parallel()) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (int64_t r = 0; r < rows; r++) dist_bw_rows(q, r, r + 1);
        return;
    }
#endif
    dist_bw_rows(q, 0, rows);
}

/* The operand checks of the backward kernels: every tensor of x's dtype and device class. */
static pt_status dist_bw_check(const char *op, const pt_tensor *const *ts, const char *const *names,
                               int n)
{
    for (int k = 0; k < n; k++) PT_TRY(pt_iter_check_operand(ts[k], op, names[k]));
    if (!floating(ts[1]->dtype) || ts[1]->dtype == PT_FLOAT16 || ts[1]->dtype == PT_BFLOAT16)
        return PT_ERROR(PT_ERR_RUNTIME, "%s only supports float and double, got: %s", op,
                        pt_iter_type_name(ts[1]->dtype));
    for (int k = 0; k < n; k++) {
        if (ts[k]->dtype != ts[1]->dtype)
            return PT_ERROR(PT_ERR_RUNTIME, "%s: expected %s to have dtype %s, got %s", op,
                            names[k], pt_iter_type_name(ts[1]->dtype),
                            pt_iter_type_name(ts[k]->dtype));
        if ((ts[k]->device.type == PT_DEV_META) != (ts[1]->device.type == PT_DEV_META))
            return PT_ERROR(PT_ERR_RUNTIME, "%s: the tensors must be on one device", op);
    }
    return PT_OK;
}

static bool same_sizes(const pt_tensor *t, int32_t nd, const int64_t *sizes)
{
    return t->ndim == nd && memcmp(t->sizes, sizes, sizeof(int64_t) * (size_t)nd) == 0;
}

/* The gradient of cdist(x1, x2) for x1, in the batch shape both inputs broadcast to (autograd sums
 * it to x1's shape); x2's is the same call with the inputs swapped and grad, cdist transposed. */
pt_status pt_kernel_cdist_backward(const pt_tensor *grad, const pt_tensor *x1, const pt_tensor *x2,
                                   double p, const pt_tensor *cdist, pt_tensor **ret)
{
    const pt_tensor *ts[4] = {grad, x1, x2, cdist};
    static const char *const names[4] = {"grad", "x1", "x2", "cdist"};
    PT_TRY(dist_bw_check("_cdist_backward", ts, names, 4));
    if (x1->ndim < 2 || x2->ndim < 2 || x1->sizes[x1->ndim - 1] != x2->sizes[x2->ndim - 1])
        return PT_ERROR(PT_ERR_RUNTIME, "_cdist_backward: x1 and x2 must be at least 2-D with the "
                        "same number of columns");
    if (!(p >= 0)) return PT_ERROR(PT_ERR_RUNTIME, "cdist only supports non-negative p values");
    dist_bw_plan q = {.dtype = x1->dtype, .p = p, .r1 = x1->sizes[x1->ndim - 2],
                      .r2 = x2->sizes[x2->ndim - 2], .m = x1->sizes[x1->ndim - 1]};
    PT_TRY(pt_broadcast_sizes(x1->ndim - 2, x1->sizes, x2->ndim - 2, x2->sizes, &q.nb, q.batch));
    int64_t dsizes[PT_MAX_DIMS], osizes[PT_MAX_DIMS], batches = 1;
    for (int32_t d = 0; d < q.nb; d++) batches *= dsizes[d] = osizes[d] = q.batch[d];
    dsizes[q.nb] = osizes[q.nb] = q.r1;
    dsizes[q.nb + 1] = q.r2;
    osizes[q.nb + 1] = q.m;
    if (!same_sizes(grad, q.nb + 2, dsizes) || !same_sizes(cdist, q.nb + 2, dsizes))
        return PT_ERROR(PT_ERR_RUNTIME, "_cdist_backward: grad and cdist must have the shape of "
                        "cdist(x1, x2)");
    pt_tensor *out;
    PT_TRY(pt_tensor_empty(q.nb + 2, osizes, x1->dtype, x1->device, &out));
    *ret = out;
    if (out->device.type != PT_DEV_CPU || out->numel == 0) return PT_OK;
    for (int k = 0; k < 4; k++) {
        const pt_tensor *t = ts[k == 0 ? 1 : k == 1 ? 2 : k == 2 ? 0 : 3];
        expanded_strides(t->ndim - 2, t->sizes, t->strides, q.nb, q.batch, q.bstrides[k]);
        q.row[k] = t->strides[t->ndim - 2];
        q.col[k] = t->strides[t->ndim - 1];
        q.src[k] = pt_tensor_data(t);
    }
    q.out = pt_tensor_data(out);
    dist_bw_run(&q, batches * q.r1);
    return PT_OK;
}

/* The gradient of pdist(self): row i gets the pair terms of every j != i (the term is odd in the
 * difference, so the pairs where i is second need no sign of their own). */
pt_status pt_kernel_pdist_backward(const pt_tensor *grad, const pt_tensor *self, double p,
                                   const pt_tensor *pdist, pt_tensor **ret)
{
    const pt_tensor *ts[3] = {grad, self, pdist};
    static const char *const names[3] = {"grad", "self", "pdist"};
    PT_TRY(dist_bw_check("_pdist_backward", ts, names, 3));
    if (self->ndim != 2)
        return PT_ERROR(PT_ERR_RUNTIME, "pdist only supports 2D tensors, got: %dD",
                        (int)self->ndim);
    if (!(p >= 0)) return PT_ERROR(PT_ERR_RUNTIME, "pdist only supports non-negative p values");
    const int64_t n = self->sizes[0], pairs = n * (n - 1) / 2;
    if (!same_sizes(grad, 1, &pairs) || !same_sizes(pdist, 1, &pairs))
        return PT_ERROR(PT_ERR_RUNTIME, "_pdist_backward: grad and pdist must have the shape of "
                        "pdist(self)");
    pt_tensor *out;
    PT_TRY(pt_tensor_empty(2, self->sizes, self->dtype, self->device, &out));
    *ret = out;
    if (out->device.type != PT_DEV_CPU || out->numel == 0) return PT_OK;
    dist_bw_plan q = {.dtype = self->dtype, .p = p, .r1 = n, .r2 = n, .m = self->sizes[1],
                      .upper = true, .out = pt_tensor_data(out)};
    for (int k = 0; k < 2; k++) {
        q.row[k] = self->strides[0];
        q.col[k] = self->strides[1];
        q.src[k] = pt_tensor_data(self);
    }
    q.col[2] = grad->strides[0];
    q.col[3] = pdist->strides[0];
    q.src[2] = pt_tensor_data(grad);
    q.src[3] = pt_tensor_data(pdist);
    dist_bw_run(&q, n);
    return PT_OK;
}
