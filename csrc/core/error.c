/* error.c - the thread-local error slot behind every pt_status.
 *
 * A failing function records a code, a message and the C file:line that raised it, then returns
 * the code; callers propagate the code untouched (PT_TRY), so the first failure's message is the
 * one Python shows. The slot is thread-local, so two threads failing at once do not mix messages.
 * Messages longer than the buffer are cut, never overflow.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* 1 KiB holds PyTorch-style messages with a few shapes in them; longer ones are cut with "...". */
enum { PT_ERROR_MESSAGE_BYTES = 1024 };

static _Thread_local pt_status error_code;
static _Thread_local char error_message[PT_ERROR_MESSAGE_BYTES];
static _Thread_local const char *error_file = "";
static _Thread_local int32_t error_line;

/* __FILE__ is whatever path the compiler was given; keep the part from the source tree's top
 * ("csrc/...", "tests/...") so that messages do not depend on where the tree was built. */
const char *pt_source_relative(const char *file)
{
    if (!file) return "";
    static const char *const tops[] = {"csrc/", "tests/"};
    for (size_t i = 0; i < sizeof tops / sizeof tops[0]; i++) {
        const char *p = strstr(file, tops[i]);
        if (p) return p;
    }
    return file;
}

pt_status pt_error_setf(pt_status code, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(error_message, sizeof error_message, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof error_message) memcpy(error_message + sizeof error_message - 4, "...", 4);
    error_code = code;
    error_file = pt_source_relative(file);
    error_line = line;
    return code;
}

pt_status pt_error_raise(pt_status code, const char *file, int32_t line, const char *message)
{
    return pt_error_setf(code, file, line, "%s", message ? message : "");
}

const char *pt_error_message(void) { return error_message; }
pt_status pt_error_code(void) { return error_code; }
const char *pt_error_file(void) { return error_file; }
int32_t pt_error_line(void) { return error_line; }

void pt_error_clear(void)
{
    error_code = PT_OK;
    error_message[0] = '\0';
    error_file = "";
    error_line = 0;
}
