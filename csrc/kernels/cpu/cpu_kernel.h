/* cpu_kernel.h - included first by every csrc/kernels/cpu/ source: those files are compiled once
 * per CPU capability (the build defines PT_CPU_CAP_DEFAULT, PT_CPU_CAP_AVX2 or PT_CPU_CAP_AVX512
 * and passes that capability's instruction-set flags), and each compilation defines its family's
 * table under the capability's name (csrc/kernels/cpu_stub.h says how start-up picks one).
 *
 * The loops are plain C written so that the compiler vectorizes them for the flags at hand: one
 * source, three instruction sets, and the default build is the reference the others must match.
 */
#ifndef PT_KERNELS_CPU_KERNEL_H
#define PT_KERNELS_CPU_KERNEL_H

#include "internal.h"
#include "iter.h"

#if defined(PT_CPU_CAP_AVX512)
#define PT_CPU_CAP_SUFFIX avx512
#elif defined(PT_CPU_CAP_AVX2)
#define PT_CPU_CAP_SUFFIX avx2
#elif defined(PT_CPU_CAP_DEFAULT)
#define PT_CPU_CAP_SUFFIX default
#else
#error "csrc/kernels/cpu sources are compiled once per capability: define PT_CPU_CAP_<NAME>"
#endif

/* Defines this capability's table of the family NAME: `PT_CPU_KERNELS_DEFINE(unary, T) = {...};` */
#define PT_CPU_KERNELS_DEFINE(NAME, TYPE) const TYPE PT_CAT(pt_cpu_kernels_##NAME##_, PT_CPU_CAP_SUFFIX)

#endif
