/* schema.c - PyTorch's function-schema grammar: names, types, alias annotations, arguments and
 * returns, the parsed schema's arena and its accessors. Defaults are parsed in schema_default.c,
 * texts printed in schema_print.c.
 *
 *   schema    := name ('.' overload)? '(' arguments ')' '->' returns
 *   name      := ident ('::' ident)?                      one namespace level, as PyTorch
 *   arguments := (argument | '*' | '...') (',' ...)*      '...' (varargs) last, no defaults
 *   argument  := type ident ('=' default)?
 *   returns   := '...' | '(' (return (',' return)* (',' '...')?)? ')' | return
 *   return    := type ident?
 *   type      := base alias? ('?' alias? | '[' N? ']' alias?)*
 *   alias     := '!' | '(' set '!'? ('->' set)? ')'
 *   set       := (ident | '*') ('|' (ident | '*'))*
 *
 * The parser is a hand-written recursive descent over the characters, with no separate token
 * stream: each rule looks at the next characters and either consumes them or reports what it
 * expected, the token it found there and the 1-based column (Note [schema errors]). Everything the
 * parse produces goes into small growable buffers that start on the stack and are copied into the
 * schema's arena at the end (Note [schema arena] in schema.h).
 *
 * Note [schema speed]
 * Every declared operator's schema is parsed at start-up, so parsing sits on the import path:
 * the target is 2,500 schemas in under 5 ms. Hence one pass over the text, no regex or sscanf,
 * type names matched by length then bytes, integers converted by hand (strtod only for floats),
 * and two mallocs per schema however many arguments and strings it has.
 *
 * Note [schema errors]
 * Every failure is PT_ERR_RUNTIME "schema: expected <what> but found <token> at column <N>: <text>"
 * where <token> is the text of the token at column N ('end of input' past the end). Semantic
 * errors (a default of the wrong type, an overload named 'default', varargs after defaults, a
 * repeated argument name) use the same form, pointing at the token that breaks the rule, so that
 * a caller can always show the schema with a caret under the column.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

/* Alias sets per annotation: PyTorch's declarations use at most two ("a|b"). */
enum { MAX_ALIAS_MEMBERS = 32 };

/* ---------------------------------------------------------------- errors */

/* The length of the token at pos: a name, a number, a quoted string (to its closing quote), one
 * of the multi-character punctuators, else one character (all of its UTF-8 bytes). */
static size_t token_len(const char *t, size_t pos)
{
    const char *s = t + pos;
    size_t n = number_len(t, pos);
    if (n) return n;
    if (is_ident_start(*s)) {
        for (n = 1; is_ident_char(s[n]); n++) {}
        return n;
    }
    if (*s == '"' || *s == '\'') {
        for (n = 1; s[n] && s[n] != *s; n += (s[n] == '\\' && s[n + 1]) ? 2 : 1) {}
        return s[n] ? n + 1 : n;
    }
    if (!strncmp(s, "...", 3)) return 3;
    if (!strncmp(s, "->", 2) || !strncmp(s, "::", 2)) return 2;
    for (n = 1; n < 4 && ((unsigned char)s[n] & 0xC0) == 0x80; n++) {}
    return n;
}

/* Writes the token at pos, quoted, for "but found ..." (Note [schema errors]). */
static void describe_token(const char *t, size_t pos, char *out, size_t cap)
{
    size_t n = t[pos] ? token_len(t, pos) : 0;
    if (!t[pos]) snprintf(out, cap, "'end of input'");
    else if (n > 40) snprintf(out, cap, "'%.37s...'", t + pos);
    else snprintf(out, cap, "'%.*s'", (int)n, t + pos);
}

pt_status pt_schema_fail(pt_schema_parser *p, size_t pos, const char *fmt, ...)
{
    char what[200], found[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    describe_token(p->text, pos, found, sizeof found);
    return PT_ERROR(PT_ERR_RUNTIME, "schema: expected %s but found %s at column %zu: %s", what,
                    found, pos + 1, p->text);
}

pt_status pt_schema_oom(void)
{
    return PT_ERROR(PT_ERR_MEMORY, "schema: out of memory while parsing");
}

/* ---------------------------------------------------------------- building blocks */

/* Appends a NUL-terminated copy of s[0..n) to chars; writes its offset. */
static pt_status put_string(pt_schema_parser *p, const char *s, size_t n, size_t *off)
{
    *off = p->chars.len;
    pt_schema_buf_put(&p->chars, s, n);
    pt_schema_buf_put(&p->chars, "", 1);
    return p->chars.failed ? pt_schema_oom() : PT_OK;
}

static pt_status expect_char(pt_schema_parser *p, char c, const char *what)
{
    skip_ws(p);
    if (cur(p) != c) return pt_schema_fail(p, p->pos, "%s", what);
    p->pos++;
    return PT_OK;
}

/* An identifier that is not True/False/None; writes its span. */
static pt_status take_ident(pt_schema_parser *p, const char *what, size_t *start, size_t *len)
{
    skip_ws(p);
    size_t n = ident_len(p, p->pos);
    if (!n || is_keyword(p->text + p->pos, n)) return pt_schema_fail(p, p->pos, "%s", what);
    *start = p->pos;
    *len = n;
    p->pos += n;
    return PT_OK;
}

static pt_schema_rec *rec_at(pt_schema_parser *p, int32_t i)
{
    return &((pt_schema_rec *)p->recs.p)[i];
}

/* ---------------------------------------------------------------- types */

static const struct {
    const char *name;
    int32_t kind;
} base_types[] = {
    {"Tensor", PT_TYPE_TENSOR},
    {"int", PT_TYPE_INT},
    {"SymInt", PT_TYPE_SYMINT},
    {"float", PT_TYPE_FLOAT},
    {"bool", PT_TYPE_BOOL},
    {"Scalar", PT_TYPE_SCALAR},
    {"ScalarType", PT_TYPE_SCALAR_TYPE},
    {"str", PT_TYPE_STR},
    {"Device", PT_TYPE_DEVICE},
    {"Layout", PT_TYPE_LAYOUT},
    {"Generator", PT_TYPE_GENERATOR},
    {"MemoryFormat", PT_TYPE_MEMORY_FORMAT},
    {"complex", PT_TYPE_COMPLEX},
    {"Dimname", PT_TYPE_DIMNAME},
    {"Storage", PT_TYPE_STORAGE},
    {"Stream", PT_TYPE_STREAM},
    {"QScheme", PT_TYPE_QSCHEME},
    {"Any", PT_TYPE_ANY},
    /* Spellings in PyTorch's declarations that pytensor reads as plain types: a device index is
     * an int, and without symbolic shapes a SymBool is a bool. */
    {"DeviceIndex", PT_TYPE_INT},
    {"SymBool", PT_TYPE_BOOL},
};

/* The canonical spelling of each base kind (the first row of base_types with that kind). */
const char *pt_schema_type_name(int32_t kind)
{
    for (size_t i = 0; i < sizeof base_types / sizeof base_types[0]; i++)
        if (base_types[i].kind == kind) return base_types[i].name;
    return "?";
}

static int32_t lookup_base(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof base_types / sizeof base_types[0]; i++)
        if (span_is(s, n, base_types[i].name)) return base_types[i].kind;
    return -1;
}

/* The members of an alias set, sorted and without repeats, '|'-joined into chars. */
static pt_status parse_alias_set(pt_schema_parser *p, size_t *off)
{
    size_t starts[MAX_ALIAS_MEMBERS], lens[MAX_ALIAS_MEMBERS];
    int n = 0;
    for (;;) {
        skip_ws(p);
        size_t s = p->pos, len = cur(p) == '*' ? 1 : ident_len(p, p->pos);
        if (!len) return pt_schema_fail(p, p->pos, "an alias set name or '*'");
        if (n == MAX_ALIAS_MEMBERS)
            return pt_schema_fail(p, s, "at most %d alias sets in one annotation",
                                  MAX_ALIAS_MEMBERS);
        p->pos += len;
        /* Insertion keeps the list sorted; equal names are dropped. */
        int slot = n, cmp = 1;
        while (slot > 0) {
            size_t m = lens[slot - 1] < len ? lens[slot - 1] : len;
            cmp = memcmp(p->text + starts[slot - 1], p->text + s, m);
            if (cmp == 0) cmp = (lens[slot - 1] > len) - (lens[slot - 1] < len);
            if (cmp <= 0) break;
            slot--;
        }
        if (!(slot > 0 && cmp == 0)) {
            memmove(starts + slot + 1, starts + slot, (size_t)(n - slot) * sizeof starts[0]);
            memmove(lens + slot + 1, lens + slot, (size_t)(n - slot) * sizeof lens[0]);
            starts[slot] = s;
            lens[slot] = len;
            n++;
        }
        skip_ws(p);
        if (cur(p) != '|') break;
        p->pos++;
    }
    *off = p->chars.len;
    for (int i = 0; i < n; i++) {
        if (i) pt_schema_buf_put(&p->chars, "|", 1);
        pt_schema_buf_put(&p->chars, p->text + starts[i], lens[i]);
    }
    pt_schema_buf_put(&p->chars, "", 1);
    return p->chars.failed ? pt_schema_oom() : PT_OK;
}

/* After the base type: "(a)", "(a!)", "(a -> *)", "(a|b)", or "!" (a fresh written set). */
static pt_status parse_alias(pt_schema_parser *p, pt_schema_rec *r)
{
    skip_ws(p);
    if (cur(p) == '!') {
        p->pos++;
        char name[24];
        int n = snprintf(name, sizeof name, "$%d", (int)p->nfresh++);
        r->info.has_alias = r->info.alias_is_write = 1;
        r->after = 0;
        return put_string(p, name, (size_t)n, &r->before);
    }
    if (cur(p) != '(') return PT_OK;
    p->pos++;
    r->info.has_alias = 1;
    PT_TRY(parse_alias_set(p, &r->before));
    skip_ws(p);
    if (cur(p) == '!') {
        r->info.alias_is_write = 1;
        p->pos++;
        skip_ws(p);
    }
    r->after = r->before;
    if (at(p, "->")) {
        p->pos += 2;
        PT_TRY(parse_alias_set(p, &r->after));
    }
    return expect_char(p, ')', "')' closing the alias annotation");
}

/* A list's brackets were read: an annotation so far is its elements' (PyTorch's contained
 * type), and the list gets an empty one that copies its is_write, or its own after the
 * brackets. */
static pt_status list_alias(pt_schema_parser *p, pt_schema_rec *r)
{
    if (r->info.has_alias) {
        r->info.elem_has_alias = 1;
        r->info.elem_alias_is_write = r->info.alias_is_write;
        r->ebefore = r->before;
        r->eafter = r->after;
        r->before = r->after = 0;
    }
    skip_ws(p);
    if (cur(p) != '(' && cur(p) != '!') return PT_OK;
    r->info.alias_is_write = 0;
    return parse_alias(p, r);
}

/* Whether the parenthesized annotation at p is followed by a list's '[' ("Tensor?(a!)[]"). */
static bool brackets_follow(const pt_schema_parser *p)
{
    const char *close = strchr(p->text + p->pos, ')');
    if (!close) return false;
    close++;
    while (*close == ' ' || *close == '\t' || *close == '\n' || *close == '\r') close++;
    return *close == '[';
}

/* base, alias, then '?' and '[N]' suffixes in any order; fills the type fields of r. An alias
 * annotation right after the base is on the elements of a list ("Tensor(a!)[]"; after the
 * element's '?' too, "Tensor?(a!)[]", as PyTorch prints it); one after the brackets is on the
 * list itself ("Tensor[](a)", as PyTorch's TorchScript schemas write it). */
static pt_status parse_type(pt_schema_parser *p, pt_schema_rec *r)
{
    skip_ws(p);
    size_t start = p->pos, n = ident_len(p, p->pos);
    int32_t base = n ? lookup_base(p->text + start, n) : -1;
    if (base < 0) return pt_schema_fail(p, start, "a type");
    p->pos += n;
    PT_TRY(parse_alias(p, r));
    bool opt_inner = false, list = false, opt_outer = false;
    int64_t N = -1;
    for (;;) {
        skip_ws(p);
        if (cur(p) == '?') {
            p->pos++;
            *(list ? &opt_outer : &opt_inner) = true; /* "T??" is "T?", as in PyTorch */
        } else if (!list && !r->info.has_alias && opt_inner && cur(p) == '(' &&
                   brackets_follow(p)) {
            PT_TRY(parse_alias(p, r));
        } else if (cur(p) == '[') {
            if (list) return pt_schema_fail(p, p->pos, "a name (lists of lists are not supported)");
            p->pos++;
            skip_ws(p);
            list = true;
            if (is_digit(cur(p))) {
                size_t s = p->pos;
                N = 0;
                for (; is_digit(cur(p)); p->pos++) {
                    int digit = cur(p) - '0';
                    if (N > (INT64_MAX - digit) / 10)
                        return pt_schema_fail(p, s, "a list size in int64 range");
                    N = N * 10 + digit;
                }
            }
            PT_TRY(expect_char(p, ']', "']' or a list size"));
            PT_TRY(list_alias(p, r));
        } else {
            break;
        }
    }

    pt_schema_arg_info *t = &r->info;
    t->elem_kind = base;
    t->list = list;
    t->N = N;
    t->optional_elems = list && opt_inner;
    t->optional = list ? opt_outer : opt_inner;
    t->kind = t->optional ? PT_TYPE_OPTIONAL : list ? PT_TYPE_LIST : base;
    /* Canonical text: base, element '?', "[N]", outer '?'. */
    r->type = p->chars.len;
    pt_schema_buf_puts(&p->chars, pt_schema_type_name(base));
    if (t->optional_elems) pt_schema_buf_put(&p->chars, "?", 1);
    if (list) {
        pt_schema_buf_put(&p->chars, "[", 1);
        if (N >= 0) pt_schema_buf_int(&p->chars, N);
        pt_schema_buf_put(&p->chars, "]", 1);
    }
    if (t->optional) pt_schema_buf_put(&p->chars, "?", 1);
    pt_schema_buf_put(&p->chars, "", 1);
    return p->chars.failed ? pt_schema_oom() : PT_OK;
}

/* ---------------------------------------------------------------- arguments and returns */

static pt_status new_rec(pt_schema_parser *p, pt_schema_rec **out)
{
    pt_schema_rec blank = {0};
    blank.info.N = -1;
    pt_schema_buf_put(&p->recs, (const char *)&blank, sizeof blank);
    if (p->recs.failed) return pt_schema_oom();
    *out = rec_at(p, p->nargs + p->nrets);
    return PT_OK;
}

static pt_status parse_argument(pt_schema_parser *p)
{
    pt_schema_rec *r = NULL;
    PT_TRY(new_rec(p, &r));
    PT_TRY(parse_type(p, r));
    size_t start, len;
    PT_TRY(take_ident(p, "an argument name", &start, &len));
    for (int32_t i = 0; i < p->nargs; i++) {
        const char *other = p->chars.p + rec_at(p, i)->name;
        if (span_is(p->text + start, len, other))
            return pt_schema_fail(p, start, "an argument name not used before");
    }
    PT_TRY(put_string(p, p->text + start, len, &r->name));
    r->info.kwarg_only = p->kwarg_only;
    skip_ws(p);
    if (cur(p) == '=') {
        p->pos++;
        PT_TRY(pt_schema_parse_default(p, r));
        r->info.has_default = 1;
        p->ndefaults++;
        p->seen_default = true;
    } else if (p->seen_default && !p->kwarg_only) {
        return pt_schema_fail(p, p->pos,
                              "a default value for '%.*s' (it follows a positional argument with "
                              "one)",
                              (int)len, p->text + start);
    }
    p->nargs++;
    return PT_OK;
}

static pt_status parse_arguments(pt_schema_parser *p)
{
    PT_TRY(expect_char(p, '(', "'('"));
    skip_ws(p);
    if (cur(p) == ')') {
        p->pos++;
        return PT_OK;
    }
    for (;;) {
        skip_ws(p);
        if (at(p, "...")) {
            if (p->seen_default)
                return pt_schema_fail(p, p->pos,
                                      "')' (a schema with defaults cannot take varargs '...')");
            p->vararg = true;
            p->pos += 3;
            return expect_char(p, ')', "')' after varargs '...'");
        }
        if (cur(p) == '*') {
            p->kwarg_only = true;
            p->pos++;
        } else {
            PT_TRY(parse_argument(p));
        }
        skip_ws(p);
        if (cur(p) == ')') {
            p->pos++;
            return PT_OK;
        }
        if (cur(p) != ',') return pt_schema_fail(p, p->pos, "',' or ')'");
        p->pos++;
    }
}

static pt_status parse_return(pt_schema_parser *p)
{
    pt_schema_rec *r = NULL;
    PT_TRY(new_rec(p, &r));
    PT_TRY(parse_type(p, r));
    skip_ws(p);
    size_t n = ident_len(p, p->pos);
    if (n && !is_keyword(p->text + p->pos, n)) {
        PT_TRY(put_string(p, p->text + p->pos, n, &r->name));
        p->pos += n;
    }
    p->nrets++;
    return PT_OK;
}

static pt_status parse_returns(pt_schema_parser *p)
{
    skip_ws(p);
    if (!at(p, "->")) return pt_schema_fail(p, p->pos, "'->'");
    p->pos += 2;
    skip_ws(p);
    if (at(p, "...")) {
        p->varret = true;
        p->pos += 3;
        return PT_OK;
    }
    if (cur(p) != '(') return parse_return(p);
    p->pos++;
    skip_ws(p);
    if (cur(p) == ')') {
        p->pos++;
        return PT_OK;
    }
    for (;;) {
        skip_ws(p);
        if (at(p, "...")) {
            p->varret = true;
            p->pos += 3;
            return expect_char(p, ')', "')' after '...'");
        }
        PT_TRY(parse_return(p));
        skip_ws(p);
        if (cur(p) == ')') {
            p->pos++;
            return PT_OK;
        }
        if (cur(p) != ',') return pt_schema_fail(p, p->pos, "',' or ')'");
        p->pos++;
    }
}

/* "ns::name.overload"; the overload names PyTorch refuses are refused here too. */
static pt_status parse_name(pt_schema_parser *p)
{
    size_t s1, n1;
    PT_TRY(take_ident(p, "an operator name", &s1, &n1));
    skip_ws(p);
    p->name = p->chars.len;
    pt_schema_buf_put(&p->chars, p->text + s1, n1);
    if (at(p, "::")) {
        size_t s2, n2;
        p->pos += 2;
        PT_TRY(take_ident(p, "an operator name after '::'", &s2, &n2));
        pt_schema_buf_put(&p->chars, "::", 2);
        pt_schema_buf_put(&p->chars, p->text + s2, n2);
    }
    pt_schema_buf_put(&p->chars, "", 1);
    if (p->chars.failed) return pt_schema_oom();
    skip_ws(p);
    if (cur(p) != '.') return PT_OK;
    p->pos++;
    size_t s3, n3;
    PT_TRY(take_ident(p, "an overload name", &s3, &n3));
    const char *o = p->text + s3;
    if (span_is(o, n3, "default") || (n3 >= 2 && o[0] == '_' && o[1] == '_'))
        return pt_schema_fail(p, s3,
                              "an overload name other than 'default' and not starting with '__'");
    return put_string(p, o, n3, &p->overload);
}

/* ---------------------------------------------------------------- the arena */

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Lays the parse out in one block (Note [schema arena]) and renders the texts. */
static pt_status assemble(pt_schema_parser *p, pt_schema **out)
{
    int32_t n = p->nargs + p->nrets;
    size_t head = round8(sizeof(pt_schema)), items = round8((size_t)n * sizeof(pt_schema_arg_info));
    size_t values = round8((size_t)p->ndefaults * sizeof(pt_ivalue));
    size_t total = head + items + values + p->ints.len + p->dbls.len + p->chars.len;
    char *block = malloc(total);
    if (!block) return pt_schema_oom();
    pt_schema *s = (pt_schema *)block;
    pt_schema_arg_info *info = (pt_schema_arg_info *)(block + head);
    pt_ivalue *iv = (pt_ivalue *)(block + head + items);
    int64_t *ints = (int64_t *)(block + head + items + values);
    double *dbls = (double *)((char *)ints + p->ints.len);
    char *chars = (char *)dbls + p->dbls.len;
    memcpy(ints, p->ints.p, p->ints.len);
    memcpy(dbls, p->dbls.p, p->dbls.len);
    memcpy(chars, p->chars.p, p->chars.len);
    for (int32_t i = 0; i < n; i++) {
        const pt_schema_rec *r = rec_at(p, i);
        info[i] = r->info;
        info[i].name = chars + r->name;
        info[i].type = chars + r->type;
        info[i].alias_before = chars + r->before;
        info[i].alias_after = chars + r->after;
        info[i].elem_alias_before = chars + r->ebefore;
        info[i].elem_alias_after = chars + r->eafter;
        info[i].default_text = "";
        info[i].default_value = NULL;
        if (!r->info.has_default) continue;
        *iv = r->dv;
        if (iv->tag == PT_IV_STRING) iv->s = chars + r->payload;
        else if (iv->tag == PT_IV_INT_LIST || iv->tag == PT_IV_BOOL_LIST)
            iv->ints = ints + r->payload;
        else if (iv->tag == PT_IV_DOUBLE_LIST) iv->doubles = dbls + r->payload;
        info[i].default_value = iv++;
    }
    *s = (pt_schema){.name = chars + p->name,
                     .overload = chars + p->overload,
                     .nargs = p->nargs,
                     .nrets = p->nrets,
                     .is_vararg = p->vararg,
                     .is_varret = p->varret,
                     .items = info};
    atomic_init(&s->refcount, 1);
    pt_status st = pt_schema_render(s);
    if (st != PT_OK) {
        free(block);
        return st;
    }
    *out = s;
    return PT_OK;
}

pt_status pt_schema_parse(const char *text, pt_schema **out)
{
    if (!text) return PT_ERROR(PT_ERR_RUNTIME, "schema: expected a schema string but found NULL");
    if (!out) return PT_ERROR(PT_ERR_RUNTIME, "schema: out must not be NULL");
    /* Stack room for a typical schema; larger ones move to the heap (pt_schema_buf). */
    char chars_store[2048];
    pt_schema_rec recs_store[16];
    int64_t ints_store[32];
    double dbls_store[8];
    pt_schema_parser p = {.text = text};
    pt_schema_buf_init(&p.chars, chars_store, sizeof chars_store);
    pt_schema_buf_init(&p.recs, (char *)recs_store, sizeof recs_store);
    pt_schema_buf_init(&p.ints, (char *)ints_store, sizeof ints_store);
    pt_schema_buf_init(&p.dbls, (char *)dbls_store, sizeof dbls_store);
    pt_schema_buf_put(&p.chars, "", 1); /* offset 0: the empty string */
    pt_status st = parse_name(&p);
    if (st == PT_OK) st = parse_arguments(&p);
    if (st == PT_OK) st = parse_returns(&p);
    if (st == PT_OK) {
        skip_ws(&p);
        if (cur(&p)) st = pt_schema_fail(&p, p.pos, "end of input");
    }
    if (st == PT_OK) st = assemble(&p, out);
    pt_schema_buf_free(&p.chars);
    pt_schema_buf_free(&p.recs);
    pt_schema_buf_free(&p.ints);
    pt_schema_buf_free(&p.dbls);
    return st;
}

/* ---------------------------------------------------------------- accessors */

void pt_schema_retain(pt_schema *s)
{
    if (s) atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

void pt_schema_release(pt_schema *s)
{
    if (!s || atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1) return;
    free(s->texts);
    free(s);
}

const char *pt_schema_name(const pt_schema *s) { return s->name; }
const char *pt_schema_overload(const pt_schema *s) { return s->overload; }
int32_t pt_schema_num_arguments(const pt_schema *s) { return s->nargs; }
int32_t pt_schema_num_returns(const pt_schema *s) { return s->nrets; }
int32_t pt_schema_is_vararg(const pt_schema *s) { return s->is_vararg; }
int32_t pt_schema_is_varret(const pt_schema *s) { return s->is_varret; }
const char *pt_schema_text(const pt_schema *s) { return s->text; }

pt_status pt_schema_argument(const pt_schema *s, int32_t index, pt_schema_arg_info *out)
{
    if (index < 0 || index >= s->nargs)
        return PT_ERROR(PT_ERR_INDEX,
                        "schema: argument index %d is out of range for '%s' (%d arguments)",
                        (int)index, s->name, (int)s->nargs);
    *out = s->items[index];
    return PT_OK;
}

pt_status pt_schema_return(const pt_schema *s, int32_t index, pt_schema_arg_info *out)
{
    if (index < 0 || index >= s->nrets)
        return PT_ERROR(PT_ERR_INDEX,
                        "schema: return index %d is out of range for '%s' (%d returns)",
                        (int)index, s->name, (int)s->nrets);
    *out = s->items[s->nargs + index];
    return PT_OK;
}
