"""``pytensor.optim.LBFGS``: limited-memory BFGS with an optional strong-Wolfe line search.

One parameter group only. The parameters are seen as one flat vector (their gradients
concatenated); the two-loop recursion builds the search direction from the last
``history_size`` curvature pairs; ``step(closure)`` runs up to ``max_iter`` iterations and
``max_eval`` closure calls. State keys and the arithmetic (0-dim tensors where torch keeps
them) are torch 2.13's, so a run follows torch's iterates.
"""

from __future__ import annotations

from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _f(x) -> float:
    return x.item() if isinstance(x, Tensor) else float(x)


def _cubic_min(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimizer of the cubic through (x1, f1, g1), (x2, f2, g2), clipped to bounds."""
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_sq = d1 ** 2 - g1 * g2
    if d2_sq < 0:
        return (lo + hi) / 2.0
    d2 = d2_sq ** 0.5
    if x1 <= x2:
        x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        x = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(x, lo), hi)


def _strong_wolfe(evaluate, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """Step t along d meeting the strong Wolfe conditions: (loss, flat grad, t, evaluations)."""
    d_norm = _f(d.abs().max())
    g = g.clone()
    f_new, g_new = evaluate(x, t, d)
    evals, it = 1, 0
    gtd_new = _f(g_new.dot(d))
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    bracket = None
    # bracketing phase
    while it < max_ls:
        wolfe = abs(gtd_new) <= -c2 * gtd
        armijo_fails = f_new > f + c1 * t * gtd or (it > 1 and f_new >= f_prev)
        if armijo_fails or (not wolfe and gtd_new >= 0):
            bracket = [t_prev, t]
            b_f, b_g, b_gtd = [f_prev, f_new], [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        if wolfe:
            bracket, b_f, b_g = [t], [f_new], [g_new]
            done = True
            break
        t_next = _cubic_min(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                            bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new.clone(), gtd_new
        t = t_next
        f_new, g_new = evaluate(x, t, d)
        evals += 1
        gtd_new = _f(g_new.dot(d))
        it += 1
    if it == max_ls:
        bracket, b_f, b_g = [0, t], [f, f_new], [g, g_new]
    # zoom phase
    stalled = False
    lo, hi = (0, 1) if b_f[0] <= b_f[-1] else (1, 0)
    while not done and it < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_min(bracket[0], b_f[0], b_gtd[0], bracket[1], b_f[1], b_gtd[1])
        top, bot = max(bracket), min(bracket)
        eps = 0.1 * (top - bot)
        if min(top - t, t - bot) < eps:
            if stalled or t >= top or t <= bot:
                t = top - eps if abs(t - top) < abs(t - bot) else bot + eps
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f_new, g_new = evaluate(x, t, d)
        evals += 1
        gtd_new = _f(g_new.dot(d))
        it += 1
        if f_new > f + c1 * t * gtd or f_new >= b_f[lo]:
            bracket[hi], b_f[hi], b_g[hi], b_gtd[hi] = t, f_new, g_new.clone(), gtd_new
            lo, hi = (0, 1) if b_f[0] <= b_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[hi] - bracket[lo]) >= 0:
                bracket[hi], b_f[hi], b_g[hi], b_gtd[hi] = (bracket[lo], b_f[lo], b_g[lo],
                                                            b_gtd[lo])
            bracket[lo], b_f[lo], b_g[lo], b_gtd[lo] = t, f_new, g_new.clone(), gtd_new
    return b_f[lo], b_g[lo], bracket[lo], evals


class LBFGS(Optimizer):
    """L-BFGS. ``step(closure)``: the closure re-evaluates the model and returns the loss."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change,
                                      history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _flat(self, p):
        import pytensor
        return pytensor.view_as_real(p) if p.is_complex() else p

    def _flat_grad(self):
        import pytensor
        views = []
        for p in self._params:
            g = p.grad
            if g is None:
                v = pytensor.zeros(p.numel(), dtype=p.dtype)
            else:
                v = g.reshape(-1)
            if v.is_complex():
                v = pytensor.view_as_real(v).reshape(-1)
            views.append(v)
        return pytensor.cat(views, 0)

    def _add_grad(self, step, update) -> None:
        at = 0
        for p in self._params:
            q = self._flat(p)
            n = q.numel()
            q.add_(update[at:at + n].view_as(q), alpha=_f(step))
            at += n

    def _evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure())
        g = self._flat_grad()
        for p, v in zip(self._params, x):
            p.copy_(v)
        return loss, g

    def step(self, closure):
        """Up to max_iter L-BFGS iterations; returns the closure's first loss."""
        from ..autograd.grad_mode import enable_grad, no_grad
        with no_grad():
            return self._step(enable_grad()(closure))

    def _step(self, closure):
        group = self.param_groups[0]
        lr = _f(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history = group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = closure()
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        g = self._flat_grad()
        if _f(g.abs().max()) <= tol_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_g, prev_loss = (state.get("H_diag"), state.get("prev_flat_grad"),
                                     state.get("prev_loss"))
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = g.neg()
                old_dirs, old_stps, ro, h_diag = [], [], [], 1
            else:
                y = g.sub(prev_g)
                s = d.mul(t)
                ys = y.dot(s)
                if _f(ys) > 1e-10:
                    if len(old_dirs) == history:
                        old_dirs.pop(0), old_stps.pop(0), ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                if "al" not in state:
                    state["al"] = [None] * history
                al = state["al"]
                q = g.neg()
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=-_f(al[i]))
                d = r = q * h_diag
                for i in range(len(old_dirs)):
                    be = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=_f(al[i] - be))
            if prev_g is None:
                prev_g = g.clone()
            else:
                prev_g.copy_(g)
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, _f(1.0 / g.abs().sum())) * lr
            else:
                t = lr
            gtd = _f(g.dot(d))
            if gtd > -tol_change:
                break
            ls_evals = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x0 = [p.clone() for p in self._params]
                loss, g, t, ls_evals = _strong_wolfe(
                    lambda x, tt, dd: self._evaluate(closure, x, tt, dd), x0, t, d, loss, g,
                    gtd, max_ls=max_eval - evals)
                self._add_grad(t, d)
                opt_cond = _f(g.abs().max()) <= tol_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(closure())
                    g = self._flat_grad()
                    opt_cond = _f(g.abs().max()) <= tol_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals
            if n_iter == max_iter or evals >= max_eval or opt_cond:
                break
            if _f(d.mul(t).abs().max()) <= tol_change or abs(loss - prev_loss) < tol_change:
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_g, prev_loss=prev_loss)
        return orig_loss
