/* Devices and their tables: device strings, guards, the allocators and the copy-bytes table. */
#include "pt_test.h"

#include <stdint.h>
#include <stdlib.h>

static const pt_device cpu = {PT_DEV_CPU, 0};
static const pt_device meta = {PT_DEV_META, 0};

/* ---------------------------------------------------------------- parsing */
PT_TEST(device_parse_reads_types_and_indices)
{
    pt_device d;
    CHECK_OK(pt_device_parse("cpu", &d));
    CHECK(d.type == PT_DEV_CPU && d.index == -1);
    CHECK_OK(pt_device_parse("cpu:0", &d));
    CHECK(d.type == PT_DEV_CPU && d.index == 0);
    CHECK_OK(pt_device_parse("cuda", &d));
    CHECK(d.type == PT_DEV_CUDA && d.index == -1);
    CHECK_OK(pt_device_parse("cuda:12", &d));
    CHECK(d.type == PT_DEV_CUDA && d.index == 12);
    CHECK_OK(pt_device_parse("meta", &d));
    CHECK(d.type == PT_DEV_META && d.index == -1);
    /* torch parses any CPU index; only resolving refuses cpu:1. */
    CHECK_OK(pt_device_parse("cpu:1", &d));
    CHECK(d.type == PT_DEV_CPU && d.index == 1);
}

PT_TEST(device_parse_refuses_unknown_types_with_torchs_message)
{
    pt_device d;
    CHECK_ERR(pt_device_parse("tpu", &d), PT_ERR_RUNTIME,
              "Expected one of cpu, cuda, meta device type at start of device string: tpu");
    CHECK_ERR(pt_device_parse("CPU", &d), PT_ERR_RUNTIME, "device string: CPU");
    CHECK_ERR(pt_device_parse("cudax:0", &d), PT_ERR_RUNTIME, "device string: cudax:0");
    CHECK_ERR(pt_device_parse("", &d), PT_ERR_RUNTIME, "Device string must not be empty");
    CHECK_ERR(pt_device_parse(NULL, &d), PT_ERR_RUNTIME, "Device string must not be empty");
}

PT_TEST(device_parse_refuses_malformed_indices)
{
    pt_device d;
    const char *bad[] = {"cuda:x", "cuda:-1", "cuda:", "cuda:01", "cuda: 1", "cuda:1:2", "cpu:+0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "Invalid device string: '%s'", bad[i]);
        CHECK_ERR(pt_device_parse(bad[i], &d), PT_ERR_RUNTIME, want);
    }
    CHECK_ERR(pt_device_parse("cuda:99999999999", &d), PT_ERR_RUNTIME,
              "Could not parse device index '99999999999' in device string 'cuda:99999999999'");
}

PT_TEST(device_type_names_cover_the_enum_only)
{
    CHECK(strcmp(pt_device_type_name(PT_DEV_CPU), "cpu") == 0);
    CHECK(strcmp(pt_device_type_name(PT_DEV_CUDA), "cuda") == 0);
    CHECK(strcmp(pt_device_type_name(PT_DEV_META), "meta") == 0);
    CHECK(pt_device_type_name(PT_DEV_TYPE_COUNT) == NULL);
    CHECK(pt_device_type_name(-1) == NULL);
}

/* ---------------------------------------------------------------- guards */
PT_TEST(device_resolve_fills_the_current_index_and_checks_the_count)
{
    pt_device d;
    CHECK_OK(pt_device_resolve((pt_device){PT_DEV_CPU, -1}, &d));
    CHECK(d.type == PT_DEV_CPU && d.index == 0);
    CHECK_OK(pt_device_resolve((pt_device){PT_DEV_META, -1}, &d));
    CHECK(d.type == PT_DEV_META && d.index == 0);
    CHECK_OK(pt_device_resolve(cpu, &d));
    CHECK(d.index == 0);
    CHECK_ERR(pt_device_resolve((pt_device){PT_DEV_CPU, 1}, &d), PT_ERR_RUNTIME,
              "device: cpu:1 is not available (1 CPU device)");
    CHECK_ERR(pt_device_resolve((pt_device){PT_DEV_META, 3}, &d), PT_ERR_RUNTIME,
              "meta:3 is not available (1 meta device)");
    CHECK_ERR(pt_device_resolve((pt_device){PT_DEV_CPU, -2}, &d), PT_ERR_RUNTIME,
              "Device index must be -1 or non-negative, got -2");
    CHECK_ERR(pt_device_resolve((pt_device){7, 0}, &d), PT_ERR_VALUE, "unknown device type 7");
}

PT_TEST(device_cuda_without_a_backend_fails_naming_the_backend)
{
    pt_device d;
    int32_t n;
    if (pt_device_guards[PT_DEV_CUDA]) {
        /* A loaded backend: an index past the count is refused with the count in the message. */
        CHECK_OK(pt_device_count(PT_DEV_CUDA, &n));
        char want[64];
        snprintf(want, sizeof want, "cuda:%d is not available (%d CUDA device", n, n);
        CHECK_ERR(pt_device_resolve((pt_device){PT_DEV_CUDA, n}, &d), PT_ERR_RUNTIME, want);
        return;
    }
    CHECK_ERR(pt_device_resolve((pt_device){PT_DEV_CUDA, 0}, &d), PT_ERR_RUNTIME,
              "the CUDA backend is not loaded");
    CHECK_ERR(pt_device_count(PT_DEV_CUDA, &n), PT_ERR_RUNTIME, "CUDA backend is not loaded");
    CHECK_ERR(pt_device_current(PT_DEV_CUDA, &n), PT_ERR_RUNTIME, "CUDA backend");
    CHECK_ERR(pt_device_set_current(PT_DEV_CUDA, 0), PT_ERR_RUNTIME, "CUDA backend");
    CHECK_ERR(pt_device_synchronize(PT_DEV_CUDA, -1), PT_ERR_RUNTIME, "CUDA backend");
}

PT_TEST(device_cpu_and_meta_guards_have_one_current_device)
{
    int32_t types[] = {PT_DEV_CPU, PT_DEV_META};
    for (int i = 0; i < 2; i++) {
        int32_t n = -1, cur = -1;
        CHECK_OK(pt_device_count(types[i], &n));
        CHECK(n == 1);
        CHECK_OK(pt_device_current(types[i], &cur));
        CHECK(cur == 0);
        CHECK_OK(pt_device_set_current(types[i], 0));
        CHECK_OK(pt_device_set_current(types[i], -1));
        CHECK_OK(pt_device_synchronize(types[i], 0));
        CHECK_OK(pt_device_synchronize(types[i], -1));
        CHECK_ERR(pt_device_set_current(types[i], 1), PT_ERR_RUNTIME, ":1 is not available");
        CHECK_ERR(pt_device_synchronize(types[i], 2), PT_ERR_RUNTIME, ":2 is not available");
    }
    int32_t n;
    CHECK_ERR(pt_device_count(-1, &n), PT_ERR_VALUE, "unknown device type -1");
    CHECK_ERR(pt_device_current(3, &n), PT_ERR_VALUE, "unknown device type 3");
}

PT_TEST(device_cpu_guards_set_current_refuses_other_indices)
{
    /* Called directly, as a backend-agnostic caller holding the vtable would. */
    CHECK_OK(pt_device_guards[PT_DEV_CPU]->set_current(0));
    CHECK_ERR(pt_device_guards[PT_DEV_CPU]->set_current(1), PT_ERR_RUNTIME,
              "cpu:1 is not available");
    CHECK_ERR(pt_device_guards[PT_DEV_META]->set_current(2), PT_ERR_RUNTIME,
              "meta:2 is not available");
}

PT_TEST(device_tables_are_resolved_from_the_registries)
{
    pt_registry_entry_info e;
    CHECK_OK(pt_registry_find("device_guard", "cpu", &e));
    CHECK(e.creator == pt_device_guards[PT_DEV_CPU]);
    CHECK_OK(pt_registry_find("allocator", "meta", &e));
    CHECK(e.creator == pt_allocators[PT_DEV_META]);
    CHECK_OK(pt_registry_find("copy_bytes", "cpu->cpu", &e));
    CHECK(e.creator == pt_copy_bytes_table[PT_DEV_CPU][PT_DEV_CPU]);
    CHECK(pt_copy_bytes_table[PT_DEV_CPU][PT_DEV_META] == NULL);
    /* Resolving again (as after a backend registers) gives the same tables. */
    const pt_allocator_impl *before = pt_allocators[PT_DEV_CPU];
    CHECK_OK(pt_device_resolve_tables());
    CHECK(pt_allocators[PT_DEV_CPU] == before);
    CHECK(pt_device_guards[PT_DEV_META]->device_type == PT_DEV_META);
    int64_t count = 0;
    const char *detail = NULL;
    CHECK_OK(pt_device_init(&count, &detail));
    CHECK(count >= 5); /* cpu + meta guards and allocators, cpu->cpu */
    CHECK(strstr(detail, "cpu") && strstr(detail, "meta"));
}

/* ---------------------------------------------------------------- allocators */
PT_TEST(allocator_cpu_is_64_byte_aligned_and_counts)
{
    pt_memory_stats before, during, after;
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &before));
    void *p = NULL;
    CHECK_OK(pt_allocator_alloc(cpu, 100, &p));
    CHECK(p && (uintptr_t)p % 64 == 0);
    memset(p, 0xab, 100);
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &during));
    CHECK(during.bytes_in_use == before.bytes_in_use + 100);
    CHECK(during.allocations == before.allocations + 1);
    CHECK(during.peak_bytes >= during.bytes_in_use);
    CHECK_OK(pt_allocator_free(cpu, p, 100));
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &after));
    CHECK(after.bytes_in_use == before.bytes_in_use);
    CHECK(after.frees == before.frees + 1);
    CHECK(after.peak_bytes >= before.bytes_in_use + 100);
}

PT_TEST(allocator_reset_peak_drops_to_bytes_in_use)
{
    void *p = NULL, *q = NULL;
    CHECK_OK(pt_allocator_alloc((pt_device){PT_DEV_CPU, -1}, 4096, &p));
    CHECK_OK(pt_allocator_alloc(cpu, 64, &q));
    CHECK_OK(pt_allocator_free(cpu, p, 4096));
    pt_memory_stats s;
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &s));
    CHECK(s.peak_bytes >= s.bytes_in_use + 4096);
    CHECK_OK(pt_allocator_reset_peak(PT_DEV_CPU));
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &s));
    CHECK(s.peak_bytes == s.bytes_in_use);
    CHECK_OK(pt_allocator_free(cpu, q, 64));
}

PT_TEST(allocator_zero_bytes_gives_null_and_counts_nothing)
{
    pt_memory_stats before, after;
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &before));
    void *p = &p;
    CHECK_OK(pt_allocator_alloc(cpu, 0, &p));
    CHECK(p == NULL);
    CHECK_OK(pt_allocator_free(cpu, NULL, 0));
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &after));
    CHECK(after.allocations == before.allocations && after.frees == before.frees);
}

PT_TEST(allocator_impossible_sizes_fail_with_memory_error_naming_the_size)
{
    void *p = NULL;
    CHECK_ERR(pt_allocator_alloc(cpu, (int64_t)1 << 62, &p), PT_ERR_MEMORY,
              "you tried to allocate 4611686018427387904 bytes");
    CHECK(p == NULL);
    CHECK_ERR(pt_allocator_alloc(cpu, INT64_MAX, &p), PT_ERR_MEMORY, "9223372036854775807 bytes");
    CHECK_ERR(pt_allocator_alloc(cpu, -1, &p), PT_ERR_VALUE, "nbytes: expected a non-negative size, got -1");
    CHECK_ERR(pt_allocator_free(cpu, NULL, -5), PT_ERR_VALUE, "got -5");
}

PT_TEST(allocator_meta_allocates_nothing_and_counts_nothing)
{
    void *p = &p;
    CHECK_OK(pt_allocator_alloc(meta, 1 << 20, &p));
    CHECK(p == NULL);
    CHECK_OK(pt_allocator_free(meta, NULL, 1 << 20));
    pt_memory_stats s;
    CHECK_OK(pt_allocator_stats(PT_DEV_META, &s));
    CHECK(s.bytes_in_use == 0 && s.peak_bytes == 0 && s.allocations == 0 && s.frees == 0);
    CHECK_OK(pt_allocator_reset_peak(PT_DEV_META));
}

PT_TEST(allocator_errors_name_the_device)
{
    void *p;
    pt_memory_stats s;
    CHECK_ERR(pt_allocator_stats(9, &s), PT_ERR_VALUE, "unknown device type 9");
    CHECK_ERR(pt_allocator_reset_peak(-3), PT_ERR_VALUE, "unknown device type -3");
    CHECK_ERR(pt_allocator_alloc((pt_device){PT_DEV_CPU, 2}, 8, &p), PT_ERR_RUNTIME,
              "cpu:2 is not available");
    CHECK_ERR(pt_allocator_free((pt_device){PT_DEV_CPU, 2}, NULL, 8), PT_ERR_RUNTIME,
              "cpu:2 is not available");
    if (!pt_allocators[PT_DEV_CUDA]) {
        CHECK_ERR(pt_allocator_stats(PT_DEV_CUDA, &s), PT_ERR_RUNTIME,
                  "no allocator is registered for device type cuda");
        CHECK_ERR(pt_allocator_alloc((pt_device){PT_DEV_CUDA, 0}, 8, &p), PT_ERR_RUNTIME,
                  "CUDA backend is not loaded");
    }
}

/* ---------------------------------------------------------------- copy bytes */
PT_TEST(copy_bytes_cpu_to_cpu_copies_exactly_nbytes)
{
    unsigned char src[32], dst[32];
    for (int i = 0; i < 32; i++) src[i] = (unsigned char)i, dst[i] = 0xee;
    CHECK_OK(pt_copy_bytes(20, src, cpu, dst, cpu, 0));
    for (int i = 0; i < 20; i++) CHECK(dst[i] == i);
    for (int i = 20; i < 32; i++) CHECK(dst[i] == 0xee);
    /* async falls back to the synchronous function when the pair has no async one. */
    memset(dst, 0, sizeof dst);
    CHECK_OK(pt_copy_bytes(32, src, cpu, dst, (pt_device){PT_DEV_CPU, -1}, 1));
    CHECK(memcmp(src, dst, 32) == 0);
    CHECK_OK(pt_copy_bytes(32, src, cpu, src, cpu, 0));
    CHECK(src[31] == 31);
}

PT_TEST(copy_bytes_handles_overlapping_ranges_like_memmove)
{
    unsigned char buf[16];
    for (int i = 0; i < 16; i++) buf[i] = (unsigned char)i;
    CHECK_OK(pt_copy_bytes(10, buf, cpu, buf + 3, cpu, 0));
    for (int i = 0; i < 10; i++) CHECK(buf[3 + i] == i);
    for (int i = 0; i < 16; i++) buf[i] = (unsigned char)i;
    CHECK_OK(pt_copy_bytes(10, buf + 4, cpu, buf, cpu, 0));
    for (int i = 0; i < 10; i++) CHECK(buf[i] == i + 4);
}

PT_TEST(copy_bytes_refuses_missing_pairs_and_bad_arguments)
{
    char a[4] = {0}, b[4] = {0};
    CHECK_ERR(pt_copy_bytes(4, a, cpu, b, meta, 0), PT_ERR_RUNTIME,
              "no copy function is registered from cpu:0 to meta:0");
    CHECK_ERR(pt_copy_bytes(4, a, (pt_device){PT_DEV_META, 0}, b, cpu, 1), PT_ERR_RUNTIME,
              "from meta:0 to cpu:0");
    CHECK_ERR(pt_copy_bytes(-1, a, cpu, b, cpu, 0), PT_ERR_VALUE, "nbytes");
    CHECK_ERR(pt_copy_bytes(4, a, (pt_device){5, 0}, b, cpu, 0), PT_ERR_VALUE,
              "unknown device type (src 5, dst 0)");
    CHECK_ERR(pt_copy_bytes(4, NULL, cpu, b, cpu, 0), PT_ERR_VALUE, "src pointer is NULL");
    CHECK_ERR(pt_copy_bytes(4, a, cpu, NULL, cpu, 0), PT_ERR_VALUE, "dst pointer is NULL");
    CHECK_OK(pt_copy_bytes(0, NULL, cpu, NULL, cpu, 0));
}
