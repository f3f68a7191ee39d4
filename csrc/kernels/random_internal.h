/* random_internal.h - what the distribution fills (random_draws.c) take from the Philox stream
 * and its plumbing (random.c): the per-call context the rows read, the conversions of a block's
 * words to u and z, the row function of Note [distributions], and the fill every op ends in.
 * Hidden like the rest of the core.
 */
#ifndef PT_RANDOM_INTERNAL_H
#define PT_RANDOM_INTERNAL_H

#include <math.h>

#include "internal.h"
#include "random_math.h"

/* The most operands a fill walks: the written tensor and one read (bernoulli_'s p). */
enum { PT_RANDOM_MAX_OPERANDS = 2 };

typedef double (*pt_random_load_fn)(const char *p);
typedef void (*pt_random_store_fn)(char *p, double v);
struct pt_random_ctx;
typedef double (*pt_random_draw_fn)(const struct pt_random_ctx *c, const uint32_t w[4], double x);

typedef struct pt_random_ctx {
    uint32_t k0, k1;
    uint64_t offset;    /* first block of the call */
    uint32_t per_block; /* elements per block: normal_'s 4 or 2 (Note [Philox stream]), else 1 */
    double a, b;     /* uniform: from, to; normal: mean, std; the distributions' parameters */
    float af, bf, rangef;
    double range;
    float to_rounded; /* `to` in the output dtype, read back as float (16-bit outputs) */
    uint16_t from_bits;
    uint64_t ufrom, urange; /* random_ */
    /* Note [distributions]: the input (NULL load: the constant x0), the draw, the output's
     * store, whether the output is float64, and the largest value it takes. */
    pt_random_load_fn load;
    double x0;
    pt_random_draw_fn draw;
    pt_random_store_fn store;
    bool f64;
    double max;
} pt_random_ctx;

/* One row of n elements, element indices first..first+n-1; p[0] is the written operand and
 * p[1] the read one, each with its byte stride. */
typedef void (*pt_random_row_fn)(const pt_random_ctx *c, char *const *p, const int64_t *s,
                                 int64_t n, uint64_t first);

/* u in [0, 1) from the top 24 bits of a word, and from 53 bits of two (Note [Philox stream]). */
static inline float pt_random_u24(uint32_t w) { return (float)(w >> 8) * 0x1p-24f; }

static inline double pt_random_u53(uint32_t hi, uint32_t lo)
{
    return (double)((((uint64_t)hi << 32) | lo) >> 11) * 0x1p-53;
}

/* The first normal of a block as normal_ computes it (Note [normal arithmetic]): the cosine of
 * the Box-Muller pair of words 0-1 (float), of the whole block (double). The distributions of
 * Note [distributions] draw one of these per element. */
static inline float pt_random_std_normal_f32(const uint32_t w[4])
{
    float z0, z1;
    pt_rm_box_muller_f32(w[0], w[1], &z0, &z1);
    return z0;
}

static inline double pt_random_std_normal_f64(const uint32_t w[4])
{
    double z0, z1;
    pt_rm_box_muller_f64(w, &z0, &z1);
    return z0;
}

/* normal_'s elements per block (Note [Philox stream]): both Box-Muller normals of each pair of
 * words, so two pairs of 24-bit words for float32 and below, one pair of 53-bit halves for
 * float64. */
enum { PT_RANDOM_NORMALS_PER_BLOCK_F32 = 4, PT_RANDOM_NORMALS_PER_BLOCK_F64 = 2 };

/* What the normal kernels read: the stream (key and the call's first block) and mean, std. */
typedef struct pt_random_normal_args {
    uint32_t k0, k1;
    uint64_t offset;
    float mean_f, std_f;
    double mean, std;
} pt_random_normal_args;

/* The "random" kernel family (cpu/random_kernels.c, one table per CPU capability): n values
 * mean + std * z of normal_'s elements first..first+n-1 of a call, into contiguous out. Every
 * capability gives the same bits (Note [normal arithmetic]). */
typedef struct pt_random_table {
    void (*normal_f32)(float *out, int64_t n, uint64_t first, const pt_random_normal_args *a);
    void (*normal_f64)(double *out, int64_t n, uint64_t first, const pt_random_normal_args *a);
} pt_random_table;

/* The row of the ops of Note [distributions]: reads the input (or takes the constant x0), draws,
 * stores. */
void pt_random_dist_row(const pt_random_ctx *c, char *const *p, const int64_t *s, int64_t n,
                        uint64_t first);

/* float16, bfloat16, float32 and float64. */
bool pt_random_is_floating(int32_t dtype);
/* The dtype's name, "unknown" for an id without one. */
const char *pt_random_dtype_name(int32_t dtype);

/* g, or the device's default generator when g is NULL, as a new reference; a generator of
 * another device type is refused with torch's message. */
pt_status pt_random_generator_for(pt_device device, pt_generator *g, pt_generator **out);
/* Runs fn over ops[0]'s elements (CPU tensors; ops[1..] read, already expanded to ops[0]'s
 * shape) from g's stream (Note [Philox stream]), reserving one block per c->per_block elements. */
void pt_random_run_cpu(int32_t nops, const pt_tensor *const *ops, pt_generator *g, pt_random_ctx *c,
                       pt_random_row_fn fn);
/* What every written tensor must be: strided, writable, without self-overlap. */
pt_status pt_random_check_written(const char *op, const pt_tensor *t);
/* Everything common to the fills once the op checked its arguments: layout, read-only memory,
 * meta, the generator, and the detour through the CPU for other devices. */
pt_status pt_random_fill(const char *op, pt_tensor *t, pt_generator *g, pt_random_ctx *c,
                         pt_random_row_fn fn);

#endif
