"""Fitting y = sin(x) with a third-order polynomial by gradient descent, autograd computing the
gradients: the "Tensors and autograd" step of PyTorch's "Learning PyTorch with examples", run with
`import pytensor as torch`. A custom autograd Function (P3, the Legendre polynomial of degree 3)
is the tutorial's next step; both run here.

    python examples/autograd_polynomial.py [--steps 2000] [--function]
"""
import argparse
import importlib.util
import math
import os
import sys

# The source folder only when no pytensor is importable (a run from a development checkout): put
# first unconditionally, it would shadow an installed pytensor for every process started later
# (a spawned child starts from this sys.path).
if importlib.util.find_spec("pytensor") is None:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pytensor as torch  # noqa: E402


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


def fit(steps: int = 2000, use_function: bool = False, seed: int = 0):
    dtype = torch.float
    torch.manual_seed(seed)
    x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
    y = torch.sin(x)
    if use_function:
        a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
        b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
        c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
        d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
        learning_rate = 5e-6
    else:
        a = torch.randn((), dtype=dtype, requires_grad=True)
        b = torch.randn((), dtype=dtype, requires_grad=True)
        c = torch.randn((), dtype=dtype, requires_grad=True)
        d = torch.randn((), dtype=dtype, requires_grad=True)
        learning_rate = 1e-6
    losses = []
    for t in range(steps):
        if use_function:
            y_pred = a + b * LegendrePolynomial3.apply(c + d * x)
        else:
            y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= learning_rate * p.grad
                p.grad = None
    return losses, (a.item(), b.item(), c.item(), d.item())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--function", action="store_true", help="use the custom Function P3")
    args = p.parse_args()
    losses, (a, b, c, d) = fit(args.steps, args.function)
    for t in range(99, args.steps, 100):
        print(t, losses[t])
    if args.function:
        print(f"Result: y = {a} + {b} * P3({c} + {d} x)")
    else:
        print(f"Result: y = {a} + {b} x + {c} x^2 + {d} x^3")
    return 0


if __name__ == "__main__":
    sys.exit(main())
