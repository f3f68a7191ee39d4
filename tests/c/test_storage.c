/* Storages: allocator-owned, external and file-mapped memory, reference counts and resizing. */
#include "pt_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const pt_device cpu = {PT_DEV_CPU, 0};

PT_TEST(storage_new_allocates_through_the_cpu_allocator)
{
    pt_memory_stats before, during, after;
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &before));
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_new(100, PT_FLOAT32, (pt_device){PT_DEV_CPU, -1}, 1, &s));
    CHECK(pt_storage_data(s) && (uintptr_t)pt_storage_data(s) % 64 == 0);
    CHECK(pt_storage_nbytes(s) == 100);
    CHECK(pt_storage_dtype(s) == PT_FLOAT32);
    CHECK(pt_storage_device(s).type == PT_DEV_CPU && pt_storage_device(s).index == 0);
    CHECK(pt_storage_resizable(s) == 1);
    CHECK(pt_storage_writable(s) == 1);
    CHECK(pt_storage_is_shared(s) == 0);
    CHECK(pt_storage_refcount(s) == 1);
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &during));
    CHECK(during.bytes_in_use == before.bytes_in_use + 100);
    pt_storage_retain(s);
    CHECK(pt_storage_refcount(s) == 2);
    pt_storage_release(s);
    CHECK(pt_storage_refcount(s) == 1);
    pt_storage_release(s);
    CHECK_OK(pt_allocator_stats(PT_DEV_CPU, &after));
    CHECK(after.bytes_in_use == before.bytes_in_use);
    CHECK(after.frees == before.frees + 1);
    pt_storage_release(NULL);
}

PT_TEST(storage_new_checks_size_dtype_and_device)
{
    pt_storage *s = NULL;
    CHECK_ERR(pt_storage_new(-1, PT_FLOAT32, cpu, 1, &s), PT_ERR_VALUE,
              "nbytes: expected a non-negative size, got -1");
    CHECK_ERR(pt_storage_new(8, 99, cpu, 1, &s), PT_ERR_VALUE, "dtype");
    CHECK_ERR(pt_storage_new(8, PT_FLOAT32, (pt_device){PT_DEV_CPU, 4}, 1, &s), PT_ERR_RUNTIME,
              "cpu:4 is not available");
    CHECK_ERR(pt_storage_new((int64_t)1 << 62, PT_UINT8, cpu, 1, &s), PT_ERR_MEMORY,
              "4611686018427387904 bytes");
    CHECK(s == NULL);
    CHECK_OK(pt_storage_new(0, PT_INT64, cpu, 0, &s));
    CHECK(pt_storage_data(s) == NULL && pt_storage_nbytes(s) == 0);
    CHECK(pt_storage_resizable(s) == 0);
    pt_storage_release(s);
}

PT_TEST(storage_meta_has_a_size_but_no_bytes)
{
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_new(1 << 30, PT_FLOAT64, (pt_device){PT_DEV_META, -1}, 1, &s));
    CHECK(pt_storage_data(s) == NULL);
    CHECK(pt_storage_nbytes(s) == 1 << 30);
    CHECK(pt_storage_device(s).type == PT_DEV_META && pt_storage_device(s).index == 0);
    CHECK_OK(pt_storage_resize(s, (int64_t)1 << 40));
    CHECK(pt_storage_nbytes(s) == (int64_t)1 << 40 && pt_storage_data(s) == NULL);
    pt_storage_release(s);
}

static int deleted;
static void *deleted_ctx;
static void count_delete(void *ctx)
{
    deleted++;
    deleted_ctx = ctx;
}

PT_TEST(storage_from_external_calls_the_deleter_once_at_the_last_release)
{
    static double owner[4] = {1, 2, 3, 4};
    deleted = 0;
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_from_external(owner, sizeof owner, PT_FLOAT64, cpu, count_delete, &owner,
                                      1, &s));
    CHECK(pt_storage_data(s) == owner && pt_storage_nbytes(s) == 32);
    CHECK(pt_storage_resizable(s) == 0 && pt_storage_writable(s) == 1);
    pt_storage_retain(s);
    pt_storage_release(s);
    CHECK(deleted == 0);
    pt_storage_release(s);
    CHECK(deleted == 1 && deleted_ctx == &owner);
}

PT_TEST(storage_from_external_keeps_read_only_and_refuses_resize)
{
    static int32_t owner[2];
    deleted = 0;
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_from_external(owner, 8, PT_INT32, cpu, count_delete, NULL, 0, &s));
    CHECK(pt_storage_writable(s) == 0);
    CHECK_ERR(pt_storage_resize(s, 16), PT_ERR_RUNTIME,
              "Trying to resize storage that is not resizable");
    CHECK(pt_storage_nbytes(s) == 8);
    pt_storage_release(s);
    CHECK(deleted == 1);
    /* Without a deleter the memory simply stays with its owner. */
    CHECK_OK(pt_storage_from_external(owner, 8, PT_INT32, cpu, NULL, NULL, 1, &s));
    pt_storage_release(s);
}

PT_TEST(storage_from_external_failures_leave_the_memory_with_the_caller)
{
    static char owner[8];
    deleted = 0;
    pt_storage *s = NULL;
    CHECK_ERR(pt_storage_from_external(owner, -8, PT_UINT8, cpu, count_delete, NULL, 1, &s),
              PT_ERR_VALUE, "nbytes");
    CHECK_ERR(pt_storage_from_external(NULL, 8, PT_UINT8, cpu, count_delete, NULL, 1, &s),
              PT_ERR_VALUE, "data: NULL pointer for a storage of 8 bytes");
    CHECK_ERR(pt_storage_from_external(owner, 8, -1, cpu, count_delete, NULL, 1, &s),
              PT_ERR_VALUE, "dtype");
    CHECK_ERR(pt_storage_from_external(owner, 8, PT_UINT8, (pt_device){PT_DEV_CPU, 1},
                                       count_delete, NULL, 1, &s),
              PT_ERR_RUNTIME, "cpu:1");
    CHECK(deleted == 0);
}

/* ---------------------------------------------------------------- files */
static int temp_file(char *path, const void *bytes, size_t n)
{
    strcpy(path, "/tmp/pt_storage_test_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return 0;
    int ok = write(fd, bytes, n) == (ssize_t)n;
    close(fd);
    return ok;
}

static int64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

static int read_file(const char *path, void *out, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    int ok = fread(out, 1, n, f) == n;
    fclose(f);
    return ok;
}

PT_TEST(storage_from_file_private_reads_the_file_and_keeps_writes_to_itself)
{
    char path[64];
    const char text[] = "0123456789abcdef";
    CHECK(temp_file(path, text, 16));
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_from_file(path, 0, -1, PT_UINT8, &s));
    CHECK(pt_storage_nbytes(s) == 16 && pt_storage_is_shared(s) == 0);
    CHECK(pt_storage_resizable(s) == 0 && pt_storage_writable(s) == 1);
    CHECK(memcmp(pt_storage_data(s), text, 16) == 0);
    ((char *)pt_storage_data(s))[0] = 'X';
    pt_storage_release(s);
    char back[16];
    CHECK(read_file(path, back, 16));
    CHECK(back[0] == '0');
    /* A prefix of the file. */
    CHECK_OK(pt_storage_from_file(path, 0, 4, PT_UINT8, &s));
    CHECK(pt_storage_nbytes(s) == 4 && memcmp(pt_storage_data(s), "0123", 4) == 0);
    pt_storage_release(s);
    CHECK_ERR(pt_storage_from_file(path, 0, 17, PT_UINT8, &s), PT_ERR_RUNTIME,
              "has 16 bytes but 17 were asked for");
    unlink(path);
}

PT_TEST(storage_from_file_shared_writes_reach_the_file_and_grow_it)
{
    char path[64];
    CHECK(temp_file(path, "abcd", 4));
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_from_file(path, 1, 12, PT_UINT8, &s));
    CHECK(pt_storage_is_shared(s) == 1 && pt_storage_nbytes(s) == 12);
    CHECK(file_size(path) == 12);
    unsigned char *p = pt_storage_data(s);
    CHECK(memcmp(p, "abcd", 4) == 0);
    for (int i = 4; i < 12; i++) CHECK(p[i] == 0);
    p[0] = 'Z';
    p[11] = 'Q';
    pt_storage_release(s);
    char back[12];
    CHECK(read_file(path, back, 12));
    CHECK(back[0] == 'Z' && back[11] == 'Q' && back[1] == 'b');
    unlink(path);
}

PT_TEST(storage_from_file_zero_length_and_missing_files)
{
    char path[64];
    CHECK(temp_file(path, "", 0));
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_from_file(path, 0, -1, PT_FLOAT32, &s));
    CHECK(pt_storage_nbytes(s) == 0 && pt_storage_data(s) == NULL);
    CHECK(pt_storage_dtype(s) == PT_FLOAT32);
    pt_storage_release(s);
    CHECK_OK(pt_storage_from_file(path, 1, 0, PT_FLOAT32, &s));
    CHECK(pt_storage_nbytes(s) == 0);
    pt_storage_release(s);
    unlink(path);
    CHECK_ERR(pt_storage_from_file("/nonexistent/pt_no_such_file", 0, -1, PT_UINT8, &s),
              PT_ERR_RUNTIME, "cannot open '/nonexistent/pt_no_such_file': No such file");
    CHECK_ERR(pt_storage_from_file("/nonexistent/pt_no_such_file", 1, 8, PT_UINT8, &s),
              PT_ERR_RUNTIME, "No such file or directory");
    CHECK_ERR(pt_storage_from_file(NULL, 0, -1, PT_UINT8, &s), PT_ERR_VALUE, "filename");
    CHECK_ERR(pt_storage_from_file("/tmp", 0, -1, 77, &s), PT_ERR_VALUE, "dtype");
    CHECK_ERR(pt_storage_from_file("/tmp", 0, -1, PT_UINT8, &s), PT_ERR_RUNTIME, "'/tmp'");
}

/* ---------------------------------------------------------------- resize */
PT_TEST(storage_resize_keeps_the_common_prefix_and_zeroes_new_bytes)
{
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_new(4, PT_UINT8, cpu, 1, &s));
    memcpy(pt_storage_data(s), "wxyz", 4);
    CHECK_OK(pt_storage_resize(s, 10));
    unsigned char *p = pt_storage_data(s);
    CHECK(pt_storage_nbytes(s) == 10 && memcmp(p, "wxyz", 4) == 0);
    for (int i = 4; i < 10; i++) CHECK(p[i] == 0);
    CHECK((uintptr_t)p % 64 == 0);
    CHECK_OK(pt_storage_resize(s, 2));
    CHECK(pt_storage_nbytes(s) == 2 && memcmp(pt_storage_data(s), "wx", 2) == 0);
    CHECK_OK(pt_storage_resize(s, 2));
    CHECK_OK(pt_storage_resize(s, 0));
    CHECK(pt_storage_nbytes(s) == 0 && pt_storage_data(s) == NULL);
    CHECK_OK(pt_storage_resize(s, 3));
    p = pt_storage_data(s);
    CHECK(p && p[0] == 0 && p[2] == 0);
    CHECK_ERR(pt_storage_resize(s, -1), PT_ERR_VALUE, "nbytes: expected a non-negative size");
    CHECK_ERR(pt_storage_resize(s, (int64_t)1 << 62), PT_ERR_MEMORY, "4611686018427387904");
    CHECK(pt_storage_nbytes(s) == 3 && pt_storage_data(s) == p);
    pt_storage_release(s);
}

PT_TEST(storage_resize_refuses_storage_created_not_resizable)
{
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_new(8, PT_UINT8, cpu, 0, &s));
    CHECK_ERR(pt_storage_resize(s, 16), PT_ERR_RUNTIME,
              "Trying to resize storage that is not resizable");
    pt_storage_release(s);
}

PT_TEST(storage_resize_refuses_a_shrink_while_others_hold_it_and_allows_growth)
{
    pt_storage *s = NULL;
    pt_tensor *t = NULL;
    CHECK_OK(pt_storage_new(16, PT_FLOAT32, cpu, 1, &s));
    CHECK_OK(pt_tensor_from_storage(s, PT_FLOAT32, 1, (const int64_t[]){4}, NULL, 0, &t));
    CHECK_ERR(pt_storage_resize(s, 0), PT_ERR_RUNTIME,
              "cannot shrink a storage from 16 to 0 bytes while it has 1 other holder(s)");
    CHECK(pt_storage_nbytes(s) == 16);
    CHECK_OK(pt_storage_resize(s, 64));
    CHECK(pt_storage_nbytes(s) == 64 && pt_tensor_data(t) == pt_storage_data(s));
    pt_tensor_release(t);
    CHECK_OK(pt_storage_resize(s, 4));
    pt_storage_release(s);
}

PT_TEST(storage_lent_to_a_reader_never_resizes_again)
{
    pt_storage *s = NULL;
    CHECK_OK(pt_storage_new(8, PT_UINT8, cpu, 1, &s));
    pt_storage_lend(s);
    CHECK(!pt_storage_resizable(s));
    CHECK_ERR(pt_storage_resize(s, 16), PT_ERR_RUNTIME,
              "Trying to resize storage that is not resizable");
    CHECK_ERR(pt_storage_resize(s, 0), PT_ERR_RUNTIME, "not resizable");
    CHECK(pt_storage_nbytes(s) == 8);
    pt_storage_release(s);
}
