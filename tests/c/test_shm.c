/* Shared-memory storages (csrc/core/shm.c): both kinds, moving a storage in place, the
 * per-process reference counts of named segments and weak references. */
#include "pt_test.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int segment_exists(const char *name)
{
    int fd = shm_open(name, O_RDONLY, 0);
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

PT_TEST(shm_fd_storage_is_shared_with_a_second_mapping)
{
    pt_storage *a = NULL, *b = NULL;
    CHECK_OK(pt_storage_new_shared(PT_SHM_FD, 16, PT_INT32, &a));
    CHECK(pt_storage_shm_kind(a) == PT_SHM_FD && pt_storage_is_shared(a));
    CHECK(pt_storage_shm_name(a) == NULL);
    int fd = pt_storage_shm_fd(a);
    CHECK(fd >= 0);
    CHECK(((int32_t *)pt_storage_data(a))[3] == 0);
    CHECK_OK(pt_storage_new_shared_fd(fd, 16, PT_INT32, &b));
    CHECK(pt_storage_shm_fd(b) != fd);
    ((int32_t *)pt_storage_data(b))[2] = 77;
    CHECK(((int32_t *)pt_storage_data(a))[2] == 77);
    CHECK_ERR(pt_storage_new_shared_fd(fd, 17, PT_INT32, &b), PT_ERR_RUNTIME, "holds 16 bytes");
    CHECK_ERR(pt_storage_new_shared_fd(-1, 4, PT_INT32, &b), PT_ERR_RUNTIME, "duplicate");
    CHECK_ERR(pt_storage_new_shared(7, 4, PT_INT32, &b), PT_ERR_VALUE, "kind");
    CHECK_ERR(pt_storage_new_shared(PT_SHM_FD, -1, PT_INT32, &b), PT_ERR_VALUE, "nbytes");
    CHECK_ERR(pt_storage_shared_incref(a), PT_ERR_RUNTIME, "not in a shared-memory segment");
    pt_storage_release(a);
    pt_storage_release(b);
}

PT_TEST(shm_named_segment_counts_references_and_unlinks_with_the_last)
{
    pt_storage *a = NULL, *b = NULL;
    CHECK_OK(pt_storage_new_shared(PT_SHM_FILENAME, 8, PT_UINT8, &a));
    char name[64];
    snprintf(name, sizeof name, "%s", pt_storage_shm_name(a));
    CHECK(strncmp(name, "/pytensor_", 10) == 0 && segment_exists(name));
    CHECK(pt_storage_shared_refcount(a) == 1);
    CHECK_OK(pt_storage_new_shared_filename(name, 8, PT_UINT8, &b));
    CHECK(pt_storage_shared_refcount(a) == 2);
    ((uint8_t *)pt_storage_data(b))[7] = 5;
    CHECK(((uint8_t *)pt_storage_data(a))[7] == 5);
    CHECK_OK(pt_storage_shared_incref(a));
    CHECK(pt_storage_shared_refcount(b) == 3);
    CHECK_OK(pt_storage_shared_decref_pid(b, (int32_t)getpid()));
    CHECK_OK(pt_storage_shared_decref_pid(b, 999999999)); /* no such slot: nothing */
    CHECK(pt_storage_shared_refcount(b) == 2);
    CHECK_ERR(pt_storage_new_shared_filename(name, 9, PT_UINT8, &b), PT_ERR_RUNTIME,
              "not a pytensor segment of 9 bytes");
    pt_storage_release(a);
    CHECK(segment_exists(name));
    pt_storage_release(b);
    CHECK(!segment_exists(name));
    CHECK_ERR(pt_storage_new_shared_filename(name, 8, PT_UINT8, &b), PT_ERR_RUNTIME,
              "cannot open");
    CHECK_ERR(pt_storage_new_shared_filename(NULL, 8, PT_UINT8, &b), PT_ERR_VALUE, "name");
}

PT_TEST(shm_share_moves_the_bytes_in_place)
{
    for (int kind = PT_SHM_FD; kind <= PT_SHM_FILENAME; kind++) {
        pt_storage *s = NULL;
        CHECK_OK(pt_storage_new(12, PT_UINT8, (pt_device){PT_DEV_CPU, 0}, 1, &s));
        memset(pt_storage_data(s), 3, 12);
        CHECK(!pt_storage_is_shared(s) && pt_storage_shm_kind(s) == PT_SHM_NONE);
        CHECK_OK(pt_storage_share(s, kind));
        CHECK(pt_storage_is_shared(s) && pt_storage_shm_kind(s) == kind);
        CHECK(!pt_storage_resizable(s));
        CHECK(((uint8_t *)pt_storage_data(s))[11] == 3);
        void *data = pt_storage_data(s);
        CHECK_OK(pt_storage_share(s, kind)); /* already: nothing moves */
        CHECK(pt_storage_data(s) == data);
        CHECK_OK(pt_storage_share(s, kind == PT_SHM_FD ? PT_SHM_FILENAME : PT_SHM_FD));
        CHECK(((uint8_t *)pt_storage_data(s))[0] == 3);
        pt_storage_release(s);
    }
    pt_storage *m = NULL;
    CHECK_OK(pt_storage_new(4, PT_UINT8, (pt_device){PT_DEV_META, 0}, 1, &m));
    CHECK_ERR(pt_storage_share(m, PT_SHM_FD), PT_ERR_RUNTIME, "_share_fd_: only available on CPU");
    pt_storage_release(m);
}

PT_TEST(shm_weak_references_expire_with_the_storage)
{
    pt_storage *s = NULL, *plain = NULL;
    CHECK_OK(pt_storage_new_shared(PT_SHM_FD, 4, PT_UINT8, &s));
    void *w = pt_storage_weak_ref(s);
    CHECK(w && !pt_storage_weak_expired(w));
    pt_storage *again = pt_storage_weak_lock(w);
    CHECK(again == s && pt_storage_refcount(s) == 2);
    pt_storage_release(again);
    pt_storage_release(s);
    CHECK(pt_storage_weak_expired(w));
    CHECK(pt_storage_weak_lock(w) == NULL);
    pt_storage_weak_free(w);
    CHECK_OK(pt_storage_new(4, PT_UINT8, (pt_device){PT_DEV_CPU, 0}, 1, &plain));
    CHECK(pt_storage_weak_ref(plain) == NULL && pt_storage_weak_expired(NULL));
    pt_storage_weak_free(NULL);
    pt_storage_release(plain);
}
