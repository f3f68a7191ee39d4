"""repr/str of tensors, in torch's format (torch/_tensor_str.py), so that printed output reads the
same in both libraries.

The values are read once into nested Python lists: the whole tensor through ``tolist()`` when it
is small, and only the edge items of each dimension (with an ellipsis marker between them) when it
has more elements than the threshold. A formatter then scans those values, as torch's does, to pick
integer mode (``1.``), fixed point (``1.5000``) or scientific mode (``1.0000e+08``) and the common
width, and the nested lists are joined with torch's line-wrapping and indentation rules.
"""

from __future__ import annotations

import math
from typing import Optional

from . import _dtype
from ._C import lib
from ._tensor import Tensor, _call

_ELLIPSIS = object()


class _PrinterOptions:
    precision = 4
    threshold: float = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode: Optional[bool] = None


PRINT_OPTS = _PrinterOptions()


def set_printoptions(precision: Optional[int] = None, threshold: Optional[float] = None,
                     edgeitems: Optional[int] = None, linewidth: Optional[int] = None,
                     profile: Optional[str] = None, sci_mode: Optional[bool] = None) -> None:
    """Sets the printing options, as torch.set_printoptions.

    >>> pytensor.set_printoptions(precision=2)
    >>> pytensor.set_printoptions(profile="default")
    """
    if profile is not None:
        presets = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
                   "full": (4, math.inf, 3, 80)}
        if profile not in presets:
            raise ValueError(
                f"profile: expected one of 'default', 'short', 'full', got {profile!r}"
            )
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems,
         PRINT_OPTS.linewidth) = presets[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    def __init__(self, values: list, floating: bool):
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        p = PRINT_OPTS.precision
        if not floating:
            for v in values:
                self.max_width = max(self.max_width, len(f"{v}"))
        else:
            nonzero_finite = [v for v in values if v != 0 and math.isfinite(v)]
            if not nonzero_finite:
                return
            abs_vals = [abs(v) for v in nonzero_finite]
            vmin, vmax = min(abs_vals), max(abs_vals)
            self.int_mode = all(v == math.ceil(v) for v in nonzero_finite)
            if PRINT_OPTS.sci_mode is None:
                self.sci_mode = vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4
            else:
                self.sci_mode = PRINT_OPTS.sci_mode
            if self.sci_mode:
                widths = (len(f"{v:.{p}e}") for v in nonzero_finite)
            elif self.int_mode:
                # int mode appends a "." to mark the floating dtype: count it in the width.
                widths = (len(f"{v:.0f}") + 1 for v in nonzero_finite)
            else:
                widths = (len(f"{v:.{p}f}") for v in nonzero_finite)
            self.max_width = max(self.max_width, max(widths))

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        p = PRINT_OPTS.precision
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{p}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _complex_str(value: complex, f1: _Formatter, f2: _Formatter) -> str:
    real_str = f1.format(value.real)
    imag_str = (f2.format(value.imag) + "j").lstrip()
    # A sign already present (negative numbers, -0.0) replaces the "+".
    if imag_str[0] in "+-":
        return real_str + imag_str
    return real_str + "+" + imag_str


def _value_str(value, f1: _Formatter, f2: Optional[_Formatter]) -> str:
    return f1.format(value) if f2 is None else _complex_str(value, f1, f2)


def _vector_str(values: list, indent: int, f1: _Formatter, f2: Optional[_Formatter]) -> str:
    element_length = f1.width() + 2
    if f2 is not None:
        element_length += f2.width() + 1
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_length)))
    if len(values) == 1 and values[0] is _ELLIPSIS:
        data = ["..."]
    else:
        data = [" ..." if v is _ELLIPSIS else _value_str(v, f1, f2) for v in values]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(values, ndim: int, indent: int, f1: _Formatter, f2: Optional[_Formatter]) -> str:
    if ndim == 0:
        return _value_str(values, f1, f2)
    if ndim == 1:
        return _vector_str(values, indent, f1, f2)
    slices = [
        "..." if v is _ELLIPSIS else _nested_str(v, ndim - 1, indent + 1, f1, f2) for v in values
    ]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized(t: Tensor, ndim: int):
    """Nested lists holding only the edge items of each dimension longer than 2 * edgeitems."""
    e = PRINT_OPTS.edgeitems
    h = t._h
    n = lib.pt_tensor_sizes(h)[0]
    if ndim == 1:
        if n <= 2 * e:
            return t.tolist()
        if e == 0:
            return [_ELLIPSIS]
        head = _call(lib.pt_tensor_slice, h, 0, 0, e, 1).tolist()
        tail = _call(lib.pt_tensor_slice, h, 0, n - e, n, 1).tolist()
        return head + [_ELLIPSIS] + tail
    rows = range(n) if n <= 2 * e else [*range(e), None, *range(n - e, n)]
    return [
        _ELLIPSIS if i is None else _summarized(_call(lib.pt_tensor_select, h, 0, i), ndim - 1)
        for i in rows
    ]


def _flat_values(values, ndim: int, out: list) -> list:
    if ndim == 0:
        out.append(values)
    elif ndim == 1:
        out.extend(v for v in values if v is not _ELLIPSIS)
    else:
        for v in values:
            if v is not _ELLIPSIS:
                _flat_values(v, ndim - 1, out)
    return out


def _tensor_str(t: Tensor, indent: int) -> str:
    h = t._h
    ndim = lib.pt_tensor_ndim(h)
    summarize = lib.pt_tensor_numel(h) > PRINT_OPTS.threshold
    values = _summarized(t, ndim) if summarize and ndim else t.tolist()
    flat = _flat_values(values, ndim, [])
    dt = t.dtype
    if dt.is_complex:
        f1 = _Formatter([v.real for v in flat], True)
        f2 = _Formatter([v.imag for v in flat], True)
        return _nested_str(values, ndim, indent, f1, f2)
    return _nested_str(values, ndim, indent, _Formatter(flat, dt.is_floating_point), None)


def _add_suffixes(tensor_str: str, suffixes: list, indent: int, force_newline: bool) -> str:
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _str(t: Tensor) -> str:
    from .autograd.grad_mode import no_grad
    with no_grad():
        return _str_body(t)


def _str_body(t: Tensor) -> str:
    # A Parameter prints as a tensor under its "Parameter containing:" line, as torch's does.
    plain = type(t) is Tensor or getattr(type(t), "_is_param", False)
    prefix = "tensor(" if plain else f"{type(t).__name__}("
    indent = len(prefix)
    suffixes = []
    h = t._h
    device_type = lib.pt_tensor_device(h).type
    if device_type != lib.PT_DEV_CPU:
        suffixes.append(f"device='{t.device}'")
    dt = t.dtype
    default = _dtype.get_default_dtype()
    has_default_dtype = dt in (default, _dtype._default_complex_dtype(), _dtype._dtypes_by_id[lib.PT_INT64],
                               _dtype._dtypes_by_id[lib.PT_BOOL])
    if device_type == lib.PT_DEV_META:
        suffixes.append(f"size={tuple(t.shape)}")
        if dt != default:
            suffixes.append(f"dtype={dt}")
        tensor_str = "..."
    elif lib.pt_tensor_numel(h) == 0:
        if lib.pt_tensor_ndim(h) != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if dt != default:
            suffixes.append(f"dtype={dt}")
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(t.shape)}")
        if not has_default_dtype:
            suffixes.append(f"dtype={dt}")
        tensor_str = _tensor_str(t, indent)
    if lib.pt_tensor_layout(h) != lib.PT_LAYOUT_STRIDED:
        suffixes.append(f"layout={t.layout}")
    grad_fn = t.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=t.is_sparse)
