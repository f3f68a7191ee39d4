/* dtype_cast.c - converting elements between dtypes: the 12 x 12 table of strided cast loops, the
 * scalar <-> element conversions, the half-precision formats, and the overflow check that torch
 * applies when a Python number becomes an element (Scalar::to<T>).
 *
 * Every cast goes through one of three carriers: int64 for bool and the integers, double for the
 * real floating types, a (double, double) pair for complex. Each dtype has a load into its carrier
 * and a store from each carrier, and _Generic picks the store from the load's type, so the 144 cast
 * loops are one macro. The carriers are exact for their sources (float16/bfloat16/float32 widen to
 * double exactly, integers stay int64), so a cast rounds once, in the store, except where torch
 * itself rounds twice (below). Same-dtype casts copy bytes, keeping NaN payloads and odd bool bytes
 * as torch's copy_ does.
 */
#include <math.h>
#include <string.h>

#include "half.h"
#include "internal.h"

/* ---------------------------------------------------------------- half precision */

/* One implementation of each conversion: Note [half conversions] in half.h. */
float pt_half_to_float(uint16_t h) { return pt_half_to_float_inline(h); }
uint16_t pt_float_to_half(float f) { return pt_float_to_half_inline(f); }
float pt_bfloat16_to_float(uint16_t h) { return pt_bfloat16_to_float_inline(h); }
uint16_t pt_float_to_bfloat16(float f) { return pt_float_to_bfloat16_inline(f); }

/* ---------------------------------------------------------------- carriers
 * Note [float to integer casts]
 * C leaves float -> integer conversion undefined for NaN, infinities and values out of range.
 * We define them as x86 hardware (and so torch on x86) does: to int64 and int32, such values
 * become the "integer indefinite" INT64_MIN / INT32_MIN (cvttsd2si). Narrower integers convert
 * through int32 and keep its low bits, as torch does: 70000.0 -> int16 gives 4464, 3e9 -> int16
 * gives 0 (INT32_MIN's low bits), -1.0 -> uint8 gives 255. Integer narrowing wraps modulo 2^n.
 * float16/bfloat16 stores go through float, so a double rounds twice on its way there, exactly as
 * torch's Half(float(x)) does. */
typedef struct cdbl {
    double re, im;
} cdbl;
typedef struct c4_t {
    float v[2];
} c4_t;
typedef struct c8_t {
    double v[2];
} c8_t;

static inline int64_t f64_to_i64(double v)
{
    if (v >= -0x1p63 && v < 0x1p63) return (int64_t)v;
    return INT64_MIN;
}

static inline int32_t f64_to_i32(double v)
{
    if (v > -0x1p31 - 1.0 && v < 0x1p31) return (int32_t)v;
    return INT32_MIN;
}

/* Two's-complement wrap through unsigned arithmetic: defined for every input. */
#define PT_WRAP_FN(NAME, T, BITS)                                                                  \
    static inline T wrap_##NAME(uint64_t u)                                                        \
    {                                                                                              \
        u &= (UINT64_C(1) << BITS) - 1;                                                            \
        int64_t wide = (int64_t)u - (u >> (BITS - 1) ? (INT64_C(1) << BITS) : 0);                 \
        return (T)wide;                                                                            \
    }
PT_WRAP_FN(i8, int8_t, 8)
PT_WRAP_FN(i16, int16_t, 16)
PT_WRAP_FN(i32, int32_t, 32)
static inline uint8_t wrap_u8(uint64_t u) { return (uint8_t)(u & 0xffu); }

/* Loads: one element at p into its carrier. */
#define PT_LOAD_AS(NAME, T, CARRIER, EXPR)                                                         \
    static inline CARRIER ld_##NAME(const char *p)                                                 \
    {                                                                                              \
        T x;                                                                                       \
        memcpy(&x, p, sizeof x);                                                                   \
        return (EXPR);                                                                             \
    }
PT_LOAD_AS(b1, uint8_t, int64_t, x != 0)
PT_LOAD_AS(u1, uint8_t, int64_t, x)
PT_LOAD_AS(i1, int8_t, int64_t, x)
PT_LOAD_AS(i2, int16_t, int64_t, x)
PT_LOAD_AS(i4, int32_t, int64_t, x)
PT_LOAD_AS(i8, int64_t, int64_t, x)
PT_LOAD_AS(f2, uint16_t, double, pt_half_to_float(x))
PT_LOAD_AS(bf, uint16_t, double, pt_bfloat16_to_float(x))
PT_LOAD_AS(f4, float, double, x)
PT_LOAD_AS(f8, double, double, x)
PT_LOAD_AS(c4, c4_t, cdbl, ((cdbl){x.v[0], x.v[1]}))
PT_LOAD_AS(c8, c8_t, cdbl, ((cdbl){x.v[0], x.v[1]}))

/* Stores: st_<dtype>_<carrier>(p, v). A real destination takes a complex value's real part;
 * bool takes "nonzero" (either part, for complex). */
#define PT_STORE_AS(NAME, SUFFIX, CARRIER, T, EXPR)                                                \
    static inline void st_##NAME##_##SUFFIX(char *p, CARRIER v)                                    \
    {                                                                                              \
        T x = (EXPR);                                                                              \
        memcpy(p, &x, sizeof x);                                                                   \
    }
#define PT_STORE_REAL(NAME, T, FROM_I, FROM_D)                                                     \
    PT_STORE_AS(NAME, i, int64_t, T, FROM_I)                                                       \
    PT_STORE_AS(NAME, d, double, T, FROM_D)                                                        \
    static inline void st_##NAME##_c(char *p, cdbl v) { st_##NAME##_d(p, v.re); }

PT_STORE_AS(b1, i, int64_t, uint8_t, v != 0)
PT_STORE_AS(b1, d, double, uint8_t, v != 0)
PT_STORE_AS(b1, c, cdbl, uint8_t, v.re != 0 || v.im != 0)
PT_STORE_REAL(u1, uint8_t, wrap_u8((uint64_t)v), wrap_u8((uint64_t)(uint32_t)f64_to_i32(v)))
PT_STORE_REAL(i1, int8_t, wrap_i8((uint64_t)v), wrap_i8((uint64_t)(uint32_t)f64_to_i32(v)))
PT_STORE_REAL(i2, int16_t, wrap_i16((uint64_t)v), wrap_i16((uint64_t)(uint32_t)f64_to_i32(v)))
PT_STORE_REAL(i4, int32_t, wrap_i32((uint64_t)v), f64_to_i32(v))
PT_STORE_REAL(i8, int64_t, v, f64_to_i64(v))
PT_STORE_REAL(f2, uint16_t, pt_float_to_half((float)v), pt_float_to_half((float)v))
PT_STORE_REAL(bf, uint16_t, pt_float_to_bfloat16((float)v), pt_float_to_bfloat16((float)v))
PT_STORE_REAL(f4, float, (float)v, (float)v)
PT_STORE_REAL(f8, double, (double)v, v)
PT_STORE_AS(c4, i, int64_t, c4_t, ((c4_t){{(float)v, 0.0f}}))
PT_STORE_AS(c4, d, double, c4_t, ((c4_t){{(float)v, 0.0f}}))
PT_STORE_AS(c4, c, cdbl, c4_t, ((c4_t){{(float)v.re, (float)v.im}}))
PT_STORE_AS(c8, i, int64_t, c8_t, ((c8_t){{(double)v, 0.0}}))
PT_STORE_AS(c8, d, double, c8_t, ((c8_t){{v, 0.0}}))
PT_STORE_AS(c8, c, cdbl, c8_t, ((c8_t){{v.re, v.im}}))

#define PT_STORE(D, p, v)                                                                          \
    _Generic((v), int64_t: st_##D##_i, double: st_##D##_d, cdbl: st_##D##_c)((p), (v))

/* Every dtype; the tables below place each entry by its id (ID_<name>). */
#define PT_EACH_DST(X, S) X(S, b1) X(S, u1) X(S, i1) X(S, i2) X(S, i4) X(S, i8) \
    X(S, f2) X(S, bf) X(S, f4) X(S, f8) X(S, c4) X(S, c8)
#define PT_EACH_SRC(X) X(b1) X(u1) X(i1) X(i2) X(i4) X(i8) X(f2) X(bf) X(f4) X(f8) X(c4) X(c8)

/* ---------------------------------------------------------------- strided casts */

#define PT_CAST_FN(S, D)                                                                           \
    static void cast_##S##_##D(char *dst, int64_t dst_stride, const char *src, int64_t src_stride, \
                               int64_t n)                                                          \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++)                                                            \
            PT_STORE(D, dst + i * dst_stride, ld_##S(src + i * src_stride));                       \
    }
#define PT_CAST_ROW_FNS(S) PT_EACH_DST(PT_CAST_FN, S)
PT_EACH_SRC(PT_CAST_ROW_FNS)

#define PT_CAST_ENTRY(S, D) [PT_CAT(ID_, D)] = cast_##S##_##D,
#define PT_CAST_ROW(S) [PT_CAT(ID_, S)] = {PT_EACH_DST(PT_CAST_ENTRY, S)},
enum { ID_b1 = PT_BOOL, ID_u1 = PT_UINT8, ID_i1 = PT_INT8, ID_i2 = PT_INT16, ID_i4 = PT_INT32,
       ID_i8 = PT_INT64, ID_f2 = PT_FLOAT16, ID_bf = PT_BFLOAT16, ID_f4 = PT_FLOAT32,
       ID_f8 = PT_FLOAT64, ID_c4 = PT_COMPLEX64, ID_c8 = PT_COMPLEX128 };
static const pt_cast_fn cast_table[PT_DTYPE_BUILTIN_COUNT][PT_DTYPE_BUILTIN_COUNT] = {
    PT_EACH_SRC(PT_CAST_ROW)};

/* Same-dtype "casts" move bytes; a fixed size lets the compiler emit one load and one store. */
#define PT_COPY_FN(N)                                                                              \
    static void copy_##N(char *dst, int64_t dst_stride, const char *src, int64_t src_stride,       \
                         int64_t n)                                                                \
    {                                                                                              \
        for (int64_t i = 0; i < n; i++) memcpy(dst + i * dst_stride, src + i * src_stride, N);     \
    }
PT_COPY_FN(1)
PT_COPY_FN(2)
PT_COPY_FN(4)
PT_COPY_FN(8)
PT_COPY_FN(16)

pt_cast_fn pt_dtype_cast_fn(int32_t src, int32_t dst)
{
    if (src < 0 || dst < 0 || src >= PT_DTYPE_BUILTIN_COUNT || dst >= PT_DTYPE_BUILTIN_COUNT)
        return NULL;
    if (src != dst) return cast_table[src][dst];
    switch (pt_dtype_itemsize(src)) {
    case 1: return copy_1;
    case 2: return copy_2;
    case 4: return copy_4;
    case 8: return copy_8;
    default: return copy_16;
    }
}

/* ---------------------------------------------------------------- scalars */

#define PT_SCALAR_TO_FN(S)                                                                         \
    static void scalar_to_##S(const pt_scalar *v, void *out)                                       \
    {                                                                                              \
        switch (v->kind) {                                                                         \
        case PT_SCALAR_FLOAT: st_##S##_d(out, v->re); break;                                       \
        case PT_SCALAR_COMPLEX: st_##S##_c(out, (cdbl){v->re, v->im}); break;                      \
        default: st_##S##_i(out, v->i); break;                                                     \
        }                                                                                          \
    }
PT_EACH_SRC(PT_SCALAR_TO_FN)

static inline pt_scalar scalar_of_i(int64_t i) { return (pt_scalar){PT_SCALAR_INT, i, 0, 0}; }
static inline pt_scalar scalar_of_d(double d) { return (pt_scalar){PT_SCALAR_FLOAT, 0, d, 0}; }
static inline pt_scalar scalar_of_c(cdbl c)
{
    return (pt_scalar){PT_SCALAR_COMPLEX, 0, c.re, c.im};
}
#define PT_SCALAR_FROM_FN(S)                                                                       \
    static void scalar_from_##S(const void *in, pt_scalar *out)                                    \
    {                                                                                              \
        *out = _Generic(ld_##S(in), int64_t: scalar_of_i, double: scalar_of_d,                     \
                        cdbl: scalar_of_c)(ld_##S(in));                                            \
        if ((int)PT_CAT(ID_, S) == (int)PT_BOOL) out->kind = PT_SCALAR_BOOL;                      \
    }
PT_EACH_SRC(PT_SCALAR_FROM_FN)

#define PT_SCALAR_TO_ENTRY(S) [PT_CAT(ID_, S)] = scalar_to_##S,
#define PT_SCALAR_FROM_ENTRY(S) [PT_CAT(ID_, S)] = scalar_from_##S,
static const pt_scalar_to_fn scalar_to_table[] = {PT_EACH_SRC(PT_SCALAR_TO_ENTRY)};
static const pt_scalar_from_fn scalar_from_table[] = {PT_EACH_SRC(PT_SCALAR_FROM_ENTRY)};

pt_scalar_to_fn pt_dtype_scalar_to(int32_t id)
{
    return id >= 0 && id < PT_DTYPE_BUILTIN_COUNT ? scalar_to_table[id] : NULL;
}

pt_scalar_from_fn pt_dtype_scalar_from(int32_t id)
{
    return id >= 0 && id < PT_DTYPE_BUILTIN_COUNT ? scalar_from_table[id] : NULL;
}

/* torch's c10::overflows for a real part: integers refuse NaN, infinities and anything outside
 * [min, max] (unsigned ones also refuse negative floats); floating types take inf and NaN but
 * refuse finite values beyond their max. */
static bool real_overflows(const pt_dtype_info *info, double v)
{
    if (info->kind & PT_KIND_INTEGER) return !(v >= (double)info->imin && v <= (double)info->imax);
    if (isinf(v) || isnan(v)) return false;
    return v < info->fmin || v > info->fmax;
}

/* The C++ type torch's checked_convert names in its overflow message ("int64_t", "c10::Half");
 * registered dtypes go by their own name. */
static const char *cpp_type_name(int32_t id, const char *fallback)
{
    static const char *const names[PT_DTYPE_BUILTIN_COUNT] = {
        [PT_BOOL] = "bool",         [PT_UINT8] = "uint8_t",          [PT_INT8] = "int8_t",
        [PT_INT16] = "int16_t",     [PT_INT32] = "int",              [PT_INT64] = "int64_t",
        [PT_FLOAT16] = "c10::Half", [PT_BFLOAT16] = "c10::BFloat16", [PT_FLOAT32] = "float",
        [PT_FLOAT64] = "double",    [PT_COMPLEX64] = "c10::complex<float>",
        [PT_COMPLEX128] = "c10::complex<double>",
    };
    return id >= 0 && id < PT_DTYPE_BUILTIN_COUNT ? names[id] : fallback;
}

pt_status pt_dtype_scalar_check(int32_t id, const pt_scalar *value)
{
    const pt_dtype_info *info = pt_dtype_info_of(id);
    if (!info) return PT_ERROR(PT_ERR_TYPE, "value: dtype id %d holds no numbers", (int)id);
    if (info->kind & PT_KIND_OPAQUE)
        return PT_ERROR(PT_ERR_TYPE, "value: the opaque dtype '%s' holds no numbers", info->name);
    bool overflow = false;
    switch (value->kind) {
    case PT_SCALAR_BOOL: break;
    case PT_SCALAR_INT:
        /* Unsigned targets accept negatives down to -max and wrap them, as torch does. */
        if (info->kind & PT_KIND_INTEGER)
            overflow = value->i > info->imax ||
                       value->i < (info->kind & PT_KIND_SIGNED ? info->imin : -info->imax);
        else if (info->kind & (PT_KIND_FLOAT | PT_KIND_COMPLEX))
            overflow = (double)value->i > info->fmax || (double)value->i < info->fmin;
        break;
    case PT_SCALAR_FLOAT:
        overflow = !(info->kind & PT_KIND_BOOL) && real_overflows(info, value->re);
        break;
    case PT_SCALAR_COMPLEX:
        if (info->kind & PT_KIND_COMPLEX)
            overflow = real_overflows(info, value->re) || real_overflows(info, value->im);
        else if (!(info->kind & PT_KIND_BOOL))
            overflow = value->im != 0 || real_overflows(info, value->re);
        break;
    default:
        return PT_ERROR(PT_ERR_VALUE, "value: unknown scalar kind %d", (int)value->kind);
    }
    if (overflow)
        return PT_ERROR(PT_ERR_RUNTIME, "value cannot be converted to type %s without overflow",
                        cpp_type_name(id, info->name));
    return PT_OK;
}
