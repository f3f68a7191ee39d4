/* schema_default.c - the defaults of schema arguments: literals, their type checks and values.
 *
 * A default is one literal or a bracketed list of them. Literals are numbers (an optional '-',
 * digits, '.', an exponent; a 'j' suffix makes it imaginary; '.' or 'e' makes it a float, else an
 * int), strings in single or double quotes with C escapes, True/False/None, and bare names that
 * only enum-typed arguments read (dtype names, layouts, memory formats, Mean/Sum). Each literal
 * is converted against the argument's base type by one switch (convert) that says which literal
 * kinds the type takes; lists and optionals wrap that.
 *
 * Note [schema defaults]
 * Defaults are checked against the argument's type and stored as the pt_ivalue a kernel would
 * receive: an int for float is widened to a double, a bare scalar for a fixed-size list is
 * repeated N times ("int[2] stride=1" is [1, 1], as PyTorch reads it), ScalarType / Layout /
 * MemoryFormat names become DTYPE / LAYOUT / MEMORY_FORMAT values, and "Mean" / "Sum" / "None" for
 * a non-optional int are at::Reduction's 1 / 2 / 0. PyTorch's parser is laxer (it accepts a string
 * for an int, None for any type); the declarations never need that, so a mismatch is an error here.
 */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

/* A fixed-size list's bare-scalar default is materialized N times in the schema's arena: 64 Ki
 * elements (512 KiB) is far beyond any real declaration (they stop at 6) and keeps a typo such as
 * int[20000000000] from asking for gigabytes. */
enum { MAX_REPEATED_DEFAULT = 65536 };
/* Longest number literal converted (digits of a double beyond ~770 cannot change its value). */
enum { MAX_NUMBER_CHARS = 800 };

enum { LIT_INT, LIT_FLOAT, LIT_COMPLEX, LIT_BOOL, LIT_NONE, LIT_STRING, LIT_IDENT };
typedef struct literal {
    int kind;
    int64_t i;         /* INT, BOOL */
    double d;          /* FLOAT; COMPLEX: the imaginary part */
    size_t s;          /* STRING: chars offset */
    size_t start, len; /* where it was written (IDENT: the name) */
} literal;

/* ---------------------------------------------------------------- literals */

static pt_status parse_int_text(pt_schema_parser *p, size_t start, size_t len, int64_t *out)
{
    const char *s = p->text + start;
    bool neg = *s == '-';
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, v = 0;
    for (size_t i = neg; i < len; i++) {
        uint64_t digit = (uint64_t)(s[i] - '0');
        if (v > (limit - digit) / 10)
            return pt_schema_fail(p, start, "an integer in the int64 range");
        v = v * 10 + digit;
    }
    /* -2^63 has no positive int64 counterpart: negate in unsigned arithmetic. */
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return PT_OK;
}

/* strtod on a NUL-terminated copy: the literal is not terminated in the text, and strtod would
 * read on into "0x..." or "inf" that the grammar does not have. The copy also swaps '.' for the
 * locale's decimal point, so that a Python program that set LC_NUMERIC still parses "1.5". */
static pt_status parse_float_text(pt_schema_parser *p, size_t start, size_t len, double *out)
{
    char buf[MAX_NUMBER_CHARS + 1];
    if (len > MAX_NUMBER_CHARS)
        return pt_schema_fail(p, start, "a number of at most %d characters", (int)MAX_NUMBER_CHARS);
    memcpy(buf, p->text + start, len);
    buf[len] = '\0';
    const char *dp = localeconv()->decimal_point;
    if (dp[0] != '.' && dp[0] && !dp[1]) {
        char *dot = strchr(buf, '.');
        if (dot) *dot = dp[0];
    }
    errno = 0;
    char *end;
    *out = strtod(buf, &end);
    if (errno == ERANGE) return pt_schema_fail(p, start, "a float in the range of double");
    if (end != buf + len) return pt_schema_fail(p, start, "a number");
    return PT_OK;
}

static pt_status parse_number(pt_schema_parser *p, literal *lit)
{
    size_t start = p->pos, n = number_len(p->text, start);
    const char *s = p->text + start;
    lit->start = start;
    lit->len = n;
    p->pos += n;
    if (s[n - 1] == 'j') {
        lit->kind = LIT_COMPLEX;
        return parse_float_text(p, start, n - 1, &lit->d);
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
            lit->kind = LIT_FLOAT;
            return parse_float_text(p, start, n, &lit->d);
        }
    }
    lit->kind = LIT_INT;
    return parse_int_text(p, start, n, &lit->i);
}

/* A quoted string with C escapes, decoded into chars. */
static pt_status parse_string(pt_schema_parser *p, literal *lit)
{
    char quote = cur(p);
    lit->kind = LIT_STRING;
    lit->start = p->pos;
    lit->s = p->chars.len;
    p->pos++;
    for (;;) {
        char c = cur(p);
        if (!c)
            return pt_schema_fail(p, p->pos, "'%c' closing the string started at column %zu",
                                  quote, lit->start + 1);
        p->pos++;
        if (c == quote) break;
        if (c == '\\') {
            static const char from[] = "\\'\"ntrabfv", to[] = "\\'\"\n\t\r\a\b\f\v";
            const char *e = cur(p) ? strchr(from, cur(p)) : NULL;
            if (!e)
                return pt_schema_fail(p, p->pos - 1,
                                      "an escape (\\\\ \\' \\\" \\n \\t \\r \\a \\b \\f \\v)");
            c = to[e - from];
            p->pos++;
        }
        pt_schema_buf_put(&p->chars, &c, 1);
    }
    pt_schema_buf_put(&p->chars, "", 1);
    lit->len = p->pos - lit->start;
    return p->chars.failed ? pt_schema_oom() : PT_OK;
}

static pt_status parse_literal(pt_schema_parser *p, literal *lit)
{
    skip_ws(p);
    char c = cur(p);
    if (number_len(p->text, p->pos)) return parse_number(p, lit);
    if (c == '"' || c == '\'') return parse_string(p, lit);
    size_t n = ident_len(p, p->pos);
    if (!n) return pt_schema_fail(p, p->pos, "a default value");
    const char *s = p->text + p->pos;
    lit->start = p->pos;
    lit->len = n;
    p->pos += n;
    lit->kind = LIT_IDENT;
    if (span_is(s, n, "True") || span_is(s, n, "False")) {
        lit->kind = LIT_BOOL;
        lit->i = *s == 'T';
    } else if (span_is(s, n, "None")) {
        lit->kind = LIT_NONE;
    }
    return PT_OK;
}

/* ---------------------------------------------------------------- defaults */

static const char *const layout_names[PT_LAYOUT_COUNT] = {
    [PT_LAYOUT_STRIDED] = "strided",
    [PT_LAYOUT_SPARSE_COO] = "sparse_coo",
};
static const char *const memory_format_names[PT_MEMORY_FORMAT_COUNT] = {
    [PT_MEMORY_FORMAT_CONTIGUOUS] = "contiguous_format",
    [PT_MEMORY_FORMAT_PRESERVE] = "preserve_format",
    [PT_MEMORY_FORMAT_CHANNELS_LAST] = "channels_last",
    [PT_MEMORY_FORMAT_CHANNELS_LAST_3D] = "channels_last_3d",
};
_Static_assert(PT_LAYOUT_COUNT == 2 && PT_MEMORY_FORMAT_COUNT == 4, "name every enum value above");

const char *pt_schema_layout_name(int64_t v)
{
    return v >= 0 && v < PT_LAYOUT_COUNT ? layout_names[v] : NULL;
}
const char *pt_schema_memory_format_name(int64_t v)
{
    return v >= 0 && v < PT_MEMORY_FORMAT_COUNT ? memory_format_names[v] : NULL;
}

static int64_t find_name(const char *const *names, int count, const char *s, size_t n)
{
    for (int i = 0; i < count; i++)
        if (names[i] && span_is(s, n, names[i])) return i;
    return -1;
}

/* A dtype name through pt_dtype_from_name ("float", "long", "int64", "Float"); -1 if unknown.
 * PyTorch's schema parser also reads "complex" as complex64 (an old spelling kept for its
 * declarations), which is no dtype name elsewhere. */
static int64_t find_dtype(const char *s, size_t n)
{
    char name[64];
    int32_t id;
    if (span_is(s, n, "complex")) return PT_COMPLEX64;
    if (n >= sizeof name) return -1;
    memcpy(name, s, n);
    name[n] = '\0';
    if (pt_dtype_from_name(name, &id) != PT_OK) {
        pt_error_clear(); /* the schema error replaces it */
        return -1;
    }
    return id;
}

/* Converts one literal to a value of the base kind (Note [schema defaults]); false when the
 * literal does not fit the type. */
static bool convert(pt_schema_parser *p, int32_t kind, const literal *lit, pt_ivalue *v)
{
    const char *s = p->text + lit->start;
    int k = lit->kind;
    switch (kind) {
    case PT_TYPE_INT:
        if (k == LIT_IDENT && (span_is(s, lit->len, "Mean") || span_is(s, lit->len, "Sum"))) {
            *v = (pt_ivalue){.tag = PT_IV_INT, .i = s[0] == 'M' ? 1 : 2};
            return true;
        }
        /* fall through */
    case PT_TYPE_SYMINT:
        if (k != LIT_INT) return false;
        *v = (pt_ivalue){.tag = PT_IV_INT, .i = lit->i};
        return true;
    case PT_TYPE_FLOAT:
        if (k != LIT_INT && k != LIT_FLOAT) return false;
        *v = (pt_ivalue){.tag = PT_IV_DOUBLE, .d = k == LIT_INT ? (double)lit->i : lit->d};
        return true;
    case PT_TYPE_COMPLEX:
        if (k != LIT_INT && k != LIT_FLOAT && k != LIT_COMPLEX) return false;
        *v = (pt_ivalue){.tag = PT_IV_COMPLEX};
        if (k == LIT_COMPLEX) v->im = lit->d;
        else v->d = k == LIT_INT ? (double)lit->i : lit->d;
        return true;
    case PT_TYPE_BOOL:
        if (k != LIT_BOOL) return false;
        *v = (pt_ivalue){.tag = PT_IV_BOOL, .i = lit->i};
        return true;
    case PT_TYPE_STR:
        if (k != LIT_STRING) return false;
        *v = (pt_ivalue){.tag = PT_IV_STRING};
        return true;
    case PT_TYPE_SCALAR:
    case PT_TYPE_ANY:
        if (k == LIT_INT) *v = (pt_ivalue){.tag = PT_IV_INT, .i = lit->i};
        else if (k == LIT_FLOAT) *v = (pt_ivalue){.tag = PT_IV_DOUBLE, .d = lit->d};
        else if (k == LIT_COMPLEX) *v = (pt_ivalue){.tag = PT_IV_COMPLEX, .im = lit->d};
        else if (k == LIT_BOOL) *v = (pt_ivalue){.tag = PT_IV_BOOL, .i = lit->i};
        else if (k == LIT_STRING && kind == PT_TYPE_ANY) *v = (pt_ivalue){.tag = PT_IV_STRING};
        else return false;
        return true;
    case PT_TYPE_SCALAR_TYPE: {
        int64_t id = k == LIT_IDENT ? find_dtype(s, lit->len) : -1;
        *v = (pt_ivalue){.tag = PT_IV_DTYPE, .i = id};
        return id >= 0;
    }
    case PT_TYPE_LAYOUT: {
        int64_t id = k == LIT_IDENT ? find_name(layout_names, PT_LAYOUT_COUNT, s, lit->len) : -1;
        *v = (pt_ivalue){.tag = PT_IV_LAYOUT, .i = id};
        return id >= 0;
    }
    case PT_TYPE_MEMORY_FORMAT: {
        int64_t id = -1;
        if (k == LIT_IDENT) {
            id = find_name(memory_format_names, PT_MEMORY_FORMAT_COUNT, s, lit->len);
            /* PyTorch's parser reads the legacy name as contiguous_format. */
            if (span_is(s, lit->len, "legacy_contiguous_format")) id = PT_MEMORY_FORMAT_CONTIGUOUS;
        }
        *v = (pt_ivalue){.tag = PT_IV_MEMORY_FORMAT, .i = id};
        return id >= 0;
    }
    case PT_TYPE_DEVICE: {
        if (k != LIT_STRING) return false;
        *v = (pt_ivalue){.tag = PT_IV_DEVICE};
        if (pt_device_parse(p->chars.p + lit->s, &v->device) != PT_OK) {
            pt_error_clear(); /* the schema error replaces it */
            return false;
        }
        return true;
    }
    default: /* Tensor, Generator, Dimname, Storage, Stream, QScheme: None only */
        return false;
    }
}

static pt_status type_mismatch(pt_schema_parser *p, const pt_schema_rec *r, size_t pos)
{
    return pt_schema_fail(p, pos, "a default value of type %s for '%s'", p->chars.p + r->type,
                          p->chars.p + r->name);
}

/* PyTorch writes list defaults only for these element types (and so do we: a pt_ivalue has no
 * list form for the others' values). */
static bool list_default_kind(int32_t kind)
{
    return kind == PT_TYPE_INT || kind == PT_TYPE_SYMINT || kind == PT_TYPE_FLOAT ||
           kind == PT_TYPE_BOOL;
}

/* The kind a list's items convert as: Mean/Sum name one reduction, never a list of them, so an
 * int list's items take the literals of SymInt (plain integers). */
static int32_t item_kind(int32_t kind) { return kind == PT_TYPE_INT ? PT_TYPE_SYMINT : kind; }

/* "[1, 2]" for int/SymInt/float/bool lists: the items go to ints or dbls. */
static pt_status parse_list_default(pt_schema_parser *p, pt_schema_rec *r, size_t start)
{
    int32_t kind = r->info.elem_kind;
    bool is_float = kind == PT_TYPE_FLOAT;
    if (r->info.optional_elems || !list_default_kind(kind)) return type_mismatch(p, r, start);
    pt_schema_buf *items = is_float ? &p->dbls : &p->ints;
    r->payload = items->len / 8;
    r->dv = (pt_ivalue){.tag = is_float ? PT_IV_DOUBLE_LIST
                                        : kind == PT_TYPE_BOOL ? PT_IV_BOOL_LIST : PT_IV_INT_LIST};
    p->pos++; /* '[' */
    skip_ws(p);
    if (cur(p) == ']') {
        p->pos++;
        return PT_OK;
    }
    for (;;) {
        literal lit;
        pt_ivalue v;
        PT_TRY(parse_literal(p, &lit));
        if (!convert(p, item_kind(kind), &lit, &v))
            return pt_schema_fail(p, lit.start, "a list item of type %s",
                                  pt_schema_type_name(kind));
        if (is_float) pt_schema_buf_put(items, (const char *)&v.d, 8);
        else pt_schema_buf_put(items, (const char *)&v.i, 8);
        if (items->failed) return pt_schema_oom();
        r->dv.len++;
        skip_ws(p);
        if (cur(p) == ']') break;
        if (cur(p) != ',') return pt_schema_fail(p, p->pos, "',' or ']'");
        p->pos++;
    }
    p->pos++;
    return PT_OK;
}

pt_status pt_schema_parse_default(pt_schema_parser *p, pt_schema_rec *r)
{
    skip_ws(p);
    size_t start = p->pos;
    if (cur(p) == '[') {
        if (!r->info.list) return type_mismatch(p, r, start);
        return parse_list_default(p, r, start);
    }
    literal lit;
    PT_TRY(parse_literal(p, &lit));
    int32_t elem = r->info.elem_kind;
    if (lit.kind == LIT_NONE) {
        if (r->info.optional) r->dv = (pt_ivalue){.tag = PT_IV_NONE};
        else if (elem == PT_TYPE_INT && !r->info.list) r->dv = (pt_ivalue){.tag = PT_IV_INT};
        else return type_mismatch(p, r, start);
        return PT_OK;
    }
    pt_ivalue v;
    if (r->info.list && (r->info.optional_elems || !convert(p, item_kind(elem), &lit, &v)))
        return type_mismatch(p, r, start);
    if (!r->info.list && !convert(p, elem, &lit, &v)) return type_mismatch(p, r, start);
    if (v.tag == PT_IV_STRING) r->payload = lit.s;
    if (!r->info.list) {
        r->dv = v;
        return PT_OK;
    }
    /* A bare scalar for a list: only a fixed size says how often to repeat it. */
    int64_t N = r->info.N;
    if (N < 0 || !list_default_kind(elem))
        return pt_schema_fail(p, start, "'[' starting a list default for '%s'",
                              p->chars.p + r->name);
    if (N > MAX_REPEATED_DEFAULT)
        return pt_schema_fail(p, start, "a list default (a bare scalar repeats at most %d times)",
                              (int)MAX_REPEATED_DEFAULT);
    bool is_float = v.tag == PT_IV_DOUBLE;
    pt_schema_buf *items = is_float ? &p->dbls : &p->ints;
    r->payload = items->len / 8;
    r->dv = (pt_ivalue){.tag = is_float ? PT_IV_DOUBLE_LIST
                                        : v.tag == PT_IV_BOOL ? PT_IV_BOOL_LIST : PT_IV_INT_LIST,
                        .len = N};
    if (!pt_schema_buf_reserve(items, (size_t)N * 8)) return pt_schema_oom();
    const char *item = is_float ? (const char *)&v.d : (const char *)&v.i;
    for (int64_t i = 0; i < N; i++) pt_schema_buf_put(items, item, 8);
    return PT_OK;
}

