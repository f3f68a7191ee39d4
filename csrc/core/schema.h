/* schema.h - what the schema files share: the layout of a parsed schema, the parse state that
 * schema.c (names, types, arguments) and schema_default.c (defaults) fill in, the lexing helpers
 * both use, and the growable buffer that the parse and the printer (schema_print.c) write into.
 * Only the schema files include it.
 *
 * Note [schema arena]
 * A parsed schema is two allocations. The first holds the pt_schema header, the argument and
 * return records (pt_schema_arg_info, exactly what pt_schema_argument hands out), the default
 * values, their list payloads and every string the parse produced (names, type texts, alias sets,
 * decoded string defaults). The second holds the texts printed from those records: each default's
 * canonical text and the canonical schema text. Printing needs finished records (real pointers,
 * sorted alias sets), so it runs after the first block is laid out, and the texts' total length is
 * only known once they are printed. Two mallocs per schema, no matter how many arguments, is what
 * keeps parsing every declared operator at start-up cheap (Note [schema speed] in schema.c).
 */
#ifndef PT_SCHEMA_H
#define PT_SCHEMA_H

#include <string.h>

#include "internal.h"

struct pt_schema {
    _Atomic int64_t refcount;
    const char *name;     /* "aten::add" */
    const char *overload; /* "Tensor", "" */
    const char *text;     /* canonical text, in the second block */
    int32_t nargs, nrets;
    bool is_vararg, is_varret;
    pt_schema_arg_info *items; /* nargs arguments, then nrets returns */
    char *texts;               /* the second block (Note [schema arena]) */
};

/* A text buffer that starts in caller storage (usually the stack) and moves to the heap when it
 * outgrows it. `failed` latches an allocation failure so that a sequence of appends needs one
 * check at the end. */
typedef struct pt_schema_buf {
    char *p;
    size_t len, cap;
    bool heap, failed;
} pt_schema_buf;
void pt_schema_buf_init(pt_schema_buf *b, char *storage, size_t cap);
void pt_schema_buf_free(pt_schema_buf *b);
/* Makes room for `more` bytes; false (and `failed`) when memory runs out. */
bool pt_schema_buf_reserve(pt_schema_buf *b, size_t more);
void pt_schema_buf_put(pt_schema_buf *b, const char *s, size_t n);
void pt_schema_buf_puts(pt_schema_buf *b, const char *s);
/* A double that parses back to the same bits, with a '.' or an exponent so that it reads back as
 * a float: "1.0", "1e-05", "0.30000000000000004". Locale-independent. */
void pt_schema_buf_double(pt_schema_buf *b, double v);
void pt_schema_buf_int(pt_schema_buf *b, int64_t v);

/* ---------------------------------------------------------------- the parse (schema.c)
 * One record per argument and return while parsing; strings live in `chars` and are named by
 * offset, because the buffer moves when it grows. */
typedef struct pt_schema_rec {
    size_t name, type, before, after; /* offsets into chars (0 is "") */
    size_t ebefore, eafter;           /* the element's sets, for lists */
    size_t payload;                   /* STRING: chars offset; lists: index into ints/dbls */
    pt_schema_arg_info info;          /* scalar fields; pointers are set in the arena */
    pt_ivalue dv;                     /* the default, payload pointers unset */
} pt_schema_rec;

typedef struct pt_schema_parser {
    const char *text;
    size_t pos;
    pt_schema_buf chars; /* every string of the schema, NUL-terminated; offset 0 is "" */
    pt_schema_buf recs;  /* pt_schema_rec[nargs + nrets] */
    pt_schema_buf ints;  /* int64_t payloads */
    pt_schema_buf dbls;  /* double payloads */
    size_t name, overload;
    int32_t nargs, nrets, ndefaults, nfresh;
    bool vararg, varret, seen_default, kwarg_only;
} pt_schema_parser;

__attribute__((format(printf, 3, 4))) pt_status pt_schema_fail(pt_schema_parser *p, size_t pos,
                                                               const char *fmt, ...);
pt_status pt_schema_oom(void);
const char *pt_schema_type_name(int32_t kind); /* "Tensor", "SymInt", ... */

/* ---------------------------------------------------------------- defaults (schema_default.c) */
/* Parses the default after '=' into r->dv, checked against r's type (Note [schema defaults]). */
pt_status pt_schema_parse_default(pt_schema_parser *p, pt_schema_rec *r);
/* The default names of the enum types ("strided", "channels_last"); NULL out of range. */
const char *pt_schema_layout_name(int64_t v);
const char *pt_schema_memory_format_name(int64_t v);

/* ---------------------------------------------------------------- lexing helpers */
static inline bool is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static inline bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

static inline char cur(const pt_schema_parser *p) { return p->text[p->pos]; }

static inline void skip_ws(pt_schema_parser *p)
{
    for (;;) {
        char c = cur(p);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
        p->pos++;
    }
}

static inline bool at(const pt_schema_parser *p, const char *tok)
{
    return strncmp(p->text + p->pos, tok, strlen(tok)) == 0;
}

static inline size_t ident_len(const pt_schema_parser *p, size_t pos)
{
    if (!is_ident_start(p->text[pos])) return 0;
    size_t n = 1;
    while (is_ident_char(p->text[pos + n])) n++;
    return n;
}

static inline bool span_is(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

static inline bool is_keyword(const char *s, size_t n)
{
    return span_is(s, n, "True") || span_is(s, n, "False") || span_is(s, n, "None");
}

/* The length of the number literal at pos (optional '-', digits, '.', exponent, 'j'); 0 when
 * there is none. */
static inline size_t number_len(const char *t, size_t pos)
{
    size_t i = pos, digits = 0;
    if (t[i] == '-') i++;
    while (is_digit(t[i])) i++, digits++;
    if (t[i] == '.') {
        i++;
        while (is_digit(t[i])) i++, digits++;
    }
    if (!digits) return 0;
    if (t[i] == 'e' || t[i] == 'E') {
        size_t e = i + 1;
        if (t[e] == '+' || t[e] == '-') e++;
        if (is_digit(t[e])) {
            while (is_digit(t[e])) e++;
            i = e;
        }
    }
    if (t[i] == 'j') i++;
    return i - pos;
}

/* ---------------------------------------------------------------- printing (schema_print.c) */
/* Fills every argument's default_text and the schema's text (the second block).
 * PT_ERR_MEMORY when the block cannot be allocated. */
pt_status pt_schema_render(pt_schema *s);

#endif
