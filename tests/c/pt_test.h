/* pt_test.h - the C unit tests' harness. Each test registers itself at load time in the "test"
 * registry through the same record mechanism as the library (Note [load-time records]); the
 * runner (main.c) runs pt_init() and then every registered test, and closes with
 * "N passed, N failed". */
#ifndef PT_TEST_H
#define PT_TEST_H
#include <stdio.h>
#include <string.h>

#include "../../csrc/core/internal.h"

typedef struct pt_test_ctx {
    int failed;
} pt_test_ctx;
typedef void (*pt_test_fn)(pt_test_ctx *ctx);

void pt_test_fail(pt_test_ctx *ctx, const char *file, int line, const char *what);

#define PT_TEST(name)                                                                              \
    static void name(pt_test_ctx *pt_ctx_);                                                        \
    PT_REGISTER("test", #name, name, "C unit test")                                                \
    static void name(pt_test_ctx *pt_ctx_)

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            pt_test_fail(pt_ctx_, __FILE__, __LINE__, #cond);                                      \
            return;                                                                                \
        }                                                                                          \
    } while (0)
/* The call must succeed; on failure the library's message is printed. */
#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        if ((expr) != PT_OK) {                                                                     \
            pt_test_fail(pt_ctx_, __FILE__, __LINE__, pt_error_message());                        \
            return;                                                                                \
        }                                                                                          \
    } while (0)
/* The call must fail with `code` and a message containing `needle`. */
#define CHECK_ERR(expr, code, needle)                                                              \
    do {                                                                                           \
        pt_status pt_st_ = (expr);                                                                 \
        if (pt_st_ != (code) || !strstr(pt_error_message(), (needle))) {                           \
            char pt_buf_[512];                                                                     \
            snprintf(pt_buf_, sizeof pt_buf_, "%s: expected status %d containing '%s', got %d '%s'", \
                     #expr, (int)(code), (needle), (int)pt_st_, pt_error_message());              \
            pt_test_fail(pt_ctx_, __FILE__, __LINE__, pt_buf_);                                    \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#endif
