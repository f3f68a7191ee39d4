/* Generators: the Philox4x32-10 block against Random123's known-answer vectors, seeds and
 * offsets, the state tensor's layout and its checks, default generators, the registry, and the
 * atomic reservation under concurrent use. */
#include "pt_test.h"

#include <pthread.h>

static const pt_device cpu = {PT_DEV_CPU, 0};

PT_TEST(philox_matches_random123_known_answers)
{
    static const struct {
        uint32_t ctr[4], key[2], out[4];
    } kat[] = {
        {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
         {0xffffffff, 0xffffffff},
         {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
         {0xa4093822, 0x299f31d0},
         {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    };
    for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++) {
        uint32_t out[4];
        pt_philox4x32_10(kat[i].ctr, kat[i].key, out);
        for (int k = 0; k < 4; k++) CHECK(out[k] == kat[i].out[k]);
    }
}

PT_TEST(generator_new_starts_at_torch_default_seed_and_offset_zero)
{
    pt_generator *g;
    CHECK_OK(pt_generator_new(cpu, &g));
    CHECK(pt_generator_initial_seed(g) == UINT64_C(67280421310721));
    CHECK(pt_generator_offset(g) == 0);
    CHECK(pt_generator_device(g).type == PT_DEV_CPU);
    CHECK(pt_generator_device(g).index == 0);
    pt_generator_release(g);
}

PT_TEST(generator_new_resolves_the_current_device_index)
{
    pt_generator *g;
    CHECK_OK(pt_generator_new((pt_device){PT_DEV_CPU, -1}, &g));
    CHECK(pt_generator_device(g).index >= 0);
    pt_generator_release(g);
}

PT_TEST(generator_refcount_follows_retain_and_release)
{
    pt_generator *g;
    CHECK_OK(pt_generator_new(cpu, &g));
    CHECK(atomic_load(&g->refcount) == 1);
    pt_generator_retain(g);
    CHECK(atomic_load(&g->refcount) == 2);
    pt_generator_release(g);
    CHECK(atomic_load(&g->refcount) == 1);
    pt_generator_release(g);
    pt_generator_release(NULL);
}

PT_TEST(generator_default_is_one_object_per_device)
{
    pt_generator *a, *b;
    CHECK_OK(pt_generator_default(cpu, &a));
    CHECK_OK(pt_generator_default((pt_device){PT_DEV_CPU, -1}, &b));
    CHECK(a == b);
    CHECK(atomic_load(&a->refcount) >= 3); /* the table's reference and ours */
    pt_generator_release(a);
    pt_generator_release(b);
}

PT_TEST(generator_manual_seed_sets_seed_and_resets_offset)
{
    pt_generator *g;
    CHECK_OK(pt_generator_new(cpu, &g));
    pt_generator_set_offset(g, 77);
    CHECK(pt_generator_offset(g) == 77);
    pt_generator_manual_seed(g, UINT64_MAX);
    CHECK(pt_generator_initial_seed(g) == UINT64_MAX);
    CHECK(pt_generator_offset(g) == 0);
    pt_generator_release(g);
}

PT_TEST(generator_reserve_returns_the_first_block_and_advances)
{
    pt_generator *g;
    CHECK_OK(pt_generator_new(cpu, &g));
    pt_generator_set_offset(g, 10);
    CHECK(pt_generator_reserve(g, 5) == 10);
    CHECK(pt_generator_reserve(g, 0) == 15);
    CHECK(pt_generator_reserve(g, 1) == 15);
    CHECK(pt_generator_offset(g) == 16);
    pt_generator_release(g);
}

enum { RESERVE_THREADS = 4, RESERVES_PER_THREAD = 20000 };

static void *reserve_many(void *arg)
{
    pt_generator *g = arg;
    for (int i = 0; i < RESERVES_PER_THREAD; i++) pt_generator_reserve(g, 3);
    return NULL;
}

PT_TEST(generator_reserve_is_atomic_across_threads)
{
    pt_generator *g;
    CHECK_OK(pt_generator_new(cpu, &g));
    pthread_t threads[RESERVE_THREADS];
    for (int i = 0; i < RESERVE_THREADS; i++)
        CHECK(pthread_create(&threads[i], NULL, reserve_many, g) == 0);
    for (int i = 0; i < RESERVE_THREADS; i++) pthread_join(threads[i], NULL);
    CHECK(pt_generator_offset(g) == (uint64_t)RESERVE_THREADS * RESERVES_PER_THREAD * 3);
    pt_generator_release(g);
}

PT_TEST(generator_seed_from_the_os_is_kept_and_varies)
{
    pt_generator *g;
    CHECK_OK(pt_generator_new(cpu, &g));
    pt_generator_set_offset(g, 9);
    uint64_t a = 0, b = 0;
    CHECK_OK(pt_generator_seed(g, &a));
    CHECK(pt_generator_initial_seed(g) == a);
    CHECK(pt_generator_offset(g) == 0);
    CHECK_OK(pt_generator_seed(g, &b));
    CHECK(a != b); /* equal with probability 2^-64 */
    pt_generator_release(g);
}

PT_TEST(generator_state_is_seed_then_offset_little_endian)
{
    pt_generator *g;
    CHECK_OK(pt_generator_new(cpu, &g));
    pt_generator_manual_seed(g, UINT64_C(0x0102030405060708));
    pt_generator_set_offset(g, UINT64_C(0x1112131415161718));
    pt_tensor *s;
    CHECK_OK(pt_generator_get_state(g, &s));
    CHECK(pt_tensor_dtype(s) == PT_UINT8);
    CHECK(pt_tensor_device(s).type == PT_DEV_CPU);
    CHECK(pt_tensor_ndim(s) == 1);
    CHECK(pt_tensor_numel(s) == PT_GENERATOR_STATE_BYTES);
    static const uint8_t expected[16] = {8,    7,    6,    5,    4,    3,    2,    1,
                                         0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11};
    CHECK(memcmp(pt_tensor_data(s), expected, 16) == 0);
    pt_tensor_release(s);
    pt_generator_release(g);
}

PT_TEST(generator_set_state_restores_seed_and_offset)
{
    pt_generator *a, *b;
    CHECK_OK(pt_generator_new(cpu, &a));
    CHECK_OK(pt_generator_new(cpu, &b));
    pt_generator_manual_seed(a, 123456789);
    pt_generator_reserve(a, 1000);
    pt_tensor *s;
    CHECK_OK(pt_generator_get_state(a, &s));
    CHECK_OK(pt_generator_set_state(b, s));
    CHECK(pt_generator_initial_seed(b) == 123456789);
    CHECK(pt_generator_offset(b) == 1000);
    pt_tensor_release(s);
    pt_generator_release(a);
    pt_generator_release(b);
}

PT_TEST(generator_set_state_rejects_a_state_that_is_not_a_byte_tensor)
{
    pt_generator *g;
    CHECK_OK(pt_generator_new(cpu, &g));
    const int64_t n = 16;
    pt_tensor *f;
    CHECK_OK(pt_tensor_empty(1, &n, PT_FLOAT32, cpu, &f));
    CHECK_ERR(pt_generator_set_state(g, f), PT_ERR_TYPE, "new_state: expected a CPU uint8 tensor");
    CHECK(strstr(pt_error_message(), "float32") != NULL);
    pt_tensor_release(f);
    CHECK_ERR(pt_generator_set_state(g, NULL), PT_ERR_TYPE, "new_state");
    pt_generator_release(g);
}

PT_TEST(generator_set_state_rejects_the_wrong_size)
{
    pt_generator *g;
    CHECK_OK(pt_generator_new(cpu, &g));
    pt_generator_manual_seed(g, 5);
    const int64_t n = 15;
    pt_tensor *t;
    CHECK_OK(pt_tensor_empty(1, &n, PT_UINT8, cpu, &t));
    CHECK_ERR(pt_generator_set_state(g, t), PT_ERR_VALUE, "new_state: expected 16 bytes");
    CHECK(strstr(pt_error_message(), "got 15") != NULL);
    CHECK(pt_generator_initial_seed(g) == 5);
    pt_tensor_release(t);
    pt_generator_release(g);
}

PT_TEST(generator_set_state_rejects_a_non_contiguous_tensor)
{
    pt_generator *g;
    CHECK_OK(pt_generator_new(cpu, &g));
    pt_storage *st;
    CHECK_OK(pt_storage_new(32, PT_UINT8, cpu, 0, &st));
    const int64_t size = 16, stride = 2;
    pt_tensor *t;
    CHECK_OK(pt_tensor_from_storage(st, PT_UINT8, 1, &size, &stride, 0, &t));
    CHECK_ERR(pt_generator_set_state(g, t), PT_ERR_VALUE, "new_state: expected a contiguous");
    pt_tensor_release(t);
    pt_storage_release(st);
    pt_generator_release(g);
}

PT_TEST(generator_registry_has_a_cpu_creator)
{
    pt_registry_entry_info e;
    CHECK_OK(pt_registry_find("generator", "cpu", &e));
    CHECK(e.creator != NULL);
    CHECK(strcmp(e.file, "csrc/core/generator.c") == 0);
}

PT_TEST(generator_new_fails_for_a_device_type_without_generators)
{
    pt_generator *g = NULL;
    CHECK_ERR(pt_generator_new((pt_device){PT_DEV_META, 0}, &g), PT_ERR_RUNTIME,
              "no generator is registered for device type 'meta'");
    pt_device_guard_impl const *cuda_guard = pt_device_guards[PT_DEV_CUDA];
    if (!cuda_guard) { /* no CUDA backend: the device itself is unknown */
        pt_status st = pt_generator_new((pt_device){PT_DEV_CUDA, 0}, &g);
        CHECK(st == PT_ERR_RUNTIME);
        st = pt_generator_default((pt_device){PT_DEV_CUDA, 0}, &g);
        CHECK(st == PT_ERR_RUNTIME);
    }
}
