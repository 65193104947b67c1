"""`Model.compile(jit_compile=...)`: checking the value and resolving Keras 3's "auto".

"auto" (the default, as in Keras 3) picks the tier docs/tiers.md recommends for the model's
layers when that tier's package is installed, and the NumPy tier otherwise. Measured today
(docs/tiers.md), that is the NumPy tier (False) for every model, as Keras 3 on TensorFlow's
CPU resolves "auto" to False:

- dense, attention and preprocessing layers: the NumPy tier's BLAS calls are as fast as
  the compiler tiers' on training batches (the training-step table), and its first call
  compiles nothing;
- convolutional layers: the Numba tier's native pools and convolutions train faster (a small
  CNN's step in 0.6x the NumPy tier's time), but its kernel takes seconds to a minute to
  compile in a worker process; "auto" leaves that to an explicit `jit_compile=True`;
- recurrent layers: a Keras RNN traces as one staged loop, and the Numba tier's kernel of
  that loop runs slower than the NumPy tier's step (an LSTM step about 1.5x its CPU time);
  the XLA tier, as fast as JAX on it, imports JAX and compiles before the first step and
  needs a known batch size, so it stays an explicit `jit_compile="xla"`.

A step function a picked compiler tier refuses (`JitCompileError` at its first call) runs on
the NumPy tier instead, and `model.jit_compile` then reports False: "auto" never fails where
the NumPy tier runs.
"""

from __future__ import annotations

import importlib.util
import warnings
from typing import Union

from .. import backends
from ..function.logs import logger, user_stacklevel

JitValue = Union[bool, str]

# the package each compiler tier needs (docs/tiers.md's "needs" column)
_PACKAGES = {"xla": "jax", "numba": "numba"}


def backend_installed(tier: str) -> bool:
    """Whether the package the compiler tier `tier` ("xla", "numba") needs is importable."""
    return importlib.util.find_spec(_PACKAGES[tier]) is not None


def check(value) -> None:
    """ValueError naming `value` unless it is "auto", None, a bool or a tier's name."""
    if isinstance(value, str) and value == "auto":
        return
    try:
        backends.resolve(value)
    except ValueError:
        raise ValueError(f"compile(jit_compile={value!r}): not a choice; give 'auto' (the "
                         f"default: the tier docs/tiers.md recommends for the model's "
                         f"layers), False or None (the NumPy tier), True or 'numba' (the "
                         f"Numba tier) or 'xla' (the XLA tier).") from None


def recommended_tier(model) -> JitValue:
    """The tier "auto" picks for `model`: the NumPy tier (False) for every kind of layer
    today (the module's docstring gives the measurements behind it)."""
    del model  # every layer family measures fastest on the NumPy tier
    return False


def resolve(model, value, run_eagerly: bool) -> JitValue | None:
    """The tier `compile` gives its step functions, as Keras 3 resolves it: "auto" is
    `recommended_tier` (False with `run_eagerly`); a compiler tier with `run_eagerly=True`
    warns and is dropped (False)."""
    check(value)
    if isinstance(value, str) and value == "auto":
        return False if run_eagerly else recommended_tier(model)
    if run_eagerly and value not in (None, False):
        warnings.warn(f"compile(jit_compile={value!r}) has no effect with run_eagerly=True: "
                      f"the steps run as plain Python; jit_compile is set to False.",
                      UserWarning, stacklevel=user_stacklevel())
        return False
    return value


def note_refused(tier: JitValue, error: Exception) -> None:
    """Logs (at INFO, on the `runtime.function` logger) that "auto"'s `tier` refused a step."""
    logger.info("compile(jit_compile='auto'): the %r tier refused a step function, which "
                "runs on the NumPy tier: %s", tier, str(error).splitlines()[0])
