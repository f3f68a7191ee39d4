"""gradcheck and gradgradcheck: analytical gradients (autograd) against finite differences, with
torch.autograd.gradcheck's defaults, tolerances and messages.

Complex numbers are checked as torch checks them: a complex output is checked twice, through its
real part and through its imaginary part (two real functions of the inputs), and for a complex
input z = x + iy the finite differences along x and along y make the conjugate Wirtinger
derivative ds/dx + i ds/dy of each real output s, which is the gradient autograd gives z for a
real grad_output (Note [conjugate Wirtinger gradients] in csrc/ops/derivatives.yaml)."""
from __future__ import annotations

import itertools
import warnings

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """A gradient that does not match its finite-difference estimate."""


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


def _as_tuple(x):
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _differentiable_outputs(outputs):
    return [o for o in outputs if isinstance(o, _tensor_cls()) and o.requires_grad]


def _indices(shape):
    return itertools.product(*[range(n) for n in shape]) if shape else [()]


def _numerical_jacobians(func, inputs, outputs, eps):
    """Per (output, input): a [numel(out), numel(in)] matrix of central differences (outputs are
    real); for a complex input, column k is ds/dx_k + i ds/dy_k."""
    import pytensor
    Tensor = _tensor_cls()
    jac = [[None] * len(inputs) for _ in outputs]

    def evaluate():
        with pytensor.no_grad():
            return [o.detach().to(pytensor.float64).reshape(-1).clone()
                    for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]

    def central(xd, idx, orig, step):
        xd[idx] = orig + step
        plus = evaluate()
        xd[idx] = orig - step
        minus = evaluate()
        xd[idx] = orig
        return [(p - m) / (2 * eps) for p, m in zip(plus, minus)]

    for j, x in enumerate(inputs):
        if not (isinstance(x, Tensor) and x.requires_grad):
            continue
        xd = x.data
        is_complex = x.is_complex()
        cols = []
        for idx in _indices(tuple(x.shape)):
            orig = xd[idx].item()
            ds_dx = central(xd, idx, orig, eps)
            if is_complex:
                ds_dy = central(xd, idx, orig, eps * 1j)
                ds_dx = [dx + dy * 1j for dx, dy in zip(ds_dx, ds_dy)]
            cols.append(ds_dx)
        dtype = pytensor.complex128 if is_complex else pytensor.float64
        for i in range(len(outputs)):
            n_out = outputs[i].numel()
            mat = pytensor.zeros(n_out, x.numel(), dtype=dtype)
            for c, col in enumerate(cols):
                if n_out:
                    mat[:, c] = col[i]
            jac[i][j] = mat
    return jac


def _jacobian_dtype(x):
    import pytensor
    return pytensor.complex128 if x.is_complex() else pytensor.float64


def _real_and_imag_output(func):
    """func with its complex outputs replaced by their real parts, and by their imaginary parts."""
    Tensor = _tensor_cls()

    def part(take):
        def wrapped(*inputs):
            return tuple(take(o) if isinstance(o, Tensor) and o.is_complex() else o
                         for o in _as_tuple(func(*inputs)))
        return wrapped
    return part(lambda o: o.real), part(lambda o: o.imag)


def _compare(func, inputs, outputs, eps, atol, rtol, raise_exception, complex_indices,
             test_imag):
    numerical = _numerical_jacobians(func, inputs, outputs, eps)
    analytical = _analytical_jacobians(inputs, outputs)
    for i in range(len(outputs)):
        for j in range(len(inputs)):
            a, n = analytical[i][j], numerical[i][j]
            if a is None or n is None:
                continue
            ok = ((a - n).abs() <= atol + rtol * n.abs()).all().item()
            if not ok:
                if not raise_exception:
                    return False
                prefix = ""
                if i in complex_indices:
                    part = "imaginary" if test_imag else "real"
                    prefix = f"While considering the {part} part of complex outputs only, "
                raise GradcheckError(f"{prefix}Jacobian mismatch for output {i} with respect to "
                                     f"input {j},\nnumerical:{n}\nanalytical:{a}\n")
    return True


def _analytical_jacobians(inputs, outputs):
    import pytensor
    Tensor = _tensor_cls()
    diff_inputs = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    jac = [[None] * len(inputs) for _ in outputs]
    for i, o in enumerate(outputs):
        n_out = o.numel()
        mats = {j: pytensor.zeros(n_out, x.numel(), dtype=_jacobian_dtype(x))
                for j, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad}
        for r in range(n_out):
            go = pytensor.zeros_like(o).reshape(-1)
            go[r] = 1
            go = go.reshape(o.shape)
            grads = pytensor.autograd.grad(o, diff_inputs, go, retain_graph=True,
                                           allow_unused=True)
            k = 0
            for j, x in enumerate(inputs):
                if not (isinstance(x, Tensor) and x.requires_grad):
                    continue
                g = grads[k]
                k += 1
                if g is not None:
                    if tuple(g.shape) != tuple(x.shape):
                        raise GradcheckError(f"Gradient has incorrect size for input {j}: "
                                             f"expected {tuple(x.shape)}, got {tuple(g.shape)}")
                    if g.dtype != x.dtype:
                        raise GradcheckError(f"Gradient has dtype mismatch for input {j}: "
                                             f"expected {x.dtype}, got {g.dtype}")
                    mats[j][r] = g.detach().to(_jacobian_dtype(x)).reshape(-1)
        for j, m in mats.items():
            jac[i][j] = m
    return jac


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked=None) -> bool:
    """Checks the gradients of func at inputs against central finite differences: every
    Jacobian entry must satisfy |analytical - numerical| <= atol + rtol * |numerical|."""
    Tensor = _tensor_cls()
    inputs = _as_tuple(inputs)
    if not any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    import pytensor
    for k, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad:
            if x.dtype not in (pytensor.float64, pytensor.complex128):
                warnings.warn(f"Input #{k} requires gradient and is not a double precision "
                              "floating point or complex. This check will likely fail if all the "
                              "inputs are not of double precision floating point or complex. ")
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    if not outputs:
        if raise_exception:
            raise GradcheckError("gradcheck: none of the outputs require grad; there is nothing "
                                 "to check")
        return False
    complex_indices = [i for i, o in enumerate(outputs) if o.is_complex()]
    if not complex_indices:
        return _compare(func, inputs, outputs, eps, atol, rtol, raise_exception, [], False)
    real_fn, imag_fn = _real_and_imag_output(func)
    for fn, test_imag in ((imag_fn, True), (real_fn, False)):
        outs = _differentiable_outputs(_as_tuple(fn(*inputs)))
        if not _compare(fn, inputs, outs, eps, atol, rtol, raise_exception, complex_indices,
                        test_imag):
            return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked=None) -> bool:
    """gradcheck of the first-order gradients (computed with create_graph=True), with respect
    to the inputs and to random grad_outputs."""
    import pytensor
    Tensor = _tensor_cls()
    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    if grad_outputs is None:
        gen = pytensor.Generator().manual_seed(0)
        grad_outputs = tuple(
            pytensor.randn(tuple(o.shape), dtype=o.dtype, generator=gen).requires_grad_()
            for o in outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_order(*args):
        ins, gos = args[:n_in], args[n_in:]
        with pytensor.enable_grad():
            outs = _differentiable_outputs(_as_tuple(func(*ins)))
            grads = pytensor.autograd.grad(outs, [ins[k] for k in diff], gos, create_graph=True,
                                           allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_order, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
