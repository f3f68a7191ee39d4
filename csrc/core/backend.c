/* backend.c - loading backend libraries at init: today the CUDA one, libpytensor_cuda.so.
 *
 * pt_init() passes the folder the Python package keeps its libraries in. When
 * <libdir>/libpytensor_cuda.so exists it is opened with RTLD_NOW (every symbol resolved now, so a
 * missing libcudart or driver API shows up here and not at the first CUDA call) and RTLD_LOCAL
 * (its symbols stay its own), and its entry point is called with the host table of backend.h.
 * The library registers its device guard, allocator, copy-bytes and generator records when the
 * runtime sees a device; the device tables are then resolved again so the new records take effect.
 *
 * Nothing here is an error: without the library, with a library that cannot be loaded, or without
 * a device, import works and config "cuda" says why ("no (library not built)", "no (no device:
 * ...)"). Only a library that fails while registering makes init fail, because then the
 * registries are half filled. A loaded library is never closed: its records and strings must
 * outlive every registry lookup, and the CUDA runtime registers exit handlers inside it.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"

#define CUDA_LIBRARY "libpytensor_cuda.so"

static const pt_backend_host host = {
    .api_version = PT_BACKEND_API_VERSION,
    .registry_add = pt_registry_add,
    .error_raise = pt_error_raise,
    .config_set = pt_config_set,
};

/* Set once a library registered: a second load would register every record twice. */
static int cuda_loaded;

static pt_status report(const char *cuda, const char *library, const char **detail)
{
    /* The init report keeps the pointer: static storage, written by the one init thread. */
    static char text[512];
    snprintf(text, sizeof text, "cuda: %s", cuda);
    *detail = text;
    PT_TRY(pt_config_set("cuda", cuda));
    return pt_config_set("cuda_library", library);
}

pt_status pt_backend_init(const char *libdir, int64_t *count, const char **detail)
{
    char path[4096], why[400];
    *count = 0;
    if (cuda_loaded) {
        *detail = "cuda: already loaded";
        return PT_OK;
    }
    if (!libdir) return report("no (no library folder given)", "", detail);
    if (snprintf(path, sizeof path, "%s/%s", libdir, CUDA_LIBRARY) >= (int)sizeof path)
        return report("no (library folder path too long)", "", detail);
    if (access(path, F_OK) != 0) return report("no (library not built)", "", detail);

    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *err = dlerror();
        snprintf(why, sizeof why, "no (cannot load %s: %s)", CUDA_LIBRARY, err ? err : "unknown");
        return report(why, path, detail);
    }
    /* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
    pt_backend_entry_fn entry;
    *(void **)&entry = dlsym(lib, PT_CUDA_BACKEND_ENTRY);
    if (!entry) {
        dlclose(lib); /* nothing of it ran, so closing is safe */
        snprintf(why, sizeof why, "no (%s has no %s)", CUDA_LIBRARY, PT_CUDA_BACKEND_ENTRY);
        return report(why, path, detail);
    }
    pt_backend_result result;
    memset(&result, 0, sizeof result);
    pt_status st = entry(&host, &result);
    if (st != PT_OK) {
        if (result.records == 0) {
            snprintf(why, sizeof why, "no (%s)", pt_error_message());
            pt_error_clear();
            return report(why, path, detail);
        }
        return st;
    }
    if (result.device_count < 1) {
        snprintf(why, sizeof why, "no (%s)", result.reason[0] ? result.reason : "no device");
        return report(why, path, detail);
    }
    cuda_loaded = 1;
    PT_TRY(pt_device_resolve_tables());
    *count = result.device_count;
    snprintf(why, sizeof why, "yes (%d device%s)", (int)result.device_count,
             result.device_count == 1 ? "" : "s");
    return report(why, path, detail);
}
