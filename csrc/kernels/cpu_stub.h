/* cpu_stub.h - kernel stubs: one table of inner loops per kernel family, compiled once per CPU
 * capability, with the variant that start-up picks (the REGISTER_DISPATCH / THVector pattern).
 *
 * A family's loops live in csrc/kernels/cpu/<family>_kernels.c, which the build compiles once per
 * capability (default, and on x86-64 AVX2+FMA and AVX-512) with that capability's flags; each
 * compilation defines the family's table under its own name (PT_CPU_KERNELS_DEFINE in
 * cpu/cpu_kernel.h). The family's front, compiled once, declares the stub:
 *
 *     PT_CPU_STUB(unary, pt_unary_table, "exp, log, ... by dtype")       // in unary.c
 *     const pt_unary_table *t = PT_CPU_KERNELS(unary, pt_unary_table);  // per call
 *
 * which refers to every variant the build compiled (so the linker keeps them) and registers the
 * stub in the "cpu_stub" registry. The "cpu kernels" phase of pt_init points each stub at the
 * variant of the capability in use (cpu_capability.c: cpuid, lowered by PYTENSOR_CPU_CAPABILITY);
 * the default variant serves until then. Every stub must have a default variant: it is the
 * portable reference the others are tested against.
 */
#ifndef PT_KERNELS_CPU_STUB_H
#define PT_KERNELS_CPU_STUB_H

#include "internal.h"

typedef struct pt_cpu_stub {
    const char *name;
    const void *variants[PT_CPU_CAPABILITY_COUNT]; /* NULL where the build has no such variant */
    const void *table;                              /* the chosen variant */
    int32_t capability;                             /* ... and its capability */
} pt_cpu_stub;

#ifdef PT_CPU_BUILD_AVX2
#define PT_CPU_STUB_EXTERN_AVX2_(NAME, TYPE) extern const TYPE pt_cpu_kernels_##NAME##_avx2;
#define PT_CPU_STUB_REF_AVX2_(NAME) &pt_cpu_kernels_##NAME##_avx2
#else
#define PT_CPU_STUB_EXTERN_AVX2_(NAME, TYPE)
#define PT_CPU_STUB_REF_AVX2_(NAME) NULL
#endif
#ifdef PT_CPU_BUILD_AVX512
#define PT_CPU_STUB_EXTERN_AVX512_(NAME, TYPE) extern const TYPE pt_cpu_kernels_##NAME##_avx512;
#define PT_CPU_STUB_REF_AVX512_(NAME) &pt_cpu_kernels_##NAME##_avx512
#else
#define PT_CPU_STUB_EXTERN_AVX512_(NAME, TYPE)
#define PT_CPU_STUB_REF_AVX512_(NAME) NULL
#endif

#define PT_CPU_STUB(NAME, TYPE, HELP)                                                              \
    extern const TYPE pt_cpu_kernels_##NAME##_default;                                             \
    PT_CPU_STUB_EXTERN_AVX2_(NAME, TYPE)                                                           \
    PT_CPU_STUB_EXTERN_AVX512_(NAME, TYPE)                                                         \
    pt_cpu_stub pt_cpu_stub_##NAME = {                                                             \
        #NAME,                                                                                     \
        {&pt_cpu_kernels_##NAME##_default, PT_CPU_STUB_REF_AVX2_(NAME),                            \
         PT_CPU_STUB_REF_AVX512_(NAME)},                                                           \
        &pt_cpu_kernels_##NAME##_default,                                                          \
        PT_CPU_DEFAULT};                                                                           \
    PT_REGISTER("cpu_stub", #NAME, &pt_cpu_stub_##NAME, HELP)

/* The table serving NAME now. */
#define PT_CPU_KERNELS(NAME, TYPE) ((const TYPE *)pt_cpu_stub_##NAME.table)
#define PT_CPU_STUB_DECLARE(NAME) extern pt_cpu_stub pt_cpu_stub_##NAME

/* The "cpu kernels" phase of pt_init. */
pt_status pt_cpu_stubs_init(int64_t *count, const char **detail);

#endif
