/* Registries, the registry of registries, load-time records and the error slot. */
#include "pt_test.h"

#include <pthread.h>

static int sample_creator;
PT_DEFINE_REGISTRY("test_sample", "a registry only the C tests define")
PT_REGISTER("test_sample", "beta", &sample_creator, "second by key")
PT_REGISTER("test_sample", "alpha", &sample_creator, "first by key")

PT_TEST(load_time_records_fill_their_registry_in_key_order)
{
    int32_t n = 0;
    CHECK_OK(pt_registry_size("test_sample", &n));
    CHECK(n == 2);
    pt_registry_entry_info e;
    CHECK_OK(pt_registry_entry("test_sample", 0, &e));
    CHECK(strcmp(e.key, "alpha") == 0);
    CHECK(e.creator == &sample_creator);
    CHECK(strcmp(e.help, "first by key") == 0);
    CHECK(strcmp(e.file, "tests/c/test_registry.c") == 0);
    CHECK(e.line > 0);
    CHECK_OK(pt_registry_entry("test_sample", 1, &e));
    CHECK(strcmp(e.key, "beta") == 0);
}

PT_TEST(registry_of_registries_lists_every_registry_and_itself)
{
    int32_t n = pt_registry_count();
    CHECK(n >= 3);
    int saw_self = 0, saw_sample = 0, saw_test = 0;
    const char *prev = "";
    for (int32_t i = 0; i < n; i++) {
        const char *name;
        CHECK_OK(pt_registry_name(i, &name));
        CHECK(strcmp(prev, name) < 0);
        prev = name;
        saw_self |= strcmp(name, "registry") == 0;
        saw_sample |= strcmp(name, "test_sample") == 0;
        saw_test |= strcmp(name, "test") == 0;
    }
    CHECK(saw_self && saw_sample && saw_test);
    pt_registry_entry_info e;
    CHECK_OK(pt_registry_find("registry", "test_sample", &e));
    CHECK(strcmp(e.help, "a registry only the C tests define") == 0);
    CHECK_ERR(pt_registry_name(n, &prev), PT_ERR_INDEX, "out of range");
}

PT_TEST(duplicate_key_names_both_registration_sites)
{
    CHECK_ERR(pt_registry_add("test_sample", "alpha", NULL, "again", "tests/c/other.c", 7),
              PT_ERR_RUNTIME, "tests/c/test_registry.c:");
    CHECK(strstr(pt_error_message(), "tests/c/other.c:7"));
    CHECK(strstr(pt_error_message(), "'alpha'"));
    CHECK(strcmp(pt_error_file(), "csrc/core/registry.c") == 0);
}

PT_TEST(runtime_registration_and_lookup)
{
    CHECK_OK(pt_registry_define("test_runtime", "defined at run time", __FILE__, __LINE__));
    CHECK_ERR(pt_registry_define("test_runtime", "again", "x.c", 1), PT_ERR_RUNTIME, "registered twice");
    CHECK_ERR(pt_registry_define("registry", "root", "x.c", 1), PT_ERR_RUNTIME, "registry of registries");
    static const char *keys[] = {"m", "c", "x", "a"};
    for (int i = 0; i < 4; i++)
        CHECK_OK(pt_registry_add("test_runtime", keys[i], keys[i], "", __FILE__, __LINE__));
    pt_registry_entry_info e;
    CHECK_OK(pt_registry_find("test_runtime", "x", &e));
    CHECK(e.creator == keys[2]);
    CHECK_OK(pt_registry_entry("test_runtime", 0, &e));
    CHECK(strcmp(e.key, "a") == 0);
    CHECK_ERR(pt_registry_find("test_runtime", "zz", &e), PT_ERR_VALUE, "no key 'zz'");
    CHECK_ERR(pt_registry_entry("test_runtime", 4, &e), PT_ERR_INDEX, "out of range");
}

PT_TEST(unknown_registry_and_empty_key_are_errors)
{
    int32_t n;
    CHECK_ERR(pt_registry_size("no_such_registry", &n), PT_ERR_VALUE, "no registry named 'no_such_registry'");
    CHECK_ERR(pt_registry_add("no_such_registry", "k", NULL, "", "f.c", 3), PT_ERR_RUNTIME,
              "registry 'no_such_registry' does not exist");
    CHECK_ERR(pt_registry_add("test_sample", "", NULL, "", "f.c", 3), PT_ERR_VALUE, "non-empty");
    CHECK_ERR(pt_registry_define("", "", "f.c", 3), PT_ERR_VALUE, "non-empty");
}

static void *add_many(void *arg)
{
    static char keys[2][200][16];
    int which = *(int *)arg;
    for (int i = 0; i < 200; i++) {
        snprintf(keys[which][i], sizeof keys[which][i], "t%d_%03d", which, i);
        if (pt_registry_add("test_threads", keys[which][i], NULL, "", __FILE__, __LINE__) != PT_OK)
            return (void *)1;
    }
    return NULL;
}

PT_TEST(concurrent_registration_keeps_every_key)
{
    CHECK_OK(pt_registry_define("test_threads", "", __FILE__, __LINE__));
    pthread_t th[2];
    int ids[2] = {0, 1};
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, add_many, &ids[i]) == 0);
    void *r0, *r1;
    pthread_join(th[0], &r0);
    pthread_join(th[1], &r1);
    CHECK(r0 == NULL && r1 == NULL);
    int32_t n;
    CHECK_OK(pt_registry_size("test_threads", &n));
    CHECK(n == 400);
}

PT_TEST(error_slot_keeps_message_code_and_location)
{
    pt_error_clear();
    CHECK(pt_error_code() == PT_OK && pt_error_message()[0] == '\0');
    pt_status st = PT_ERROR(PT_ERR_INDEX, "index %d is out of bounds", 9);
    CHECK(st == PT_ERR_INDEX && pt_error_code() == PT_ERR_INDEX);
    CHECK(strcmp(pt_error_message(), "index 9 is out of bounds") == 0);
    CHECK(strcmp(pt_error_file(), "tests/c/test_registry.c") == 0);
    CHECK(pt_error_line() == __LINE__ - 4);
    char big[4000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    pt_error_raise(PT_ERR_VALUE, "f.c", 1, big);
    size_t len = strlen(pt_error_message());
    CHECK(len > 100 && len < sizeof big);
    CHECK(strcmp(pt_error_message() + len - 3, "...") == 0);
}

static void *fail_on_thread(void *arg)
{
    PT_UNUSED(arg);
    PT_ERROR(PT_ERR_TYPE, "from another thread");
    return NULL;
}

PT_TEST(error_slot_is_per_thread)
{
    PT_ERROR(PT_ERR_VALUE, "from this thread");
    pthread_t th;
    CHECK(pthread_create(&th, NULL, fail_on_thread, NULL) == 0);
    pthread_join(th, NULL);
    CHECK(strcmp(pt_error_message(), "from this thread") == 0);
    CHECK(pt_error_code() == PT_ERR_VALUE);
}

PT_TEST(init_runs_once_and_reports_its_phases)
{
    CHECK_OK(pt_init(NULL));
    int32_t n = pt_init_phase_count();
    CHECK_OK(pt_init(NULL));
    CHECK(pt_init_phase_count() == n);
    const char *want[] = {"load-time records", "cpu capability", "cpu kernels", "dtypes", "devices",
                          "blas", "onednn", "lapack", "generators", "operators", "autograd",
                          "backends", "total"};
    CHECK(n >= (int32_t)(sizeof want / sizeof want[0]));
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        pt_init_phase_info p;
        CHECK_OK(pt_init_phase((int32_t)i, &p));
        CHECK(strcmp(p.name, want[i]) == 0);
        CHECK(p.microseconds >= 0);
    }
    pt_init_phase_info p;
    CHECK_OK(pt_init_phase(0, &p));
    CHECK(p.count >= 5);
    CHECK_ERR(pt_init_phase(n, &p), PT_ERR_INDEX, "out of range");
}

PT_TEST(config_holds_build_and_startup_facts)
{
    const char *v;
    const char *keys[] = {"version", "openmp", "compiler", "blis", "cpu_capability", "cuda"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        CHECK_OK(pt_config_get(keys[i], &v));
        CHECK(v && v[0]);
    }
    CHECK_ERR(pt_config_get("no_such_key", &v), PT_ERR_VALUE, "no key 'no_such_key'");
    CHECK_OK(pt_config_set("test_key", "one"));
    CHECK_OK(pt_config_set("test_key", "two"));
    CHECK_OK(pt_config_get("test_key", &v));
    CHECK(strcmp(v, "two") == 0);
    const char *k;
    CHECK_ERR(pt_config_entry(pt_config_count(), &k, &v), PT_ERR_INDEX, "out of range");
}
