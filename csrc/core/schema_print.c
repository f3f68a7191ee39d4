/* schema_print.c - the canonical text of a parsed schema, the canonical text of each default, and
 * schema equality.
 *
 * The canonical form follows PyTorch's printing: "ns::name.overload(args) -> returns", a "*"
 * before the first keyword-only argument, ", ..." for varargs, one return bare unless it is
 * named, returns in parentheses otherwise, alias annotations between the base type and its
 * suffixes ("Tensor(a!)[]"), alias sets sorted. Defaults are printed so that parsing the text
 * gives an equal schema: enum values by name ("long" prints as its dtype's name "int64",
 * "contiguous_format"), floats with the fewest digits that read back to the same double (and
 * always a '.' or an exponent, so that they read back as floats), strings in double quotes with
 * escapes, fixed-size list defaults expanded ("int[2] x=1" prints "[1, 1]").
 *
 * Equality compares every field rather than the texts, so that a test of "print, re-parse,
 * compare" checks the printer instead of trusting it.
 */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

/* ---------------------------------------------------------------- the buffer */

void pt_schema_buf_init(pt_schema_buf *b, char *storage, size_t cap)
{
    *b = (pt_schema_buf){.p = storage, .cap = cap};
}

void pt_schema_buf_free(pt_schema_buf *b)
{
    if (b->heap) free(b->p);
    b->heap = false;
}

bool pt_schema_buf_reserve(pt_schema_buf *b, size_t more)
{
    if (b->failed) return false;
    if (more <= b->cap - b->len) return true;
    if (more > SIZE_MAX / 2 - b->len) {
        b->failed = true;
        return false;
    }
    size_t cap = b->cap * 2 > b->len + more ? b->cap * 2 : b->len + more;
    char *p = b->heap ? realloc(b->p, cap) : malloc(cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    if (!b->heap) memcpy(p, b->p, b->len);
    b->p = p;
    b->cap = cap;
    b->heap = true;
    return true;
}

void pt_schema_buf_put(pt_schema_buf *b, const char *s, size_t n)
{
    if (!pt_schema_buf_reserve(b, n)) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

void pt_schema_buf_puts(pt_schema_buf *b, const char *s) { pt_schema_buf_put(b, s, strlen(s)); }

void pt_schema_buf_int(pt_schema_buf *b, int64_t v)
{
    char tmp[24], *end = tmp + sizeof tmp, *q = end;
    /* Digits of the magnitude in unsigned arithmetic: -2^63 has no int64 negation. */
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--q = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    if (v < 0) *--q = '-';
    pt_schema_buf_put(b, q, (size_t)(end - q));
}

void pt_schema_buf_double(pt_schema_buf *b, double v)
{
    char tmp[40];
    /* The shortest of 15, 16, 17 significant digits that reads back exactly (17 always does). */
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v) break;
    }
    /* snprintf wrote the locale's decimal point; the schema grammar has '.'. */
    const char *dp = localeconv()->decimal_point;
    char *q = dp[0] != '.' && dp[0] && !dp[1] ? strchr(tmp, dp[0]) : NULL;
    if (q) *q = '.';
    pt_schema_buf_puts(b, tmp);
    if (!strpbrk(tmp, ".en")) pt_schema_buf_put(b, ".0", 2); /* "n": inf and nan stay as they are */
}

/* ---------------------------------------------------------------- values */

static void put_string_literal(pt_schema_buf *b, const char *s)
{
    pt_schema_buf_put(b, "\"", 1);
    for (; *s; s++) {
        static const char from[] = "\\\"\n\t\r\a\b\f\v", to[] = "\\\"ntrabfv";
        const char *e = strchr(from, *s);
        if (e) {
            char esc[2] = {'\\', to[e - from]};
            pt_schema_buf_put(b, esc, 2);
        } else {
            pt_schema_buf_put(b, s, 1);
        }
    }
    pt_schema_buf_put(b, "\"", 1);
}

/* A complex default is either purely real (an int or float literal for a complex argument) or
 * purely imaginary (a "2j" literal): the grammar has no literal with both parts. */
static void put_complex(pt_schema_buf *b, double re, double im)
{
    if (re == 0 && !signbit(re)) {
        pt_schema_buf_double(b, im);
        pt_schema_buf_put(b, "j", 1);
    } else {
        pt_schema_buf_double(b, re);
    }
}

static void put_value(pt_schema_buf *b, const pt_ivalue *v)
{
    switch (v->tag) {
    case PT_IV_NONE: pt_schema_buf_puts(b, "None"); break;
    case PT_IV_BOOL: pt_schema_buf_puts(b, v->i ? "True" : "False"); break;
    case PT_IV_INT: pt_schema_buf_int(b, v->i); break;
    case PT_IV_DOUBLE: pt_schema_buf_double(b, v->d); break;
    case PT_IV_COMPLEX: put_complex(b, v->d, v->im); break;
    case PT_IV_STRING: put_string_literal(b, v->s); break;
    case PT_IV_DTYPE: {
        const pt_dtype_info *info = pt_dtype_info_of((int32_t)v->i);
        pt_schema_buf_puts(b, info ? info->name : "?");
        break;
    }
    case PT_IV_LAYOUT: pt_schema_buf_puts(b, pt_schema_layout_name(v->i)); break;
    case PT_IV_MEMORY_FORMAT: pt_schema_buf_puts(b, pt_schema_memory_format_name(v->i)); break;
    case PT_IV_DEVICE: {
        char tmp[48];
        const char *type = pt_device_type_name(v->device.type);
        if (v->device.index >= 0) snprintf(tmp, sizeof tmp, "%s:%d", type, (int)v->device.index);
        else snprintf(tmp, sizeof tmp, "%s", type);
        put_string_literal(b, tmp);
        break;
    }
    case PT_IV_INT_LIST:
    case PT_IV_BOOL_LIST:
    case PT_IV_DOUBLE_LIST:
        pt_schema_buf_put(b, "[", 1);
        for (int64_t i = 0; i < v->len; i++) {
            if (i) pt_schema_buf_put(b, ", ", 2);
            if (v->tag == PT_IV_DOUBLE_LIST) pt_schema_buf_double(b, v->doubles[i]);
            else if (v->tag == PT_IV_BOOL_LIST)
                pt_schema_buf_puts(b, v->ints[i] ? "True" : "False");
            else pt_schema_buf_int(b, v->ints[i]);
        }
        pt_schema_buf_put(b, "]", 1);
        break;
    default: /* the parser makes no other default */
        pt_schema_buf_puts(b, "?");
        break;
    }
}

/* ---------------------------------------------------------------- schemas */

/* "(a! -> *)"; "!" for a fresh set (named "$0", "$1", ... by the parser, as PyTorch does). */
static void put_alias(pt_schema_buf *b, bool write, const char *before, const char *after)
{
    if (before[0] == '$') {
        pt_schema_buf_put(b, "!", 1);
        return;
    }
    pt_schema_buf_put(b, "(", 1);
    pt_schema_buf_puts(b, before);
    if (write) pt_schema_buf_put(b, "!", 1);
    if (strcmp(before, after) != 0) {
        pt_schema_buf_put(b, " -> ", 4);
        pt_schema_buf_puts(b, after);
    }
    pt_schema_buf_put(b, ")", 1);
}

/* The type with its annotations where PyTorch prints them: a plain type's after the base name
 * ("Tensor(a)?"); a list's elements' after the element type ("Tensor(a!)[]", "Tensor?(a!)[]")
 * and the list's own, when it names a set, after the brackets ("Tensor[](b)"). */
static void put_type(pt_schema_buf *b, const pt_schema_arg_info *a)
{
    if (!a->list) {
        size_t at = strcspn(a->type, "?");
        pt_schema_buf_put(b, a->type, at);
        if (a->has_alias) put_alias(b, a->alias_is_write, a->alias_before, a->alias_after);
        pt_schema_buf_puts(b, a->type + at);
        return;
    }
    size_t open = strcspn(a->type, "["), close = strcspn(a->type, "]") + 1;
    pt_schema_buf_put(b, a->type, open);
    if (a->elem_has_alias)
        put_alias(b, a->elem_alias_is_write, a->elem_alias_before, a->elem_alias_after);
    pt_schema_buf_put(b, a->type + open, close - open);
    if (a->has_alias && a->alias_before[0])
        put_alias(b, a->alias_is_write, a->alias_before, a->alias_after);
    pt_schema_buf_puts(b, a->type + close);
}

static void put_arg(pt_schema_buf *b, const pt_schema_arg_info *a, const char *default_text)
{
    put_type(b, a);
    if (a->name[0]) {
        pt_schema_buf_put(b, " ", 1);
        pt_schema_buf_puts(b, a->name);
    }
    if (a->has_default) {
        pt_schema_buf_put(b, "=", 1);
        pt_schema_buf_puts(b, default_text);
    }
}

/* Appends each default's text, NUL-terminated, in argument order. */
static void put_defaults(pt_schema_buf *b, const pt_schema *s)
{
    for (int32_t i = 0; i < s->nargs; i++) {
        if (!s->items[i].has_default) continue;
        put_value(b, s->items[i].default_value);
        pt_schema_buf_put(b, "", 1);
    }
}

static void put_schema(pt_schema_buf *b, const pt_schema *s, const char *defaults)
{
    pt_schema_buf_puts(b, s->name);
    if (s->overload[0]) {
        pt_schema_buf_put(b, ".", 1);
        pt_schema_buf_puts(b, s->overload);
    }
    pt_schema_buf_put(b, "(", 1);
    bool kw = false;
    for (int32_t i = 0; i < s->nargs; i++) {
        const pt_schema_arg_info *a = &s->items[i];
        if (i) pt_schema_buf_put(b, ", ", 2);
        if (a->kwarg_only && !kw) {
            pt_schema_buf_put(b, "*, ", 3);
            kw = true;
        }
        put_arg(b, a, a->has_default ? defaults : "");
        if (a->has_default) defaults += strlen(defaults) + 1;
    }
    if (s->is_vararg) pt_schema_buf_puts(b, s->nargs ? ", ..." : "...");
    pt_schema_buf_put(b, ") -> ", 5);
    const pt_schema_arg_info *r = s->items + s->nargs;
    if (s->nrets == 0 && s->is_varret) {
        pt_schema_buf_put(b, "...", 3);
    } else if (s->nrets == 1 && !s->is_varret && !r->name[0]) {
        put_arg(b, r, "");
    } else {
        pt_schema_buf_put(b, "(", 1);
        for (int32_t i = 0; i < s->nrets; i++) {
            if (i) pt_schema_buf_put(b, ", ", 2);
            put_arg(b, &r[i], "");
        }
        if (s->is_varret) pt_schema_buf_puts(b, s->nrets ? ", ..." : "...");
        pt_schema_buf_put(b, ")", 1);
    }
}

pt_status pt_schema_render(pt_schema *s)
{
    /* The defaults' texts, then the schema text that embeds them; one block holds both (Note
     * [schema arena]). Two buffers, so that printing the schema never reads from a buffer that
     * is growing under it. */
    char dstore[512], tstore[1024];
    pt_schema_buf d, t;
    pt_schema_buf_init(&d, dstore, sizeof dstore);
    pt_schema_buf_init(&t, tstore, sizeof tstore);
    put_defaults(&d, s);
    if (!d.failed) put_schema(&t, s, d.p);
    pt_schema_buf_put(&t, "", 1);
    char *block = d.failed || t.failed ? NULL : malloc(d.len + t.len);
    if (block) {
        memcpy(block, d.p, d.len);
        memcpy(block + d.len, t.p, t.len);
    }
    pt_schema_buf_free(&d);
    pt_schema_buf_free(&t);
    if (!block)
        return PT_ERROR(PT_ERR_MEMORY, "schema: out of memory while printing '%s'", s->name);
    s->texts = block;
    s->text = block + d.len;
    const char *text = block;
    for (int32_t i = 0; i < s->nargs; i++) {
        if (!s->items[i].has_default) continue;
        s->items[i].default_text = text;
        text += strlen(text) + 1;
    }
    return PT_OK;
}

/* ---------------------------------------------------------------- equality */

static bool same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static bool value_equal(const pt_ivalue *a, const pt_ivalue *b)
{
    if (a->tag != b->tag) return false;
    switch (a->tag) {
    case PT_IV_NONE: return true;
    case PT_IV_DOUBLE: return same_double(a->d, b->d);
    case PT_IV_COMPLEX: return same_double(a->d, b->d) && same_double(a->im, b->im);
    case PT_IV_STRING: return strcmp(a->s, b->s) == 0;
    case PT_IV_DEVICE:
        return a->device.type == b->device.type && a->device.index == b->device.index;
    case PT_IV_INT_LIST:
    case PT_IV_BOOL_LIST:
        return a->len == b->len && memcmp(a->ints, b->ints, (size_t)a->len * 8) == 0;
    case PT_IV_DOUBLE_LIST:
        return a->len == b->len && memcmp(a->doubles, b->doubles, (size_t)a->len * 8) == 0;
    default: return a->i == b->i; /* BOOL, INT, DTYPE, LAYOUT, MEMORY_FORMAT */
    }
}

static bool arg_equal(const pt_schema_arg_info *a, const pt_schema_arg_info *b)
{
    return strcmp(a->name, b->name) == 0 && strcmp(a->type, b->type) == 0 && a->kind == b->kind &&
           a->elem_kind == b->elem_kind && a->optional == b->optional && a->list == b->list &&
           a->optional_elems == b->optional_elems && a->N == b->N &&
           a->kwarg_only == b->kwarg_only && a->has_default == b->has_default &&
           (!a->has_default || value_equal(a->default_value, b->default_value)) &&
           a->has_alias == b->has_alias && a->alias_is_write == b->alias_is_write &&
           strcmp(a->alias_before, b->alias_before) == 0 &&
           strcmp(a->alias_after, b->alias_after) == 0 &&
           a->elem_has_alias == b->elem_has_alias &&
           a->elem_alias_is_write == b->elem_alias_is_write &&
           strcmp(a->elem_alias_before, b->elem_alias_before) == 0 &&
           strcmp(a->elem_alias_after, b->elem_alias_after) == 0;
}

int32_t pt_schema_equal(const pt_schema *a, const pt_schema *b)
{
    if (a == b) return 1;
    if (!a || !b) return 0;
    if (strcmp(a->name, b->name) != 0 || strcmp(a->overload, b->overload) != 0 ||
        a->nargs != b->nargs || a->nrets != b->nrets || a->is_vararg != b->is_vararg ||
        a->is_varret != b->is_varret)
        return 0;
    for (int32_t i = 0; i < a->nargs + a->nrets; i++)
        if (!arg_equal(&a->items[i], &b->items[i])) return 0;
    return 1;
}
