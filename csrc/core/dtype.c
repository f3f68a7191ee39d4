/* dtype.c - the type-id table (c10's TypeMeta / ScalarType tables): one row per dtype id with its
 * names, size, alignment, kind bits and finfo/iinfo, plus the rules that relate dtypes to each
 * other: promotion (torch.promote_types), castability (torch.can_cast) and DLPack codes.
 *
 * The twelve builtin rows are a static table written with designated initializers; each row is
 * also a load-time record in the "dtype" registry, so the registry lists the dtypes and
 * pt_dtype_init() checks at start-up that table and registry agree. Runtime registration appends
 * opaque ids (bytes only: no arithmetic, no casts) after the builtins, up to PT_DTYPE_MAX; readers
 * see a row only after its count is published, so lookups take no lock.
 *
 * The element conversions (casts, scalars, half precision) live in dtype_cast.c.
 */
#include <float.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

PT_DEFINE_REGISTRY("dtype", "dtype ids: the builtin table and runtime-registered opaque types")

/* Note [finfo of half types]: the values are the exact ones torch.finfo prints (max of bfloat16 is
 * (2 - 2^-7) * 2^127; resolution is 10^-digits10). Complex rows repeat their real part's finfo
 * and `bits` is that real part's width, as torch.finfo(torch.complex64).bits == 32. */
#define PT_FINFO(MAX, EPS, TINY, RES, MANT)                                                        \
    .fmin = -(MAX), .fmax = (MAX), .eps = (EPS), .tiny = (TINY), .resolution = (RES),              \
    .mantissa_bits = (MANT)
#define PT_FINFO_HALF PT_FINFO(65504.0, 0x1p-10, 0x1p-14, 1e-3, 11)
#define PT_FINFO_BFLOAT16 PT_FINFO(0x1.fep127, 0x1p-7, 0x1p-126, 1e-2, 8)
#define PT_FINFO_FLOAT PT_FINFO(FLT_MAX, 0x1p-23, 0x1p-126, 1e-6, 24)
#define PT_FINFO_DOUBLE PT_FINFO(DBL_MAX, 0x1p-52, 0x1p-1022, 1e-15, 53)
#define PT_IINFO(LO, HI) .imin = (LO), .imax = (HI)

static pt_dtype_info table[PT_DTYPE_MAX] = {
    [PT_BOOL] = {PT_BOOL, "bool", "Bool", 1, 1, PT_KIND_BOOL, 8, PT_IINFO(0, 1),
                 .numpy_typestr = "|b1"},
    [PT_UINT8] = {PT_UINT8, "uint8", "Byte", 1, 1, PT_KIND_INTEGER, 8, PT_IINFO(0, UINT8_MAX),
                  .numpy_typestr = "|u1"},
    [PT_INT8] = {PT_INT8, "int8", "Char", 1, 1, PT_KIND_INTEGER | PT_KIND_SIGNED, 8,
                 PT_IINFO(INT8_MIN, INT8_MAX), .numpy_typestr = "|i1"},
    [PT_INT16] = {PT_INT16, "int16", "Short", 2, 2, PT_KIND_INTEGER | PT_KIND_SIGNED, 16,
                  PT_IINFO(INT16_MIN, INT16_MAX), .numpy_typestr = "<i2"},
    [PT_INT32] = {PT_INT32, "int32", "Int", 4, 4, PT_KIND_INTEGER | PT_KIND_SIGNED, 32,
                  PT_IINFO(INT32_MIN, INT32_MAX), .numpy_typestr = "<i4"},
    [PT_INT64] = {PT_INT64, "int64", "Long", 8, 8, PT_KIND_INTEGER | PT_KIND_SIGNED, 64,
                  PT_IINFO(INT64_MIN, INT64_MAX), .numpy_typestr = "<i8"},
    [PT_FLOAT16] = {PT_FLOAT16, "float16", "Half", 2, 2, PT_KIND_FLOAT | PT_KIND_SIGNED, 16,
                    PT_FINFO_HALF, .numpy_typestr = "<f2"},
    [PT_BFLOAT16] = {PT_BFLOAT16, "bfloat16", "BFloat16", 2, 2, PT_KIND_FLOAT | PT_KIND_SIGNED, 16,
                     PT_FINFO_BFLOAT16, .numpy_typestr = ""},
    [PT_FLOAT32] = {PT_FLOAT32, "float32", "Float", 4, 4, PT_KIND_FLOAT | PT_KIND_SIGNED, 32,
                    PT_FINFO_FLOAT, .numpy_typestr = "<f4"},
    [PT_FLOAT64] = {PT_FLOAT64, "float64", "Double", 8, 8, PT_KIND_FLOAT | PT_KIND_SIGNED, 64,
                    PT_FINFO_DOUBLE, .numpy_typestr = "<f8"},
    /* c10::complex<T> is aligned to its full size, so complex rows are too. */
    [PT_COMPLEX64] = {PT_COMPLEX64, "complex64", "ComplexFloat", 8, 8,
                      PT_KIND_COMPLEX | PT_KIND_SIGNED, 32, PT_FINFO_FLOAT,
                      .numpy_typestr = "<c8"},
    [PT_COMPLEX128] = {PT_COMPLEX128, "complex128", "ComplexDouble", 16, 16,
                       PT_KIND_COMPLEX | PT_KIND_SIGNED, 64, PT_FINFO_DOUBLE,
                       .numpy_typestr = "<c16"},
};
_Static_assert(PT_COMPLEX128 + 1 == PT_DTYPE_BUILTIN_COUNT,
               "every builtin dtype id has a row in the table");

int32_t pt_dtype_itemsizes[PT_DTYPE_MAX] = {
    [PT_BOOL] = 1,    [PT_UINT8] = 1,    [PT_INT8] = 1,     [PT_INT16] = 2,
    [PT_INT32] = 4,   [PT_INT64] = 8,    [PT_FLOAT16] = 2,  [PT_BFLOAT16] = 2,
    [PT_FLOAT32] = 4, [PT_FLOAT64] = 8,  [PT_COMPLEX64] = 8, [PT_COMPLEX128] = 16,
};

PT_REGISTER("dtype", "bool", &table[PT_BOOL], "boolean stored as one byte (0 or 1)")
PT_REGISTER("dtype", "uint8", &table[PT_UINT8], "8-bit unsigned integer")
PT_REGISTER("dtype", "int8", &table[PT_INT8], "8-bit signed integer")
PT_REGISTER("dtype", "int16", &table[PT_INT16], "16-bit signed integer")
PT_REGISTER("dtype", "int32", &table[PT_INT32], "32-bit signed integer")
PT_REGISTER("dtype", "int64", &table[PT_INT64], "64-bit signed integer")
PT_REGISTER("dtype", "float16", &table[PT_FLOAT16], "IEEE 754 binary16")
PT_REGISTER("dtype", "bfloat16", &table[PT_BFLOAT16],
            "brain float: float32's exponent, 8-bit significand")
PT_REGISTER("dtype", "float32", &table[PT_FLOAT32], "IEEE 754 binary32")
PT_REGISTER("dtype", "float64", &table[PT_FLOAT64], "IEEE 754 binary64")
PT_REGISTER("dtype", "complex64", &table[PT_COMPLEX64], "two float32: real, imaginary")
PT_REGISTER("dtype", "complex128", &table[PT_COMPLEX128], "two float64: real, imaginary")

/* Rows [0, count) are complete; a runtime row is written before count moves past it. */
static _Atomic int32_t count = PT_DTYPE_BUILTIN_COUNT;
static pthread_mutex_t register_lock = PTHREAD_MUTEX_INITIALIZER;

const pt_dtype_info *pt_dtype_info_of(int32_t id)
{
    if (id < 0 || id >= atomic_load_explicit(&count, memory_order_acquire)) return NULL;
    return &table[id];
}

pt_status pt_dtype_check(int32_t id, const char *argname)
{
    if (pt_dtype_info_of(id)) return PT_OK;
    return PT_ERROR(PT_ERR_VALUE, "%s: unknown dtype id %d", argname, (int)id);
}

int32_t pt_dtype_count(void) { return atomic_load_explicit(&count, memory_order_acquire); }

pt_status pt_dtype_get(int32_t id, const pt_dtype_info **out)
{
    PT_TRY(pt_dtype_check(id, "dtype"));
    *out = &table[id];
    return PT_OK;
}

pt_status pt_dtype_init(int64_t *count_out, const char **detail)
{
    int32_t n = 0;
    PT_TRY(pt_registry_size("dtype", &n));
    if (n != pt_dtype_count())
        return PT_ERROR(PT_ERR_RUNTIME, "dtype registry holds %d entries but the table has %d rows",
                        (int)n, (int)pt_dtype_count());
    for (int32_t id = 0; id < PT_DTYPE_BUILTIN_COUNT; id++) {
        pt_registry_entry_info e;
        PT_TRY(pt_registry_find("dtype", table[id].name, &e));
        if (e.creator != &table[id] || table[id].id != id ||
            table[id].itemsize != pt_dtype_itemsizes[id])
            return PT_ERROR(PT_ERR_RUNTIME, "dtype '%s' (id %d): registry and table disagree",
                            table[id].name, (int)id);
    }
    *count_out = n;
    *detail = "bool, integers, float16/bfloat16/float32/float64, complex64/complex128";
    return PT_OK;
}

/* ---------------------------------------------------------------- names */

static const struct {
    const char *alias;
    int32_t id;
} aliases[] = {
    {"float", PT_FLOAT32}, {"double", PT_FLOAT64}, {"half", PT_FLOAT16},
    {"long", PT_INT64},    {"int", PT_INT32},      {"short", PT_INT16},
    {"cfloat", PT_COMPLEX64}, {"cdouble", PT_COMPLEX128},
};

static int32_t find_name(const char *name)
{
    int32_t n = pt_dtype_count();
    for (int32_t id = 0; id < n; id++)
        if (strcmp(table[id].name, name) == 0 ||
            (table[id].legacy_name[0] && strcmp(table[id].legacy_name, name) == 0))
            return id;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].alias, name) == 0) return aliases[i].id;
    return -1;
}

pt_status pt_dtype_from_name(const char *name, int32_t *out)
{
    if (!name) return PT_ERROR(PT_ERR_TYPE, "dtype: expected a name, got NULL");
    static const char prefix[] = "pytensor.";
    size_t skip = strncmp(name, prefix, sizeof prefix - 1) == 0 ? sizeof prefix - 1 : 0;
    const char *bare = name + skip;
    int32_t id = find_name(bare);
    if (id < 0) return PT_ERROR(PT_ERR_TYPE, "dtype: unknown dtype name '%s'", name);
    *out = id;
    return PT_OK;
}

/* ---------------------------------------------------------------- promotion */

/* torch.promote_types over the builtin ids, as torch 2.x prints it (c10's _promoteTypesLookup):
 * uint8 + int8 -> int16 and bfloat16 + float16 -> float32, neither of which is "the wider". */
enum { b1 = PT_BOOL, u1 = PT_UINT8, i1 = PT_INT8, i2 = PT_INT16, i4 = PT_INT32, i8 = PT_INT64,
       f2 = PT_FLOAT16, bf = PT_BFLOAT16, f4 = PT_FLOAT32, f8 = PT_FLOAT64, c4 = PT_COMPLEX64,
       c8 = PT_COMPLEX128 };
static const int8_t promote_table[PT_DTYPE_BUILTIN_COUNT][PT_DTYPE_BUILTIN_COUNT] = {
    /*        b1  u1  i1  i2  i4  i8  f2  bf  f4  f8  c4  c8 */
    [b1] = {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
    [u1] = {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
    [i1] = {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
    [i2] = {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
    [i4] = {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8, c4, c8},
    [i8] = {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c4, c8},
    [f2] = {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8, c4, c8},
    [bf] = {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8, c4, c8},
    [f4] = {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, c4, c8},
    [f8] = {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c8, c8},
    [c4] = {c4, c4, c4, c4, c4, c4, c4, c4, c4, c8, c4, c8},
    [c8] = {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
};

pt_status pt_dtype_promote(int32_t a, int32_t b, int32_t *out)
{
    PT_TRY(pt_dtype_check(a, "promote_types"));
    PT_TRY(pt_dtype_check(b, "promote_types"));
    if (a >= PT_DTYPE_BUILTIN_COUNT || b >= PT_DTYPE_BUILTIN_COUNT) {
        if (a != b)
            return PT_ERROR(PT_ERR_TYPE, "promote_types: no promotion between '%s' and '%s' "
                            "(opaque dtypes promote only with themselves)",
                            table[a].name, table[b].name);
        *out = a;
        return PT_OK;
    }
    *out = promote_table[a][b];
    return PT_OK;
}

int32_t pt_dtype_can_cast(int32_t from, int32_t to)
{
    const pt_dtype_info *f = pt_dtype_info_of(from), *t = pt_dtype_info_of(to);
    if (!f || !t) return 0;
    if ((f->kind | t->kind) & PT_KIND_OPAQUE) return from == to;
    /* torch.can_cast forbids only the casts that lose a whole category: complex to real,
     * floating to integral, and anything but bool to bool. */
    if ((f->kind & PT_KIND_COMPLEX) && !(t->kind & PT_KIND_COMPLEX)) return 0;
    if ((f->kind & PT_KIND_FLOAT) && (t->kind & (PT_KIND_INTEGER | PT_KIND_BOOL))) return 0;
    if (!(f->kind & PT_KIND_BOOL) && (t->kind & PT_KIND_BOOL)) return 0;
    return 1;
}

/* Read on every promotion that meets a wrapped Python number, written rarely: an atomic, so that
 * a switch on one thread is seen whole on the others (torch's default is process-wide too). */
static _Atomic int32_t default_dtype = PT_FLOAT32;

int32_t pt_dtype_default(void) { return atomic_load_explicit(&default_dtype, memory_order_relaxed); }

pt_status pt_dtype_set_default(int32_t id)
{
    const pt_dtype_info *info = pt_dtype_info_of(id);
    if (!info || !(info->kind & PT_KIND_FLOAT))
        return PT_ERROR(PT_ERR_TYPE, "set_default_dtype: only floating-point dtypes can be the "
                        "default, got %s", info ? info->name : "an unknown dtype id");
    atomic_store_explicit(&default_dtype, id, memory_order_relaxed);
    return PT_OK;
}

/* ---------------------------------------------------------------- runtime registration */

static pt_status check_new_dtype(const char *name, int32_t itemsize, int32_t alignment)
{
    if (!name || !name[0]) return PT_ERROR(PT_ERR_VALUE, "register_dtype: name must be non-empty");
    if (itemsize <= 0)
        return PT_ERROR(PT_ERR_VALUE, "register_dtype: itemsize must be positive, got %d",
                        (int)itemsize);
    if (alignment <= 0 || (alignment & (alignment - 1)) != 0)
        return PT_ERROR(PT_ERR_VALUE, "register_dtype: alignment must be a power of two, got %d",
                        (int)alignment);
    if (find_name(name) >= 0)
        return PT_ERROR(PT_ERR_VALUE, "register_dtype: the name '%s' is already a dtype", name);
    return PT_OK;
}

pt_status pt_dtype_register(const char *name, int32_t itemsize, int32_t alignment, int32_t *out)
{
    pthread_mutex_lock(&register_lock);
    int32_t id = atomic_load_explicit(&count, memory_order_relaxed);
    pt_status st = check_new_dtype(name, itemsize, alignment);
    if (st == PT_OK && id == PT_DTYPE_MAX)
        st = PT_ERROR(PT_ERR_RUNTIME, "register_dtype: all %d dtype ids are taken", PT_DTYPE_MAX);
    char *interned = NULL;
    if (st == PT_OK) {
        size_t len = strlen(name) + 1;
        if ((interned = malloc(len)))
            memcpy(interned, name, len);
        else
            st = PT_ERROR(PT_ERR_MEMORY, "register_dtype: out of memory");
    }
    if (st == PT_OK) {
        table[id] = (pt_dtype_info){.id = id,
                                    .name = interned,
                                    .legacy_name = "",
                                    .itemsize = itemsize,
                                    .alignment = alignment,
                                    .kind = PT_KIND_OPAQUE,
                                    .bits = itemsize * 8,
                                    .numpy_typestr = ""};
        st = pt_registry_add("dtype", interned, &table[id], "runtime-registered opaque dtype",
                             __FILE__, __LINE__);
    }
    if (st == PT_OK) {
        pt_dtype_itemsizes[id] = itemsize;
        atomic_store_explicit(&count, id + 1, memory_order_release);
        *out = id;
    } else {
        free(interned); /* a failed pt_registry_add keeps no pointer to it */
    }
    pthread_mutex_unlock(&register_lock);
    return st;
}

/* ---------------------------------------------------------------- DLPack codes */

static const pt_dl_dtype dlpack_codes[PT_DTYPE_BUILTIN_COUNT] = {
    [PT_BOOL] = {PT_DL_BOOL, 8, 1},         [PT_UINT8] = {PT_DL_UINT, 8, 1},
    [PT_INT8] = {PT_DL_INT, 8, 1},          [PT_INT16] = {PT_DL_INT, 16, 1},
    [PT_INT32] = {PT_DL_INT, 32, 1},        [PT_INT64] = {PT_DL_INT, 64, 1},
    [PT_FLOAT16] = {PT_DL_FLOAT, 16, 1},    [PT_BFLOAT16] = {PT_DL_BFLOAT, 16, 1},
    [PT_FLOAT32] = {PT_DL_FLOAT, 32, 1},    [PT_FLOAT64] = {PT_DL_FLOAT, 64, 1},
    [PT_COMPLEX64] = {PT_DL_COMPLEX, 64, 1}, [PT_COMPLEX128] = {PT_DL_COMPLEX, 128, 1},
};

pt_status pt_dtype_to_dlpack(int32_t dtype, pt_dl_dtype *out)
{
    PT_TRY(pt_dtype_check(dtype, "dtype"));
    if (dtype >= PT_DTYPE_BUILTIN_COUNT)
        return PT_ERROR(PT_ERR_TYPE, "DLPack: the opaque dtype '%s' has no DLPack type code",
                        table[dtype].name);
    *out = dlpack_codes[dtype];
    return PT_OK;
}

pt_status pt_dtype_from_dlpack(pt_dl_dtype dt, int32_t *out)
{
    if (dt.lanes != 1)
        return PT_ERROR(PT_ERR_TYPE, "DLPack: only lanes == 1 is supported, got %d lanes",
                        (int)dt.lanes);
    for (int32_t id = 0; id < PT_DTYPE_BUILTIN_COUNT; id++) {
        if (dlpack_codes[id].code == dt.code && dlpack_codes[id].bits == dt.bits) {
            *out = id;
            return PT_OK;
        }
    }
    return PT_ERROR(PT_ERR_TYPE, "DLPack: unsupported dtype code %d with %d bits", (int)dt.code,
                    (int)dt.bits);
}
