/* cpu_capability.c - which instruction set the CPU kernels may use: default, AVX2 or AVX-512.
 *
 * At init, cpuid says what the CPU implements and xgetbv says which register state the OS saves on
 * a context switch (a CPU with AVX-512 under an OS that does not save ZMM state must not use it).
 * AVX2 needs AVX2 + FMA + saved YMM state; AVX-512 needs the F, BW, VL and DQ subsets + saved ZMM
 * state (the subsets the AVX-512 kernels are compiled for). PYTENSOR_CPU_CAPABILITY (default, avx2
 * or avx512, any case) then lowers the choice, as ATEN_CPU_CAPABILITY does in PyTorch; a request
 * above what the CPU has, or an unknown value, falls back to the detected capability and the
 * phase's detail says so. On other architectures the answer is "default".
 */
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define PT_X86 1
#endif

PT_DEFINE_REGISTRY("cpu_capability", "instruction sets the CPU kernels are compiled for")

static const int32_t capability_ids[PT_CPU_CAPABILITY_COUNT] = {PT_CPU_DEFAULT, PT_CPU_AVX2,
                                                                PT_CPU_AVX512};
PT_REGISTER("cpu_capability", "default", &capability_ids[PT_CPU_DEFAULT],
            "portable C, whatever the compiler's baseline flags allow")
PT_REGISTER("cpu_capability", "avx2", &capability_ids[PT_CPU_AVX2], "AVX2 + FMA (256-bit vectors)")
PT_REGISTER("cpu_capability", "avx512", &capability_ids[PT_CPU_AVX512],
            "AVX-512 F/BW/VL/DQ (512-bit vectors)")

static const char *const capability_names[PT_CPU_CAPABILITY_COUNT] = {
    [PT_CPU_DEFAULT] = "default",
    [PT_CPU_AVX2] = "avx2",
    [PT_CPU_AVX512] = "avx512",
};
_Static_assert(PT_CPU_CAPABILITY_COUNT == 3, "capability_names lists every capability");

static int32_t detected = PT_CPU_DEFAULT;
static int32_t in_use = PT_CPU_DEFAULT;

#ifdef PT_X86
/* xgetbv through inline assembly: the _xgetbv intrinsic needs -mxsave on the whole file. */
static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static int32_t detect(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return PT_CPU_DEFAULT;
    const int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1;
    if (!osxsave || !avx) return PT_CPU_DEFAULT;
    const uint64_t xcr0 = read_xcr0();
    /* XCR0 bits: 1 SSE, 2 AVX (upper YMM), 5-7 opmask / upper ZMM / ZMM16-31. */
    const int ymm_saved = (xcr0 & 0x6) == 0x6;
    const int zmm_saved = (xcr0 & 0xe6) == 0xe6;
    if (__get_cpuid_max(0, NULL) < 7) return PT_CPU_DEFAULT;
    __cpuid_count(7, 0, a, b, c, d);
    const int avx2 = (b >> 5) & 1;
    const int avx512 = ((b >> 16) & 1) && ((b >> 17) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1);
    if (avx512 && avx2 && fma && zmm_saved) return PT_CPU_AVX512;
    if (avx2 && fma && ymm_saved) return PT_CPU_AVX2;
    return PT_CPU_DEFAULT;
}
#else
static int32_t detect(void) { return PT_CPU_DEFAULT; }
#endif

int32_t pt_cpu_capability(void) { return in_use; }

int32_t pt_cpu_capability_detected(void) { return detected; }

const char *pt_cpu_capability_name(int32_t capability)
{
    if (capability < 0 || capability >= PT_CPU_CAPABILITY_COUNT) return NULL;
    return capability_names[capability];
}

static int32_t parse_capability(const char *text)
{
    for (int32_t i = 0; i < PT_CPU_CAPABILITY_COUNT; i++)
        if (strcasecmp(text, capability_names[i]) == 0) return i;
    return -1;
}

pt_status pt_cpu_capability_init(int64_t *count, const char **detail)
{
    /* The report keeps a pointer to the detail, so it lives in static storage; init runs once
     * (tests that rerun this hook run on one thread). */
    static char text[256];
    detected = detect();
    in_use = detected;
    const char *source = "cpuid";
    const char *env = getenv("PYTENSOR_CPU_CAPABILITY");
    const char *det = capability_names[detected];
    if (env && *env) {
        const int32_t asked = parse_capability(env);
        if (asked < 0) {
            snprintf(text, sizeof text,
                     "%s (cpuid; PYTENSOR_CPU_CAPABILITY='%.64s' ignored: expected default, avx2 "
                     "or avx512)",
                     det, env);
        } else if (asked > detected) {
            snprintf(text, sizeof text,
                     "%s (cpuid; PYTENSOR_CPU_CAPABILITY=%s asks for more than the CPU has)", det,
                     capability_names[asked]);
        } else {
            in_use = asked;
            source = "PYTENSOR_CPU_CAPABILITY";
            snprintf(text, sizeof text, "%s (PYTENSOR_CPU_CAPABILITY; the CPU has %s)",
                     capability_names[asked], det);
        }
    } else {
        snprintf(text, sizeof text, "%s (cpuid)", det);
    }
    PT_TRY(pt_config_set("cpu_capability", capability_names[in_use]));
    PT_TRY(pt_config_set("cpu_capability_detected", det));
    PT_TRY(pt_config_set("cpu_capability_source", source));
    *count = PT_CPU_CAPABILITY_COUNT;
    *detail = text;
    return PT_OK;
}
