/* DLPack: export keeps the tensor alive until the consumer's deleter call, import wraps the
 * producer's bytes (strides, offsets, read-only flags) and calls its deleter exactly once. */
#include "pt_test.h"

#include <stdint.h>
#include <stdlib.h>

static const pt_device cpu = {PT_DEV_CPU, 0};

#define INTS(...) ((const int64_t[]){__VA_ARGS__})

static int same(const int64_t *a, const int64_t *b, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

static pt_tensor *iota_f32(int32_t ndim, const int64_t *sizes)
{
    pt_tensor *t = NULL;
    if (pt_tensor_empty(ndim, sizes, PT_FLOAT32, cpu, &t) != PT_OK) return NULL;
    float *p = pt_tensor_data(t);
    for (int64_t i = 0; i < pt_tensor_numel(t); i++) p[i] = (float)i;
    return t;
}

/* ---------------------------------------------------------------- export */
PT_TEST(dlpack_export_describes_the_view_and_holds_a_reference)
{
    pt_tensor *base = iota_f32(2, INTS(2, 3)), *t = NULL;
    CHECK_OK(pt_tensor_transpose(base, 0, 1, &t));
    pt_tensor_release(base);
    pt_dl_managed_tensor *m = NULL;
    CHECK_OK(pt_dlpack_export(t, &m));
    CHECK(pt_tensor_refcount(t) == 2);
    pt_dl_tensor *dl = &m->dl_tensor;
    CHECK(dl->data == pt_tensor_data(t) && dl->byte_offset == 0);
    CHECK(dl->device.device_type == PT_DL_CPU && dl->device.device_id == 0);
    CHECK(dl->ndim == 2);
    CHECK(dl->dtype.code == PT_DL_FLOAT && dl->dtype.bits == 32 && dl->dtype.lanes == 1);
    CHECK(same(dl->shape, INTS(3, 2), 2) && same(dl->strides, INTS(1, 3), 2));
    CHECK(m->manager_ctx && m->deleter);
    pt_tensor_release(t);
    /* The managed tensor alone keeps the bytes alive. */
    CHECK(((float *)dl->data)[5] == 5.0f);
    m->deleter(m);
}

PT_TEST(dlpack_export_versioned_sets_version_and_read_only_flag)
{
    static int16_t owner[4] = {1, 2, 3, 4};
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_from_external(owner, sizeof owner, PT_INT16, cpu, NULL, NULL, 0, &s));
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_from_storage(s, PT_INT16, 1, INTS(3), NULL, 1, &t));
    pt_storage_release(s);
    pt_dl_managed_tensor_versioned *m = NULL;
    CHECK_OK(pt_dlpack_export_versioned(t, PT_DL_FLAG_IS_COPIED, &m));
    CHECK(m->version.major == PT_DLPACK_MAJOR && m->version.minor == PT_DLPACK_MINOR);
    CHECK(m->flags == (PT_DL_FLAG_IS_COPIED | PT_DL_FLAG_READ_ONLY));
    CHECK(m->dl_tensor.data == &owner[1]);
    CHECK(m->dl_tensor.dtype.code == PT_DL_INT && m->dl_tensor.dtype.bits == 16);
    CHECK(m->dl_tensor.ndim == 1 && m->dl_tensor.shape[0] == 3 && m->dl_tensor.strides[0] == 1);
    pt_tensor_release(t);
    m->deleter(m);
    pt_tensor *w = iota_f32(0, NULL);
    CHECK_OK(pt_dlpack_export_versioned(w, 0, &m));
    CHECK(m->flags == 0 && m->dl_tensor.ndim == 0);
    CHECK(*(float *)m->dl_tensor.data == 0.0f);
    m->deleter(m);
    CHECK(pt_tensor_refcount(w) == 1);
    pt_tensor_release(w);
}

PT_TEST(dlpack_export_refuses_meta_tensors_and_opaque_dtypes)
{
    pt_tensor *t = NULL;
    CHECK_OK(pt_tensor_empty(1, INTS(4), PT_FLOAT32, (pt_device){PT_DEV_META, 0}, &t));
    pt_dl_managed_tensor *m = NULL;
    pt_dl_managed_tensor_versioned *mv = NULL;
    CHECK_ERR(pt_dlpack_export(t, &m), PT_ERR_RUNTIME, "cannot export a tensor on device type meta");
    CHECK_ERR(pt_dlpack_export_versioned(t, 0, &mv), PT_ERR_RUNTIME, "device type meta");
    CHECK(pt_tensor_refcount(t) == 1 && m == NULL && mv == NULL);
    pt_tensor_release(t);
    int32_t opaque;
    CHECK_OK(pt_dtype_register("test_dlpack_opaque_3", 3, 1, &opaque));
    CHECK_OK(pt_tensor_empty(1, INTS(2), opaque, cpu, &t));
    CHECK_ERR(pt_dlpack_export(t, &m), PT_ERR_TYPE, "DLPack");
    CHECK(pt_tensor_refcount(t) == 1);
    pt_tensor_release(t);
}

/* ---------------------------------------------------------------- round trip */
PT_TEST(dlpack_round_trip_shares_the_bytes_and_releases_the_source_last)
{
    pt_tensor *base = iota_f32(2, INTS(3, 4)), *t = NULL;
    CHECK_OK(pt_tensor_slice(base, 1, 1, 4, 2, &t));
    pt_dl_managed_tensor *m = NULL;
    CHECK_OK(pt_dlpack_export(t, &m));
    pt_tensor *back = NULL;
    CHECK_OK(pt_dlpack_import(m, &back));
    CHECK(pt_tensor_data(back) == pt_tensor_data(t));
    CHECK(pt_tensor_ndim(back) == 2);
    CHECK(same(pt_tensor_sizes(back), INTS(3, 2), 2) && same(pt_tensor_strides(back), INTS(4, 2), 2));
    CHECK(pt_tensor_dtype(back) == PT_FLOAT32 && pt_tensor_device(back).type == PT_DEV_CPU);
    CHECK(pt_storage_writable(pt_tensor_storage(back)) == 1);
    /* The import's storage spans exactly the elements the view reaches: (3-1)*4 + (2-1)*2 + 1. */
    CHECK(pt_storage_nbytes(pt_tensor_storage(back)) == 11 * 4);
    CHECK(pt_tensor_offset(back) == 0);
    CHECK(pt_tensor_refcount(t) == 2);
    pt_tensor_release(t);
    pt_tensor_release(base);
    const float *p = pt_tensor_data(back);
    CHECK(p[0] == 1.0f && p[2] == 3.0f && p[4 * 2 + 2] == 11.0f);
    pt_tensor_release(back);
}

PT_TEST(dlpack_round_trip_versioned_keeps_a_flipped_view)
{
    pt_tensor *base = iota_f32(1, INTS(5)), *t = NULL;
    CHECK_OK(pt_tensor_flip_view(base, 0, &t));
    pt_dl_managed_tensor_versioned *m = NULL;
    CHECK_OK(pt_dlpack_export_versioned(t, 0, &m));
    CHECK(m->dl_tensor.strides[0] == -1 && *(float *)m->dl_tensor.data == 4.0f);
    pt_tensor *back = NULL;
    CHECK_OK(pt_dlpack_import_versioned(m, &back));
    CHECK(pt_tensor_strides(back)[0] == -1 && pt_tensor_offset(back) == 4);
    CHECK(pt_storage_data(pt_tensor_storage(back)) == pt_tensor_data(base));
    CHECK(pt_storage_nbytes(pt_tensor_storage(back)) == 20);
    CHECK(*(float *)pt_tensor_data(back) == 4.0f);
    pt_tensor_release(t);
    pt_tensor_release(base);
    pt_tensor_release(back);
}

/* ---------------------------------------------------------------- hand-built producers */
static int plain_deleted, versioned_deleted;
static void plain_deleter(pt_dl_managed_tensor *self)
{
    plain_deleted++;
    self->manager_ctx = NULL;
}
static void versioned_deleter(pt_dl_managed_tensor_versioned *self)
{
    versioned_deleted++;
    self->manager_ctx = NULL;
}

PT_TEST(dlpack_import_without_strides_is_row_major_and_honours_byte_offset)
{
    static double buf[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int64_t shape[2] = {2, 3};
    pt_dl_managed_tensor m = {
        .dl_tensor = {.data = buf, .device = {PT_DL_CPU, 0}, .ndim = 2,
                      .dtype = {PT_DL_FLOAT, 64, 1}, .shape = shape, .strides = NULL,
                      .byte_offset = 2 * sizeof(double)},
        .manager_ctx = &m,
        .deleter = plain_deleter,
    };
    plain_deleted = 0;
    pt_tensor *t = NULL;
    CHECK_OK(pt_dlpack_import(&m, &t));
    /* The tensor copied the shape: the producer may reuse its arrays. */
    shape[0] = 99;
    CHECK(same(pt_tensor_sizes(t), INTS(2, 3), 2) && same(pt_tensor_strides(t), INTS(3, 1), 2));
    CHECK(pt_tensor_dtype(t) == PT_FLOAT64);
    CHECK(pt_tensor_data(t) == &buf[2] && ((double *)pt_tensor_data(t))[5] == 7.0);
    pt_tensor *row = NULL;
    CHECK_OK(pt_tensor_select(t, 0, 1, &row));
    pt_tensor_release(t);
    CHECK(plain_deleted == 0);
    CHECK(*(double *)pt_tensor_data(row) == 5.0);
    pt_tensor_release(row);
    CHECK(plain_deleted == 1 && m.manager_ctx == NULL);
}

PT_TEST(dlpack_import_negative_and_zero_strides_span_the_reached_bytes)
{
    static int32_t buf[6] = {10, 11, 12, 13, 14, 15};
    int64_t shape[2] = {3, 4}, strides[2] = {-2, 0};
    pt_dl_managed_tensor_versioned m = {
        .version = {1, 0},
        .manager_ctx = &m,
        .deleter = versioned_deleter,
        .flags = PT_DL_FLAG_READ_ONLY,
        .dl_tensor = {.data = &buf[4], .device = {PT_DL_CPU, 0}, .ndim = 2,
                      .dtype = {PT_DL_INT, 32, 1}, .shape = shape, .strides = strides},
    };
    versioned_deleted = 0;
    pt_tensor *t = NULL;
    CHECK_OK(pt_dlpack_import_versioned(&m, &t));
    pt_storage *s = pt_tensor_storage(t);
    CHECK(pt_storage_data(s) == &buf[0] && pt_storage_nbytes(s) == 5 * 4);
    CHECK(pt_tensor_offset(t) == 4 && pt_storage_writable(s) == 0);
    CHECK(same(pt_tensor_strides(t), INTS(-2, 0), 2));
    pt_tensor *v = NULL;
    CHECK_OK(pt_tensor_select(t, 0, 2, &v));
    CHECK(*(int32_t *)pt_tensor_data(v) == 10);
    pt_tensor_release(v);
    pt_tensor_release(t);
    CHECK(versioned_deleted == 1);
}

PT_TEST(dlpack_import_empty_and_0d_tensors)
{
    static uint8_t byte = 42;
    pt_dl_managed_tensor m = {
        .dl_tensor = {.data = &byte, .device = {PT_DL_CPU, 0}, .ndim = 0,
                      .dtype = {PT_DL_UINT, 8, 1}},
        .deleter = plain_deleter,
    };
    plain_deleted = 0;
    pt_tensor *t = NULL;
    CHECK_OK(pt_dlpack_import(&m, &t));
    CHECK(pt_tensor_ndim(t) == 0 && *(uint8_t *)pt_tensor_data(t) == 42);
    pt_tensor_release(t);
    CHECK(plain_deleted == 1);
    int64_t shape[2] = {0, 5};
    m.dl_tensor = (pt_dl_tensor){.data = NULL, .device = {PT_DL_CPU, 0}, .ndim = 2,
                                 .dtype = {PT_DL_BOOL, 8, 1}, .shape = shape};
    CHECK_OK(pt_dlpack_import(&m, &t));
    CHECK(pt_tensor_numel(t) == 0 && pt_tensor_dtype(t) == PT_BOOL);
    CHECK(pt_storage_nbytes(pt_tensor_storage(t)) == 0);
    pt_tensor_release(t);
    CHECK(plain_deleted == 2);
    /* A managed tensor without a deleter is fine: nothing to call. */
    m.deleter = NULL;
    CHECK_OK(pt_dlpack_import(&m, &t));
    pt_tensor_release(t);
}

PT_TEST(dlpack_import_failures_leave_the_managed_tensor_with_the_caller)
{
    static float buf[4];
    int64_t shape[1] = {4}, bad_shape[1] = {-1}, strides[1] = {INT64_MAX};
    pt_dl_managed_tensor m = {
        .dl_tensor = {.data = buf, .device = {PT_DL_CUDA_HOST, 0}, .ndim = 1,
                      .dtype = {PT_DL_FLOAT, 32, 1}, .shape = shape},
        .deleter = plain_deleter,
    };
    plain_deleted = 0;
    pt_tensor *t = NULL;
    CHECK_ERR(pt_dlpack_import(&m, &t), PT_ERR_RUNTIME, "from_dlpack: unsupported device type 3");
    m.dl_tensor.device = (pt_dl_device){PT_DL_CPU, 0};
    m.dl_tensor.dtype = (pt_dl_dtype){PT_DL_FLOAT, 7, 1};
    CHECK_ERR(pt_dlpack_import(&m, &t), PT_ERR_TYPE, "DLPack");
    m.dl_tensor.dtype = (pt_dl_dtype){PT_DL_FLOAT, 32, 4};
    CHECK_ERR(pt_dlpack_import(&m, &t), PT_ERR_TYPE, "lanes");
    m.dl_tensor.dtype = (pt_dl_dtype){PT_DL_FLOAT, 32, 1};
    m.dl_tensor.ndim = -1;
    CHECK_ERR(pt_dlpack_import(&m, &t), PT_ERR_VALUE, "expected 0 to 64 dimensions, got -1");
    m.dl_tensor.ndim = 1;
    m.dl_tensor.shape = NULL;
    CHECK_ERR(pt_dlpack_import(&m, &t), PT_ERR_VALUE, "shape is NULL for a 1-d tensor");
    m.dl_tensor.shape = bad_shape;
    CHECK_ERR(pt_dlpack_import(&m, &t), PT_ERR_VALUE, "size: expected a non-negative size");
    m.dl_tensor.shape = shape;
    m.dl_tensor.strides = strides;
    CHECK_ERR(pt_dlpack_import(&m, &t), PT_ERR_RUNTIME, "overflow int64");
    m.dl_tensor.strides = NULL;
    m.dl_tensor.data = NULL;
    CHECK_ERR(pt_dlpack_import(&m, &t), PT_ERR_VALUE, "data is NULL for 4 elements");
    CHECK_ERR(pt_dlpack_import(NULL, &t), PT_ERR_VALUE, "the managed tensor is NULL");
    m.dl_tensor.data = buf;
    m.dl_tensor.device = (pt_dl_device){PT_DL_CPU, 0};
    if (!pt_device_guards[PT_DEV_CUDA]) {
        m.dl_tensor.device = (pt_dl_device){PT_DL_CUDA, 0};
        CHECK_ERR(pt_dlpack_import(&m, &t), PT_ERR_RUNTIME, "CUDA backend is not loaded");
    }
    CHECK(plain_deleted == 0 && t == NULL);
}

PT_TEST(dlpack_import_versioned_refuses_newer_major_versions)
{
    static float buf[1];
    int64_t shape[1] = {1};
    pt_dl_managed_tensor_versioned m = {
        .version = {PT_DLPACK_MAJOR + 1, 0},
        .deleter = versioned_deleter,
        .dl_tensor = {.data = buf, .device = {PT_DL_CPU, 0}, .ndim = 1,
                      .dtype = {PT_DL_FLOAT, 32, 1}, .shape = shape},
    };
    versioned_deleted = 0;
    pt_tensor *t = NULL;
    CHECK_ERR(pt_dlpack_import_versioned(&m, &t), PT_ERR_RUNTIME,
              "from_dlpack: DLPack version 2.0 is not supported (this library reads versions up "
              "to 1.1)");
    CHECK_ERR(pt_dlpack_import_versioned(NULL, &t), PT_ERR_VALUE, "NULL");
    m.version = (pt_dl_version){1, 7};
    m.dl_tensor.device = (pt_dl_device){PT_DL_CUDA_MANAGED, 0};
    CHECK_ERR(pt_dlpack_import_versioned(&m, &t), PT_ERR_RUNTIME, "unsupported device type 13");
    CHECK(versioned_deleted == 0);
    /* Minor versions above ours are compatible by the standard's rules. */
    m.dl_tensor.device = (pt_dl_device){PT_DL_CPU, 0};
    CHECK_OK(pt_dlpack_import_versioned(&m, &t));
    CHECK(pt_storage_writable(pt_tensor_storage(t)) == 1);
    pt_tensor_release(t);
    CHECK(versioned_deleted == 1);
}
