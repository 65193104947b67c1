"""`Model.compile(jit_compile=...)`: checking the value and resolving Keras 3's "auto".

"auto" (the default, as in Keras 3) picks, by the model's layers, the tier docs/tiers.md
recommends for them when that tier's package is installed, and the NumPy tier otherwise:

- a recurrent layer (`RNN`, `LSTM`, `GRU`, `SimpleRNN`, also inside `Bidirectional`): the
  Numba tier (True, needs Numba), whose steps run on the NumPy tier while the kernel
  compiles in the background (tiered execution, docs/jit.md), so no epoch waits for a
  compile. When every function waits for its kernel
  (`rt.config.experimental.set_jit_wait_for_compile(True)`), the NumPy tier: a recurrent
  step's kernel can take minutes to compile. The XLA tier, faster still on recurrent loops,
  compiles (and imports JAX) before the first step, so "auto" leaves it to an explicit
  `jit_compile="xla"`;
- every other model (dense, convolutional, attention, preprocessing layers): the NumPy tier
  (False), whose convolutions and BLAS calls are as fast as the compiler tiers' on training
  batches (docs/tiers.md's training-step table) and whose first call compiles nothing.

A step function the picked tier refuses (`JitCompileError` at its first call: strings, say)
runs on the NumPy tier instead, and `model.jit_compile` then reports False: "auto" never
fails where the NumPy tier runs.
"""

from __future__ import annotations

import importlib.util
import warnings
from typing import Union

from .. import backends
from ..backends import compile_options
from ..function.logs import logger, user_stacklevel
from .recurrent import RNN

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
    """The tier "auto" picks for `model`: True (the Numba tier) when it holds a recurrent
    layer, Numba is installed and compiles run in the background (functions do not wait for
    their kernels), else False (the NumPy tier)."""
    if (any(isinstance(layer, RNN) for layer in _all_layers(model))
            and backend_installed("numba") and not compile_options.get_jit_wait_for_compile()):
        return True
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


def _all_layers(model) -> list:
    """`model` and every layer below it (nested models and wrappers included)."""
    return [model] + list(getattr(model, "submodules", []))


def note_refused(tier: JitValue, error: Exception) -> None:
    """Logs (at INFO, on the `runtime.function` logger) that "auto"'s `tier` refused a step."""
    logger.info("compile(jit_compile='auto'): the %r tier refused a step function, which "
                "runs on the NumPy tier: %s", tier, str(error).splitlines()[0])
