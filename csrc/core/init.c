/* init.c - pt_init(), the start-up of DESIGN.md, and the report it leaves behind.
 *
 * Load time has already happened when this runs: every PT_REGISTER record is linked into one list
 * (Note [load-time records]). pt_init() then does all the work, once, in this order, timing each
 * step as one phase of the report:
 *   1. load-time records -> registries (duplicates are reported with both sites)
 *   2. CPU capability    (cpuid, PYTENSOR_CPU_CAPABILITY)
 *   3. CPU kernels       (each kernel stub pointed at its variant for that capability)
 *   4. dtypes            (the type table checked against its registry)
 *   5. devices           (guards, allocators and copy-bytes resolved into tables)
 *   6. BLAS              (BLIS found at build time, its configuration), then oneDNN (found
 *                        at build time: its version and CPU runtime), then LAPACK (LAPACKE
 *                        found at build time: its version; PYTENSOR_LAPACK=0 turns it off)
 *   7. generators        (the default generator per device)
 *   8. operators         (every declared schema parsed and def'ed, its kernels registered:
 *                         pt_ops_init, generated from the csrc/ops declaration files)
 *   9. backends          (the CUDA library, when built and loadable; it may register kernels)
 * A later call returns the first call's status and message. The report and the build/start-up
 * facts ("config") are read by Python: pytensor._C._init_report() and `python -m pytensor`.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#ifndef PT_VERSION
#define PT_VERSION "0.0.0"
#endif

/* Enough for every phase pt_init runs plus the ones later subsystems add. */
enum { MAX_PHASES = 32, MAX_CONFIG = 32 };

static pt_init_phase_info phases[MAX_PHASES];
static int32_t nphases;
static struct {
    const char *key;
    char *value;
} config[MAX_CONFIG];
static int32_t nconfig;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *init_libdir;
static pt_status init_status;
static char init_message[1024];
static const char *init_file;
static int32_t init_line;

double pt_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

void pt_init_report_add(const char *name, double microseconds, int64_t count, const char *detail)
{
    if (nphases == MAX_PHASES) return; /* the report is informative; never fail over it */
    phases[nphases++] = (pt_init_phase_info){name, microseconds, count, detail ? detail : ""};
}

int32_t pt_init_phase_count(void) { return nphases; }

pt_status pt_init_phase(int32_t index, pt_init_phase_info *out)
{
    if (index < 0 || index >= nphases)
        return PT_ERROR(PT_ERR_INDEX, "init phase index %d is out of range (%d phases)", (int)index,
                        (int)nphases);
    *out = phases[index];
    return PT_OK;
}

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;

pt_status pt_config_set(const char *key, const char *value)
{
    char *copy = strdup(value ? value : "");
    if (!copy) return PT_ERROR(PT_ERR_MEMORY, "config: out of memory");
    pthread_mutex_lock(&config_lock);
    pt_status st = PT_OK;
    int32_t i = 0;
    while (i < nconfig && strcmp(config[i].key, key) != 0) i++;
    if (i == nconfig) {
        if (nconfig == MAX_CONFIG) {
            st = PT_ERROR(PT_ERR_RUNTIME, "config: more than %d keys", MAX_CONFIG);
        } else {
            config[i].key = key;
            config[i].value = NULL;
            nconfig++;
        }
    }
    if (st == PT_OK) {
        free(config[i].value);
        config[i].value = copy;
    } else {
        free(copy);
    }
    pthread_mutex_unlock(&config_lock);
    return st;
}

pt_status pt_config_get(const char *key, const char **out)
{
    pthread_mutex_lock(&config_lock);
    pt_status st = PT_ERROR(PT_ERR_VALUE, "config: no key '%s'", key ? key : "(null)");
    for (int32_t i = 0; key && i < nconfig; i++) {
        if (strcmp(config[i].key, key) == 0) {
            *out = config[i].value;
            pt_error_clear();
            st = PT_OK;
            break;
        }
    }
    pthread_mutex_unlock(&config_lock);
    return st;
}

int32_t pt_config_count(void) { return nconfig; }

pt_status pt_config_entry(int32_t index, const char **key, const char **value)
{
    if (index < 0 || index >= nconfig)
        return PT_ERROR(PT_ERR_INDEX, "config index %d is out of range (%d keys)", (int)index,
                        (int)nconfig);
    *key = config[index].key;
    *value = config[index].value;
    return PT_OK;
}

typedef pt_status (*phase_fn)(int64_t *count, const char **detail);

static pt_status run_phase(const char *name, phase_fn fn)
{
    int64_t count = 0;
    const char *detail = "";
    double t0 = pt_now_us();
    pt_status st = fn(&count, &detail);
    pt_init_report_add(name, pt_now_us() - t0, count, detail);
    return st;
}

static pt_status load_records(int64_t *count, const char **detail)
{
    *detail = "PT_REGISTER records linked at load time";
    return pt_registry_load_records(count);
}

static pt_status load_backends(int64_t *count, const char **detail)
{
    return pt_backend_init(init_libdir, count, detail);
}

static pt_status build_facts(void)
{
    PT_TRY(pt_config_set("version", PT_VERSION));
#ifdef _OPENMP
    PT_TRY(pt_config_set("openmp", "yes"));
#else
    PT_TRY(pt_config_set("openmp", "no (the compiler has no OpenMP)"));
#endif
#if defined(__clang__)
    PT_TRY(pt_config_set("compiler", "clang " __clang_version__));
#elif defined(__GNUC__)
    PT_TRY(pt_config_set("compiler", "gcc " __VERSION__));
#else
    PT_TRY(pt_config_set("compiler", "unknown"));
#endif
    return PT_OK;
}

static void init_once(void)
{
    static const struct {
        const char *name;
        phase_fn fn;
    } steps[] = {
        {"load-time records", load_records}, {"cpu capability", pt_cpu_capability_init},
        {"cpu kernels", pt_cpu_stubs_init},  {"dtypes", pt_dtype_init},
        {"devices", pt_device_init},
        {"blas", pt_blas_init},              {"onednn", pt_onednn_init},
        {"lapack", pt_lapack_init},          {"generators", pt_generator_init},
        {"operators", pt_ops_init},          {"autograd", pt_autograd_init},
        {"backends", load_backends},
    };
    double t0 = pt_now_us();
    pt_status st = build_facts();
    for (size_t i = 0; st == PT_OK && i < sizeof steps / sizeof steps[0]; i++)
        st = run_phase(steps[i].name, steps[i].fn);
    if (st == PT_OK) pt_init_report_add("total", pt_now_us() - t0, nphases, "pt_init()");
    init_status = st;
    if (st != PT_OK) {
        strncpy(init_message, pt_error_message(), sizeof init_message - 1);
        init_file = pt_error_file();
        init_line = pt_error_line();
    }
}

pt_status pt_init(const char *libdir)
{
    init_libdir = libdir;
    pthread_once(&once, init_once);
    if (init_status != PT_OK)
        return pt_error_raise(init_status, init_file, init_line, init_message);
    return PT_OK;
}
