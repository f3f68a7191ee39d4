/* backend.h - the contract between the core and a backend shared library (the CUDA one).
 *
 * A backend is loaded with dlopen(RTLD_LOCAL) from a core that Python itself loaded with
 * RTLD_LOCAL, so the library cannot link against the core's symbols. The core therefore hands it a
 * table of the few functions it may call (registration, errors, config) when it calls the
 * library's one exported symbol, pt_cuda_backend_entry. The library registers static vtables
 * (internal.h's device guard, allocator and copy-bytes records, and the generator record below)
 * that live as long as the process: a backend library is never unloaded.
 *
 * The layouts here are append-only; PT_BACKEND_API_VERSION changes when one changes, and a
 * library built for another version refuses to register.
 */
#ifndef PT_BACKEND_H
#define PT_BACKEND_H

#include "internal.h"

enum { PT_BACKEND_API_VERSION = 1 };

typedef struct pt_backend_host {
    int32_t api_version;
    pt_status (*registry_add)(const char *registry, const char *key, const void *creator,
                              const char *help, const char *file, int32_t line);
    pt_status (*error_raise)(pt_status code, const char *file, int32_t line, const char *message);
    pt_status (*config_set)(const char *key, const char *value);
} pt_backend_host;

/* What the library found, for the "cuda" config entry and the init report. */
typedef struct pt_backend_result {
    int32_t device_count; /* 0: nothing was registered */
    int32_t records;      /* registry entries added */
    char reason[200];     /* why nothing was registered ("no device: <runtime's message>") */
} pt_backend_result;

/* The entry point's name and type. PT_OK with device_count 0 means "loaded, nothing to offer"; an
 * error status means the library could not register (its message is recorded). */
#define PT_CUDA_BACKEND_ENTRY "pt_cuda_backend_entry"
typedef pt_status (*pt_backend_entry_fn)(const pt_backend_host *host, pt_backend_result *out);

/* The "generator" registry's record: a device type whose generators are Philox generators
 * (Note [Philox stream]); generator.c owns every generator object. */
typedef struct pt_generator_impl {
    int32_t device_type;
    uint64_t default_seed; /* a new generator's seed */
} pt_generator_impl;

/* PyTorch's default seed (c10::detail::default_rng_seed_val), so that a fresh generator starts
 * where a fresh torch one does. */
#define PT_DEFAULT_SEED UINT64_C(67280421310721)

#endif
