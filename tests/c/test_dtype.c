/* test_dtype.c - the dtype table against torch: names, sizes, finfo/iinfo, promotion and can_cast
 * (oracle tables printed by torch 2.x), name lookup, the registry records, runtime registration,
 * DLPack codes and the overflow check that scalars pass on their way into elements. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt_test.h"


/* torch.promote_types(a, b) over the builtin ids, printed by torch. */
static const int8_t torch_promote_types[12][12] = {
    { 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11},
    { 1,  1,  3,  3,  4,  5,  6,  7,  8,  9, 10, 11},
    { 2,  3,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11},
    { 3,  3,  3,  3,  4,  5,  6,  7,  8,  9, 10, 11},
    { 4,  4,  4,  4,  4,  5,  6,  7,  8,  9, 10, 11},
    { 5,  5,  5,  5,  5,  5,  6,  7,  8,  9, 10, 11},
    { 6,  6,  6,  6,  6,  6,  6,  8,  8,  9, 10, 11},
    { 7,  7,  7,  7,  7,  7,  8,  7,  8,  9, 10, 11},
    { 8,  8,  8,  8,  8,  8,  8,  8,  8,  9, 10, 11},
    { 9,  9,  9,  9,  9,  9,  9,  9,  9,  9, 11, 11},
    {10, 10, 10, 10, 10, 10, 10, 10, 10, 11, 10, 11},
    {11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11},
};

/* torch.can_cast(from, to), printed by torch. */
static const int8_t torch_can_cast[12][12] = {
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
};

PT_TEST(dtype_promote_matches_torch_on_all_144_pairs)
{
    for (int32_t a = 0; a < PT_DTYPE_BUILTIN_COUNT; a++) {
        for (int32_t b = 0; b < PT_DTYPE_BUILTIN_COUNT; b++) {
            int32_t r = -1;
            CHECK_OK(pt_dtype_promote(a, b, &r));
            if (r != torch_promote_types[a][b]) {
                fprintf(stderr, "  promote(%d, %d) = %d, torch says %d\n", a, b, r,
                        torch_promote_types[a][b]);
                CHECK(r == torch_promote_types[a][b]);
            }
        }
    }
}

PT_TEST(dtype_can_cast_matches_torch_on_all_144_pairs)
{
    for (int32_t a = 0; a < PT_DTYPE_BUILTIN_COUNT; a++)
        for (int32_t b = 0; b < PT_DTYPE_BUILTIN_COUNT; b++)
            CHECK(pt_dtype_can_cast(a, b) == torch_can_cast[a][b]);
    CHECK(pt_dtype_can_cast(-1, PT_FLOAT32) == 0);
    CHECK(pt_dtype_can_cast(PT_FLOAT32, PT_DTYPE_MAX) == 0);
}

PT_TEST(dtype_promote_refuses_unknown_ids)
{
    int32_t r;
    CHECK_ERR(pt_dtype_promote(PT_FLOAT32, 99, &r), PT_ERR_VALUE, "unknown dtype id 99");
    CHECK_ERR(pt_dtype_promote(-1, PT_FLOAT32, &r), PT_ERR_VALUE, "promote_types");
}

PT_TEST(dtype_table_rows_hold_torchs_names_sizes_and_typestrs)
{
    static const struct {
        const char *name, *legacy, *typestr;
        int32_t itemsize, alignment, bits;
    } want[PT_DTYPE_BUILTIN_COUNT] = {
        {"bool", "Bool", "|b1", 1, 1, 8},
        {"uint8", "Byte", "|u1", 1, 1, 8},
        {"int8", "Char", "|i1", 1, 1, 8},
        {"int16", "Short", "<i2", 2, 2, 16},
        {"int32", "Int", "<i4", 4, 4, 32},
        {"int64", "Long", "<i8", 8, 8, 64},
        {"float16", "Half", "<f2", 2, 2, 16},
        {"bfloat16", "BFloat16", "", 2, 2, 16},
        {"float32", "Float", "<f4", 4, 4, 32},
        {"float64", "Double", "<f8", 8, 8, 64},
        {"complex64", "ComplexFloat", "<c8", 8, 8, 32},
        {"complex128", "ComplexDouble", "<c16", 16, 16, 64},
    };
    CHECK(pt_dtype_count() >= PT_DTYPE_BUILTIN_COUNT);
    for (int32_t id = 0; id < PT_DTYPE_BUILTIN_COUNT; id++) {
        const pt_dtype_info *info = NULL;
        CHECK_OK(pt_dtype_get(id, &info));
        CHECK(info->id == id);
        CHECK(strcmp(info->name, want[id].name) == 0);
        CHECK(strcmp(info->legacy_name, want[id].legacy) == 0);
        CHECK(strcmp(info->numpy_typestr, want[id].typestr) == 0);
        CHECK(info->itemsize == want[id].itemsize && pt_dtype_itemsize(id) == want[id].itemsize);
        CHECK(info->alignment == want[id].alignment);
        CHECK(info->bits == want[id].bits);
        CHECK(pt_dtype_info_of(id) == info);
    }
}

PT_TEST(dtype_kind_bits_follow_torchs_is_signed_is_floating_is_complex)
{
    const pt_dtype_info *b, *u, *i, *h, *c;
    CHECK_OK(pt_dtype_get(PT_BOOL, &b));
    CHECK_OK(pt_dtype_get(PT_UINT8, &u));
    CHECK_OK(pt_dtype_get(PT_INT16, &i));
    CHECK_OK(pt_dtype_get(PT_BFLOAT16, &h));
    CHECK_OK(pt_dtype_get(PT_COMPLEX64, &c));
    CHECK(b->kind == PT_KIND_BOOL);
    CHECK(u->kind == PT_KIND_INTEGER);
    CHECK(i->kind == (PT_KIND_INTEGER | PT_KIND_SIGNED));
    CHECK(h->kind == (PT_KIND_FLOAT | PT_KIND_SIGNED));
    CHECK(c->kind == (PT_KIND_COMPLEX | PT_KIND_SIGNED));
}

PT_TEST(dtype_finfo_is_exactly_torch_finfo)
{
    /* torch.finfo(dtype): max, eps, tiny, resolution; complex repeats its real part */
    static const struct {
        int32_t id;
        double max, eps, tiny, resolution;
        int32_t mantissa;
    } want[] = {
        {PT_FLOAT16, 65504.0, 0.0009765625, 6.103515625e-05, 0.001, 11},
        {PT_BFLOAT16, 3.3895313892515355e+38, 0.0078125, 1.1754943508222875e-38, 0.01, 8},
        {PT_FLOAT32, 3.4028234663852886e+38, 1.1920928955078125e-07, 1.1754943508222875e-38,
         1e-06, 24},
        {PT_FLOAT64, 1.7976931348623157e+308, 2.220446049250313e-16, 2.2250738585072014e-308,
         1e-15, 53},
        {PT_COMPLEX64, 3.4028234663852886e+38, 1.1920928955078125e-07, 1.1754943508222875e-38,
         1e-06, 24},
        {PT_COMPLEX128, 1.7976931348623157e+308, 2.220446049250313e-16, 2.2250738585072014e-308,
         1e-15, 53},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const pt_dtype_info *info;
        CHECK_OK(pt_dtype_get(want[k].id, &info));
        CHECK(info->fmax == want[k].max && info->fmin == -want[k].max);
        CHECK(info->eps == want[k].eps);
        CHECK(info->tiny == want[k].tiny);
        CHECK(info->resolution == want[k].resolution);
        CHECK(info->mantissa_bits == want[k].mantissa);
    }
}

PT_TEST(dtype_iinfo_is_exactly_torch_iinfo)
{
    static const struct {
        int32_t id;
        int64_t min, max;
    } want[] = {
        {PT_BOOL, 0, 1},           {PT_UINT8, 0, 255},
        {PT_INT8, -128, 127},      {PT_INT16, -32768, 32767},
        {PT_INT32, INT32_MIN, INT32_MAX}, {PT_INT64, INT64_MIN, INT64_MAX},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const pt_dtype_info *info;
        CHECK_OK(pt_dtype_get(want[k].id, &info));
        CHECK(info->imin == want[k].min && info->imax == want[k].max);
    }
}

PT_TEST(dtype_get_and_check_refuse_unknown_ids)
{
    const pt_dtype_info *info;
    CHECK_ERR(pt_dtype_get(-1, &info), PT_ERR_VALUE, "dtype: unknown dtype id -1");
    CHECK_ERR(pt_dtype_get(PT_DTYPE_MAX, &info), PT_ERR_VALUE, "unknown dtype id 64");
    CHECK_ERR(pt_dtype_check(1000, "other"), PT_ERR_VALUE, "other: unknown dtype id 1000");
    CHECK(pt_dtype_info_of(1000) == NULL);
    CHECK(pt_dtype_cast_fn(PT_FLOAT32, 1000) == NULL);
    CHECK(pt_dtype_scalar_to(-1) == NULL && pt_dtype_scalar_from(PT_DTYPE_MAX) == NULL);
}

PT_TEST(dtype_from_name_takes_names_legacy_names_aliases_and_the_prefix)
{
    static const struct {
        const char *name;
        int32_t id;
    } cases[] = {
        {"float32", PT_FLOAT32},  {"Float", PT_FLOAT32},   {"float", PT_FLOAT32},
        {"float64", PT_FLOAT64},  {"double", PT_FLOAT64},  {"Double", PT_FLOAT64},
        {"half", PT_FLOAT16},     {"Half", PT_FLOAT16},    {"bfloat16", PT_BFLOAT16},
        {"long", PT_INT64},       {"Long", PT_INT64},      {"int", PT_INT32},
        {"Int", PT_INT32},        {"short", PT_INT16},     {"Char", PT_INT8},
        {"Byte", PT_UINT8},       {"uint8", PT_UINT8},     {"bool", PT_BOOL},
        {"Bool", PT_BOOL},        {"cfloat", PT_COMPLEX64}, {"cdouble", PT_COMPLEX128},
        {"ComplexFloat", PT_COMPLEX64}, {"pytensor.float32", PT_FLOAT32},
        {"pytensor.long", PT_INT64}, {"pytensor.ComplexDouble", PT_COMPLEX128},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int32_t id = -1;
        CHECK_OK(pt_dtype_from_name(cases[k].name, &id));
        CHECK(id == cases[k].id);
    }
}

PT_TEST(dtype_from_name_refuses_unknown_names_with_a_type_error)
{
    int32_t id;
    CHECK_ERR(pt_dtype_from_name("float128", &id), PT_ERR_TYPE, "unknown dtype name 'float128'");
    CHECK_ERR(pt_dtype_from_name("torch.float32", &id), PT_ERR_TYPE, "'torch.float32'");
    CHECK_ERR(pt_dtype_from_name("pytensor.", &id), PT_ERR_TYPE, "'pytensor.'");
    CHECK_ERR(pt_dtype_from_name("", &id), PT_ERR_TYPE, "unknown dtype name ''");
    CHECK_ERR(pt_dtype_from_name(NULL, &id), PT_ERR_TYPE, "expected a name");
}

PT_TEST(dtype_registry_lists_every_builtin_row)
{
    int32_t n = 0;
    CHECK_OK(pt_registry_size("dtype", &n));
    CHECK(n >= PT_DTYPE_BUILTIN_COUNT);
    for (int32_t id = 0; id < PT_DTYPE_BUILTIN_COUNT; id++) {
        pt_registry_entry_info e;
        CHECK_OK(pt_registry_find("dtype", pt_dtype_info_of(id)->name, &e));
        CHECK(e.creator == pt_dtype_info_of(id));
        CHECK(strstr(e.file, "dtype.c") != NULL);
    }
    int64_t count = 0;
    const char *detail = NULL;
    CHECK_OK(pt_dtype_init(&count, &detail));
    CHECK(count == pt_dtype_count() && detail != NULL);
}

PT_TEST(dtype_register_adds_an_opaque_row_and_a_registry_entry)
{
    int32_t id = -1;
    CHECK_OK(pt_dtype_register("test_rgb8", 3, 1, &id));
    CHECK(id >= PT_DTYPE_BUILTIN_COUNT && id < PT_DTYPE_MAX && id == pt_dtype_count() - 1);
    const pt_dtype_info *info;
    CHECK_OK(pt_dtype_get(id, &info));
    CHECK(strcmp(info->name, "test_rgb8") == 0 && strcmp(info->legacy_name, "") == 0);
    CHECK(info->itemsize == 3 && info->alignment == 1 && info->kind == PT_KIND_OPAQUE);
    CHECK(pt_dtype_itemsize(id) == 3);
    int32_t found = -1;
    CHECK_OK(pt_dtype_from_name("test_rgb8", &found));
    CHECK(found == id);
    pt_registry_entry_info e;
    CHECK_OK(pt_registry_find("dtype", "test_rgb8", &e));
    CHECK(e.creator == info);
    /* opaque ids promote only with themselves, cast only to themselves, convert nothing */
    int32_t r;
    CHECK_OK(pt_dtype_promote(id, id, &r));
    CHECK(r == id);
    CHECK_ERR(pt_dtype_promote(id, PT_FLOAT32, &r), PT_ERR_TYPE, "'test_rgb8' and 'float32'");
    CHECK(pt_dtype_can_cast(id, id) == 1 && pt_dtype_can_cast(id, PT_UINT8) == 0);
    CHECK(pt_dtype_cast_fn(id, id) == NULL && pt_dtype_scalar_to(id) == NULL);
    pt_dl_dtype dl;
    CHECK_ERR(pt_dtype_to_dlpack(id, &dl), PT_ERR_TYPE, "opaque dtype 'test_rgb8'");
}

PT_TEST(dtype_register_refuses_taken_names_bad_sizes_and_alignments)
{
    int32_t id, before = pt_dtype_count();
    CHECK_ERR(pt_dtype_register("float32", 4, 4, &id), PT_ERR_VALUE,
              "'float32' is already a dtype");
    CHECK_ERR(pt_dtype_register("Double", 8, 8, &id), PT_ERR_VALUE, "already a dtype");
    CHECK_ERR(pt_dtype_register("cfloat", 8, 8, &id), PT_ERR_VALUE, "already a dtype");
    CHECK_ERR(pt_dtype_register("", 4, 4, &id), PT_ERR_VALUE, "name must be non-empty");
    CHECK_ERR(pt_dtype_register(NULL, 4, 4, &id), PT_ERR_VALUE, "name must be non-empty");
    CHECK_ERR(pt_dtype_register("t_zero", 0, 1, &id), PT_ERR_VALUE,
              "itemsize must be positive, got 0");
    CHECK_ERR(pt_dtype_register("t_align", 4, 3, &id), PT_ERR_VALUE, "power of two, got 3");
    CHECK_ERR(pt_dtype_register("t_align0", 4, 0, &id), PT_ERR_VALUE, "power of two, got 0");
    CHECK(pt_dtype_count() == before);
    CHECK_OK(pt_dtype_register("test_twice", 2, 2, &id));
    CHECK_ERR(pt_dtype_register("test_twice", 2, 2, &id), PT_ERR_VALUE, "'test_twice' is already");
}

/* Filling every id is irreversible, so it runs in a child process. */
PT_TEST(dtype_register_fails_with_runtime_error_when_ids_run_out)
{
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        char name[32];
        int32_t id = 0;
        int k = 0;
        while (pt_dtype_count() < PT_DTYPE_MAX) {
            snprintf(name, sizeof name, "test_fill_%d", k++);
            if (pt_dtype_register(name, 1, 1, &id) != PT_OK) _exit(2);
        }
        pt_status st = pt_dtype_register("test_one_more", 1, 1, &id);
        bool ok = st == PT_ERR_RUNTIME &&
                  strstr(pt_error_message(), "all 64 dtype ids are taken") != NULL &&
                  id == PT_DTYPE_MAX - 1 && pt_dtype_count() == PT_DTYPE_MAX;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

PT_TEST(dtype_dlpack_codes_round_trip_for_every_builtin)
{
    static const pt_dl_dtype want[PT_DTYPE_BUILTIN_COUNT] = {
        {PT_DL_BOOL, 8, 1},   {PT_DL_UINT, 8, 1},   {PT_DL_INT, 8, 1},     {PT_DL_INT, 16, 1},
        {PT_DL_INT, 32, 1},   {PT_DL_INT, 64, 1},   {PT_DL_FLOAT, 16, 1},  {PT_DL_BFLOAT, 16, 1},
        {PT_DL_FLOAT, 32, 1}, {PT_DL_FLOAT, 64, 1}, {PT_DL_COMPLEX, 64, 1}, {PT_DL_COMPLEX, 128, 1},
    };
    for (int32_t id = 0; id < PT_DTYPE_BUILTIN_COUNT; id++) {
        pt_dl_dtype dl;
        int32_t back = -1;
        CHECK_OK(pt_dtype_to_dlpack(id, &dl));
        CHECK(dl.code == want[id].code && dl.bits == want[id].bits && dl.lanes == 1);
        CHECK_OK(pt_dtype_from_dlpack(dl, &back));
        CHECK(back == id);
    }
}

PT_TEST(dtype_dlpack_refuses_lanes_unknown_codes_and_widths)
{
    int32_t id;
    pt_dl_dtype dl;
    CHECK_ERR(pt_dtype_from_dlpack((pt_dl_dtype){PT_DL_FLOAT, 32, 4}, &id), PT_ERR_TYPE,
              "got 4 lanes");
    CHECK_ERR(pt_dtype_from_dlpack((pt_dl_dtype){PT_DL_UINT, 16, 1}, &id), PT_ERR_TYPE,
              "unsupported dtype code 1 with 16 bits");
    CHECK_ERR(pt_dtype_from_dlpack((pt_dl_dtype){PT_DL_OPAQUE_HANDLE, 64, 1}, &id), PT_ERR_TYPE,
              "code 3 with 64 bits");
    CHECK_ERR(pt_dtype_from_dlpack((pt_dl_dtype){PT_DL_BOOL, 1, 1}, &id), PT_ERR_TYPE,
              "with 1 bits");
    CHECK_ERR(pt_dtype_to_dlpack(77, &dl), PT_ERR_VALUE, "unknown dtype id 77");
}

/* Each case: value into dtype, and whether torch (Scalar::to<T>) reports an overflow. */
PT_TEST(dtype_scalar_check_reports_overflow_like_torch)
{
    static const struct {
        int32_t dtype;
        pt_scalar v;
        bool overflows;
    } cases[] = {
        {PT_UINT8, {PT_SCALAR_INT, 300, 0, 0}, true},
        {PT_UINT8, {PT_SCALAR_INT, -1, 0, 0}, false},  /* wraps to 255 */
        {PT_UINT8, {PT_SCALAR_INT, -255, 0, 0}, false},
        {PT_UINT8, {PT_SCALAR_INT, -256, 0, 0}, true},
        {PT_UINT8, {PT_SCALAR_FLOAT, 0, -1.0, 0}, true},
        {PT_INT8, {PT_SCALAR_INT, 200, 0, 0}, true},
        {PT_INT8, {PT_SCALAR_INT, -128, 0, 0}, false},
        {PT_INT32, {PT_SCALAR_FLOAT, 0, 2.7, 0}, false},
        {PT_INT32, {PT_SCALAR_FLOAT, 0, 3e9, 0}, true},
        {PT_INT32, {PT_SCALAR_FLOAT, 0, NAN, 0}, true},
        {PT_INT64, {PT_SCALAR_FLOAT, 0, INFINITY, 0}, true},
        {PT_INT64, {PT_SCALAR_FLOAT, 0, 0x1p63, 0}, false}, /* torch compares with (double)max */
        {PT_INT64, {PT_SCALAR_FLOAT, 0, 0x1p64, 0}, true},
        {PT_FLOAT16, {PT_SCALAR_FLOAT, 0, 65504.0, 0}, false},
        {PT_FLOAT16, {PT_SCALAR_FLOAT, 0, 65519.0, 0}, true},
        {PT_FLOAT16, {PT_SCALAR_INT, 65505, 0, 0}, true},
        {PT_FLOAT16, {PT_SCALAR_FLOAT, 0, NAN, 0}, false},
        {PT_FLOAT32, {PT_SCALAR_FLOAT, 0, 1e300, 0}, true},
        {PT_FLOAT32, {PT_SCALAR_FLOAT, 0, -INFINITY, 0}, false},
        {PT_FLOAT64, {PT_SCALAR_INT, INT64_MAX, 0, 0}, false},
        {PT_FLOAT32, {PT_SCALAR_COMPLEX, 0, 1, 2}, true},
        {PT_INT32, {PT_SCALAR_COMPLEX, 0, 2, 0}, false},
        {PT_BOOL, {PT_SCALAR_COMPLEX, 0, 1, 2}, false},
        {PT_BOOL, {PT_SCALAR_FLOAT, 0, 1e300, 0}, false},
        {PT_INT8, {PT_SCALAR_BOOL, 1, 0, 0}, false},
        {PT_COMPLEX64, {PT_SCALAR_COMPLEX, 0, 1e300, 0}, true},
        {PT_COMPLEX64, {PT_SCALAR_COMPLEX, 0, 1, NAN}, false},
        {PT_COMPLEX128, {PT_SCALAR_COMPLEX, 0, 1e300, -1e300}, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pt_status st = pt_dtype_scalar_check(cases[k].dtype, &cases[k].v);
        if (cases[k].overflows) {
            CHECK(st == PT_ERR_RUNTIME && strstr(pt_error_message(), "without overflow"));
        } else if (st != PT_OK) {
            fprintf(stderr, "  case %zu: %s\n", k, pt_error_message());
            CHECK(st == PT_OK);
        }
    }
    pt_scalar big = {PT_SCALAR_INT, 200, 0, 0};
    CHECK_ERR(pt_dtype_scalar_check(PT_INT8, &big), PT_ERR_RUNTIME,
              "value cannot be converted to type int8_t without overflow");
    CHECK_ERR(pt_dtype_scalar_check(PT_INT8, &(pt_scalar){9, 0, 0, 0}), PT_ERR_VALUE,
              "unknown scalar kind 9");
    CHECK_ERR(pt_dtype_scalar_check(-3, &(pt_scalar){PT_SCALAR_INT, 0, 0, 0}), PT_ERR_TYPE,
              "holds no numbers");
}
