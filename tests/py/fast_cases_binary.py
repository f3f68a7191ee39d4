"""Thunk cases of the binary operators (tests/py/test_fast_paths.py reads CASES): fresh
arguments for the two calls, and the mode ("" or "inplace")."""
import pytensor


def _t(*shape, dtype=pytensor.float32, start=0):
    n = int(pytensor.Size(shape).numel())
    return (pytensor.arange(n, dtype=dtype) + start).reshape(shape)


def _i(*shape, start=1):
    return _t(*shape, dtype=pytensor.int32, start=start)


def _b(*shape):
    return _i(*shape, start=0) % 2 == 0


CASES = {
    "div_Tensor": (lambda: (_i(2, 3), _i(3)), ""),
    "div__Tensor": (lambda: (_t(2, 3), _t(3, start=1)), "inplace"),
    "divide_Tensor": (lambda: (_t(2, 3), _t(2, 1, start=2)), ""),
    "divide__Tensor": (lambda: (_t(2, 3), _t(3, start=1)), "inplace"),
    "true_divide_Tensor": (lambda: (_i(2, 3), _t(3, start=1)), ""),
    "true_divide__Tensor": (lambda: (_t(2, 3), _i(3)), "inplace"),
    "floor_divide": (lambda: (_i(2, 3, start=-3), _i(3)), ""),
    "floor_divide__Tensor": (lambda: (_t(2, 3, start=-3), _t(3, start=1)), "inplace"),
    "remainder_Tensor": (lambda: (_i(2, 3, start=-3), _i(3, start=-5)), ""),
    "remainder__Tensor": (lambda: (_t(2, 3, start=-3), _t(3, start=1)), "inplace"),
    "fmod_Tensor": (lambda: (_i(2, 3, start=-3), _i(3, start=-5)), ""),
    "fmod__Tensor": (lambda: (_t(2, 3, start=-3), _t(3, start=1)), "inplace"),
    "pow_Tensor_Tensor": (lambda: (_i(2, 3, start=-2), _i(3, start=0)), ""),
    "pow__Tensor": (lambda: (_t(2, 3), _t(3)), "inplace"),
    "maximum": (lambda: (_t(2, 3, start=-2), _t(3)), ""),
    "minimum": (lambda: (_i(2, 3, start=-2), _t(3)), ""),
    "atan2": (lambda: (_t(2, 3, start=-2), _i(3)), ""),
    "atan2_": (lambda: (_t(2, 3, start=-2), _t(3, start=-1)), "inplace"),
    "arctan2": (lambda: (_i(2, 3, start=-2), _i(3)), ""),
    "eq_Tensor": (lambda: (_t(2, 3), _t(3)), ""),
    "eq__Tensor": (lambda: (_t(2, 3), _t(3)), "inplace"),
    "ne_Tensor": (lambda: (_i(2, 3), _t(3)), ""),
    "ne__Tensor": (lambda: (_i(2, 3), _i(3)), "inplace"),
    "lt_Tensor": (lambda: (_t(2, 3), _t(3, start=2)), ""),
    "lt__Tensor": (lambda: (_t(2, 3), _t(3, start=2)), "inplace"),
    "le_Tensor": (lambda: (_i(2, 3), _i(3, start=2)), ""),
    "le__Tensor": (lambda: (_i(2, 3), _i(3, start=2)), "inplace"),
    "gt_Tensor": (lambda: (_t(2, 3), _i(3, start=2)), ""),
    "gt__Tensor": (lambda: (_t(2, 3), _t(3, start=2)), "inplace"),
    "ge_Tensor": (lambda: (_t(2, 3), _t(3, start=2)), ""),
    "ge__Tensor": (lambda: (_i(2, 3), _i(3, start=2)), "inplace"),
    "logical_and": (lambda: (_i(2, 3, start=-2), _t(3)), ""),
    "logical_and_": (lambda: (_t(2, 3, start=-2), _b(3)), "inplace"),
    "logical_or": (lambda: (_b(2, 3), _b(3)), ""),
    "logical_or_": (lambda: (_i(2, 3, start=-2), _i(3)), "inplace"),
    "logical_xor": (lambda: (_b(2, 3), _t(3)), ""),
    "logical_xor_": (lambda: (_b(2, 3), _b(3)), "inplace"),
    "bitwise_and_Tensor": (lambda: (_i(2, 3, start=-2), _i(3, start=5)), ""),
    "bitwise_and__Tensor": (lambda: (_b(2, 3), _b(3)), "inplace"),
    "bitwise_or_Tensor": (lambda: (_i(2, 3, start=-2), _i(3, start=5)), ""),
    "bitwise_or__Tensor": (lambda: (_i(2, 3, start=-2), _i(3, start=5)), "inplace"),
    "bitwise_xor_Tensor": (lambda: (_b(2, 3), _b(3)), ""),
    "bitwise_xor__Tensor": (lambda: (_i(2, 3, start=-2), _i(3, start=5)), "inplace"),
    "bitwise_not": (lambda: (_i(2, 3, start=-2),), ""),
    "bitwise_not_": (lambda: (_b(2, 3),), "inplace"),
    "bitwise_left_shift_Tensor": (lambda: (_i(2, 3, start=-2), _i(3, start=-1)), ""),
    "bitwise_left_shift__Tensor": (lambda: (_i(2, 3, start=-2), _i(3, start=30)), "inplace"),
    "bitwise_right_shift_Tensor": (lambda: (_i(2, 3, start=-2), _i(3, start=-1)), ""),
    "bitwise_right_shift__Tensor": (lambda: (_i(2, 3, start=-2), _i(3, start=30)), "inplace"),
}

# The Scalar overloads: reached through the overload chain when a number is given where the
# Tensor overload's numbers are not taken (the operator objects, and methods of their own).
for _name in ("add", "sub", "mul", "div", "divide", "true_divide", "floor_divide", "remainder",
              "fmod", "eq", "ne", "lt", "le", "gt", "ge"):
    CASES[f"{_name}_Scalar"] = (lambda: (_t(2, 3, start=-2), 2), "")
    CASES[f"{_name}__Scalar"] = (lambda: (_t(2, 3, start=-2), 1.5), "inplace")
for _name in ("and", "or", "xor"):
    CASES[f"bitwise_{_name}_Scalar"] = (lambda: (_i(2, 3, start=-2), 6), "")
    CASES[f"bitwise_{_name}__Scalar"] = (lambda: (_i(2, 3, start=-2), True), "inplace")
    CASES[f"bitwise_{_name}_Scalar_Tensor"] = (lambda: (5, _i(2, 3, start=-2)), "")
for _name in ("left_shift", "right_shift"):
    CASES[f"bitwise_{_name}_Tensor_Scalar"] = (lambda: (_i(2, 3, start=-2), 2), "")
    CASES[f"bitwise_{_name}__Tensor_Scalar"] = (lambda: (_i(2, 3, start=-2), 1), "inplace")
    CASES[f"bitwise_{_name}_Scalar_Tensor"] = (lambda: (64, _i(2, 3, start=0)), "")
CASES.update({
    "remainder_Scalar_Tensor": (lambda: (7, _i(2, 3, start=1)), ""),
    "pow_Tensor_Scalar": (lambda: (_t(2, 3, start=-2), 2), ""),
    "pow__Scalar": (lambda: (_t(2, 3, start=0), 0.5), "inplace"),
    "pow_Scalar": (lambda: (2, _i(2, 3, start=-1)), ""),
})
CASES.update({
    "rsub_Tensor": (lambda: (_t(2, 3, start=-2), _t(3, start=1)), ""),
    "rsub_Scalar": (lambda: (_t(2, 3, start=-2), 2), ""),
})
