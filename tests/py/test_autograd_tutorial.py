"""PyTorch's "Learning PyTorch with examples" autograd steps, run line by line with pytensor as
torch: the two-layer network trained with autograd, the polynomial fit, and the custom Function
(Legendre P3). Losses are compared with torch's step by step where torch is installed, and with
a NumPy run of the same manual gradients otherwise."""
import math
import os
import sys

import numpy as np
import pytest

import pytensor
from _torch_oracle import requires_torch, torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples"))


def _two_layer(L, steps, x0, y0, w1_0, w2_0):
    x, y = L.tensor(x0), L.tensor(y0)
    w1 = L.tensor(w1_0, requires_grad=True)
    w2 = L.tensor(w2_0, requires_grad=True)
    learning_rate = 1e-6
    losses = []
    for _ in range(steps):
        y_pred = x.mm(w1).clamp(min=0).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with L.no_grad():
            w1 -= learning_rate * w1.grad
            w2 -= learning_rate * w2.grad
            w1.grad.zero_()
            w2.grad.zero_()
    return np.array(losses), w1.detach().numpy(), w2.detach().numpy()


def _two_layer_numpy(steps, x, y, w1, w2):
    w1, w2 = w1.copy(), w2.copy()
    losses = []
    for _ in range(steps):
        h = x @ w1
        h_relu = np.maximum(h, 0)
        y_pred = h_relu @ w2
        losses.append(((y_pred - y) ** 2).sum())
        grad_y_pred = 2.0 * (y_pred - y)
        grad_w2 = h_relu.T @ grad_y_pred
        grad_h = (grad_y_pred @ w2.T) * (h > 0)
        grad_w1 = x.T @ grad_h
        w1 -= 1e-6 * grad_w1
        w2 -= 1e-6 * grad_w2
    return np.array(losses), w1, w2


def _data():
    rng = np.random.default_rng(0)
    n, d_in, h, d_out = 64, 1000, 100, 10
    return (rng.standard_normal((n, d_in)).astype(np.float32),
            rng.standard_normal((n, d_out)).astype(np.float32),
            rng.standard_normal((d_in, h)).astype(np.float32),
            rng.standard_normal((h, d_out)).astype(np.float32))


def test_two_layer_network_matches_numpy_manual_gradients():
    x, y, w1, w2 = _data()
    ours, ow1, ow2 = _two_layer(pytensor, 30, x, y, w1, w2)
    ref, rw1, rw2 = _two_layer_numpy(30, x.astype(np.float64), y.astype(np.float64),
                                     w1.astype(np.float64), w2.astype(np.float64))
    np.testing.assert_allclose(ours, ref, rtol=2e-3)
    np.testing.assert_allclose(ow1, rw1, rtol=1e-3, atol=1e-3)
    assert ours[-1] < ours[0] / 4


@requires_torch
def test_two_layer_network_matches_torch():
    x, y, w1, w2 = _data()
    ours = _two_layer(pytensor, 50, x, y, w1, w2)
    ref = _two_layer(torch, 50, x, y, w1, w2)
    np.testing.assert_allclose(ours[0], ref[0], rtol=1e-3)
    np.testing.assert_allclose(ours[1], ref[1], rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(ours[2], ref[2], rtol=1e-3, atol=1e-4)


def _poly(L, steps, init):
    x = L.linspace(-math.pi, math.pi, 2000, dtype=L.float32)
    y = L.sin(x)
    a, b, c, d = (L.tensor(v, dtype=L.float32, requires_grad=True) for v in init)
    for _ in range(steps):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with L.no_grad():
            for p in (a, b, c, d):
                p -= 1e-6 * p.grad
                p.grad = None
    return loss.item(), [p.item() for p in (a, b, c, d)]


def test_polynomial_fit_converges_toward_sin():
    loss, coeffs = _poly(pytensor, 2000, (0.1, -0.2, 0.3, -0.1))
    # the tutorial's fit ends near y = -0.01 + 0.84 x + 0.002 x^2 - 0.09 x^3
    assert loss < 50
    assert abs(coeffs[1] - 0.85) < 0.1 and abs(coeffs[3] + 0.092) < 0.02


@requires_torch
def test_polynomial_fit_matches_torch():
    ours = _poly(pytensor, 300, (0.1, -0.2, 0.3, -0.1))
    ref = _poly(torch, 300, (0.1, -0.2, 0.3, -0.1))
    np.testing.assert_allclose(ours[0], ref[0], rtol=1e-3)
    np.testing.assert_allclose(ours[1], ref[1], rtol=1e-3, atol=1e-5)


def test_custom_function_example_runs_and_decreases_the_loss():
    import autograd_polynomial
    losses, _ = autograd_polynomial.fit(300, use_function=True)
    assert losses[-1] < losses[0] / 3 and all(b <= a for a, b in zip(losses, losses[1:]))


@requires_torch
def test_custom_function_legendre_matches_torch():
    def run(L):
        class P3(L.autograd.Function):
            @staticmethod
            def forward(ctx, input):
                ctx.save_for_backward(input)
                return 0.5 * (5 * input ** 3 - 3 * input)

            @staticmethod
            def backward(ctx, grad_output):
                input, = ctx.saved_tensors
                return grad_output * 1.5 * (5 * input ** 2 - 1)

        x = L.linspace(-math.pi, math.pi, 2000, dtype=L.float32)
        y = L.sin(x)
        a, b, c, d = (L.tensor(v, requires_grad=True) for v in (0.0, -1.0, 0.0, 0.3))
        for _ in range(100):
            loss = (a + b * P3.apply(c + d * x) - y).pow(2).sum()
            loss.backward()
            with L.no_grad():
                for p in (a, b, c, d):
                    p -= 5e-6 * p.grad
                    p.grad = None
        return [p.item() for p in (a, b, c, d)]

    np.testing.assert_allclose(run(pytensor), run(torch), rtol=1e-3, atol=1e-6)
