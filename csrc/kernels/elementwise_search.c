/* elementwise_search.c - isclose, isin and equal: comparisons that torch writes as several passes
 * (isclose's equality, NaN and tolerance tests; isin's sort and search; equal's reduction to one
 * bool), each done here in one pass of the iterator over a loop of cpu/elementwise_more_kernels.c.
 *
 * isin sorts a contiguous copy of the test values once (in the computation's dtype, NaNs last) and
 * binary-searches every element: O((n + m) log m) whatever the sizes, where torch picks between
 * comparing with every test value and a sort of both by a size threshold; the results are the
 * same (a value is in the set when it equals one of the test values, so NaN never is). equal
 * runs the iterator with no output: the loops raise one flag where two elements differ.
 */
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "cpu_stub.h"
#include "elementwise_more.h"
#include "iter.h"
#include "native.h"
#include "pt_ops.h"
#include "pt_ops_internal.h"

PT_CPU_STUB_DECLARE(elementwise_more);

static const pt_ew_table *table(void) { return PT_CPU_KERNELS(elementwise_more, pt_ew_table); }

/* ---------------------------------------------------------------- isclose */

pt_status pt_kernel_isclose(const pt_tensor *self, const pt_tensor *other, double rtol,
                            double atol, int32_t equal_nan, pt_tensor **ret)
{
    PT_TRY(pt_binary_check("isclose", PT_BINARY_FUNCTIONAL, self, other, NULL, ret));
    if (self->dtype != other->dtype)
        return PT_ERROR(PT_ERR_RUNTIME, "%s did not match %s", pt_iter_type_name(self->dtype),
                        pt_iter_type_name(other->dtype));
    if (!(rtol >= 0))
        return PT_ERROR(PT_ERR_RUNTIME, "rtol must be greater than or equal to zero, but got %g",
                        rtol);
    if (!(atol >= 0))
        return PT_ERROR(PT_ERR_RUNTIME, "atol must be greater than or equal to zero, but got %g",
                        atol);
    pt_loop_fn fn = table()->isclose[pt_opmath_dtype(self->dtype)];
    if (!fn) return pt_binary_unsupported("isclose", self->dtype);
    pt_iter it;
    PT_TRY(pt_binary_build(&it, "isclose", 0, self->dtype, PT_BOOL, PT_BINARY_FUNCTIONAL, self,
                           other, NULL));
    pt_ew_isclose_params p = {rtol, atol, equal_nan != 0};
    pt_iter_run(&it, fn, &p);
    return pt_iter_finish(&it, ret);
}

/* ---------------------------------------------------------------- equal */

pt_status pt_kernel_equal(const pt_tensor *self, const pt_tensor *other, int32_t *ret)
{
    if (!ret) return PT_ERROR(PT_ERR_VALUE, "equal: out must not be NULL");
    PT_TRY(pt_iter_check_operand(self, "equal", "self"));
    PT_TRY(pt_iter_check_operand(other, "equal", "other"));
    if (self->ndim != other->ndim ||
        memcmp(self->sizes, other->sizes, sizeof(int64_t) * (size_t)self->ndim) != 0) {
        *ret = 0;
        return PT_OK;
    }
    pt_iter it;
    pt_iter_init(&it, "equal", PT_ITER_PROMOTE);
    pt_iter_add_input(&it, self, "self");
    pt_iter_add_input(&it, other, "other");
    PT_TRY(pt_iter_build(&it));
    pt_loop_fn fn = table()->differ[pt_opmath_dtype(it.common)];
    if (!fn) {
        pt_iter_cleanup(&it);
        return pt_binary_unsupported("equal", it.common);
    }
    pt_loop_flag differ = 0;
    pt_iter_run(&it, fn, &differ);
    pt_iter_cleanup(&it);
    *ret = differ == 0;
    return PT_OK;
}

/* ---------------------------------------------------------------- isin */

/* Ascending, NaNs last (a NaN compares after every number and equal to another NaN). */
#define ORDER(SUF, T)                                                                              \
    static int order_##SUF(const void *pa, const void *pb)                                         \
    {                                                                                              \
        const T a = *(const T *)pa, b = *(const T *)pb;                                            \
        if (a != a || b != b) return (a != a) - (b != b);                                          \
        return (a > b) - (a < b);                                                                  \
    }
ORDER(u8, uint8_t)
ORDER(i8, int8_t)
ORDER(i16, int16_t)
ORDER(i32, int32_t)
ORDER(i64, int64_t)
ORDER(f4, float)
ORDER(f8, double)

static int (*order_of(int32_t dtype))(const void *, const void *)
{
    switch (dtype) {
    case PT_UINT8: return order_u8;
    case PT_INT8: return order_i8;
    case PT_INT16: return order_i16;
    case PT_INT32: return order_i32;
    case PT_INT64: return order_i64;
    case PT_FLOAT32: return order_f4;
    case PT_FLOAT64: return order_f8;
    default: return NULL;
    }
}

static const char *cpp_type_name(int32_t dtype)
{
    /* torch names the C++ type in this message: "float", "long int" */
    switch (dtype) {
    case PT_BOOL: return "bool";
    case PT_UINT8: return "unsigned char";
    case PT_INT8: return "signed char";
    case PT_INT16: return "short int";
    case PT_INT32: return "int";
    case PT_INT64: return "long int";
    case PT_FLOAT16: return "c10::Half";
    case PT_BFLOAT16: return "c10::BFloat16";
    case PT_FLOAT32: return "float";
    case PT_FLOAT64: return "double";
    case PT_COMPLEX64: return "c10::complex<float>";
    case PT_COMPLEX128: return "c10::complex<double>";
    default: return "unknown";
    }
}

static pt_status isin_dtype_check(const pt_tensor *t)
{
    if (t->dtype == PT_BOOL || pt_is_complex(t->dtype))
        return PT_ERROR(PT_ERR_RUNTIME, "Unsupported input type encountered for isin(): %s",
                        pt_iter_type_name(t->dtype));
    return PT_OK;
}

static pt_status isin_run(const pt_tensor *elements, const pt_tensor *test, int32_t invert,
                          pt_tensor *out_arg, pt_tensor **ret)
{
    const int mode = out_arg ? PT_BINARY_OUT : PT_BINARY_FUNCTIONAL;
    if (!ret) return PT_ERROR(PT_ERR_VALUE, "isin: out must not be NULL");
    PT_TRY(pt_iter_check_operand(elements, "isin", "elements"));
    PT_TRY(pt_iter_check_operand(test, "isin", "test_elements"));
    if (out_arg) PT_TRY(pt_iter_check_operand(out_arg, "isin", "out"));
    PT_TRY(isin_dtype_check(elements));
    PT_TRY(isin_dtype_check(test));
    if (out_arg && out_arg->dtype != PT_BOOL)
        return PT_ERROR(PT_ERR_RUNTIME,
                        "Expected out tensor to have dtype bool, but got %s instead",
                        cpp_type_name(out_arg->dtype));
    int32_t common;
    PT_TRY(pt_binary_result_type(elements, test, &common));
    const int32_t loop = pt_opmath_dtype(common);
    pt_iter it;
    PT_TRY(pt_binary_build(&it, "isin", 0, common, PT_BOOL, mode, elements, NULL, out_arg));
    pt_tensor *values = NULL;
    if (it.device_type == PT_DEV_CPU && it.numel > 0) {
        if (test->device.type != PT_DEV_CPU) {
            pt_iter_cleanup(&it);
            return PT_ERROR(PT_ERR_RUNTIME,
                            "isin: test_elements must be on the device of elements");
        }
        /* a contiguous copy of the test values in the loop dtype (rounded through the common
         * dtype first, as every input of the computation) */
        values = pt_call__to_copy(test, common, -1, NULL, -1, 0, PT_MEMORY_FORMAT_CONTIGUOUS);
        pt_tensor *widened = values && loop != common
                                 ? pt_call__to_copy(values, loop, -1, NULL, -1, 0,
                                                    PT_MEMORY_FORMAT_CONTIGUOUS)
                                 : NULL;
        if (widened) {
            pt_tensor_release(values);
            values = widened;
        }
        if (!values || (loop != common && !widened)) {
            pt_tensor_release(values);
            pt_iter_cleanup(&it);
            return pt_error_code() != PT_OK ? pt_error_code() : PT_ERR_RUNTIME;
        }
        qsort(pt_tensor_data(values), (size_t)values->numel, (size_t)pt_dtype_itemsize(loop),
              order_of(loop));
    }
    pt_ew_isin_params p = {values ? pt_tensor_data(values) : NULL, values ? values->numel : 0,
                           invert != 0};
    pt_iter_run(&it, table()->isin[loop], &p);
    pt_tensor_release(values);
    return pt_iter_finish(&it, ret);
}

pt_status pt_kernel_isin_Tensor_Tensor(const pt_tensor *elements, const pt_tensor *test_elements,
                                       int32_t assume_unique, int32_t invert, pt_tensor **ret)
{
    PT_UNUSED(assume_unique); /* the result is the same either way */
    return isin_run(elements, test_elements, invert, NULL, ret);
}

pt_status pt_kernel_isin_Tensor_Tensor_out(const pt_tensor *elements,
                                           const pt_tensor *test_elements, int32_t assume_unique,
                                           int32_t invert, pt_tensor *out, pt_tensor **ret)
{
    PT_UNUSED(assume_unique);
    return isin_run(elements, test_elements, invert, out, ret);
}

static pt_status isin_scalar(const pt_tensor *elements, const pt_scalar *element,
                             const pt_tensor *test_elements, const pt_scalar *test_element,
                             int32_t invert, pt_tensor *out, pt_tensor **ret)
{
    pt_tensor *w = NULL;
    PT_TRY(pt_native_wrapped_number("isin", element ? "element" : "test_element",
                                    element ? element : test_element, &w));
    const pt_status st = element ? isin_run(w, test_elements, invert, out, ret)
                                 : isin_run(elements, w, invert, out, ret);
    pt_tensor_release(w);
    return st;
}

pt_status pt_kernel_isin_Tensor_Scalar(const pt_tensor *elements, const pt_scalar *test_element,
                                       int32_t assume_unique, int32_t invert, pt_tensor **ret)
{
    PT_UNUSED(assume_unique);
    return isin_scalar(elements, NULL, NULL, test_element, invert, NULL, ret);
}

pt_status pt_kernel_isin_Tensor_Scalar_out(const pt_tensor *elements, const pt_scalar *test_element,
                                           int32_t assume_unique, int32_t invert, pt_tensor *out,
                                           pt_tensor **ret)
{
    PT_UNUSED(assume_unique);
    return isin_scalar(elements, NULL, NULL, test_element, invert, out, ret);
}

pt_status pt_kernel_isin_Scalar_Tensor(const pt_scalar *element, const pt_tensor *test_elements,
                                       int32_t assume_unique, int32_t invert, pt_tensor **ret)
{
    PT_UNUSED(assume_unique);
    return isin_scalar(NULL, element, test_elements, NULL, invert, NULL, ret);
}

pt_status pt_kernel_isin_Scalar_Tensor_out(const pt_scalar *element, const pt_tensor *test_elements,
                                           int32_t assume_unique, int32_t invert, pt_tensor *out,
                                           pt_tensor **ret)
{
    PT_UNUSED(assume_unique);
    return isin_scalar(NULL, element, test_elements, NULL, invert, out, ret);
}
