"""pytensor.fft against numpy.fft (every function, norms, n/s trimming and padding, sizes
that take each radix, the generic prime pass and Bluestein), dims in any order, non-contiguous
and conjugated inputs, threaded batches, dtype promotion and refusals, gradients (gradcheck in
float64 and torch's node names), and torch's results and messages where torch is installed."""
import math

import numpy as np
import pytest

import pytensor
from pytensor.autograd import gradcheck
from _torch_oracle import requires_torch, torch

F = pytensor.fft
NORMS = [None, "backward", "ortho", "forward"]
# one size per path: 1, radix 2, 3, 4, 5, generic primes (7, 17), mixed, Bluestein (97 and
# larger primes), a large power of two
SIZES = [1, 2, 3, 4, 5, 7, 12, 17, 60, 97, 1009, 4096, 10007]


def _np(t):
    return t.resolve_conj().numpy()


def _rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "c":
        a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    else:
        a = rng.standard_normal(shape)
    return a.astype(dtype)


def _tol(n, dtype):
    """torch's tolerances for FFTs: relative error growing with log n."""
    eps = 1e-6 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-14
    return eps * 4 * max(1.0, math.log2(max(n, 2)))


def _close(got, want, n, dtype):
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(np.abs(want).max(initial=0), 1e-30)
    err = np.abs(got.astype(np.complex128) - want).max(initial=0) / scale
    assert err <= _tol(n, dtype), f"relative error {err:.3g} at n={n}"


# ---------------------------------------------------------------- 1-D against numpy
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_fft_ifft_sizes(n, dtype):
    a = _rand((3, n), dtype)
    x = pytensor.from_numpy(a)
    _close(_np(F.fft(x)), np.fft.fft(a.astype(np.complex128)), n, dtype)
    _close(_np(F.ifft(x)), np.fft.ifft(a.astype(np.complex128)), n, dtype)
    assert F.fft(x).dtype == x.dtype


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_real_transforms_sizes(n, dtype):
    a = _rand((2, n), dtype)
    x = pytensor.from_numpy(a)
    a8 = a.astype(np.float64)
    _close(_np(F.rfft(x)), np.fft.rfft(a8), n, dtype)
    _close(_np(F.ihfft(x)), np.fft.ihfft(a8), n, dtype)
    _close(_np(F.fft(x)), np.fft.fft(a8), n, dtype)
    spec = np.fft.rfft(a8)
    s = pytensor.from_numpy(spec.astype(np.complex64 if dtype == np.float32 else np.complex128))
    _close(_np(F.irfft(s, n=n)), np.fft.irfft(spec, n=n), n, dtype)
    _close(_np(F.hfft(s, n=n)), np.fft.hfft(spec, n=n), n, dtype)
    want_dtype = pytensor.complex64 if dtype == np.float32 else pytensor.complex128
    assert F.rfft(x).dtype == want_dtype and F.irfft(s, n=n).dtype == x.dtype


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 1, 5, 8, 13, 20])
def test_one_dim_n_and_norm(name, norm, n):
    real_in = name in ("rfft", "ihfft")
    a = _rand((4, 9), np.float64 if real_in else np.complex128, seed=3)
    got = getattr(F, name)(pytensor.from_numpy(a), n=n, dim=0, norm=norm)
    want = getattr(np.fft, name)(a, n=n, axis=0, norm=norm)
    _close(_np(got), want, 20, np.float64)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, -3])
def test_one_dim_along_every_dim(dim):
    a = _rand((5, 6, 7), np.complex128, seed=4)
    x = pytensor.from_numpy(a)
    _close(_np(F.fft(x, dim=dim)), np.fft.fft(a, axis=dim), 7, np.float64)
    _close(_np(F.irfft(x, dim=dim)), np.fft.irfft(a, axis=dim), 12, np.float64)
    r = a.real.copy()
    _close(_np(F.rfft(pytensor.from_numpy(r), dim=dim)), np.fft.rfft(r, axis=dim), 7, np.float64)


# ---------------------------------------------------------------- n-D against numpy
ND_CASES = [
    (None, None), ((4, 6), None), (None, (0, 2)), ((3, 5), (2, 0)), ((-1, 9), (1, 2)),
    ((2, 3, 4), None), (None, (-1,)), ((8,), (1,)),
]


@pytest.mark.parametrize("s,dim", ND_CASES)
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_fftn_family(s, dim, norm):
    a = _rand((5, 6, 7), np.complex128, seed=5)
    r = a.real.copy()
    x, xr = pytensor.from_numpy(a), pytensor.from_numpy(r)
    axes = dim if dim is not None or s is None else tuple(range(3 - len(s), 3))
    ns = None if s is None else [v if v != -1 else a.shape[d] for v, d in zip(s, axes)]
    for name, src, srcn in [("fftn", x, a), ("ifftn", x, a), ("rfftn", xr, r),
                            ("irfftn", x, a)]:
        got = getattr(F, name)(src, s=s, dim=dim, norm=norm)
        want = getattr(np.fft, name)(srcn, s=ns, axes=axes, norm=norm)
        _close(_np(got), want, 210, np.float64)
    # numpy's hfftn / ihfftn: hfftn(x) = irfftn(conj(x)) scaled as a forward transform
    got = F.hfftn(x, s=s, dim=dim, norm=norm)
    inv = {None: "forward", "ortho": "ortho", "forward": "backward"}[norm]
    want = np.fft.irfftn(np.conj(a), s=ns, axes=axes, norm=inv)
    _close(_np(got), want, 210, np.float64)
    got = F.ihfftn(xr, s=s, dim=dim, norm=norm)
    want = np.conj(np.fft.rfftn(r, s=ns, axes=axes, norm=inv))
    _close(_np(got), want, 210, np.float64)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
def test_two_dim_forms(name):
    a = _rand((3, 6, 10), np.complex128 if name in ("fft2", "ifft2", "irfft2") else np.float64)
    got = getattr(F, name)(pytensor.from_numpy(a))
    _close(_np(got), getattr(np.fft, name)(a), 60, np.float64)
    got = getattr(F, name)(pytensor.from_numpy(a), s=(4, 7), dim=(0, 2), norm="ortho")
    _close(_np(got), getattr(np.fft, name)(a, s=(4, 7), axes=(0, 2), norm="ortho"), 60,
           np.float64)


def test_hfft2_ihfft2():
    a = _rand((4, 6), np.complex128, seed=6)
    got = F.hfft2(pytensor.from_numpy(a))
    _close(_np(got), np.fft.irfft2(np.conj(a), norm="forward"), 40, np.float64)
    r = a.real.copy()
    got = F.ihfft2(pytensor.from_numpy(r))
    _close(_np(got), np.conj(np.fft.rfft2(r, norm="forward")), 40, np.float64)


def test_three_dim_float32():
    a = _rand((6, 10, 12), np.complex64, seed=7)
    _close(_np(F.fftn(pytensor.from_numpy(a))), np.fft.fftn(a.astype(np.complex128)), 720,
           np.complex64)


# ---------------------------------------------------------------- layouts and threads
def test_non_contiguous_and_conjugated_inputs():
    a = _rand((8, 9), np.complex128, seed=8)
    x = pytensor.from_numpy(a)
    _close(_np(F.fft(x.t())), np.fft.fft(a.T), 8, np.float64)
    _close(_np(F.fft(x[:, ::2])), np.fft.fft(a[:, ::2]), 5, np.float64)
    _close(_np(F.fft(x.flip(1))), np.fft.fft(a[:, ::-1]), 9, np.float64)
    _close(_np(F.fft(x.conj())), np.fft.fft(np.conj(a)), 9, np.float64)
    _close(_np(F.irfft(x.conj(), dim=0)), np.fft.irfft(np.conj(a), axis=0), 14, np.float64)
    r = a.real.copy()
    xr = pytensor.from_numpy(r)
    _close(_np(F.rfft(xr.t())), np.fft.rfft(r.T), 8, np.float64)
    _close(_np(F.rfft(xr.flip(0), dim=0)), np.fft.rfft(r[::-1], axis=0), 8, np.float64)


@pytest.mark.parametrize("shape,dim", [((64, 1024), -1), ((1024, 64), 0), ((40, 7, 300), 1)])
def test_batches_large_enough_to_thread(threads, shape, dim):
    a = _rand(shape, np.float32, seed=9)
    x = pytensor.from_numpy(a)
    n = shape[dim]
    _close(_np(F.rfft(x, dim=dim)), np.fft.rfft(a.astype(np.float64), axis=dim), n, np.float32)
    c = _rand(shape, np.complex128, seed=10)
    _close(_np(F.fft(pytensor.from_numpy(c), dim=dim)), np.fft.fft(c, axis=dim), n, np.float64)


def test_large_power_of_two_and_large_prime():
    a = _rand((1 << 20,), np.complex64, seed=11)
    _close(_np(F.fft(pytensor.from_numpy(a))), np.fft.fft(a.astype(np.complex128)), 1 << 20,
           np.complex64)
    b = _rand((65537,), np.float64, seed=12)
    _close(_np(F.rfft(pytensor.from_numpy(b))), np.fft.rfft(b), 65537, np.float64)


def test_round_trips():
    for n in (1, 2, 9, 16, 31, 1000):
        a = _rand((3, n), np.float64, seed=n)
        x = pytensor.from_numpy(a)
        back = F.irfft(F.rfft(x), n=n)
        assert np.abs(_np(back) - a).max() < 1e-12
        back = F.ifft(F.fft(x))
        assert np.abs(_np(back) - a).max() < 1e-12


def test_empty_batch_and_zero_dim():
    x = pytensor.zeros(0, 8, dtype=pytensor.complex64)
    assert F.fft(x).shape == (0, 8)
    assert F.rfft(pytensor.zeros(0, 8)).shape == (0, 5)
    assert F.irfft(x).shape == (0, 14)
    s = F.fftn(pytensor.tensor(2.5))
    assert s.shape == () and s.dtype == pytensor.complex64 and s.item() == 2.5


# ---------------------------------------------------------------- dtypes
def test_integer_and_bool_inputs_promote_to_the_default_dtype():
    x = pytensor.tensor([1, 2, 3, 4])
    assert F.fft(x).dtype == pytensor.complex64
    assert F.rfft(x).dtype == pytensor.complex64
    assert F.irfft(x).dtype == pytensor.float32
    assert F.fft(pytensor.tensor([True, False])).dtype == pytensor.complex64
    _close(_np(F.fft(x)), np.fft.fft([1, 2, 3, 4]), 4, np.float32)
    saved = pytensor.get_default_dtype()
    pytensor.set_default_dtype(pytensor.float64)
    try:
        assert F.fft(x).dtype == pytensor.complex128
    finally:
        pytensor.set_default_dtype(saved)


@pytest.mark.parametrize("dtype,name", [(pytensor.float16, "Half"),
                                        (pytensor.bfloat16, "BFloat16")])
def test_half_inputs_are_refused(dtype, name):
    with pytest.raises(RuntimeError, match=f"Unsupported dtype {name}"):
        F.fft(pytensor.ones(4, dtype=dtype))
    with pytest.raises(RuntimeError, match=f"Unsupported dtype {name}"):
        F.rfft(pytensor.ones(4, dtype=dtype))


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("call,kind,msg", [
    (lambda: F.fft(pytensor.ones(4), n=0), RuntimeError,
     r"Invalid number of data points \(0\) specified"),
    (lambda: F.fft(pytensor.ones(0)), RuntimeError,
     r"Invalid number of data points \(0\) specified"),
    (lambda: F.irfft(pytensor.ones(1)), RuntimeError,
     r"Invalid number of data points \(0\) specified"),
    (lambda: F.fft(pytensor.ones(4), norm="bad"), RuntimeError,
     'Invalid normalization mode: "bad"'),
    (lambda: F.rfft(pytensor.ones(4, dtype=pytensor.complex64)), RuntimeError,
     "rfft expects a real input tensor, but got ComplexFloat"),
    (lambda: F.ihfft(pytensor.ones(4, dtype=pytensor.complex64)), RuntimeError,
     "ihfft expects a real input tensor, but got ComplexFloat"),
    (lambda: F.rfftn(pytensor.ones(4, dtype=pytensor.complex64)), RuntimeError,
     "rfftn expects a real-valued input tensor, but got ComplexFloat"),
    (lambda: F.fftn(pytensor.ones(4, 4), dim=(0, 0)), RuntimeError, "FFT dims must be unique"),
    (lambda: F.fftn(pytensor.ones(4, 4), s=(2, 2, 2)), RuntimeError,
     "Got shape with 3 values but input tensor only has 2 dimensions."),
    (lambda: F.fftn(pytensor.ones(4, 4), s=(2,), dim=(0, 1)), RuntimeError,
     "When given, dim and shape arguments must have the same length"),
    (lambda: F.fft(pytensor.ones(4), dim=3), IndexError, "Dimension out of range"),
    (lambda: F.rfftn(pytensor.tensor(1.)), RuntimeError, "rfftn must transform at least one axis"),
    (lambda: F.irfftn(pytensor.tensor(1 + 0j)), RuntimeError,
     "irfftn must transform at least one axis"),
    (lambda: F.fftfreq(5, dtype=pytensor.int64), RuntimeError,
     "fftfreq requires a floating point or complex dtype"),
    (lambda: pytensor._fft_c2c(pytensor.ones(4), [0], 0, True), RuntimeError,
     "Only supports complex dtypes, but found: Float"),
    (lambda: pytensor._fft_r2c(pytensor.ones(4, dtype=pytensor.complex64), [0], 0, True),
     RuntimeError, "Only supports floating-point dtypes, but found: ComplexFloat"),
    (lambda: F.fft(pytensor.ones(4), out=pytensor.empty(4)), RuntimeError,
     "fft expects a complex output tensor, but got Float"),
])
def test_bad_input_messages(call, kind, msg):
    with pytest.raises(kind, match=msg):
        call()


# ---------------------------------------------------------------- helpers and out=
def test_fftfreq_rfftfreq():
    for n in (1, 2, 5, 8):
        for d in (1.0, 0.1):
            assert np.allclose(F.fftfreq(n, d).numpy(), np.fft.fftfreq(n, d), atol=1e-6)
            assert np.allclose(F.rfftfreq(n, d).numpy(), np.fft.rfftfreq(n, d), atol=1e-6)
    assert F.fftfreq(4, dtype=pytensor.float64).dtype == pytensor.float64
    out = pytensor.empty(0, dtype=pytensor.float64)
    assert F.fftfreq(6, 2.0, out=out) is out and np.allclose(out.numpy(), np.fft.fftfreq(6, 2.0))


def test_fftshift_ifftshift():
    a = np.arange(30).reshape(5, 6)
    x = pytensor.from_numpy(a)
    assert (F.fftshift(x).numpy() == np.fft.fftshift(a)).all()
    assert (F.ifftshift(x).numpy() == np.fft.ifftshift(a)).all()
    assert (F.fftshift(x, dim=1).numpy() == np.fft.fftshift(a, axes=1)).all()
    assert (F.ifftshift(x, dim=(-2,)).numpy() == np.fft.ifftshift(a, axes=(-2,))).all()


def test_out_forms():
    a = _rand((3, 8), np.complex128, seed=13)
    x = pytensor.from_numpy(a)
    out = pytensor.empty(0, dtype=pytensor.complex128)
    assert F.fft(x, out=out) is out
    _close(_np(out), np.fft.fft(a), 8, np.float64)
    out = pytensor.empty(0, dtype=pytensor.float64)
    assert F.irfftn(x, out=out) is out
    _close(_np(out), np.fft.irfftn(a), 24, np.float64)
    out = pytensor.empty(0, dtype=pytensor.complex64)
    r = pytensor._fft_r2c(pytensor.from_numpy(a.real.astype(np.float32)), [1], 2, True, out=out)
    assert r is out
    _close(_np(out), np.fft.rfft(a.real, norm="forward"), 8, np.float32)


# ---------------------------------------------------------------- gradients
GRAD_CASES = [
    ("fft_real", lambda a: F.fft(a), False, "FftR2CBackward0"),
    ("fft", lambda a: F.fft(a), True, "FftC2CBackward0"),
    ("fft_padded", lambda a: F.fft(a, n=9, norm="ortho"), True, "FftC2CBackward0"),
    ("ifft_real", lambda a: F.ifft(a), False, "ConjBackward0"),
    ("rfft", lambda a: F.rfft(a), False, "FftR2CBackward0"),
    ("rfft_odd", lambda a: F.rfft(a, n=5, norm="forward"), False, "FftR2CBackward0"),
    ("irfft", lambda a: F.irfft(a), True, "FftC2RBackward0"),
    ("irfft_odd", lambda a: F.irfft(a, n=7), True, "FftC2RBackward0"),
    ("hfft", lambda a: F.hfft(a), True, "FftC2RBackward0"),
    ("ihfft", lambda a: F.ihfft(a), False, "ConjBackward0"),
    ("fft2", lambda a: F.fft2(a.reshape(2, 3)), True, "FftC2CBackward0"),
    ("rfftn", lambda a: F.rfftn(a.reshape(2, 3)), False, "FftR2CBackward0"),
    ("irfftn", lambda a: F.irfftn(a.reshape(2, 3), s=(2, 5)), True, "FftC2RBackward0"),
]


@pytest.mark.parametrize("name,fn,complex_in,node", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck(name, fn, complex_in, node):
    a = pytensor.from_numpy(_rand((6,), np.complex128 if complex_in else np.float64, seed=14))
    a.requires_grad_(True)
    y = fn(a)
    assert y.grad_fn.name() == node

    def real_out(t):
        r = fn(t)
        return pytensor.view_as_real(r.resolve_conj()) if r.is_complex() else r

    assert gradcheck(real_out, (a,))


# ---------------------------------------------------------------- torch
@requires_torch
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn",
                                  "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"])
@pytest.mark.parametrize("norm", NORMS)
def test_matches_torch(name, norm):
    real_in = name in ("rfft", "ihfft", "rfftn", "ihfftn")
    a = _rand((4, 6, 5), np.float64 if real_in else np.complex128, seed=15)
    got = getattr(F, name)(pytensor.from_numpy(a), norm=norm)
    want = getattr(torch.fft, name)(torch.from_numpy(a), norm=norm).resolve_conj()
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    _close(_np(got), want.numpy(), 120, np.float64)


@requires_torch
@pytest.mark.parametrize("name,fn,complex_in", [(c[0], c[1], c[2]) for c in GRAD_CASES])
def test_node_names_match_torch(name, fn, complex_in):
    a = _rand((6,), np.complex128 if complex_in else np.float64, seed=16)
    p = pytensor.from_numpy(a).requires_grad_(True)
    t = torch.from_numpy(a).requires_grad_(True)
    assert fn(p).grad_fn.name() == _torch_node(name, t)


def _torch_node(name, t):
    tf = torch.fft
    calls = {
        "fft_real": lambda: tf.fft(t), "fft": lambda: tf.fft(t),
        "fft_padded": lambda: tf.fft(t, n=9, norm="ortho"), "ifft_real": lambda: tf.ifft(t),
        "rfft": lambda: tf.rfft(t), "rfft_odd": lambda: tf.rfft(t, n=5, norm="forward"),
        "irfft": lambda: tf.irfft(t), "irfft_odd": lambda: tf.irfft(t, n=7),
        "hfft": lambda: tf.hfft(t), "ihfft": lambda: tf.ihfft(t),
        "fft2": lambda: tf.fft2(t.reshape(2, 3)), "rfftn": lambda: tf.rfftn(t.reshape(2, 3)),
        "irfftn": lambda: tf.irfftn(t.reshape(2, 3), s=(2, 5)),
    }
    return calls[name]().grad_fn.name()


@requires_torch
def test_error_messages_match_torch():
    cases = [
        lambda m: m.fft.fft(m.ones(4), n=0),
        lambda m: m.fft.fft(m.ones(4), norm="bad"),
        lambda m: m.fft.rfft(m.ones(4, dtype=m.complex64)),
        lambda m: m.fft.fftn(m.ones(4, 4), dim=(0, 0)),
        lambda m: m.fft.fftn(m.ones(4, 4), s=(2, 2, 2)),
        lambda m: m.fft.fft(m.ones(4, dtype=m.float16)),
        lambda m: m.fft.ihfftn(m.ones(3), dim=()),
        lambda m: m.fft.fftfreq(3, dtype=m.int32),
    ]
    for case in cases:
        with pytest.raises(Exception) as want:
            case(torch)
        with pytest.raises(type(want.value)) as got:
            case(pytensor)
        assert str(got.value).split("\n")[0] == str(want.value).split("\n")[0]


# ---------------------------------------------------------------- window functions
def _windows_numpy(name, L, periodic, *params):
    """The closed forms, from numpy (numpy's windows are the symmetric ones: a periodic window
    is the symmetric window of L + 1 points without its last)."""
    N = L + 1 if periodic else L
    if L == 0:
        return np.zeros(0)
    if L == 1:
        return np.ones(1)
    if name == "hann_window":
        w = np.hanning(N)
    elif name == "hamming_window":
        alpha, beta = (params + (0.54, 0.46)[len(params):]) if params else (0.54, 0.46)
        w = alpha - beta * np.cos(2 * np.pi * np.arange(N) / (N - 1))
    elif name == "blackman_window":
        w = np.blackman(N)
    elif name == "bartlett_window":
        w = np.bartlett(N)
    else:
        w = np.kaiser(N, params[0] if params else 12.0)
    return w[:L]


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])
@pytest.mark.parametrize("L", [0, 1, 2, 5, 16, 101])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_against_numpy(name, L, periodic):
    fn = getattr(pytensor, name)
    w = fn(L, periodic, dtype=pytensor.float64)
    assert w.dtype == pytensor.float64 and w.shape == (L,)
    assert np.allclose(w.numpy(), _windows_numpy(name, L, periodic), atol=1e-12)
    assert fn(L).dtype == pytensor.float32
    assert np.allclose(fn(L).numpy(), _windows_numpy(name, L, True), atol=1e-6)


def test_window_parameters_and_out():
    w = pytensor.hamming_window(9, False, 0.6, 0.3, dtype=pytensor.float64)
    assert np.allclose(w.numpy(), _windows_numpy("hamming_window", 9, False, 0.6, 0.3))
    w = pytensor.kaiser_window(9, False, 5.0, dtype=pytensor.float64)
    assert np.allclose(w.numpy(), np.kaiser(9, 5.0), atol=1e-12)
    out = pytensor.empty(0, dtype=pytensor.float64)
    assert pytensor.hann_window(6, out=out) is out
    assert np.allclose(out.numpy(), np.hanning(7)[:6])


def test_window_bad_input():
    with pytest.raises(RuntimeError, match="hann_window expects floating point dtypes"):
        pytensor.hann_window(5, dtype=pytensor.int64)
    with pytest.raises(RuntimeError, match="requires non-negative window_length, got "
                                           "window_length=-1"):
        pytensor.blackman_window(-1)


@requires_torch
@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])
def test_windows_match_torch(name):
    for L in (0, 1, 7, 64):
        for periodic in (True, False):
            got = getattr(pytensor, name)(L, periodic, dtype=pytensor.float64).numpy()
            want = getattr(torch, name)(L, periodic, dtype=torch.float64).numpy()
            assert np.allclose(got, want, atol=1e-12)


# ---------------------------------------------------------------- stft
def _stft_numpy(x, n_fft, hop, win, center, pad_mode, normalized, onesided):
    """The definition: frames of the (padded) signal times the window, transformed."""
    if center:
        p = n_fft // 2
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(p, p)], mode=pad_mode)
    left = (n_fft - len(win)) // 2
    w = np.zeros(n_fft, dtype=win.dtype)
    w[left:left + len(win)] = win
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., i * hop:i * hop + n_fft] * w for i in range(n_frames)], axis=-2)
    spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    if normalized:
        spec = spec / np.sqrt(n_fft)
    return np.swapaxes(spec, -1, -2)


@pytest.mark.parametrize("kw", [
    dict(), dict(center=False), dict(hop_length=5, win_length=12), dict(normalized=True),
    dict(onesided=False), dict(pad_mode="constant"), dict(win_length=9, center=False),
])
@pytest.mark.parametrize("batch", [False, True])
def test_stft_against_numpy(kw, batch):
    x = _rand((3, 120) if batch else (120,), np.float64, seed=20)
    n_fft = 16
    win_length = kw.get("win_length", n_fft)
    win = np.hanning(win_length + 1)[:-1]
    got = pytensor.stft(pytensor.from_numpy(x), n_fft, window=pytensor.from_numpy(win),
                        return_complex=True, **kw)
    want = _stft_numpy(x, n_fft, kw.get("hop_length", n_fft // 4), win, kw.get("center", True),
                       {"constant": "constant"}.get(kw.get("pad_mode"), "reflect"),
                       kw.get("normalized", False), kw.get("onesided", True))
    _close(_np(got), want, n_fft, np.float64)
    pair = pytensor.from_numpy(x).stft(n_fft, window=pytensor.from_numpy(win),
                                       return_complex=False, **kw)
    assert pair.shape == tuple(want.shape) + (2,)


def test_stft_complex_input_and_gradient():
    x = _rand((64,), np.complex128, seed=21)
    got = pytensor.stft(pytensor.from_numpy(x), 8)
    assert got.dtype == pytensor.complex128
    _close(_np(got), _stft_numpy(x, 8, 2, np.ones(8), True, "reflect", False, False), 8,
           np.float64)
    r = pytensor.from_numpy(_rand((40,), np.float64, seed=22)).requires_grad_(True)
    win = pytensor.hann_window(8, dtype=pytensor.float64)
    assert gradcheck(lambda t: pytensor.view_as_real(pytensor.stft(t, 8, window=win,
                                                                   return_complex=True)), (r,))


@pytest.mark.parametrize("call,msg", [
    (lambda x: pytensor.stft(x, 16), "stft requires the return_complex parameter be given"),
    (lambda x: pytensor.stft(x, 0, return_complex=True), "expected 0 < n_fft < 100"),
    (lambda x: pytensor.stft(x, 16, hop_length=0, return_complex=True),
     "expected hop_length > 0, but got hop_length=0"),
    (lambda x: pytensor.stft(x, 16, win_length=20, return_complex=True),
     "expected 0 < win_length <= n_fft, but got win_length=20"),
    (lambda x: pytensor.stft(x, 16, window=pytensor.ones(5), return_complex=True),
     "expected a 1D window tensor of size equal to win_length=16"),
    (lambda x: pytensor.stft(x, 16, onesided=True, return_complex=True,
                             window=pytensor.ones(16, dtype=pytensor.complex64)),
     "Cannot have onesided output if window or input is complex"),
])
def test_stft_bad_input(call, msg):
    with pytest.raises(RuntimeError, match=msg):
        call(pytensor.randn(100))


@requires_torch
def test_stft_matches_torch():
    x = _rand((2, 100), np.float64, seed=23)
    for kw in (dict(), dict(center=False, hop_length=3), dict(win_length=10, normalized=True),
               dict(onesided=False, pad_mode="replicate")):
        got = pytensor.stft(pytensor.from_numpy(x), 16, window=pytensor.hann_window(
            kw.get("win_length", 16), dtype=pytensor.float64), return_complex=True, **kw)
        want = torch.stft(torch.from_numpy(x), 16, window=torch.hann_window(
            kw.get("win_length", 16), dtype=torch.float64), return_complex=True, **kw)
        _close(_np(got), want.numpy(), 16, np.float64)


# ---------------------------------------------------------------- istft
@pytest.mark.parametrize("kw", [dict(), dict(hop_length=5, win_length=12), dict(normalized=True),
                                dict(onesided=False), dict(length=90), dict(length=100)])
@pytest.mark.parametrize("batch", [False, True])
def test_istft_inverts_stft(kw, batch):
    x = _rand((3, 100) if batch else (100,), np.float64, seed=24)
    win = pytensor.hann_window(kw.get("win_length", 16), dtype=pytensor.float64)
    skw = {k: v for k, v in kw.items() if k != "length"}
    spec = pytensor.stft(pytensor.from_numpy(x), 16, window=win, return_complex=True, **skw)
    y = pytensor.istft(spec, 16, window=win, **kw).numpy()
    n = kw.get("length", 100)
    want = np.zeros(x.shape[:-1] + (n,))
    want[..., :min(n, 100)] = x[..., :min(n, 100)]
    assert y.shape == want.shape and np.abs(y - want).max() < 1e-12


def test_istft_complex_and_method():
    x = _rand((64,), np.complex128, seed=25)
    spec = pytensor.stft(pytensor.from_numpy(x), 16, window=pytensor.hann_window(
        16, dtype=pytensor.float64))
    y = spec.istft(16, window=pytensor.hann_window(16, dtype=pytensor.float64),
                   return_complex=True)
    assert y.dtype == pytensor.complex128 and np.abs(_np(y) - x).max() < 1e-12


def test_istft_gradient():
    spec = pytensor.stft(pytensor.from_numpy(_rand((40,), np.float64, seed=26)), 8,
                         window=pytensor.hann_window(8, dtype=pytensor.float64),
                         return_complex=True).requires_grad_(True)
    win = pytensor.hann_window(8, dtype=pytensor.float64)
    assert gradcheck(lambda s: pytensor.istft(s, 8, window=win), (spec,))


def test_istft_bad_input():
    spec = pytensor.stft(pytensor.randn(100), 16, return_complex=True)
    with pytest.raises(RuntimeError, match="istft requires a complex-valued input tensor"):
        pytensor.istft(spec.real, 16)
    with pytest.raises(RuntimeError, match="expected the frequency dimension"):
        pytensor.istft(spec, 16, onesided=False)
    with pytest.raises(RuntimeError, match="Cannot have onesided output"):
        pytensor.istft(spec, 16, return_complex=True)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        pytensor.istft(spec, 16, window=pytensor.hann_window(16), center=False)


@requires_torch
def test_istft_matches_torch():
    x = _rand((2, 100), np.float64, seed=27)
    win = np.hanning(17)[:-1]
    spec = torch.stft(torch.from_numpy(x), 16, window=torch.from_numpy(win), return_complex=True)
    for kw in (dict(), dict(length=95), dict(normalized=False, length=120)):
        want = torch.istft(spec, 16, window=torch.from_numpy(win), **kw).numpy()
        got = pytensor.istft(pytensor.from_numpy(spec.numpy()), 16,
                             window=pytensor.from_numpy(win), **kw).numpy()
        assert got.shape == want.shape and np.abs(got - want).max() < 1e-12
