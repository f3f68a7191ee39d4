/* pad.c - padding: constant_pad_nd, reflection_pad{1,2,3}d and replication_pad{1,2,3}d with their
 * backward kernels, and the composites torch builds on them (_pad_circular, _pad_enum, pad), with
 * torch's checks and messages. Also the helpers the sampling fronts share (nn_sample.h).
 *
 * constant_pad_nd is torch's composition: negative pads narrow the input, positive ones make a
 * result filled with the value into whose interior the input is copied; it only uses
 * device-generic core functions, so one kernel serves every backend and dtype.
 *
 * Reflection and replication map each output index of a padded dim to an input index
 * (o - pad_left, then reflected about the edges or clamped to them); the maps become per-dim
 * tables of element offsets, so the forward is a gather of whole elements (any dtype: it moves
 * bytes) and the backward a scatter-add of grad_output into a zeroed grad_input. The forward splits
 * output rows across threads; the backward splits planes (the leading, unpadded indices), whose
 * grad_input elements no other plane touches, so the adds need no synchronization. Results keep
 * the input's memory format (channels_last stays channels_last), as torch's do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iter.h"
#include "native.h"
#include "nn/nn_sample.h"

/* ---------------------------------------------------------------- shared helpers */

void pt_sample_format_sizes(char *buf, size_t cap, int32_t ndim, const int64_t *sizes)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int32_t i = 0; i < ndim && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, i ? ", %lld" : "%lld", (long long)sizes[i]);
    if (n < cap) snprintf(buf + n, cap - n, "]");
}

int32_t pt_sample_memory_format(const pt_tensor *t)
{
    if (pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CONTIGUOUS)) return PT_MEMORY_FORMAT_CONTIGUOUS;
    if (t->ndim == 4 && pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CHANNELS_LAST))
        return PT_MEMORY_FORMAT_CHANNELS_LAST;
    if (t->ndim == 5 && pt_tensor_is_contiguous(t, PT_MEMORY_FORMAT_CHANNELS_LAST_3D))
        return PT_MEMORY_FORMAT_CHANNELS_LAST_3D;
    return PT_MEMORY_FORMAT_CONTIGUOUS;
}

pt_status pt_sample_empty(int32_t ndim, const int64_t *sizes, int32_t dtype, pt_device device,
                          int32_t memory_format, pt_tensor **out)
{
    int64_t strides[PT_MAX_DIMS];
    PT_TRY(pt_native_format_strides("empty", ndim, sizes, memory_format, strides));
    return pt_tensor_empty_strided(ndim, sizes, strides, dtype, device, out);
}

/* The status of an operator call that returned NULL (its error is recorded). */
bool pt_sample_is_half(int32_t dtype) { return dtype == PT_FLOAT16 || dtype == PT_BFLOAT16; }

pt_status pt_sample_upcast(const pt_tensor *t, pt_tensor **out)
{
    return pt_tensor_to(t, PT_FLOAT32, t->device, 0, out);
}

pt_status pt_sample_downcast(pt_status st, pt_tensor *r, int32_t dtype, pt_tensor **out)
{
    if (st != PT_OK) return st;
    st = pt_tensor_to(r, dtype, r->device, 0, out);
    pt_tensor_release(r);
    return st;
}

static pt_status call_error(void)
{
    return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
}

static pt_status returned(pt_tensor *r, pt_tensor **ret)
{
    if (!r) return call_error();
    *ret = r;
    return PT_OK;
}

/* ---------------------------------------------------------------- constant_pad_nd */

static pt_status narrow_replace(pt_tensor **t, int64_t dim, int64_t start, int64_t length)
{
    if (length < 0) return PT_ERROR(PT_ERR_RUNTIME, "narrow(): length must be non-negative.");
    pt_tensor *v;
    PT_TRY(pt_tensor_narrow(*t, dim, start, length, &v));
    pt_tensor_release(*t);
    *t = v;
    return PT_OK;
}

/* pad[2k], pad[2k + 1] pad the k-th dim from the last. Narrows *in (negative pads) or *out
 * (positive pads, out != NULL) in place; *positive tells whether any pad is positive. */
static pt_status constant_pad_views(const pt_tensor *self, int32_t n, const int64_t *pad,
                                    pt_tensor **in, pt_tensor **out, bool *positive)
{
    const int32_t nd = self->ndim;
    *positive = false;
    for (int32_t i = nd - n / 2; i < nd; i++) {
        const int64_t l = pad[2 * (nd - i - 1)], r = pad[2 * (nd - i - 1) + 1];
        if (in && l < 0) PT_TRY(narrow_replace(in, i, -l, (*in)->sizes[i] + l));
        if (in && r < 0) PT_TRY(narrow_replace(in, i, 0, (*in)->sizes[i] + r));
        if (out && l > 0) PT_TRY(narrow_replace(out, i, l, (*out)->sizes[i] - l));
        if (out && r > 0) PT_TRY(narrow_replace(out, i, 0, (*out)->sizes[i] - r));
        *positive |= l > 0 || r > 0;
    }
    return PT_OK;
}

static pt_status constant_pad_fill(const pt_tensor *self, int32_t n, const int64_t *pad,
                                   const pt_scalar *value, pt_tensor *in, pt_tensor **ret)
{
    const int32_t nd = self->ndim;
    int64_t sizes[PT_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) sizes[i] = self->sizes[i];
    for (int32_t k = 0; k < n / 2; k++) {
        const int32_t d = nd - n / 2 + k;
        const int64_t l = pad[n - 2 * (k + 1)], r = pad[n - 2 * (k + 1) + 1];
        sizes[d] = self->sizes[d] + l + r;
        if (sizes[d] < 0)
            return PT_ERROR(PT_ERR_RUNTIME, "The input size %lld, plus negative padding %lld and "
                            "%lld resulted in a negative output size, which is invalid. Check "
                            "dimension %d of your input.", (long long)self->sizes[d],
                            (long long)l, (long long)r, (int)d);
    }
    pt_tensor *r = NULL, *window = NULL;
    PT_TRY(pt_sample_empty(nd, sizes, self->dtype, self->device, pt_sample_memory_format(self),
                           &r));
    const pt_scalar zero = {PT_SCALAR_INT, 0, 0.0, 0.0};
    pt_status st = PT_OK;
    if (self->device.type != PT_DEV_META) st = pt_tensor_fill_(r, value ? value : &zero);
    if (st == PT_OK) {
        pt_tensor_retain(r);
        window = r;
        bool positive;
        st = constant_pad_views(self, n, pad, NULL, &window, &positive);
    }
    if (st == PT_OK && self->device.type != PT_DEV_META) st = pt_tensor_copy_(window, in);
    if (window) pt_tensor_release(window);
    if (st != PT_OK) {
        pt_tensor_release(r);
        return st;
    }
    *ret = r;
    return PT_OK;
}

pt_status pt_kernel_constant_pad_nd(const pt_tensor *self, int32_t pad_len, const int64_t *pad,
                                    const pt_scalar *value, pt_tensor **ret)
{
    if (pad_len % 2)
        return PT_ERROR(PT_ERR_RUNTIME, "Length of pad must be even but instead it equals %d",
                        (int)pad_len);
    if (pad_len / 2 > self->ndim)
        return PT_ERROR(PT_ERR_RUNTIME, "Length of pad should be no more than twice the number of "
                        "dimensions of the input. Pad length is %dwhile the input has "
                        "%ddimensions.", (int)pad_len, (int)self->ndim);
    pt_tensor *in = (pt_tensor *)self;
    pt_tensor_retain(in);
    bool positive;
    pt_status st = constant_pad_views(self, pad_len, pad, &in, NULL, &positive);
    if (st == PT_OK && !positive) st = pt_tensor_clone(in, PT_MEMORY_FORMAT_PRESERVE, ret);
    else if (st == PT_OK) st = constant_pad_fill(self, pad_len, pad, value, in, ret);
    pt_tensor_release(in);
    return st;
}

/* ---------------------------------------------------------------- reflection and replication */

enum { REFLECT = 0, REPLICATE = 1 };

typedef struct pad_job {
    const char *src;
    char *dst;
    int32_t lead, nd, isz, dtype, backward;
    int64_t lead_sizes[2], src_lead_s[2], dst_lead_s[2];
    int64_t out_size[PT_SAMPLE_MAX_DIMS], lin_s[PT_SAMPLE_MAX_DIMS];
    int64_t *map[PT_SAMPLE_MAX_DIMS]; /* output index -> element offset in the mapped tensor */
} pad_job;

/* Element offsets of plane p (the leading indices, row-major) in src and dst. */
static void plane_offsets(const pad_job *j, int64_t p, int64_t *so, int64_t *dof)
{
    *so = *dof = 0;
    for (int32_t d = j->lead - 1; d >= 0; d--) {
        const int64_t i = p % j->lead_sizes[d];
        p /= j->lead_sizes[d];
        *so += i * j->src_lead_s[d];
        *dof += i * j->dst_lead_s[d];
    }
}

#define GATHER_ROW(T)                                                                              \
    for (int64_t o = 0; o < w; o++)                                                                \
        ((T *)dst)[lin + o * ls] = ((const T *)src)[m + mw[o]];

/* One output row (the last padded dim): forward gathers src[mapped] into dst[linear]; backward
 * adds src[linear] (grad_output) into dst[mapped] (grad_input). */
static void pad_row(const pad_job *j, int64_t m, int64_t lin)
{
    const int32_t last = j->nd - 1;
    const int64_t w = j->out_size[last], ls = j->lin_s[last], *mw = j->map[last];
    const char *src = j->src;
    char *dst = j->dst;
    if (!j->backward) {
        switch (j->isz) {
        case 1: GATHER_ROW(uint8_t) break;
        case 2: GATHER_ROW(uint16_t) break;
        case 4: GATHER_ROW(uint32_t) break;
        case 8: GATHER_ROW(uint64_t) break;
        default:
            for (int64_t o = 0; o < w; o++)
                memcpy(dst + (lin + o * ls) * j->isz, src + (m + mw[o]) * j->isz,
                       (size_t)j->isz);
        }
        return;
    }
    /* complex values add as pairs of reals: the offsets double, each part is added */
    const int parts = j->dtype == PT_COMPLEX64 || j->dtype == PT_COMPLEX128 ? 2 : 1;
    if (j->dtype == PT_FLOAT32 || j->dtype == PT_COMPLEX64) {
        float *g = (float *)dst;
        const float *s = (const float *)src;
        for (int64_t o = 0; o < w; o++)
            for (int k = 0; k < parts; k++)
                g[(m + mw[o]) * parts + k] += s[(lin + o * ls) * parts + k];
    } else {
        double *g = (double *)dst;
        const double *s = (const double *)src;
        for (int64_t o = 0; o < w; o++)
            for (int k = 0; k < parts; k++)
                g[(m + mw[o]) * parts + k] += s[(lin + o * ls) * parts + k];
    }
}

/* Work unit u: a plane and, forward, one index of every padded dim but the last. */
static void pad_units(int64_t begin, int64_t end, void *arg)
{
    const pad_job *j = arg;
    int64_t rows = 1;
    for (int32_t d = 0; d + 1 < j->nd; d++) rows *= j->out_size[d];
    for (int64_t u = begin; u < end; u++) {
        const int64_t p = j->backward ? u : u / rows;
        int64_t so, dof;
        plane_offsets(j, p, &so, &dof);
        const int64_t moff = j->backward ? dof : so, loff = j->backward ? so : dof;
        const int64_t r0 = j->backward ? 0 : u % rows, r1 = j->backward ? rows : r0 + 1;
        for (int64_t r = r0; r < r1; r++) {
            int64_t m = moff, lin = loff, rest = r;
            for (int32_t d = j->nd - 2; d >= 0; d--) {
                const int64_t o = rest % j->out_size[d];
                rest /= j->out_size[d];
                m += j->map[d][o];
                lin += o * j->lin_s[d];
            }
            pad_row(j, m, lin);
        }
    }
}

static const char *const pad_names[2][3] = {
    {"reflection_pad1d", "reflection_pad2d", "reflection_pad3d"},
    {"replication_pad1d", "replication_pad2d", "replication_pad3d"}};

/* Checks self and padding; fills the output's full sizes. */
static pt_status pad_check(int kind, int32_t nd, const pt_tensor *self, int32_t n,
                           const int64_t *padding, int64_t *out_sizes)
{
    char shape[256];
    if (n != 2 * nd)
        return PT_ERROR(PT_ERR_RUNTIME, "padding size is expected to be %d, but got: %d",
                        (int)(2 * nd), (int)n);
    bool ok = self->ndim == nd + 1 || self->ndim == nd + 2;
    for (int32_t d = 1; ok && d < self->ndim; d++) ok = self->sizes[d] != 0;
    if (!ok) {
        pt_sample_format_sizes(shape, sizeof shape, self->ndim, self->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "Expected %dD or %dD (batch mode) tensor with possibly 0 "
                        "batch size and other non-zero dimensions for input, but got: %s",
                        (int)(nd + 1), (int)(nd + 2), shape);
    }
    const int32_t first = self->ndim - nd;
    for (int32_t k = 0; k < nd; k++) { /* k-th dim from the last */
        const int32_t d = self->ndim - 1 - k;
        const int64_t l = padding[2 * k], r = padding[2 * k + 1], size = self->sizes[d];
        if (kind == REFLECT && (l >= size || r >= size)) {
            pt_sample_format_sizes(shape, sizeof shape, self->ndim, self->sizes);
            return PT_ERROR(PT_ERR_RUNTIME, "Argument #%d: Padding size should be less than the "
                            "corresponding input dimension, but got: padding (%lld, %lld) at "
                            "dimension %d of input %s", (int)(4 + 2 * k), (long long)l,
                            (long long)r, (int)d, shape);
        }
    }
    /* torch refuses a 1-d output below 1 element, and 2-d or 3-d ones only when every padded
     * dim is below 1; a negative size among others fails as an allocation would */
    bool all_small = true, any_small = false;
    for (int32_t d = 0; d < self->ndim; d++) {
        out_sizes[d] = self->sizes[d];
        if (d < first) continue;
        const int32_t k = self->ndim - 1 - d;
        out_sizes[d] += padding[2 * k] + padding[2 * k + 1];
        all_small &= out_sizes[d] < 1;
        any_small |= out_sizes[d] < 0;
    }
    if (all_small) {
        static const char *const in_fmt[3] = {"W: %lld", "H: %lld, W: %lld",
                                              "D: %lld H: %lld, W: %lld"};
        static const char *const out_fmt[3] = {"W: %lld", "H: %lld W: %lld",
                                               "D: %lld H: %lld W: %lld"};
        const int64_t *i = self->sizes + first, *o = out_sizes + first;
        char in_s[128], out_s[128];
        if (nd == 1) {
            snprintf(in_s, sizeof in_s, in_fmt[0], (long long)i[0]);
            snprintf(out_s, sizeof out_s, out_fmt[0], (long long)o[0]);
        } else if (nd == 2) {
            snprintf(in_s, sizeof in_s, in_fmt[1], (long long)i[0], (long long)i[1]);
            snprintf(out_s, sizeof out_s, out_fmt[1], (long long)o[0], (long long)o[1]);
        } else {
            snprintf(in_s, sizeof in_s, in_fmt[2], (long long)i[0], (long long)i[1],
                     (long long)i[2]);
            snprintf(out_s, sizeof out_s, out_fmt[2], (long long)o[0], (long long)o[1],
                     (long long)o[2]);
        }
        return PT_ERROR(PT_ERR_RUNTIME, "input (%s%s) is too small. Calculated output %s", in_s,
                        kind == REPLICATE && nd == 2 ? " " : "", out_s);
    }
    if (any_small) {
        pt_sample_format_sizes(shape, sizeof shape, self->ndim, out_sizes);
        for (int32_t d = first; d < self->ndim; d++)
            if (out_sizes[d] < 0)
                return PT_ERROR(PT_ERR_RUNTIME, "Trying to create tensor with negative dimension "
                                "%lld: %s", (long long)out_sizes[d], shape);
    }
    return PT_OK;
}

/* Per padded dim, the element offset (stride of `mapped`) of the input index each output index
 * reads. */
static pt_status pad_maps(int kind, pad_job *j, const pt_tensor *self, const int64_t *padding,
                          const int64_t *mapped_strides)
{
    const int32_t first = self->ndim - j->nd;
    for (int32_t d = 0; d < j->nd; d++) {
        const int64_t size = self->sizes[first + d], l = padding[2 * (j->nd - 1 - d)];
        int64_t *m = malloc(sizeof(int64_t) * (size_t)(j->out_size[d] ? j->out_size[d] : 1));
        if (!m) return PT_ERROR(PT_ERR_MEMORY, "padding: could not allocate an index table");
        j->map[d] = m;
        for (int64_t o = 0; o < j->out_size[d]; o++) {
            int64_t i = o - l;
            if (kind == REPLICATE) i = i < 0 ? 0 : i >= size ? size - 1 : i;
            else if (i < 0) i = -i;
            else if (i >= size) i = 2 * (size - 1) - i;
            m[o] = i * mapped_strides[first + d];
        }
    }
    return PT_OK;
}

static void pad_maps_free(pad_job *j)
{
    for (int32_t d = 0; d < PT_SAMPLE_MAX_DIMS; d++) free(j->map[d]);
}

/* src: the gathered tensor (forward: self) or grad_output; dst: the result. */
static pt_status pad_run(int kind, int32_t nd, int backward, const pt_tensor *self,
                         const pt_tensor *src, pt_tensor *dst, const int64_t *padding,
                         const int64_t *out_sizes)
{
    pad_job j = {0};
    j.src = pt_tensor_data(src);
    j.dst = pt_tensor_data(dst);
    j.nd = nd;
    j.lead = self->ndim - nd;
    j.isz = pt_dtype_itemsize(self->dtype);
    j.dtype = self->dtype;
    j.backward = backward;
    const pt_tensor *lin = backward ? src : dst, *mapped = backward ? dst : src;
    int64_t planes = 1;
    for (int32_t d = 0; d < j.lead; d++) {
        j.lead_sizes[d] = self->sizes[d];
        j.src_lead_s[d] = src->strides[d];
        j.dst_lead_s[d] = dst->strides[d];
        planes *= self->sizes[d];
    }
    int64_t rows = 1;
    for (int32_t d = 0; d < nd; d++) {
        j.out_size[d] = out_sizes[j.lead + d];
        j.lin_s[d] = lin->strides[j.lead + d];
        if (d + 1 < nd) rows *= j.out_size[d];
    }
    pt_status st = pad_maps(kind, &j, self, padding, mapped->strides);
    if (st == PT_OK) {
        const int64_t row = j.out_size[nd - 1];
        if (backward) {
            const int64_t per = rows * row;
            pt_parallel_for(planes, (PT_GRAIN + per - 1) / (per ? per : 1), pad_units, &j);
        } else {
            pt_parallel_for(planes * rows, (PT_GRAIN + row - 1) / (row ? row : 1), pad_units, &j);
        }
    }
    pad_maps_free(&j);
    return st;
}

static pt_status pad_forward(int kind, int32_t nd, const pt_tensor *self, int32_t n,
                             const int64_t *padding, pt_tensor **ret)
{
    int64_t out_sizes[PT_MAX_DIMS];
    PT_TRY(pad_check(kind, nd, self, n, padding, out_sizes));
    if (self->dtype == PT_BOOL)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s\" not implemented for 'Bool'",
                        pad_names[kind][nd - 1]);
    pt_tensor *r;
    PT_TRY(pt_sample_empty(self->ndim, out_sizes, self->dtype, self->device,
                           pt_sample_memory_format(self), &r));
    if (self->device.type == PT_DEV_CPU && r->numel) {
        const pt_status st = pad_run(kind, nd, 0, self, self, r, padding, out_sizes);
        if (st != PT_OK) {
            pt_tensor_release(r);
            return st;
        }
    }
    *ret = r;
    return PT_OK;
}

static pt_status pad_backward(int kind, int32_t nd, const pt_tensor *grad_output,
                              const pt_tensor *self, int32_t n, const int64_t *padding,
                              pt_tensor **ret)
{
    int64_t out_sizes[PT_MAX_DIMS];
    PT_TRY(pad_check(kind, nd, self, n, padding, out_sizes));
    static const char *const letters[3] = {"depth", "height", "width"};
    const char *prefix = kind == REFLECT && nd != 2 ? "grad_output" : "gradOutput";
    const char *sep = kind == REPLICATE && nd == 1 ? "" : ",";
    for (int32_t k = 0; k < nd; k++) { /* width first, as torch checks */
        const int32_t d = self->ndim - 1 - k;
        if (grad_output->ndim != self->ndim || grad_output->sizes[d] != out_sizes[d])
            return PT_ERROR(PT_ERR_RUNTIME, "%s %s unexpected. Expected: %lld%s Got: %lld", prefix,
                            letters[2 - k], (long long)out_sizes[d], sep,
                            grad_output->ndim == self->ndim ? (long long)grad_output->sizes[d]
                                                            : -1LL);
    }
    for (int32_t d = 0; d < self->ndim - nd; d++)
        if (grad_output->sizes[d] != self->sizes[d])
            return PT_ERROR(PT_ERR_RUNTIME, "%s_backward: grad_output has size %lld at dimension "
                            "%d, expected %lld", pad_names[kind][nd - 1],
                            (long long)grad_output->sizes[d], (int)d, (long long)self->sizes[d]);
    const int32_t dt = grad_output->dtype;
    if (pt_sample_is_half(dt) && self->dtype == dt) { /* Note [reduced precision sampling] */
        pt_tensor *g, *s, *r = NULL;
        PT_TRY(pt_sample_upcast(grad_output, &g));
        pt_status st = pt_sample_upcast(self, &s);
        if (st == PT_OK) {
            st = pad_backward(kind, nd, g, s, n, padding, &r);
            pt_tensor_release(s);
        }
        pt_tensor_release(g);
        return pt_sample_downcast(st, r, dt, ret);
    }
    if (dt != PT_FLOAT32 && dt != PT_FLOAT64 && dt != PT_COMPLEX64 && dt != PT_COMPLEX128)
        return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "\"%s_backward\" not implemented for '%s'",
                        pad_names[kind][nd - 1], pt_iter_type_name(dt));
    if (self->dtype != dt)
        return PT_ERROR(PT_ERR_RUNTIME, "%s_backward: expected grad_output and self to have the "
                        "same dtype, but got %s and %s", pad_names[kind][nd - 1],
                        pt_iter_type_name(dt), pt_iter_type_name(self->dtype));
    pt_tensor *r;
    PT_TRY(pt_sample_empty(self->ndim, self->sizes, dt, self->device,
                           pt_sample_memory_format(self), &r));
    if (self->device.type == PT_DEV_CPU && r->numel) {
        memset(pt_tensor_data(r), 0, (size_t)(r->numel * pt_dtype_itemsize(dt)));
        const pt_status st = pad_run(kind, nd, 1, self, grad_output, r, padding, out_sizes);
        if (st != PT_OK) {
            pt_tensor_release(r);
            return st;
        }
    }
    *ret = r;
    return PT_OK;
}

#define PAD_ENTRIES(KIND, NAME, ND)                                                                \
    pt_status pt_kernel_##NAME(const pt_tensor *self, int32_t padding_len,                         \
                               const int64_t *padding, pt_tensor **ret)                            \
    {                                                                                              \
        return pad_forward(KIND, ND, self, padding_len, padding, ret);                             \
    }                                                                                              \
    pt_status pt_kernel_##NAME##_backward(const pt_tensor *grad_output, const pt_tensor *self,     \
                                          int32_t padding_len, const int64_t *padding,             \
                                          pt_tensor **ret)                                         \
    {                                                                                              \
        return pad_backward(KIND, ND, grad_output, self, padding_len, padding, ret);               \
    }

PAD_ENTRIES(REFLECT, reflection_pad1d, 1)
PAD_ENTRIES(REFLECT, reflection_pad2d, 2)
PAD_ENTRIES(REFLECT, reflection_pad3d, 3)
PAD_ENTRIES(REPLICATE, replication_pad1d, 1)
PAD_ENTRIES(REPLICATE, replication_pad2d, 2)
PAD_ENTRIES(REPLICATE, replication_pad3d, 3)

/* ---------------------------------------------------------------- composites */

/* torch's _pad_circular: the input copied into the middle of a new tensor, then each padded dim's
 * borders copied from the opposite side of that tensor (corners are written more than once). The
 * copies go through the operators, so autograd records them (CopySlices) as it does in torch. */
static pt_status copy_slices(pt_tensor *out, int32_t n, const int64_t *dims, const int64_t *starts,
                             const int64_t *ends, const pt_tensor *src)
{
    pt_tensor *v = out;
    pt_tensor_retain(v);
    for (int32_t i = 0; i < n; i++) {
        pt_tensor *s = pt_call_slice_Tensor(v, dims[i], &starts[i], &ends[i], 1);
        pt_tensor_release(v);
        if (!s) return call_error();
        v = s;
    }
    pt_tensor *r = pt_call_copy_(v, src, 0);
    pt_tensor_release(v);
    if (!r) return call_error();
    pt_tensor_release(r);
    return PT_OK;
}

static pt_status circular_fill(pt_tensor *out, const pt_tensor *self, int32_t n,
                               const int64_t *pad, const int64_t *shape)
{
    const int32_t nd = n / 2, ndim = self->ndim;
    int64_t dims[PT_SAMPLE_MAX_DIMS] = {0}, os[PT_SAMPLE_MAX_DIMS] = {0};
    int64_t oe[PT_SAMPLE_MAX_DIMS] = {0};
    int64_t is[PT_SAMPLE_MAX_DIMS] = {0}, ie[PT_SAMPLE_MAX_DIMS] = {0};
    for (int32_t i = 0; i < nd; i++) {
        const int64_t d = ndim - 1 - i, l = pad[2 * i], r = pad[2 * i + 1];
        dims[i] = d;
        os[i] = l > 0 ? l : 0;
        oe[i] = shape[d] - (r > 0 ? r : 0);
        is[i] = l < 0 ? -l : 0;
        ie[i] = self->sizes[d] - (r < 0 ? -r : 0);
    }
    pt_tensor *in = (pt_tensor *)self;
    pt_tensor_retain(in);
    for (int32_t i = 0; i < nd; i++) {
        pt_tensor *s = pt_call_slice_Tensor(in, dims[i], &is[i], &ie[i], 1);
        pt_tensor_release(in);
        if (!s) return call_error();
        in = s;
    }
    pt_status st = copy_slices(out, nd, dims, os, oe, in);
    pt_tensor_release(in);
    for (int32_t i = 0; st == PT_OK && i < nd; i++) {
        const int64_t d = dims[i], l = pad[2 * i], r = pad[2 * i + 1];
        const int64_t lp = l > 0 ? l : 0, rp = r > 0 ? r : 0;
        if (l > 0) {
            int64_t a = shape[d] - l - rp, b = shape[d] - rp, z = 0;
            pt_tensor *from = pt_call_slice_Tensor(out, d, &a, &b, 1);
            if (!from) return call_error();
            st = copy_slices(out, 1, &d, &z, &l, from);
            pt_tensor_release(from);
        }
        if (st == PT_OK && r > 0) {
            int64_t a = lp, b = lp + r, s0 = shape[d] - r, s1 = shape[d];
            pt_tensor *from = pt_call_slice_Tensor(out, d, &a, &b, 1);
            if (!from) return call_error();
            st = copy_slices(out, 1, &d, &s0, &s1, from);
            pt_tensor_release(from);
        }
    }
    return st;
}

pt_status pt_native__pad_circular(const pt_tensor *self, int32_t pad_len, const int64_t *pad,
                                  pt_tensor **ret)
{
    const int32_t ndim = self->ndim, nd = pad_len / 2;
    if (pad_len % 2 || pad_len > 2 * PT_SAMPLE_MAX_DIMS || (ndim != nd + 1 && ndim != nd + 2))
        return PT_ERROR(PT_ERR_RUNTIME, "Invalid padding size, expected 1 or 2 non-padded "
                        "dimensions, which would be equivalent to padding of length %d or %d "
                        "respectively but got %d", (int)(2 * (ndim - 1)), (int)(2 * (ndim - 2)),
                        (int)pad_len);
    int64_t shape[PT_MAX_DIMS];
    for (int32_t d = 0; d < ndim; d++) shape[d] = self->sizes[d];
    for (int32_t i = 0; i < nd; i++) {
        const int32_t d = ndim - 1 - i;
        const int64_t l = pad[2 * i], r = pad[2 * i + 1];
        shape[d] = self->sizes[d] + l + r;
        /* torch compares with the input's size; the cropped size is what the copies read, and a
         * pad beyond it would read elements not yet written */
        const int64_t kept = self->sizes[d] + (l < 0 ? l : 0) + (r < 0 ? r : 0);
        if (l > self->sizes[d] || r > self->sizes[d] || (shape[d] > 0 && (l > kept || r > kept)))
            return PT_ERROR(PT_ERR_RUNTIME, "Padding value causes wrapping around more than once.");
        if (shape[d] < 0)
            return PT_ERROR(PT_ERR_RUNTIME, "Negative padding value is resulting in an empty "
                            "dimension");
    }
    pt_tensor *out = pt_call_empty_memory_format(ndim, shape, self->dtype, -1, &self->device, -1,
                                                 -1);
    if (!out) return call_error();
    const pt_status st = circular_fill(out, self, pad_len, pad, shape);
    if (st != PT_OK) {
        pt_tensor_release(out);
        return st;
    }
    *ret = out;
    return PT_OK;
}

static const char *const mode_names[] = {"reflect", "replicate", "circular", "constant"};

pt_status pt_native__pad_enum(const pt_tensor *self, int32_t pad_len, const int64_t *pad,
                              int64_t mode, const double *value, pt_tensor **ret)
{
    const int32_t ndim = self->ndim;
    if (pad_len % 2) return PT_ERROR(PT_ERR_RUNTIME, "Padding length must be divisible by 2");
    if (pad_len > 2 * ndim)
        return PT_ERROR(PT_ERR_RUNTIME, "Padding length should be less than or equal to two times "
                        "the input dimension but got padding length %d and input of dimension %d",
                        (int)pad_len, (int)ndim);
    if (mode == 3) {
        const pt_scalar v = {PT_SCALAR_FLOAT, 0, value ? *value : 0.0, 0.0};
        return returned(pt_call_constant_pad_nd(self, pad_len, pad, &v), ret);
    }
    if (value && mode >= 0 && mode < 3)
        return PT_ERROR(PT_ERR_RUNTIME, "Padding mode \"%s\" doesn't take in value argument",
                        mode_names[mode]);
    const int32_t nd = pad_len / 2;
    if (nd >= 1 && nd <= 3 && (ndim == nd + 1 || ndim == nd + 2) && mode >= 0 && mode < 3) {
        if (mode == 2) return pt_native__pad_circular(self, pad_len, pad, ret);
        pt_tensor *(*const fns[2][3])(const pt_tensor *, int32_t, const int64_t *) = {
            {pt_call_reflection_pad1d, pt_call_reflection_pad2d, pt_call_reflection_pad3d},
            {pt_call_replication_pad1d, pt_call_replication_pad2d, pt_call_replication_pad3d}};
        return returned(fns[mode][nd - 1](self, pad_len, pad), ret);
    }
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "Padding size %d is not supported for %dD input "
                    "tensor.\nSupported combinations for non-constant padding:\n"
                    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)",
                    (int)pad_len, (int)ndim);
}

pt_status pt_native_pad(const pt_tensor *self, int32_t pad_len, const int64_t *pad,
                        const char *mode, const double *value, pt_tensor **ret)
{
    for (int64_t m = 0; m < 4; m++)
        if (strcmp(mode, mode_names[m]) == 0)
            return pt_native__pad_enum(self, pad_len, pad, m, value, ret);
    return PT_ERROR(PT_ERR_NOT_IMPLEMENTED, "Unrecognised padding mode %s", mode);
}
