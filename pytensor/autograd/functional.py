"""autograd.functional: vjp, jvp, jacobian and hessian of Python functions of tensors."""
from __future__ import annotations

__all__ = ["vjp", "jvp", "jacobian", "hessian"]


def _tensor_cls():
    from .._tensor import Tensor
    return Tensor


def _tuple(x):
    return ((x,), False) if isinstance(x, _tensor_cls()) else (tuple(x), True)


def _grad_inputs(inputs, create_graph):
    return tuple(x.detach().requires_grad_(True) if not create_graph or not x.requires_grad
                 else x.view_as(x) for x in inputs)


def _grads(outs, ins, grad_outputs, create_graph):
    import pytensor
    res = pytensor.autograd.grad(outs, ins, grad_outputs, create_graph=create_graph,
                                 retain_graph=True, allow_unused=True)
    return tuple(pytensor.zeros_like(x) if g is None else g for g, x in zip(res, ins))


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T J): the vector-Jacobian product at inputs."""
    import pytensor
    ins, tuple_in = _tuple(inputs)
    with pytensor.enable_grad():
        ins = _grad_inputs(ins, create_graph)
        outs_raw = func(*ins)
        outs, tuple_out = _tuple(outs_raw)
        if v is None:
            if any(o.numel() != 1 for o in outs):
                raise RuntimeError("The vector v can only be None if the user-provided function "
                                   "returns a single Tensor with a single element.")
            vs = None
        else:
            vs, _ = _tuple(v)
        grads = _grads(outs, ins, vs, create_graph)
    outs_d = tuple(o if create_graph else o.detach() for o in outs)
    grads = tuple(g if create_graph else g.detach() for g in grads)
    return (outs_d if tuple_out else outs_d[0]), (grads if tuple_in else grads[0])


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-vjp trick."""
    import pytensor
    ins, tuple_in = _tuple(inputs)
    with pytensor.enable_grad():
        ins = _grad_inputs(ins, create_graph)
        outs, tuple_out = _tuple(func(*ins))
        if v is None:
            if any(x.numel() != 1 for x in ins):
                raise RuntimeError("The vector v can only be None if the input to the "
                                   "user-provided function is a single Tensor with a single "
                                   "element.")
            vs = tuple(pytensor.ones_like(x) for x in ins)
        else:
            vs, _ = _tuple(v)
        us = tuple(pytensor.zeros_like(o).requires_grad_(True) for o in outs)
        g = _grads(outs, ins, us, True)
        jv = _grads(g, us, vs, create_graph)
    outs_d = tuple(o if create_graph else o.detach() for o in outs)
    jv = tuple(x if create_graph else x.detach() for x in jv)
    return (outs_d if tuple_out else outs_d[0]), (jv if tuple_out else jv[0])


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode"):
    """The Jacobian of func at inputs: for one input and one output a tensor of shape
    out.shape + in.shape; tuples of tuples otherwise."""
    import pytensor
    ins, tuple_in = _tuple(inputs)
    with pytensor.enable_grad():
        ins = _grad_inputs(ins, create_graph)
        outs, tuple_out = _tuple(func(*ins))
        rows = []
        for o in outs:
            per_in = [[] for _ in ins]
            flat = o.reshape(-1)
            for k in range(flat.numel()):
                gs = _grads((flat[k],), ins, None, create_graph)
                for j, g in enumerate(gs):
                    per_in[j].append(g if create_graph else g.detach())
            jac = []
            for j, x in enumerate(ins):
                if per_in[j]:
                    jac.append(pytensor.stack(per_in[j]).reshape(tuple(o.shape) + tuple(x.shape)))
                else:
                    jac.append(pytensor.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype))
            rows.append(tuple(jac) if tuple_in else jac[0])
    return tuple(rows) if tuple_out else rows[0]


def hessian(func, inputs, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar function at inputs."""
    ins, tuple_in = _tuple(inputs)

    def gradient(*args):
        import pytensor
        out = func(*args)
        if out.numel() != 1:
            raise RuntimeError("The function given to hessian should return a single element "
                               "Tensor")
        gs = _grads((out.reshape(()),), args, None, True)
        return gs if tuple_in else gs[0]

    return jacobian(gradient, inputs, create_graph=create_graph)
