/* philox.h - the Philox4x32-10 block function (Salmon et al., "Parallel random numbers: as easy
 * as 1, 2, 3", SC'11), inline so that the random kernels' inner loops pay no call per element.
 *
 * A block maps a 128-bit counter and a 64-bit key to 128 random bits through ten rounds of two
 * 32x32->64 multiplications and a Weyl-sequence key schedule. pt_philox4x32_10() in generator.c is
 * the exported wrapper; csrc/kernels/random.c calls this one for randperm and runs the same rounds
 * over batches of counters for the fills (Note [Philox stream]).
 */
#ifndef PT_PHILOX_H
#define PT_PHILOX_H

#include <stdint.h>

#define PT_PHILOX_M0 0xD2511F53u
#define PT_PHILOX_M1 0xCD9E8D57u
#define PT_PHILOX_W0 0x9E3779B9u /* golden ratio */
#define PT_PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */

static inline void pt_philox_block(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0,
                                   uint32_t k1, uint32_t out[4])
{
    for (int round = 0; round < 10; round++) {
        const uint64_t p0 = (uint64_t)PT_PHILOX_M0 * c0;
        const uint64_t p1 = (uint64_t)PT_PHILOX_M1 * c2;
        const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += PT_PHILOX_W0;
        k1 += PT_PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

#endif
