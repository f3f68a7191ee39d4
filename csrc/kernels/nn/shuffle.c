/* shuffle.c - pixel_shuffle, pixel_unshuffle, channel_shuffle (and native_channel_shuffle, its
 * composite twin), with torch's checks and messages.
 *
 * Each is a permutation of elements: the output is allocated in the input's memory format
 * (channels_last stays channels_last, as torch's CPU kernels do), then the input and the output
 * are both viewed in one index space of higher rank, where the permutation is a mere difference
 * of strides, and one strided copy (the core's threaded copy_) moves every element. Any dtype
 * works, since elements are only moved.
 *   pixel_shuffle:   in [..., C*r*r, H, W]   out [..., C, H*r, W*r]  space [..., C, H, r, W, r]
 *   pixel_unshuffle: in [..., C, H*r, W*r]   out [..., C*r*r, H, W]  space [..., C, r, r, H, W]
 *   channel_shuffle: in [N, g*k, ...]        out [N, k*g, ...]       space [N, k, g, ...]
 */
#include <string.h>

#include "native.h"
#include "nn/nn_sample.h"

static pt_status returned(pt_tensor *r, pt_tensor **ret)
{
    if (!r) return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
    *ret = r;
    return PT_OK;
}

/* Copies src viewed as (n, sizes, src_strides) into a new tensor of out_sizes (self's memory
 * format) viewed as (n, sizes, strides from make_dst). */
typedef void (*dst_strides_fn)(const pt_tensor *out, int64_t param, int64_t *strides);

static pt_status permute_copy(const pt_tensor *self, int32_t out_ndim, const int64_t *out_sizes,
                              int32_t n, const int64_t *sizes, const int64_t *src_strides,
                              dst_strides_fn make_dst, int64_t param, pt_tensor **ret)
{
    pt_tensor *out = NULL, *dv = NULL, *sv = NULL;
    int32_t fmt = pt_sample_memory_format(self);
    if (self->ndim != out_ndim) fmt = PT_MEMORY_FORMAT_CONTIGUOUS;
    PT_TRY(pt_sample_empty(out_ndim, out_sizes, self->dtype, self->device, fmt, &out));
    pt_status st = PT_OK;
    if (self->device.type != PT_DEV_META && out->numel) {
        int64_t dst_strides[PT_MAX_DIMS];
        make_dst(out, param, dst_strides);
        st = pt_tensor_as_strided(out, n, sizes, dst_strides, pt_tensor_offset(out), &dv);
        if (st == PT_OK)
            st = pt_tensor_as_strided(self, n, sizes, src_strides, pt_tensor_offset(self), &sv);
        if (st == PT_OK) st = pt_tensor_copy_(dv, sv);
    }
    if (dv) pt_tensor_release(dv);
    if (sv) pt_tensor_release(sv);
    if (st != PT_OK) {
        pt_tensor_release(out);
        return st;
    }
    *ret = out;
    return PT_OK;
}

/* ---------------------------------------------------------------- pixel_shuffle */

static void shuffle_dst(const pt_tensor *out, int64_t r, int64_t *s)
{
    const int32_t b = out->ndim - 3;
    for (int32_t d = 0; d < b; d++) s[d] = out->strides[d];
    const int64_t *o = out->strides + b;
    s[b] = o[0];         /* C */
    s[b + 1] = r * o[1]; /* H */
    s[b + 2] = o[1];     /* r (rows) */
    s[b + 3] = r * o[2]; /* W */
    s[b + 4] = o[2];     /* r (columns) */
}

pt_status pt_kernel_pixel_shuffle(const pt_tensor *self, int64_t upscale_factor, pt_tensor **ret)
{
    if (self->ndim < 3)
        return PT_ERROR(PT_ERR_RUNTIME, "pixel_shuffle expects input to have at least 3 "
                        "dimensions, but got input with %d dimension(s)", (int)self->ndim);
    const int64_t r = upscale_factor;
    if (r <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "pixel_shuffle expects a positive upscale_factor, but got "
                        "%lld", (long long)r);
    /* r * r must not overflow (floor(sqrt(INT64_MAX)) = 3037000499) */
    if (r > 3037000499LL)
        return PT_ERROR(PT_ERR_VALUE, "upscale factor is too large, (upscale_factor)^2 "
                        "overflowed: upscale_factor=%lld", (long long)r);
    const int32_t b = self->ndim - 3;
    const int64_t c = self->sizes[b], h = self->sizes[b + 1], w = self->sizes[b + 2];
    if (c % (r * r))
        return PT_ERROR(PT_ERR_RUNTIME, "pixel_shuffle expects its input's 'channel' dimension to "
                        "be divisible by the square of upscale_factor, but input.size(-3)=%lld is "
                        "not divisible by %lld", (long long)c, (long long)(r * r));
    int64_t out_sizes[PT_MAX_DIMS], sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    for (int32_t d = 0; d < b; d++) {
        out_sizes[d] = sizes[d] = self->sizes[d];
        strides[d] = self->strides[d];
    }
    out_sizes[b] = c / (r * r);
    out_sizes[b + 1] = h * r;
    out_sizes[b + 2] = w * r;
    const int64_t *s = self->strides + b;
    const int64_t sz[5] = {c / (r * r), h, r, w, r};
    const int64_t st[5] = {r * r * s[0], s[1], r * s[0], s[2], s[0]};
    memcpy(sizes + b, sz, sizeof sz);
    memcpy(strides + b, st, sizeof st);
    return permute_copy(self, self->ndim, out_sizes, b + 5, sizes, strides, shuffle_dst, r, ret);
}

/* ---------------------------------------------------------------- pixel_unshuffle */

static void unshuffle_dst(const pt_tensor *out, int64_t r, int64_t *s)
{
    const int32_t b = out->ndim - 3;
    for (int32_t d = 0; d < b; d++) s[d] = out->strides[d];
    const int64_t *o = out->strides + b;
    s[b] = r * r * o[0]; /* C */
    s[b + 1] = r * o[0]; /* r (rows) */
    s[b + 2] = o[0];     /* r (columns) */
    s[b + 3] = o[1];     /* H */
    s[b + 4] = o[2];     /* W */
}

pt_status pt_kernel_pixel_unshuffle(const pt_tensor *self, int64_t downscale_factor,
                                    pt_tensor **ret)
{
    if (self->ndim < 3)
        return PT_ERROR(PT_ERR_RUNTIME, "pixel_unshuffle expects input to have at least 3 "
                        "dimensions, but got input with %d dimension(s)", (int)self->ndim);
    const int64_t r = downscale_factor;
    if (r <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "pixel_unshuffle expects a positive downscale_factor, but "
                        "got %lld", (long long)r);
    const int32_t b = self->ndim - 3;
    const int64_t c = self->sizes[b], h = self->sizes[b + 1], w = self->sizes[b + 2];
    if (h % r)
        return PT_ERROR(PT_ERR_RUNTIME, "pixel_unshuffle expects height to be divisible by "
                        "downscale_factor, but input.size(-2)=%lld is not divisible by %lld",
                        (long long)h, (long long)r);
    if (w % r)
        return PT_ERROR(PT_ERR_RUNTIME, "pixel_unshuffle expects width to be divisible by "
                        "downscale_factor, but input.size(-1)=%lld is not divisible by %lld",
                        (long long)w, (long long)r);
    int64_t out_sizes[PT_MAX_DIMS], sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    for (int32_t d = 0; d < b; d++) {
        out_sizes[d] = sizes[d] = self->sizes[d];
        strides[d] = self->strides[d];
    }
    out_sizes[b] = c * r * r;
    out_sizes[b + 1] = h / r;
    out_sizes[b + 2] = w / r;
    const int64_t *s = self->strides + b;
    const int64_t sz[5] = {c, r, r, h / r, w / r};
    const int64_t st[5] = {s[0], s[1], s[2], r * s[1], r * s[2]};
    memcpy(sizes + b, sz, sizeof sz);
    memcpy(strides + b, st, sizeof st);
    return permute_copy(self, self->ndim, out_sizes, b + 5, sizes, strides, unshuffle_dst, r, ret);
}

/* ---------------------------------------------------------------- channel_shuffle */

static void channel_dst(const pt_tensor *out, int64_t groups, int64_t *s)
{
    s[0] = out->strides[0];
    s[1] = groups * out->strides[1]; /* k */
    s[2] = out->strides[1];          /* g */
    for (int32_t d = 2; d < out->ndim; d++) s[d + 1] = out->strides[d];
}

pt_status pt_kernel_channel_shuffle(const pt_tensor *self, int64_t groups, pt_tensor **ret)
{
    if (self->ndim <= 2) {
        char shape[256];
        pt_sample_format_sizes(shape, sizeof shape, self->ndim, self->sizes);
        return PT_ERROR(PT_ERR_RUNTIME, "channel_shuffle expects input with > 2 dims, but got "
                        "input with sizes %s", shape);
    }
    if (groups <= 0)
        return PT_ERROR(PT_ERR_RUNTIME, "Number of groups to divide channels in must be positive. "
                        "Value of groups:%lld", (long long)groups);
    const int64_t c = self->sizes[1];
    if (c % groups)
        return PT_ERROR(PT_ERR_RUNTIME, "Number of channels must be divisible by groups. Got %lld "
                        "channels and %lld groups.", (long long)c, (long long)groups);
    int64_t sizes[PT_MAX_DIMS], strides[PT_MAX_DIMS];
    sizes[0] = self->sizes[0];
    strides[0] = self->strides[0];
    sizes[1] = c / groups;
    strides[1] = self->strides[1];
    sizes[2] = groups;
    strides[2] = (c / groups) * self->strides[1];
    for (int32_t d = 2; d < self->ndim; d++) {
        sizes[d + 1] = self->sizes[d];
        strides[d + 1] = self->strides[d];
    }
    return permute_copy(self, self->ndim, self->sizes, self->ndim + 1, sizes, strides,
                        channel_dst, groups, ret);
}

pt_status pt_native_native_channel_shuffle(const pt_tensor *self, int64_t groups, pt_tensor **ret)
{
    return returned(pt_call_channel_shuffle(self, groups), ret);
}
