/* CPU capability: cpuid detection against the kernel's view in /proc/cpuinfo, the
 * PYTENSOR_CPU_CAPABILITY override (lowering, asking too much, unknown values), names, config and
 * the registry listing. Tests that set the variable rerun the init hook and restore both after. */
#include "pt_test.h"

#include <stdlib.h>

static int has_flag(const char *flags, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = flags; (p = strstr(p, name)) != NULL; p += n)
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
            return 1;
    return 0;
}

/* What Linux says the CPU and OS support, or -1 when /proc/cpuinfo is not readable (the kernel
 * clears the AVX flags when it does not save their register state, as xgetbv would tell). */
static int32_t capability_from_cpuinfo(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return -1;
    static char line[8192];
    int32_t result = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0) continue;
        result = PT_CPU_DEFAULT;
        if (has_flag(line, "avx2") && has_flag(line, "fma")) result = PT_CPU_AVX2;
        if (result == PT_CPU_AVX2 && has_flag(line, "avx512f") && has_flag(line, "avx512bw") &&
            has_flag(line, "avx512vl") && has_flag(line, "avx512dq"))
            result = PT_CPU_AVX512;
        break;
    }
    fclose(f);
    return result;
}

static const char *config(const char *key)
{
    const char *v = NULL;
    return pt_config_get(key, &v) == PT_OK ? v : "(missing)";
}

/* Reruns the init hook with PYTENSOR_CPU_CAPABILITY = value (NULL: unset). */
static pt_status rerun(const char *value, const char **detail)
{
    if (value)
        setenv("PYTENSOR_CPU_CAPABILITY", value, 1);
    else
        unsetenv("PYTENSOR_CPU_CAPABILITY");
    int64_t count = 0;
    return pt_cpu_capability_init(&count, detail);
}

static char saved_env[256];
static int had_env;

static void save_env(void)
{
    const char *v = getenv("PYTENSOR_CPU_CAPABILITY");
    had_env = v != NULL;
    snprintf(saved_env, sizeof saved_env, "%s", v ? v : "");
}

static void restore_env(void)
{
    const char *detail;
    rerun(had_env ? saved_env : NULL, &detail);
}

PT_TEST(cpu_capability_detection_matches_proc_cpuinfo)
{
    int32_t expected = capability_from_cpuinfo();
    if (expected < 0) return;
    CHECK(pt_cpu_capability_detected() == expected);
}

PT_TEST(cpu_capability_in_use_never_exceeds_detected)
{
    CHECK(pt_cpu_capability() >= PT_CPU_DEFAULT);
    CHECK(pt_cpu_capability() <= pt_cpu_capability_detected());
}

PT_TEST(cpu_capability_names_cover_each_capability_and_nothing_else)
{
    CHECK(strcmp(pt_cpu_capability_name(PT_CPU_DEFAULT), "default") == 0);
    CHECK(strcmp(pt_cpu_capability_name(PT_CPU_AVX2), "avx2") == 0);
    CHECK(strcmp(pt_cpu_capability_name(PT_CPU_AVX512), "avx512") == 0);
    CHECK(pt_cpu_capability_name(PT_CPU_CAPABILITY_COUNT) == NULL);
    CHECK(pt_cpu_capability_name(-1) == NULL);
}

PT_TEST(cpu_capability_config_reports_what_init_chose)
{
    CHECK(strcmp(config("cpu_capability"), pt_cpu_capability_name(pt_cpu_capability())) == 0);
    CHECK(strcmp(config("cpu_capability_detected"),
                 pt_cpu_capability_name(pt_cpu_capability_detected())) == 0);
    const char *source = config("cpu_capability_source");
    CHECK(strcmp(source, "cpuid") == 0 || strcmp(source, "PYTENSOR_CPU_CAPABILITY") == 0);
}

PT_TEST(cpu_capability_registry_lists_the_three_capabilities)
{
    int32_t n = 0;
    CHECK_OK(pt_registry_size("cpu_capability", &n));
    CHECK(n == PT_CPU_CAPABILITY_COUNT);
    for (int32_t c = 0; c < PT_CPU_CAPABILITY_COUNT; c++) {
        pt_registry_entry_info e;
        CHECK_OK(pt_registry_find("cpu_capability", pt_cpu_capability_name(c), &e));
        CHECK(*(const int32_t *)e.creator == c);
    }
}

PT_TEST(cpu_capability_env_lowers_to_default_in_any_case)
{
    save_env();
    const char *detail = NULL;
    pt_status st = rerun("DeFaUlT", &detail);
    int32_t in_use = pt_cpu_capability();
    char source[64];
    snprintf(source, sizeof source, "%s", config("cpu_capability_source"));
    int ok_config = strcmp(config("cpu_capability"), "default") == 0;
    int ok_detail = detail && strstr(detail, "PYTENSOR_CPU_CAPABILITY") != NULL;
    restore_env();
    CHECK(st == PT_OK);
    CHECK(in_use == PT_CPU_DEFAULT);
    CHECK(strcmp(source, "PYTENSOR_CPU_CAPABILITY") == 0);
    CHECK(ok_config);
    CHECK(ok_detail);
}

PT_TEST(cpu_capability_env_asking_for_the_detected_one_is_honoured)
{
    save_env();
    const char *detail = NULL;
    const int32_t det = pt_cpu_capability_detected();
    pt_status st = rerun(pt_cpu_capability_name(det), &detail);
    int32_t in_use = pt_cpu_capability();
    int from_env = strcmp(config("cpu_capability_source"), "PYTENSOR_CPU_CAPABILITY") == 0;
    restore_env();
    CHECK(st == PT_OK);
    CHECK(in_use == det);
    CHECK(from_env);
}

PT_TEST(cpu_capability_env_asking_above_the_cpu_falls_back_and_says_so)
{
    if (pt_cpu_capability_detected() == PT_CPU_AVX512) return; /* nothing is above it */
    save_env();
    const char *detail = NULL;
    pt_status st = rerun("avx512", &detail);
    int32_t in_use = pt_cpu_capability();
    int from_cpuid = strcmp(config("cpu_capability_source"), "cpuid") == 0;
    int said = detail && strstr(detail, "more than the CPU has") != NULL;
    restore_env();
    CHECK(st == PT_OK);
    CHECK(in_use == pt_cpu_capability_detected());
    CHECK(from_cpuid);
    CHECK(said);
}

PT_TEST(cpu_capability_env_unknown_value_is_ignored_and_reported)
{
    save_env();
    const char *detail = NULL;
    pt_status st = rerun("sse9", &detail);
    int32_t in_use = pt_cpu_capability();
    int from_cpuid = strcmp(config("cpu_capability_source"), "cpuid") == 0;
    int said = detail && strstr(detail, "'sse9' ignored") != NULL;
    restore_env();
    CHECK(st == PT_OK);
    CHECK(in_use == pt_cpu_capability_detected());
    CHECK(from_cpuid);
    CHECK(said);
}

PT_TEST(cpu_capability_without_env_comes_from_cpuid)
{
    save_env();
    const char *detail = NULL;
    pt_status st = rerun(NULL, &detail);
    int32_t in_use = pt_cpu_capability();
    int from_cpuid = strcmp(config("cpu_capability_source"), "cpuid") == 0;
    int said = detail && strstr(detail, "(cpuid)") != NULL;
    restore_env();
    CHECK(st == PT_OK);
    CHECK(in_use == pt_cpu_capability_detected());
    CHECK(from_cpuid);
    CHECK(said);
}
