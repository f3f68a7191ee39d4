/* The backend loader: every way loading the CUDA library can come to nothing (no folder, no
 * library, a file that is not a library, a library without the entry point) leaves import working
 * and says why in config "cuda". Each test restores the state pt_init(NULL) left. */
#include "pt_test.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

static const char *config(const char *key)
{
    const char *v = NULL;
    return pt_config_get(key, &v) == PT_OK ? v : "(missing)";
}

static void restore(void)
{
    int64_t count;
    const char *detail;
    pt_backend_init(NULL, &count, &detail);
}

/* A fresh empty folder under the temporary directory, or NULL. */
static char *make_folder(char *buf, size_t cap)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, cap, "%s/pt_backend_test_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(buf);
}

PT_TEST(backend_init_without_a_folder_loads_nothing)
{
    int64_t count = -1;
    const char *detail = NULL;
    CHECK_OK(pt_backend_init(NULL, &count, &detail));
    CHECK(count == 0);
    CHECK(strcmp(config("cuda"), "no (no library folder given)") == 0);
    CHECK(strcmp(config("cuda_library"), "") == 0);
    CHECK(strstr(detail, "cuda: no") != NULL);
}

PT_TEST(backend_init_without_the_library_says_it_was_not_built)
{
    char dir[256];
    CHECK(make_folder(dir, sizeof dir));
    int64_t count = -1;
    const char *detail = NULL;
    pt_status st = pt_backend_init(dir, &count, &detail);
    char cuda[128];
    snprintf(cuda, sizeof cuda, "%s", config("cuda"));
    const int empty_path = strcmp(config("cuda_library"), "") == 0;
    rmdir(dir);
    restore();
    CHECK(st == PT_OK);
    CHECK(count == 0);
    CHECK(strcmp(cuda, "no (library not built)") == 0);
    CHECK(empty_path);
}

PT_TEST(backend_init_with_a_file_that_is_not_a_library_says_why)
{
    char dir[256], path[400];
    CHECK(make_folder(dir, sizeof dir));
    snprintf(path, sizeof path, "%s/libpytensor_cuda.so", dir);
    FILE *f = fopen(path, "w");
    CHECK(f);
    fputs("not an ELF file\n", f);
    fclose(f);
    int64_t count = -1;
    const char *detail = NULL;
    pt_status st = pt_backend_init(dir, &count, &detail);
    char cuda[600], library[400];
    snprintf(cuda, sizeof cuda, "%s", config("cuda"));
    snprintf(library, sizeof library, "%s", config("cuda_library"));
    unlink(path);
    rmdir(dir);
    restore();
    CHECK(st == PT_OK);
    CHECK(pt_error_code() == PT_OK);
    CHECK(strncmp(cuda, "no (cannot load libpytensor_cuda.so: ", 37) == 0);
    CHECK(strcmp(library, path) == 0);
}

PT_TEST(backend_init_with_a_library_without_the_entry_point_says_why)
{
    /* libm stands in for a shared library that is not a pytensor backend. */
    void *libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
    if (!libm) return; /* not glibc: nothing to borrow */
    Dl_info info;
    const int found = dladdr(dlsym(libm, "cos"), &info) && info.dli_fname;
    char lib[400];
    snprintf(lib, sizeof lib, "%s", found ? info.dli_fname : "");
    dlclose(libm);
    CHECK(found);
    char dir[256], path[400];
    CHECK(make_folder(dir, sizeof dir));
    snprintf(path, sizeof path, "%s/libpytensor_cuda.so", dir);
    CHECK(symlink(lib, path) == 0);
    int64_t count = -1;
    const char *detail = NULL;
    pt_status st = pt_backend_init(dir, &count, &detail);
    char cuda[600];
    snprintf(cuda, sizeof cuda, "%s", config("cuda"));
    unlink(path);
    rmdir(dir);
    restore();
    CHECK(st == PT_OK);
    CHECK(count == 0);
    CHECK(strcmp(cuda, "no (libpytensor_cuda.so has no pt_cuda_backend_entry)") == 0);
}
