"""Recurrent layers: RNN (tanh/relu), LSTM (with projections), GRU and their cells, as torch's.

How a layer runs. For each layer and direction the input projection of every time step is one
matrix product (``x @ W_ih^T + b``, over the whole ``(steps * batch, input)`` block); the
recurrence then costs, per step, one ``addmm`` with ``W_hh`` and the few elementwise calls of
the cell. The ``b_hh`` bias is folded into the input projection where the cell allows it
(RNN, LSTM; not GRU, whose candidate gate multiplies ``h @ W_hn^T + b_hn`` by the reset gate).

Padded and packed input take the same path: a padded ``(T, B, *)`` batch is the packed layout
with ``batch_sizes = [B] * T``. At step ``t`` the first ``batch_sizes[t]`` rows of the state are
live; the forward direction sets finished rows aside as the batch shrinks (they are the final
state of those sequences), the reverse direction starts from the shortest batch and takes the
rows of ``h0`` in as sequences begin. Layer outputs of both directions are concatenated on the
feature dim; dropout applies to every layer's output but the last (in training).

>>> import pytensor
>>> from pytensor.nn import LSTM
>>> lstm = LSTM(4, 3, num_layers=2, bidirectional=True)
>>> out, (h, c) = lstm(pytensor.randn(5, 2, 4))
>>> tuple(out.shape), tuple(h.shape), tuple(c.shape)
((5, 2, 6), (4, 2, 3), (4, 2, 3))
"""

from __future__ import annotations

import math
import numbers
import warnings
import weakref
from typing import List, Optional, Tuple

import pytensor

from .. import functional as F
from .. import init
from ...autograd.function import Function
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

Tensor = pytensor.Tensor

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ---- one step of each cell: ``xp`` is the input projection of the live rows (with the biases
# the cell lets us fold), ``w_hh_t`` the transposed recurrent weight.

def _step_rnn(act, xp, h, c, w_hh_t, b_hh, w_hr_t):
    pre = pytensor.addmm(xp, h, w_hh_t)
    return (pre.tanh() if act == "RNN_TANH" else pre.relu()), None


def _step_lstm(xp, h, c, w_hh_t, b_hh, w_hr_t):
    gates = pytensor.addmm(xp, h, w_hh_t)
    H = c.shape[1]
    s = gates.sigmoid()
    i, f, o = s.narrow(1, 0, H), s.narrow(1, H, H), s.narrow(1, 3 * H, H)
    g = gates.narrow(1, 2 * H, H).tanh()
    c = f * c + i * g
    h = o * c.tanh()
    if w_hr_t is not None:
        h = h.mm(w_hr_t)
    return h, c


def _step_gru(xp, h, c, w_hh_t, b_hh, w_hr_t):
    gh = h.mm(w_hh_t) if b_hh is None else pytensor.addmm(b_hh, h, w_hh_t)
    H = h.shape[1]
    rz = (xp.narrow(1, 0, 2 * H) + gh.narrow(1, 0, 2 * H)).sigmoid()
    r, z = rz.narrow(1, 0, H), rz.narrow(1, H, H)
    n = (xp.narrow(1, 2 * H, H) + r * gh.narrow(1, 2 * H, H)).tanh()
    return n + z * (h - n), None


def _stepper(mode):
    if mode == "LSTM":
        return _step_lstm
    if mode == "GRU":
        return _step_gru
    return lambda *a: _step_rnn(mode, *a)


def _project(mode, x, w_ih, b_ih, b_hh):
    """The input projection of all rows at once, with the foldable biases."""
    if b_ih is None:
        return x.matmul(w_ih.t())
    bias = b_ih if mode == "GRU" else b_ih + b_hh
    return pytensor.addmm(bias, x, w_ih.t())


def _run_direction(step, xp, h, c, sizes, reverse, w_hh, b_hh, w_hr):
    """Runs one direction over packed projections ``xp``; returns (outputs, h_n, c_n)."""
    # one split, not a narrow per step: split's backward is one cat, where each narrow's
    # backward would write a full-size gradient of xp (measured 14x slower at T=64)
    xs = xp.split(sizes) if sizes else ()
    w_hh_t = w_hh.t().contiguous()  # a row-major right operand: the faster product
    w_hr_t = None if w_hr is None else w_hr.t()
    outs = []
    if not reverse:
        done_h, done_c = [], []
        cur = sizes[0] if sizes else h.shape[0]
        for bs, x_t in zip(sizes, xs):
            if bs < cur:
                done_h.append(h[bs:cur])
                h = h[:bs]
                if c is not None:
                    done_c.append(c[bs:cur])
                    c = c[:bs]
                cur = bs
            h, c = step(x_t, h, c, w_hh_t, b_hh, w_hr_t)
            outs.append(h)
        if done_h:
            h = pytensor.cat([h] + done_h[::-1])
            if c is not None:
                c = pytensor.cat([c] + done_c[::-1])
        return outs, h, c
    h0, c0 = h, c
    cur = sizes[-1] if sizes else h.shape[0]
    h = h0[:cur]
    c = None if c0 is None else c0[:cur]
    for bs, x_t in zip(reversed(sizes), reversed(xs)):
        if bs > cur:
            h = pytensor.cat([h, h0[cur:bs]])
            if c is not None:
                c = pytensor.cat([c, c0[cur:bs]])
            cur = bs
        h, c = step(x_t, h, c, w_hh_t, b_hh, w_hr_t)
        outs.append(h)
    outs.reverse()
    return outs, h, c


class _LSTMLayer(Function):
    """One direction of an LSTM layer over a padded batch (every step ``B`` rows), with a
    backward written for the whole sequence.

    Note [one product for the recurrent weight's gradient]: recorded step by step, autograd
    computes ``dW_hh`` as T products of inner size B (16 in the benchmark) and adds them into
    one buffer T times. This backward keeps the gate gradients of every step and the states
    they met, and takes ``dW_hh = dG^T @ H_prev`` as one product over all ``T * B`` rows, as
    cuDNN and oneDNN do; the input projection stays outside (autograd differentiates that one
    matrix product). Measured at T=128, B=16, H=256, one thread: the training step 1.15x
    (quiet machine) to 1.4x (loaded machine) faster than the step-by-step graph. Under create_graph the backward instead differentiates the step-by-step
    recurrence rebuilt from the saved inputs, so higher derivatives stay exact (and a later
    pass may come back to this node, so the activations live as long as the node does).
    """

    @staticmethod
    def forward(ctx, xp, h, c, w_hh, reverse):
        ctx.save_for_backward(xp, h, c, w_hh)
        H = c.shape[1]
        T = xp.shape[0] // h.shape[0] if h.shape[0] else 0
        w_t = w_hh.t().contiguous()  # a row-major right operand: the faster product
        steps = range(T - 1, -1, -1) if reverse else range(T)
        xs = xp.split(h.shape[0]) if T else ()
        outs, acts, hprev, cprev = [None] * T, [None] * T, [None] * T, [None] * T
        for t in steps:
            hprev[t], cprev[t] = h, c
            gates = pytensor.addmm(xs[t], h, w_t)
            sg = gates.sigmoid()
            g = gates.narrow(1, 2 * H, H).tanh()
            c = sg.narrow(1, H, H) * c + sg.narrow(1, 0, H) * g
            tc = c.tanh()
            h = sg.narrow(1, 3 * H, H) * tc
            outs[t] = h
            acts[t] = (sg, g, tc)
        ctx.state = (acts, hprev, cprev, reverse, H)
        out = pytensor.cat(outs) if T else xp.new_empty((0, H))
        return out, h, c

    @staticmethod
    def backward(ctx, dout, dh, dc):
        if pytensor.is_grad_enabled():
            return _LSTMLayer._backward_graph(ctx, dout, dh, dc)
        xp, _, _, w_hh = ctx.saved_tensors
        acts, hprev, cprev, reverse, H = ctx.state
        T = len(acts)
        B = dh.shape[0]
        douts = dout.split(B) if T else ()
        dgs = [None] * T
        for t in (range(T) if reverse else range(T - 1, -1, -1)):
            sg, g, tc = acts[t]
            i, f, o = sg.narrow(1, 0, H), sg.narrow(1, H, H), sg.narrow(1, 3 * H, H)
            dh = dh + douts[t]
            dc = dc + dh * o * (1 - tc * tc)
            # the gate gradients, written into the sigmoid's derivative by quarter (a cat
            # along dim 1 costs more than these four in-place calls)
            dpre = sg - sg * sg
            dpre.narrow(1, 0, H).mul_(dc * g)
            dpre.narrow(1, H, H).mul_(dc * cprev[t])
            dpre.narrow(1, 2 * H, H).copy_(dc * i * (1 - g * g))
            dpre.narrow(1, 3 * H, H).mul_(dh * tc)
            dc = dc * f
            dgs[t] = dpre
            dh = dpre.mm(w_hh)
        if not T:
            return None, dh, dc, pytensor.zeros_like(w_hh), None
        dG = pytensor.cat(dgs)
        return dG, dh, dc, dG.t().mm(pytensor.cat(hprev)), None

    @staticmethod
    def _backward_graph(ctx, dout, dh, dc):
        xp, h0, c0, w_hh = ctx.saved_tensors
        reverse, H = ctx.state[3], ctx.state[4]
        B = h0.shape[0]
        T = xp.shape[0] // B if B else 0
        inputs = (xp, h0, c0, w_hh)
        wanted = [k for k in range(4) if ctx.needs_input_grad[k]]
        outs, h, c = _run_direction(_step_lstm, xp, h0, c0, [B] * T, reverse, w_hh, None, None)
        out = pytensor.cat(outs) if outs else xp.new_empty((0, H))
        grads = pytensor.autograd.grad((out, h, c), [inputs[k] for k in wanted], (dout, dh, dc),
                                       create_graph=True, allow_unused=True)
        result = [None] * 5
        for k, g in zip(wanted, grads):
            result[k] = g
        return tuple(result)


def _fused_lstm_ok(mode, sizes, h, xp, w_hh, w_hr):
    """Whether the whole-sequence backward applies: an LSTM without projection over a padded
    batch, with a graph to record."""
    if mode != "LSTM" or w_hr is not None or not pytensor.is_grad_enabled():
        return False
    if any(bs != h.shape[0] for bs in sizes):
        return False
    return xp.requires_grad or h.requires_grad or w_hh.requires_grad


def _rnn_forward(mode, x, sizes, hx, cx, weights, has_bias, num_layers, dropout, training,
                 bidirectional, has_proj):
    """The stacked recurrence over packed rows ``x`` (``(sum(sizes), input)``); returns the
    packed output and the final ``h`` (and ``c``) stacked by layer and direction."""
    step = _stepper(mode)
    D = 2 if bidirectional else 1
    per = 2 + (2 if has_bias else 0) + (1 if has_proj else 0)
    hs, cs = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(D):
            ws = weights[(layer * D + d) * per:(layer * D + d + 1) * per]
            w_ih, w_hh = ws[0], ws[1]
            b_ih, b_hh = (ws[2], ws[3]) if has_bias else (None, None)
            w_hr = ws[-1] if has_proj else None
            xp = _project(mode, x, w_ih, b_ih, b_hh)
            k = layer * D + d
            if _fused_lstm_ok(mode, sizes, hx[k], xp, w_hh, w_hr):
                o, h, c = _LSTMLayer.apply(xp, hx[k], cx[k], w_hh, d == 1)
                outs.append(o)
            else:
                o, h, c = _run_direction(step, xp, hx[k], None if cx is None else cx[k],
                                         sizes, d == 1, w_hh,
                                         b_hh if mode == "GRU" else None, w_hr)
                outs.append(pytensor.cat(o) if o else xp.new_empty((0, hx.shape[2])))
            hs.append(h)
            cs.append(c)
        x = outs[0] if D == 1 else pytensor.cat(outs, 1)
        if dropout and training and layer < num_layers - 1:
            x = F.dropout(x, dropout, True)
    h_n = pytensor.stack(hs)
    c_n = pytensor.stack(cs) if cx is not None else None
    return x, h_n, c_n


class RNNBase(Module):
    """The base of RNN, LSTM and GRU: parameters ``weight_ih_l{k}{_reverse}``,
    ``weight_hh_l…``, ``bias_ih_l…``, ``bias_hh_l…`` (and ``weight_hr_l…`` with ``proj_size``),
    in torch's order, initialized uniform in ``(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None,
                 dtype=None) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weight_refs = []
        D = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                                f"{type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(D):
                layer_input = input_size if layer == 0 else real_hidden * D
                shapes = [("weight_ih_l{}{}", (gate_size, layer_input)),
                          ("weight_hh_l{}{}", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for fmt, shape in shapes:
                    name = fmt.format(layer, suffix)
                    setattr(self, name, Parameter(pytensor.empty(shape, **factory)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self) -> None:
        self._flat_weights = [getattr(self, n) if hasattr(self, n) else None
                              for n in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None
                                  for w in self._flat_weights]
        self.flatten_parameters()

    def __setattr__(self, attr, value) -> None:
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            self._flat_weights[self._flat_weights_names.index(attr)] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self) -> None:
        """Does nothing: the weights need no single flat buffer on the CPU (torch packs them for
        cuDNN)."""

    def _apply(self, fn, recurse=True):
        self._flat_weight_refs = []
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input: Tensor, batch_sizes: Optional[Tensor]) -> None:
        w_dtype = self._flat_weights[0].dtype
        if input.dtype != w_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w_dtype}). Convert input: input.to({w_dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input: Tensor,
                                 batch_sizes: Optional[Tensor]) -> Tuple[int, int, int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        D = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * D, mini_batch, size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: Tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def _weights_have_changed(self) -> bool:
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def check_forward_args(self, input: Tensor, hidden: Tensor,
                           batch_sizes: Optional[Tensor]) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation: Optional[Tensor]):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _update_flat_weights(self) -> None:
        if self._weights_have_changed():
            self._init_flat_weights()

    def __getstate__(self):
        self._update_flat_weights()
        state = self.__dict__.copy()
        state.pop("_flat_weight_refs", None)
        return state

    def __setstate__(self, d):
        self.__dict__.update(d)
        self._flat_weights = [getattr(self, n) if hasattr(self, n) else None
                              for n in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None
                                  for w in self._flat_weights]

    @property
    def all_weights(self) -> List[List[Parameter]]:
        return [[getattr(self, w) for w in ws] for ws in self._all_weights]

    # ---- the shared forward

    def _zeros(self, input, batch, size):
        D = 2 if self.bidirectional else 1
        return pytensor.zeros(self.num_layers * D, batch, size, dtype=input.dtype,
                              device=input.device)

    def _run(self, input, batch_sizes, hx, cx):
        """Runs the layers over checked input; returns (output, h_n, c_n)."""
        if batch_sizes is not None:
            sizes = [int(s) for s in batch_sizes.tolist()]
            x = input
        else:
            x = input.transpose(0, 1) if self.batch_first else input
            T, B = x.shape[0], x.shape[1]
            sizes = [B] * T
            x = x.reshape(T * B, x.shape[2])
        out, h, c = _rnn_forward(self.mode, x, sizes, hx, cx, self._flat_weights, self.bias,
                                 self.num_layers, self.dropout, self.training,
                                 self.bidirectional, self.proj_size > 0)
        if batch_sizes is None:
            out = out.view(T, B, out.shape[-1])
            if self.batch_first:
                out = out.transpose(0, 1)
        return out, h, c

    def _forward_single(self, input, hx):
        """RNN and GRU: one hidden tensor."""
        self._update_flat_weights()
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        packed = isinstance(input, PackedSequence)
        if packed:
            input, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                hx = self._zeros(input, int(batch_sizes[0]), self.hidden_size)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
            is_batched = True
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                if name == "RNN":
                    raise ValueError(f"RNN: Expected input to be 2D or 3D, got {input.dim()}D "
                                     f"tensor instead")
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                                 f"instead")
            is_batched = input.dim() == 3
            if not is_batched:
                input = input.unsqueeze(0 if self.batch_first else 1)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but "
                                           f"got {hx.dim()}-D tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                                   f"{hx.dim()}-D tensor")
            if hx is None:
                hx = self._zeros(input, input.size(0 if self.batch_first else 1),
                                 self.hidden_size)
        self.check_forward_args(input, hx, batch_sizes)
        out, h, _ = self._run(input, batch_sizes, hx, None)
        if packed:
            return (PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(h, unsorted_indices))
        if not is_batched:
            out = out.squeeze(0 if self.batch_first else 1)
            h = h.squeeze(1)
        return out, h


class RNN(RNNBase):
    """``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None)``:
    ``h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             f"or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single(input, hx)


class LSTM(RNNBase):
    """``LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, proj_size=0, device=None, dtype=None)``; gates in torch's order
    (input, forget, cell, output); with ``proj_size`` the hidden state is ``h W_hr^T``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor,
                               batch_sizes: Optional[Tensor]) -> Tuple[int, int, int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        D = 2 if self.bidirectional else 1
        return (self.num_layers * D, mini_batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: Tuple[Tensor, Tensor],
                           batch_sizes: Optional[Tensor]) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx=None):
        self._update_flat_weights()
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        packed = isinstance(input, PackedSequence)
        if packed:
            input, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is None:
                B = int(batch_sizes[0])
                hx = (self._zeros(input, B, real_hidden),
                      self._zeros(input, B, self.hidden_size))
            else:
                hx = self.permute_hidden(hx, sorted_indices)
            is_batched = True
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D "
                                 f"instead")
            is_batched = input.dim() == 3
            if not is_batched:
                input = input.unsqueeze(0 if self.batch_first else 1)
            if hx is None:
                B = input.size(0 if self.batch_first else 1)
                hx = (self._zeros(input, B, real_hidden),
                      self._zeros(input, B, self.hidden_size))
            else:
                dims = (hx[0].dim(), hx[1].dim())
                if is_batched and dims != (3, 3):
                    raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D "
                                       f"but got ({dims[0]}-D, {dims[1]}-D) tensors")
                if not is_batched:
                    if dims != (2, 2):
                        raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be "
                                           f"2-D but got ({dims[0]}-D, {dims[1]}-D) tensors")
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, batch_sizes)
        out, h, c = self._run(input, batch_sizes, hx[0], hx[1])
        if packed:
            return (PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden((h, c), unsorted_indices))
        if not is_batched:
            out = out.squeeze(0 if self.batch_first else 1)
            h, c = h.squeeze(1), c.squeeze(1)
        return out, (h, c)


class GRU(RNNBase):
    """``GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, device=None, dtype=None)``; gates in torch's order (reset, update,
    new)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_single(input, hx)


class RNNCellBase(Module):
    """The base of the cells: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        G = num_chunks * hidden_size
        self.weight_ih = Parameter(pytensor.empty((G, input_size), **factory))
        self.weight_hh = Parameter(pytensor.empty((G, hidden_size), **factory))
        if bias:
            self.bias_ih = Parameter(pytensor.empty(G, **factory))
            self.bias_hh = Parameter(pytensor.empty(G, **factory))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _check_cell(self, input, hs):
        if input.size(1) != self.weight_ih.size(1):
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {self.weight_ih.size(1)}")
        for k, h in enumerate(hs):
            if input.size(0) != h.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{k} "
                                   f"batch size {h.size(0)}")
            if h.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.size(1)}, "
                                   f"expected {self.hidden_size}")

    def _prepare(self, name, input, hx, n_state):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             f"instead")
        if hx is not None:
            for k, v in enumerate(hx if n_state == 2 else (hx,)):
                if v.dim() not in (1, 2):
                    what = f"hx[{k}]" if n_state == 2 else "hidden"
                    raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {v.dim()}D "
                                     f"instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = pytensor.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                                   device=input.device)
            hx = (zeros, zeros) if n_state == 2 else zeros
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if n_state == 2 else hx.unsqueeze(0)
        return input, hx, is_batched

    def _cell(self, mode, input, h, c):
        b_hh = self.bias_hh
        xp = _project(mode, input, self.weight_ih, self.bias_ih, b_hh)
        return _stepper(mode)(xp, h, c, self.weight_hh.t(),
                              b_hh if mode == "GRU" else None, None)


class RNNCell(RNNCellBase):
    """``RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh', device=None,
    dtype=None)``."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        input, hx, is_batched = self._prepare("RNNCell", input, hx, 1)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check_cell(input, (hx,))
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        h, _ = self._cell(mode, input, hx, None)
        return h if is_batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """``LSTMCell(input_size, hidden_size, bias=True, device=None, dtype=None)``; returns
    ``(h_1, c_1)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor,
                hx: Optional[Tuple[Tensor, Tensor]] = None) -> Tuple[Tensor, Tensor]:
        input, hx, is_batched = self._prepare("LSTMCell", input, hx, 2)
        self._check_cell(input, hx)
        h, c = self._cell("LSTM", input, hx[0], hx[1])
        if not is_batched:
            return h.squeeze(0), c.squeeze(0)
        return h, c


class GRUCell(RNNCellBase):
    """``GRUCell(input_size, hidden_size, bias=True, device=None, dtype=None)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        input, hx, is_batched = self._prepare("GRUCell", input, hx, 1)
        self._check_cell(input, (hx,))
        h, _ = self._cell("GRU", input, hx, None)
        return h if is_batched else h.squeeze(0)
