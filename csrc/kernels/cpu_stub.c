/* cpu_stub.c - the "cpu kernels" phase of start-up: points every kernel stub (cpu_stub.h) at the
 * variant of the CPU capability in use, and lets tests switch capabilities. */
#include <stdio.h>
#include <string.h>

#include "cpu_stub.h"

PT_DEFINE_REGISTRY("cpu_stub", "CPU kernel families, each compiled once per capability")

/* Enough for every family; the phase fails loudly if a build ever has more. */
enum { MAX_STUBS = 64 };
static pt_cpu_stub *stubs[MAX_STUBS];
static int32_t nstubs;

/* The highest variant at or below `capability`: the default one always exists. */
static void choose(pt_cpu_stub *s, int32_t capability)
{
    for (int32_t c = capability; c >= PT_CPU_DEFAULT; c--) {
        if (!s->variants[c]) continue;
        s->table = s->variants[c];
        s->capability = c;
        return;
    }
}

static pt_status collect(void)
{
    if (nstubs > 0) return PT_OK;
    int32_t n = 0;
    PT_TRY(pt_registry_size("cpu_stub", &n));
    if (n > MAX_STUBS)
        return PT_ERROR(PT_ERR_RUNTIME, "cpu kernels: %d stubs registered, at most %d supported",
                        (int)n, MAX_STUBS);
    for (int32_t i = 0; i < n; i++) {
        pt_registry_entry_info e;
        PT_TRY(pt_registry_entry("cpu_stub", i, &e));
        pt_cpu_stub *s = (pt_cpu_stub *)e.creator;
        if (!s || !s->variants[PT_CPU_DEFAULT])
            return PT_ERROR(PT_ERR_RUNTIME, "cpu kernels: stub '%s' has no default variant", e.key);
        stubs[i] = s;
    }
    nstubs = n;
    return PT_OK;
}

static void choose_all(int32_t capability)
{
    for (int32_t i = 0; i < nstubs; i++) choose(stubs[i], capability);
}

pt_status pt_cpu_stubs_init(int64_t *count, const char **detail)
{
    /* The report keeps a pointer to the detail, so it lives in static storage. */
    static char text[1024];
    PT_TRY(collect());
    choose_all(pt_cpu_capability());
    size_t used = 0;
    text[0] = '\0';
    for (int32_t i = 0; i < nstubs && used < sizeof text; i++) {
        int w = snprintf(text + used, sizeof text - used, "%s%s: %s", i ? ", " : "",
                         stubs[i]->name, pt_cpu_capability_name(stubs[i]->capability));
        if (w > 0) used += (size_t)w;
    }
    *count = nstubs;
    *detail = nstubs ? text : "no kernel stubs";
    return PT_OK;
}

pt_status pt_cpu_capability_select(int32_t capability)
{
    if (capability < PT_CPU_DEFAULT || capability > pt_cpu_capability_detected())
        return PT_ERROR(PT_ERR_VALUE,
                        "cpu capability %d is not available: this CPU has up to %s (%d)",
                        (int)capability, pt_cpu_capability_name(pt_cpu_capability_detected()),
                        (int)pt_cpu_capability_detected());
    PT_TRY(collect());
    choose_all(capability);
    return PT_OK;
}

int32_t pt_cpu_stub_count(void) { return nstubs; }

pt_status pt_cpu_stub_info(int32_t index, const char **name, int32_t *capability)
{
    if (index < 0 || index >= nstubs)
        return PT_ERROR(PT_ERR_INDEX, "cpu stub index %d is out of range (%d stubs)", (int)index,
                        (int)nstubs);
    *name = stubs[index]->name;
    *capability = stubs[index]->capability;
    return PT_OK;
}
