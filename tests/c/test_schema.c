/* test_schema.c - the schema parser: the corpus (tests/data/schemas.txt) parses, prints and parses
 * back equal; every malformed schema of tests/data/bad_schemas.txt fails at its column; types,
 * defaults, alias annotations, keyword-only markers, returns and varargs checked field by field;
 * equality tells apart schemas that differ in one field; pt_stack_clear releases what results own.
 */
#include <math.h>
#include <stdlib.h>

#include "pt_test.h"

/* ---------------------------------------------------------------- helpers */

/* tests/data/<name>, found from this file's path (the build passes absolute source paths). */
static FILE *open_data(const char *name)
{
    char path[4096];
    const char *file = __FILE__, *cut = strstr(file, "tests/c/test_schema.c");
    snprintf(path, sizeof path, "%.*stests/data/%s", cut ? (int)(cut - file) : 0, file, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(path, sizeof path, "../data/%s", name); /* run from tests/c */
        f = fopen(path, "r");
    }
    return f;
}

/* The next line that is not blank or a comment, newline removed; NULL at the end. */
static char *next_line(FILE *f, char **buf, size_t *cap)
{
    ssize_t n;
    while ((n = getline(buf, cap, f)) >= 0) {
        if (n > 0 && (*buf)[n - 1] == '\n') (*buf)[--n] = '\0';
        const char *s = *buf;
        while (*s == ' ' || *s == '\t') s++;
        if (*s && *s != '#') return *buf;
    }
    return NULL;
}

static pt_schema_arg_info arg_of(const pt_schema *s, int32_t i)
{
    pt_schema_arg_info a;
    memset(&a, 0, sizeof a);
    if (pt_schema_argument(s, i, &a) != PT_OK) a.name = NULL;
    return a;
}

static pt_schema_arg_info ret_of(const pt_schema *s, int32_t i)
{
    pt_schema_arg_info a;
    memset(&a, 0, sizeof a);
    if (pt_schema_return(s, i, &a) != PT_OK) a.name = NULL;
    return a;
}

/* ---------------------------------------------------------------- the corpora */

PT_TEST(schema_corpus_parses_prints_and_parses_back_equal)
{
    FILE *f = open_data("schemas.txt");
    CHECK(f != NULL);
    char *buf = NULL;
    size_t cap = 0;
    int count = 0;
    const char *line;
    while ((line = next_line(f, &buf, &cap)) != NULL) {
        pt_schema *a = NULL, *b = NULL;
        if (pt_schema_parse(line, &a) != PT_OK) {
            fprintf(stderr, "  %s\n", pt_error_message());
            break;
        }
        const char *text = pt_schema_text(a);
        if (pt_schema_parse(text, &b) != PT_OK || !pt_schema_equal(a, b) ||
            strcmp(pt_schema_text(b), text) != 0) {
            fprintf(stderr, "  %s\n  printed as %s\n  %s\n", line, text, pt_error_message());
            pt_schema_release(a);
            pt_schema_release(b);
            break;
        }
        pt_schema_release(a);
        pt_schema_release(b);
        count++;
    }
    bool done = line == NULL;
    free(buf);
    fclose(f);
    CHECK(done);
    CHECK(count >= 150);
}

PT_TEST(schema_malformed_corpus_fails_at_the_expected_column)
{
    FILE *f = open_data("bad_schemas.txt");
    CHECK(f != NULL);
    char *buf = NULL;
    size_t cap = 0;
    int count = 0, bad = 0;
    char *line;
    while ((line = next_line(f, &buf, &cap)) != NULL) {
        char *tab1 = strchr(line, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
        if (!tab2) {
            fprintf(stderr, "  malformed line: %s\n", line);
            bad++;
            continue;
        }
        *tab1 = *tab2 = '\0';
        const char *what = tab1 + 1, *schema = tab2 + 1;
        char column[48], expected[256];
        snprintf(column, sizeof column, "at column %d: ", atoi(line));
        snprintf(expected, sizeof expected, "schema: expected %s", what);
        pt_schema *s = NULL;
        pt_status st = pt_schema_parse(schema, &s);
        const char *msg = pt_error_message();
        if (st != PT_ERR_RUNTIME || !strstr(msg, column) ||
            strncmp(msg, expected, strlen(expected)) != 0 || !strstr(msg, schema)) {
            fprintf(stderr, "  %s\n  wanted column %s and '%s', got %d: %s\n", schema, line, what,
                    (int)st, st ? msg : pt_schema_text(s));
            pt_schema_release(s);
            bad++;
        }
        count++;
    }
    free(buf);
    fclose(f);
    CHECK(bad == 0);
    CHECK(count >= 100);
}

PT_TEST(schema_error_message_names_what_was_expected_the_token_and_the_column)
{
    pt_schema *s;
    CHECK(pt_schema_parse("add(Tensor self", &s) == PT_ERR_RUNTIME);
    CHECK(strcmp(pt_error_message(), "schema: expected ',' or ')' but found 'end of input' at "
                                     "column 16: add(Tensor self") == 0);
    CHECK(pt_schema_parse("f(int x=\"a\") -> ()", &s) == PT_ERR_RUNTIME);
    CHECK(strcmp(pt_error_message(), "schema: expected a default value of type int for 'x' but "
                                     "found '\"a\"' at column 9: f(int x=\"a\") -> ()") == 0);
    CHECK_ERR(pt_schema_parse(NULL, &s), PT_ERR_RUNTIME, "expected a schema string");
    CHECK_ERR(pt_schema_parse("f() -> ()", NULL), PT_ERR_RUNTIME, "out");
}

/* ---------------------------------------------------------------- field by field */

PT_TEST(schema_names_overloads_and_counts)
{
    pt_schema *s;
    CHECK_OK(pt_schema_parse(
        "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", &s));
    CHECK(strcmp(pt_schema_name(s), "aten::add") == 0);
    CHECK(strcmp(pt_schema_overload(s), "Tensor") == 0);
    CHECK(pt_schema_num_arguments(s) == 3 && pt_schema_num_returns(s) == 1);
    CHECK(!pt_schema_is_vararg(s) && !pt_schema_is_varret(s));
    pt_schema_arg_info a = arg_of(s, 2), r = ret_of(s, 0);
    CHECK(strcmp(a.name, "alpha") == 0 && a.kwarg_only && a.has_default);
    CHECK(a.default_value->tag == PT_IV_INT && a.default_value->i == 1);
    CHECK(!arg_of(s, 0).kwarg_only && !arg_of(s, 1).kwarg_only);
    CHECK(strcmp(r.name, "") == 0 && strcmp(r.type, "Tensor") == 0 && !r.has_default);
    pt_schema_arg_info out;
    CHECK_ERR(pt_schema_argument(s, 3, &out), PT_ERR_INDEX, "argument index 3");
    CHECK_ERR(pt_schema_argument(s, -1, &out), PT_ERR_INDEX, "argument index -1");
    CHECK_ERR(pt_schema_return(s, 1, &out), PT_ERR_INDEX, "return index 1");
    pt_schema_release(s);

    CHECK_OK(pt_schema_parse("relu(Tensor self) -> Tensor", &s));
    CHECK(strcmp(pt_schema_name(s), "relu") == 0 && strcmp(pt_schema_overload(s), "") == 0);
    CHECK(strcmp(pt_schema_text(s), "relu(Tensor self) -> Tensor") == 0);
    pt_schema_release(s);
}

PT_TEST(schema_types_stack_optional_and_list_suffixes)
{
    static const struct {
        const char *written, *canonical;
        int32_t kind, elem_kind, optional, list, optional_elems;
        int64_t N;
    } cases[] = {
        {"Tensor", "Tensor", PT_TYPE_TENSOR, PT_TYPE_TENSOR, 0, 0, 0, -1},
        {"SymInt", "SymInt", PT_TYPE_SYMINT, PT_TYPE_SYMINT, 0, 0, 0, -1},
        {"ScalarType", "ScalarType", PT_TYPE_SCALAR_TYPE, PT_TYPE_SCALAR_TYPE, 0, 0, 0, -1},
        {"MemoryFormat", "MemoryFormat", PT_TYPE_MEMORY_FORMAT, PT_TYPE_MEMORY_FORMAT, 0, 0, 0, -1},
        {"Dimname", "Dimname", PT_TYPE_DIMNAME, PT_TYPE_DIMNAME, 0, 0, 0, -1},
        {"QScheme", "QScheme", PT_TYPE_QSCHEME, PT_TYPE_QSCHEME, 0, 0, 0, -1},
        {"Any", "Any", PT_TYPE_ANY, PT_TYPE_ANY, 0, 0, 0, -1},
        {"DeviceIndex", "int", PT_TYPE_INT, PT_TYPE_INT, 0, 0, 0, -1},
        {"Tensor?", "Tensor?", PT_TYPE_OPTIONAL, PT_TYPE_TENSOR, 1, 0, 0, -1},
        {"int??", "int?", PT_TYPE_OPTIONAL, PT_TYPE_INT, 1, 0, 0, -1},
        {"Tensor[]", "Tensor[]", PT_TYPE_LIST, PT_TYPE_TENSOR, 0, 1, 0, -1},
        {"int[2]", "int[2]", PT_TYPE_LIST, PT_TYPE_INT, 0, 1, 0, 2},
        {"SymInt[ 3 ]", "SymInt[3]", PT_TYPE_LIST, PT_TYPE_SYMINT, 0, 1, 0, 3},
        {"Tensor?[]", "Tensor?[]", PT_TYPE_LIST, PT_TYPE_TENSOR, 0, 1, 1, -1},
        {"int[]?", "int[]?", PT_TYPE_OPTIONAL, PT_TYPE_INT, 1, 1, 0, -1},
        {"int[1]?", "int[1]?", PT_TYPE_OPTIONAL, PT_TYPE_INT, 1, 1, 0, 1},
        {"Tensor?[]?", "Tensor?[]?", PT_TYPE_OPTIONAL, PT_TYPE_TENSOR, 1, 1, 1, -1},
        {"Tensor ? [ ] ?", "Tensor?[]?", PT_TYPE_OPTIONAL, PT_TYPE_TENSOR, 1, 1, 1, -1},
        {"int[0]", "int[0]", PT_TYPE_LIST, PT_TYPE_INT, 0, 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "f(%s x) -> %s", cases[i].written, cases[i].written);
        pt_schema *s;
        CHECK_OK(pt_schema_parse(text, &s));
        pt_schema_arg_info a = arg_of(s, 0), r = ret_of(s, 0);
        bool ok = strcmp(a.type, cases[i].canonical) == 0 && a.kind == cases[i].kind &&
                  a.elem_kind == cases[i].elem_kind && a.optional == cases[i].optional &&
                  a.list == cases[i].list && a.optional_elems == cases[i].optional_elems &&
                  a.N == cases[i].N && strcmp(r.type, a.type) == 0 && r.N == a.N && !a.has_alias;
        if (!ok) fprintf(stderr, "  %s: type %s kind %d N %lld\n", text, a.type, (int)a.kind,
                         (long long)a.N);
        pt_schema_release(s);
        CHECK(ok);
    }
}

PT_TEST(schema_alias_annotations_give_sets_write_flags_and_their_place)
{
    /* A list's elements' annotation is the element's (elem_*); the list's own then copies its
     * is_write with empty sets, as PyTorch's parser keeps them. */
    static const struct {
        const char *written, *canonical, *before, *after;
        int32_t write;
        const char *elem_before, *elem_after; /* NULL: no element annotation */
        int32_t elem_write;
    } cases[] = {
        {"Tensor(a)", "Tensor(a)", "a", "a", 0, NULL, NULL, 0},
        {"Tensor(a!)", "Tensor(a!)", "a", "a", 1, NULL, NULL, 0},
        {"Tensor(a -> *)", "Tensor(a -> *)", "a", "*", 0, NULL, NULL, 0},
        {"Tensor(a! -> *)", "Tensor(a! -> *)", "a", "*", 1, NULL, NULL, 0},
        {"Tensor(b|a)", "Tensor(a|b)", "a|b", "a|b", 0, NULL, NULL, 0},
        {"Tensor(a|a|b)", "Tensor(a|b)", "a|b", "a|b", 0, NULL, NULL, 0},
        {"Tensor(a! -> b|a)", "Tensor(a! -> a|b)", "a", "a|b", 1, NULL, NULL, 0},
        {"Tensor(*)", "Tensor(*)", "*", "*", 0, NULL, NULL, 0},
        {"Tensor!", "Tensor!", "$0", "", 1, NULL, NULL, 0},
        {"Tensor(a!)[]", "Tensor(a!)[]", "", "", 1, "a", "a", 1},
        {"Tensor(a -> *)[]", "Tensor(a -> *)[]", "", "", 0, "a", "*", 0},
        {"Tensor(a)?[]", "Tensor?(a)[]", "", "", 0, "a", "a", 0},
        {"Tensor?(a!)[]", "Tensor?(a!)[]", "", "", 1, "a", "a", 1},
        {"Tensor(a)[]?", "Tensor(a)[]?", "", "", 0, "a", "a", 0},
        {"Tensor(a!)?", "Tensor(a!)?", "a", "a", 1, NULL, NULL, 0},
        {"Tensor[](a)", "Tensor[](a)", "a", "a", 0, NULL, NULL, 0},
        {"Tensor[](a)?", "Tensor[](a)?", "a", "a", 0, NULL, NULL, 0},
        {"Tensor(a)[](b!)", "Tensor(a)[](b!)", "b", "b", 1, "a", "a", 0},
        {"Tensor(a!)[](b)", "Tensor(a!)[](b)", "b", "b", 0, "a", "a", 1},
        {"Tensor( a ! ->  * )", "Tensor(a! -> *)", "a", "*", 1, NULL, NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128], want[128];
        snprintf(text, sizeof text, "f(%s x) -> ()", cases[i].written);
        snprintf(want, sizeof want, "f(%s x) -> ()", cases[i].canonical);
        pt_schema *s;
        CHECK_OK(pt_schema_parse(text, &s));
        pt_schema_arg_info a = arg_of(s, 0);
        bool elem = cases[i].elem_before != NULL;
        bool ok = a.has_alias && strcmp(a.alias_before, cases[i].before) == 0 &&
                  strcmp(a.alias_after, cases[i].after) == 0 &&
                  a.alias_is_write == cases[i].write && a.elem_has_alias == elem &&
                  (!elem || (strcmp(a.elem_alias_before, cases[i].elem_before) == 0 &&
                             strcmp(a.elem_alias_after, cases[i].elem_after) == 0 &&
                             a.elem_alias_is_write == cases[i].elem_write)) &&
                  strcmp(pt_schema_text(s), want) == 0;
        if (!ok) fprintf(stderr, "  %s: before '%s' after '%s' write %d printed %s\n", text,
                         a.alias_before, a.alias_after, (int)a.alias_is_write, pt_schema_text(s));
        pt_schema_release(s);
        CHECK(ok);
    }
    /* Fresh sets are numbered per schema, in order. */
    pt_schema *s;
    CHECK_OK(pt_schema_parse("f(Tensor! a, Tensor b, Tensor! c) -> Tensor!", &s));
    CHECK(strcmp(arg_of(s, 0).alias_before, "$0") == 0 && !arg_of(s, 1).has_alias);
    CHECK(strcmp(arg_of(s, 2).alias_before, "$1") == 0);
    CHECK(strcmp(ret_of(s, 0).alias_before, "$2") == 0);
    pt_schema_release(s);
}

/* One default: the written declaration, the tag it becomes and its canonical text. */
static bool check_default(const char *decl, int32_t tag, const char *text, const pt_ivalue **v,
                          pt_schema **keep)
{
    char schema[256];
    snprintf(schema, sizeof schema, "f(%s) -> ()", decl);
    pt_schema *s;
    if (pt_schema_parse(schema, &s) != PT_OK) {
        fprintf(stderr, "  %s: %s\n", decl, pt_error_message());
        return false;
    }
    pt_schema_arg_info a = arg_of(s, 0);
    bool ok = a.has_default && a.default_value && a.default_value->tag == tag &&
              strcmp(a.default_text, text) == 0;
    if (!ok)
        fprintf(stderr, "  %s: tag %d text '%s'\n", decl,
                a.default_value ? (int)a.default_value->tag : -1, a.default_text);
    *v = a.default_value;
    *keep = s;
    return ok;
}

#define DEFAULT(decl, tag, text, cond)                                                             \
    do {                                                                                           \
        const pt_ivalue *v = NULL;                                                                 \
        pt_schema *keep = NULL;                                                                    \
        bool ok_ = check_default(decl, tag, text, &v, &keep) && (cond);                            \
        pt_schema_release(keep);                                                                   \
        CHECK(ok_);                                                                                \
    } while (0)

PT_TEST(schema_number_defaults_keep_their_value_and_print_back)
{
    DEFAULT("int a=-1", PT_IV_INT, "-1", v->i == -1);
    DEFAULT("int a=9223372036854775807", PT_IV_INT, "9223372036854775807", v->i == INT64_MAX);
    DEFAULT("int a=-9223372036854775808", PT_IV_INT, "-9223372036854775808", v->i == INT64_MIN);
    DEFAULT("SymInt a=-100", PT_IV_INT, "-100", v->i == -100);
    DEFAULT("float a=1e-05", PT_IV_DOUBLE, "1e-05", v->d == 1e-05);
    DEFAULT("float a=1", PT_IV_DOUBLE, "1.0", v->d == 1.0);
    DEFAULT("float a=.5", PT_IV_DOUBLE, "0.5", v->d == 0.5);
    DEFAULT("float a=3.", PT_IV_DOUBLE, "3.0", v->d == 3.0);
    DEFAULT("float a=1e5", PT_IV_DOUBLE, "100000.0", v->d == 1e5);
    DEFAULT("float a=-1.5e-3", PT_IV_DOUBLE, "-0.0015", v->d == -1.5e-3);
    DEFAULT("float a=0.30000000000000004", PT_IV_DOUBLE, "0.30000000000000004",
            v->d == 0.1 + 0.2);
    DEFAULT("float a=1e300", PT_IV_DOUBLE, "1e+300", v->d == 1e300);
    DEFAULT("float a=-0.0", PT_IV_DOUBLE, "-0.0", v->d == 0 && signbit(v->d));
    DEFAULT("complex a=1j", PT_IV_COMPLEX, "1.0j", v->d == 0 && v->im == 1);
    DEFAULT("complex a=-2.5j", PT_IV_COMPLEX, "-2.5j", v->d == 0 && v->im == -2.5);
    DEFAULT("complex a=2", PT_IV_COMPLEX, "2.0", v->d == 2 && v->im == 0);
    DEFAULT("Scalar a=1", PT_IV_INT, "1", v->i == 1);
    DEFAULT("Scalar a=0.125", PT_IV_DOUBLE, "0.125", v->d == 0.125);
    DEFAULT("Scalar a=True", PT_IV_BOOL, "True", v->i == 1);
    DEFAULT("Scalar a=0j", PT_IV_COMPLEX, "0.0j", v->d == 0 && v->im == 0);
    DEFAULT("bool a=False", PT_IV_BOOL, "False", v->i == 0);
    DEFAULT("bool? a=True", PT_IV_BOOL, "True", v->i == 1);
    DEFAULT("Tensor? a=None", PT_IV_NONE, "None", 1);
    DEFAULT("int[]? a=None", PT_IV_NONE, "None", 1);
    DEFAULT("Any a=2.5", PT_IV_DOUBLE, "2.5", v->d == 2.5);
}

PT_TEST(schema_list_defaults_and_bare_scalars_repeated_for_fixed_sizes)
{
    DEFAULT("int[] a=[]", PT_IV_INT_LIST, "[]", v->len == 0);
    DEFAULT("int[1] a=[-2,-1]", PT_IV_INT_LIST, "[-2, -1]", v->len == 2 && v->ints[1] == -1);
    DEFAULT("int[2] a=1", PT_IV_INT_LIST, "[1, 1]",
            v->len == 2 && v->ints[0] == 1 && v->ints[1] == 1);
    DEFAULT("SymInt[3] a=0", PT_IV_INT_LIST, "[0, 0, 0]", v->len == 3 && v->ints[2] == 0);
    DEFAULT("int[2]? a=1", PT_IV_INT_LIST, "[1, 1]", v->len == 2);
    DEFAULT("bool[3] a=[True, False, True]", PT_IV_BOOL_LIST, "[True, False, True]",
            v->len == 3 && v->ints[0] == 1 && v->ints[1] == 0);
    DEFAULT("bool[2] a=True", PT_IV_BOOL_LIST, "[True, True]", v->len == 2 && v->ints[1] == 1);
    DEFAULT("float[] a=[1, 2.5]", PT_IV_DOUBLE_LIST, "[1.0, 2.5]",
            v->len == 2 && v->doubles[0] == 1.0 && v->doubles[1] == 2.5);
    DEFAULT("float[2] a=0.5", PT_IV_DOUBLE_LIST, "[0.5, 0.5]", v->len == 2 && v->doubles[1] == 0.5);
}

PT_TEST(schema_string_and_enum_defaults_become_values_printed_by_name)
{
    DEFAULT("str a='linear'", PT_IV_STRING, "\"linear\"", strcmp(v->s, "linear") == 0);
    DEFAULT("str a=\"\\\"'\\\\\"", PT_IV_STRING, "\"\\\"'\\\\\"", strcmp(v->s, "\"'\\") == 0);
    DEFAULT("str a='\"\\'\\\\'", PT_IV_STRING, "\"\\\"'\\\\\"", strcmp(v->s, "\"'\\") == 0);
    DEFAULT("str a=\"a\\nb\\tc\"", PT_IV_STRING, "\"a\\nb\\tc\"", strcmp(v->s, "a\nb\tc") == 0);
    DEFAULT("str a=\"\"", PT_IV_STRING, "\"\"", v->s[0] == '\0');
    DEFAULT("ScalarType a=float", PT_IV_DTYPE, "float32", v->i == PT_FLOAT32);
    DEFAULT("ScalarType? a=long", PT_IV_DTYPE, "int64", v->i == PT_INT64);
    DEFAULT("ScalarType a=int", PT_IV_DTYPE, "int32", v->i == PT_INT32);
    DEFAULT("ScalarType a=bfloat16", PT_IV_DTYPE, "bfloat16", v->i == PT_BFLOAT16);
    DEFAULT("ScalarType a=cdouble", PT_IV_DTYPE, "complex128", v->i == PT_COMPLEX128);
    DEFAULT("ScalarType a=bool", PT_IV_DTYPE, "bool", v->i == PT_BOOL);
    DEFAULT("ScalarType a=complex", PT_IV_DTYPE, "complex64", v->i == PT_COMPLEX64);
    DEFAULT("Layout a=strided", PT_IV_LAYOUT, "strided", v->i == PT_LAYOUT_STRIDED);
    DEFAULT("Layout? a=sparse_coo", PT_IV_LAYOUT, "sparse_coo", v->i == PT_LAYOUT_SPARSE_COO);
    DEFAULT("MemoryFormat a=contiguous_format", PT_IV_MEMORY_FORMAT, "contiguous_format",
            v->i == PT_MEMORY_FORMAT_CONTIGUOUS);
    DEFAULT("MemoryFormat? a=preserve_format", PT_IV_MEMORY_FORMAT, "preserve_format",
            v->i == PT_MEMORY_FORMAT_PRESERVE);
    DEFAULT("MemoryFormat a=channels_last", PT_IV_MEMORY_FORMAT, "channels_last",
            v->i == PT_MEMORY_FORMAT_CHANNELS_LAST);
    DEFAULT("MemoryFormat a=channels_last_3d", PT_IV_MEMORY_FORMAT, "channels_last_3d",
            v->i == PT_MEMORY_FORMAT_CHANNELS_LAST_3D);
    DEFAULT("int reduction=Mean", PT_IV_INT, "1", v->i == 1);
    DEFAULT("int reduction=Sum", PT_IV_INT, "2", v->i == 2);
    DEFAULT("int reduction=None", PT_IV_INT, "0", v->i == 0);
    DEFAULT("int? reduction=None", PT_IV_NONE, "None", 1);
    DEFAULT("Device a=\"cpu\"", PT_IV_DEVICE, "\"cpu\"", v->device.type == PT_DEV_CPU);
    DEFAULT("Device? a='cuda:1'", PT_IV_DEVICE, "\"cuda:1\"",
            v->device.type == PT_DEV_CUDA && v->device.index == 1);
}

PT_TEST(schema_declarations_from_pytorch_read_field_by_field)
{
    pt_schema *s;
    CHECK_OK(pt_schema_parse("conv2d(Tensor input, Tensor weight, Tensor? bias=None, "
                             "SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] dilation=1, "
                             "SymInt groups=1) -> Tensor",
                             &s));
    pt_schema_arg_info bias = arg_of(s, 2), stride = arg_of(s, 3), groups = arg_of(s, 6);
    CHECK(bias.kind == PT_TYPE_OPTIONAL && bias.elem_kind == PT_TYPE_TENSOR && bias.has_default &&
          bias.default_value->tag == PT_IV_NONE);
    CHECK(stride.kind == PT_TYPE_LIST && stride.elem_kind == PT_TYPE_SYMINT && stride.N == 2);
    CHECK(strcmp(stride.default_text, "[1, 1]") == 0);
    CHECK(groups.kind == PT_TYPE_SYMINT && groups.default_value->i == 1);
    CHECK(strcmp(pt_schema_text(s),
                 "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
                 "SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) "
                 "-> Tensor") == 0);
    pt_schema_release(s);

    CHECK_OK(pt_schema_parse("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, "
                             "Tensor indices)", &s));
    CHECK(pt_schema_num_returns(s) == 2);
    CHECK(strcmp(ret_of(s, 0).name, "values") == 0 && strcmp(ret_of(s, 1).name, "indices") == 0);
    pt_schema_release(s);

    CHECK_OK(pt_schema_parse(
        "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]", &s));
    pt_schema_arg_info self = arg_of(s, 0), r = ret_of(s, 0);
    CHECK(self.has_alias && strcmp(self.alias_before, "a") == 0 &&
          strcmp(self.alias_after, "*") == 0);
    CHECK(r.has_alias && r.elem_has_alias && r.kind == PT_TYPE_LIST && !r.alias_is_write &&
          r.alias_before[0] == 0 && strcmp(r.elem_alias_before, "a") == 0);
    pt_schema_release(s);

    CHECK_OK(pt_schema_parse("aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, "
                             "Scalar alpha=1) -> ()", &s));
    self = arg_of(s, 0);
    CHECK(self.alias_is_write && self.elem_has_alias && self.elem_alias_is_write &&
          self.alias_before[0] == 0 && strcmp(self.type, "Tensor[]") == 0);
    CHECK(arg_of(s, 2).kwarg_only && pt_schema_num_returns(s) == 0);
    CHECK(strcmp(pt_schema_text(s), "aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] "
                                    "other, *, Scalar alpha=1) -> ()") == 0);
    pt_schema_release(s);

    CHECK_OK(pt_schema_parse("to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? "
                             "layout=None, Device? device=None, bool? pin_memory=None, bool "
                             "non_blocking=False, bool copy=False, MemoryFormat? "
                             "memory_format=None) -> Tensor(a)",
                             &s));
    CHECK(pt_schema_num_arguments(s) == 8);
    for (int32_t i = 1; i < 8; i++) CHECK(arg_of(s, i).kwarg_only && arg_of(s, i).has_default);
    CHECK(arg_of(s, 1).elem_kind == PT_TYPE_SCALAR_TYPE);
    CHECK(arg_of(s, 7).elem_kind == PT_TYPE_MEMORY_FORMAT);
    CHECK(strcmp(ret_of(s, 0).alias_before, "a") == 0 && !ret_of(s, 0).alias_is_write);
    pt_schema_release(s);

    CHECK_OK(pt_schema_parse("max.dim_max(Tensor self, int dim, bool keepdim=False, *, "
                             "Tensor(a!) max, Tensor(b!) max_values) -> "
                             "(Tensor(a!) values, Tensor(b!) indices)",
                             &s));
    CHECK(arg_of(s, 3).kwarg_only && !arg_of(s, 3).has_default); /* kwarg-only after a default */
    CHECK(strcmp(ret_of(s, 1).alias_before, "b") == 0 && ret_of(s, 1).alias_is_write);
    pt_schema_release(s);
}

PT_TEST(schema_returns_print_bare_only_when_single_and_unnamed)
{
    static const struct {
        const char *written, *canonical;
        int32_t nrets, varret;
    } cases[] = {
        {"f() -> Tensor", "f() -> Tensor", 1, 0},
        {"f() -> (Tensor)", "f() -> Tensor", 1, 0},
        {"f() -> Tensor out", "f() -> (Tensor out)", 1, 0},
        {"f() -> ()", "f() -> ()", 0, 0},
        {"f() -> ( )", "f() -> ()", 0, 0},
        {"f() -> (Tensor, Tensor)", "f() -> (Tensor, Tensor)", 2, 0},
        {"f() -> (Tensor a, Tensor)", "f() -> (Tensor a, Tensor)", 2, 0},
        {"f() -> Tensor[]", "f() -> Tensor[]", 1, 0},
        {"f() -> ...", "f() -> ...", 0, 1},
        {"f() -> (Tensor, ...)", "f() -> (Tensor, ...)", 1, 1},
        {"f() -> (...)", "f() -> ...", 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pt_schema *s;
        CHECK_OK(pt_schema_parse(cases[i].written, &s));
        bool ok = strcmp(pt_schema_text(s), cases[i].canonical) == 0 &&
                  pt_schema_num_returns(s) == cases[i].nrets &&
                  pt_schema_is_varret(s) == cases[i].varret;
        if (!ok) fprintf(stderr, "  %s printed %s\n", cases[i].written, pt_schema_text(s));
        pt_schema_release(s);
        CHECK(ok);
    }
}

PT_TEST(schema_varargs_and_keyword_only_markers)
{
    pt_schema *s;
    CHECK_OK(pt_schema_parse("prim::Print(...) -> ()", &s));
    CHECK(pt_schema_is_vararg(s) && pt_schema_num_arguments(s) == 0 && !pt_schema_is_varret(s));
    CHECK(strcmp(pt_schema_text(s), "prim::Print(...) -> ()") == 0);
    pt_schema_release(s);
    CHECK_OK(pt_schema_parse("aten::format(str self, ...) -> str", &s));
    CHECK(pt_schema_is_vararg(s) && pt_schema_num_arguments(s) == 1);
    CHECK(strcmp(pt_schema_text(s), "aten::format(str self, ...) -> str") == 0);
    pt_schema_release(s);
    /* A trailing or repeated '*' is accepted and dropped, as PyTorch does. */
    CHECK_OK(pt_schema_parse("f(Tensor self, *) -> Tensor", &s));
    CHECK(strcmp(pt_schema_text(s), "f(Tensor self) -> Tensor") == 0);
    pt_schema_release(s);
    CHECK_OK(pt_schema_parse("f(*, *, int a, int b=1) -> ()", &s));
    CHECK(arg_of(s, 0).kwarg_only && arg_of(s, 1).kwarg_only);
    CHECK(strcmp(pt_schema_text(s), "f(*, int a, int b=1) -> ()") == 0);
    pt_schema_release(s);
}

PT_TEST(schema_equal_tells_apart_schemas_that_differ_in_one_field)
{
    static const char *const base =
        "ns::f.o(Tensor(a!) x, int[2] y=1, *, float z=0.5) -> Tensor(a!)";
    static const char *const others[] = {
        "ns::g.o(Tensor(a!) x, int[2] y=1, *, float z=0.5) -> Tensor(a!)",
        "ns::f.p(Tensor(a!) x, int[2] y=1, *, float z=0.5) -> Tensor(a!)",
        "f.o(Tensor(a!) x, int[2] y=1, *, float z=0.5) -> Tensor(a!)",
        "ns::f.o(Tensor(a) x, int[2] y=1, *, float z=0.5) -> Tensor(a!)",
        "ns::f.o(Tensor(b!) x, int[2] y=1, *, float z=0.5) -> Tensor(a!)",
        "ns::f.o(Tensor x, int[2] y=1, *, float z=0.5) -> Tensor(a!)",
        "ns::f.o(Tensor(a!) w, int[2] y=1, *, float z=0.5) -> Tensor(a!)",
        "ns::f.o(Tensor(a!) x, int[3] y=1, *, float z=0.5) -> Tensor(a!)",
        "ns::f.o(Tensor(a!) x, int[2] y=2, *, float z=0.5) -> Tensor(a!)",
        "ns::f.o(Tensor(a!) x, int[2] y=[1, 1, 1], *, float z=0.5) -> Tensor(a!)",
        "ns::f.o(Tensor(a!) x, int[2] y, *, float z=0.5) -> Tensor(a!)",
        "ns::f.o(Tensor(a!) x, int[2] y=1, float z=0.5) -> Tensor(a!)",
        "ns::f.o(Tensor(a!) x, int[2] y=1, *, float z=0.25) -> Tensor(a!)",
        "ns::f.o(Tensor(a!) x, int[2] y=1, *, float z=-0.5) -> Tensor(a!)",
        "ns::f.o(Tensor(a!) x, int[2] y=1, *, float? z=0.5) -> Tensor(a!)",
        "ns::f.o(Tensor(a!) x, int[2] y=1, *, float z=0.5) -> Tensor(a)",
        "ns::f.o(Tensor(a!) x, int[2] y=1, *, float z=0.5) -> Tensor(a!) out",
        "ns::f.o(Tensor(a!) x, int[2] y=1, *, float z=0.5) -> (Tensor(a!), Tensor)",
        "ns::f.o(Tensor(a!) x, int[2] y=1, *, float z=0.5) -> (Tensor(a!), ...)",
        "ns::f.o(Tensor(a!)[] x, int[2] y=1, *, float z=0.5) -> Tensor(a!)",
        "ns::f.o(Tensor[](a!) x, int[2] y=1, *, float z=0.5) -> Tensor(a!)",
    };
    pt_schema *a, *b;
    CHECK_OK(pt_schema_parse(base, &a));
    CHECK_OK(pt_schema_parse(" ns :: f . o ( Tensor( a ! ) x , int [ 2 ] y = [1,1] , * , "
                             "float z = .5 ) -> Tensor(a!)",
                             &b));
    CHECK(pt_schema_equal(a, b) && pt_schema_equal(b, a) && pt_schema_equal(a, a));
    CHECK(!pt_schema_equal(a, NULL));
    pt_schema_release(b);
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        CHECK_OK(pt_schema_parse(others[i], &b));
        bool differ = !pt_schema_equal(a, b) && !pt_schema_equal(b, a);
        if (!differ) fprintf(stderr, "  equal: %s\n", others[i]);
        pt_schema_release(b);
        CHECK(differ);
    }
    pt_schema_release(a);
}

PT_TEST(schema_references_keep_it_alive_until_the_last_release)
{
    pt_schema *s;
    CHECK_OK(pt_schema_parse("f(str a=\"text\", int[] b=[1, 2, 3]) -> ()", &s));
    pt_schema_retain(s);
    pt_schema_release(s);
    pt_schema_arg_info a = arg_of(s, 0);
    CHECK(strcmp(a.default_value->s, "text") == 0); /* still alive: ASan would report otherwise */
    pt_schema_release(s);
    pt_schema_release(NULL);
    pt_schema_retain(NULL);
}

/* ---------------------------------------------------------------- the stack */

PT_TEST(stack_clear_releases_result_references_and_frees_owned_arrays)
{
    pt_device cpu = {PT_DEV_CPU, 0};
    int64_t size = 2;
    pt_tensor *t1, *t2, *t3;
    pt_generator *g;
    CHECK_OK(pt_tensor_empty(1, &size, PT_FLOAT32, cpu, &t1));
    CHECK_OK(pt_tensor_empty(1, &size, PT_FLOAT32, cpu, &t2));
    CHECK_OK(pt_tensor_empty(1, &size, PT_FLOAT32, cpu, &t3));
    CHECK_OK(pt_generator_new(cpu, &g));
    /* The test keeps one reference of each; the stack gets one more, as a kernel's results do. */
    pt_tensor_retain(t1);
    pt_tensor_retain(t2);
    pt_tensor_retain(t3);
    pt_generator_retain(g);
    pt_tensor **list = malloc(2 * sizeof *list);
    int64_t *ints = malloc(3 * sizeof *ints);
    double *doubles = malloc(sizeof *doubles);
    char *str = malloc(4), **strs = malloc(2 * sizeof *strs);
    CHECK(list && ints && doubles && str && strs);
    list[0] = t2;
    list[1] = NULL;
    memcpy(str, "abc", 4);
    strs[0] = malloc(2);
    strs[1] = malloc(2);
    static pt_tensor *const borrowed_list[1] = {NULL};
    pt_ivalue items[10] = {
        {.tag = PT_IV_TENSOR, .t = t1},
        {.tag = PT_IV_OPT_TENSOR_LIST, .owned = 1, .len = 2, .tensors = list},
        {.tag = PT_IV_TENSOR_LIST, .len = 1, .tensors = (pt_tensor *const *)&t3}, /* not owned */
        {.tag = PT_IV_GENERATOR, .g = g},
        {.tag = PT_IV_INT_LIST, .owned = 1, .len = 3, .ints = ints},
        {.tag = PT_IV_DOUBLE_LIST, .owned = 1, .len = 1, .doubles = doubles},
        {.tag = PT_IV_STRING, .owned = 1, .s = str},
        {.tag = PT_IV_STRING_LIST, .owned = 1, .len = 2, .strings = (const char *const *)strs},
        {.tag = PT_IV_STRING, .s = "static"},
        {.tag = PT_IV_OPT_TENSOR_LIST, .len = 1, .tensors = borrowed_list},
    };
    pt_stack stack = {items, 10, 10};
    CHECK(pt_tensor_refcount(t1) == 2 && pt_tensor_refcount(t3) == 2);
    pt_stack_clear(&stack);
    CHECK(stack.size == 0);
    CHECK(pt_tensor_refcount(t1) == 1 && pt_tensor_refcount(t2) == 1);
    CHECK(pt_tensor_refcount(t3) == 1);
    for (int i = 0; i < 10; i++) CHECK(items[i].tag == PT_IV_NONE);
    pt_tensor_release(t1);
    pt_tensor_release(t2);
    pt_tensor_release(t3);
    pt_generator_release(g); /* the last reference: ASan reports a double release */
    pt_stack_clear(NULL);
}
