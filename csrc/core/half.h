/* half.h - float16 and bfloat16 <-> float32, the one implementation every caller uses.
 *
 * Note [half conversions]
 * Round to nearest even, infinities kept, NaNs made quiet keeping the sign and the top of their
 * payload (what x86's vcvtph2ps / vcvtps2ph / vcvtneps2bf16 do). Written without branches so that
 * loops over them vectorize: the kernels stage every float16/bfloat16 operand through float32, so
 * these conversions carry the whole cost of those dtypes. The dtype table's element casts
 * (pt_half_to_float, ...) call the same functions.
 */
#ifndef PT_HALF_H
#define PT_HALF_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t pt_bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float pt_float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* cond ? x : y as arithmetic: written as a branch, the float operations feeding it keep the
 * compiler from if-converting (they might trap), and the loop would not vectorize. */
static inline uint32_t pt_select_u32(bool cond, uint32_t x, uint32_t y)
{
    return y ^ ((x ^ y) & (0u - (uint32_t)cond));
}

static inline float pt_half_to_float_inline(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7fffu;
    uint32_t normal = (em << 13) + (112u << 23); /* rebias 15 -> 127 */
    uint32_t special = (em << 13) | 0x7f800000u | pt_select_u32(em & 0x3ffu, 0x400000u, 0);
    uint32_t subnormal = pt_bits_of((float)em * 0x1p-24f); /* exact: multiples of 2^-24 */
    return pt_float_of(sign | pt_select_u32(em >= 0x7c00u, special,
                                      pt_select_u32(em < 0x400u, subnormal, normal)));
}

static inline uint16_t pt_float_to_half_inline(float f)
{
    uint32_t u = pt_bits_of(f), sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    /* normal halves: rebias, then round the 13 dropped bits to nearest even */
    uint32_t normal = (a - (112u << 23) + 0xfffu + ((a >> 13) & 1u)) >> 13;
    /* subnormal halves: adding 0.5 (whose ulp is 2^-24) makes the FPU round at the half's last
     * place; the low bits are then the half's bits */
    uint32_t subnormal = pt_bits_of(pt_float_of(a) + 0.5f) - 0x3f000000u;
    uint32_t special = pt_select_u32(a > 0x7f800000u, 0x7e00u | ((a >> 13) & 0x3ffu), 0x7c00u);
    return (uint16_t)(sign | pt_select_u32(a >= 0x47800000u, special,
                                        pt_select_u32(a < 0x38800000u, subnormal, normal)));
}

static inline float pt_bfloat16_to_float_inline(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    return pt_float_of((u & 0x7fffffffu) > 0x7f800000u ? u | 0x400000u : u);
}

static inline uint16_t pt_float_to_bfloat16_inline(float f)
{
    uint32_t u = pt_bits_of(f);
    uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? (u >> 16) | 0x40u : rounded);
}

#endif
