"""Grad modes: no_grad, enable_grad, set_grad_enabled and inference_mode, each usable as a
context manager and as a decorator, as in torch.autograd.grad_mode. The state is thread-local
and lives in C (the autograd keys of the dispatcher's thread-local exclude set)."""
from __future__ import annotations

import functools
import inspect

from .._C import lib

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


def is_grad_enabled() -> bool:
    """Whether operations on this thread record history for autograd."""
    return bool(lib.pt_autograd_is_grad_enabled())


def is_inference_mode_enabled() -> bool:
    """Whether this thread is in inference mode (tensors made now are inference tensors)."""
    return bool(lib.pt_autograd_is_inference_mode_enabled())


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generator functions)."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise TypeError(f"{type(self).__name__} cannot decorate a class")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def generator(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as e:  # noqa: B036 - forwarded into the generator
                        with self.clone():
                            response = gen.throw(e)
                    else:
                        with self.clone():
                            try:
                                response = gen.send(request)
                            except StopIteration as stop:
                                return stop.value
            return generator

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return type(self)()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also decorates without parentheses (`@no_grad` as well as `@no_grad()`), as torch."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Turns gradient recording off inside the block (or the decorated function).

    >>> x = pytensor.ones(2, requires_grad=True)
    >>> with pytensor.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = is_grad_enabled()
        lib.pt_autograd_set_grad_enabled(0)

    def __exit__(self, *exc) -> None:
        lib.pt_autograd_set_grad_enabled(int(self.prev))


class enable_grad(_NoParamDecoratorContextManager):
    """Turns gradient recording on inside the block (under no_grad, for example)."""

    def __enter__(self) -> None:
        self.prev = is_grad_enabled()
        lib.pt_autograd_set_grad_enabled(1)

    def __exit__(self, *exc) -> None:
        lib.pt_autograd_set_grad_enabled(int(self.prev))


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode on or off: as a function call (takes effect at once), a context manager
    (restored on exit) or a decorator."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, not "
                            f"{type(mode).__name__}")
        self.prev = is_grad_enabled()
        self.mode = mode
        lib.pt_autograd_set_grad_enabled(int(mode))

    def __call__(self, func):
        lib.pt_autograd_set_grad_enabled(int(self.prev))
        return super().__call__(func)

    def __enter__(self) -> None:
        lib.pt_autograd_set_grad_enabled(int(self.mode))

    def __exit__(self, *exc) -> None:
        lib.pt_autograd_set_grad_enabled(int(self.prev))

    def clone(self):
        return set_grad_enabled(self.mode)


class inference_mode(_DecoratorContextManager):
    """Inference mode: no history is recorded (grad mode is off, the autograd layer is skipped)
    and the tensors made inside are inference tensors (`Tensor.is_inference()`), which carry no
    version counter and cannot take part in autograd later (saving one for backward, an in-place
    update or requires_grad_() outside inference mode raise). `inference_mode(False)` turns it
    off inside an outer one, and turns grad mode on. Thread-local; also a decorator, with or
    without parentheses.

    >>> with pytensor.inference_mode():
    ...     y = pytensor.ones(2) * 2
    >>> y.is_inference(), y.requires_grad
    (True, False)
    """

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):  # used as @inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self) -> None:
        self.prev = (bool(lib.pt_autograd_is_inference_mode_enabled()), is_grad_enabled())
        lib.pt_autograd_set_inference_mode(int(self.mode))

    def __exit__(self, *exc) -> None:
        inference, grad = self.prev
        lib.pt_autograd_set_inference_mode(int(inference))
        lib.pt_autograd_set_grad_enabled(int(grad))

    def clone(self):
        return inference_mode(self.mode)
