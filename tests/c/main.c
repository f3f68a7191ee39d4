/* The C test runner: runs every test registered in the "test" registry (in key order), or only
 * those whose names contain argv[1], and prints "N passed, N failed" last. Exit status 1 when any
 * test failed. */
#include <stdio.h>
#include <string.h>

#include "pt_test.h"

PT_DEFINE_REGISTRY("test", "C unit tests (the test runner only)")

void pt_test_fail(pt_test_ctx *ctx, const char *file, int line, const char *what)
{
    ctx->failed = 1;
    fprintf(stderr, "  FAIL %s:%d: %s\n", file, line, what);
}

int main(int argc, char **argv)
{
    if (pt_init(NULL) != PT_OK) {
        fprintf(stderr, "pt_init failed: %s\n", pt_error_message());
        printf("0 passed, 1 failed\n");
        return 1;
    }
    int32_t n = 0;
    if (pt_registry_size("test", &n) != PT_OK) {
        fprintf(stderr, "%s\n", pt_error_message());
        return 1;
    }
    int passed = 0, failed = 0;
    for (int32_t i = 0; i < n; i++) {
        pt_registry_entry_info e;
        if (pt_registry_entry("test", i, &e) != PT_OK) return 1;
        if (argc > 1 && !strstr(e.key, argv[1])) continue;
        pt_test_ctx ctx = {0};
        pt_error_clear();
        ((pt_test_fn)e.creator)(&ctx);
        if (ctx.failed) {
            failed++;
            printf("FAIL %s (%s)\n", e.key, e.file);
        } else {
            passed++;
            printf("ok   %s\n", e.key);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
