"""`rt.compat.v1`: TensorFlow 1's API (graphs run by sessions, placeholders, estimators,
collections, `tf1.train.Saver`) is not provided. Importing this module works, so that a
TensorFlow 2 program importing it beside `tf` ports; using any of its names raises
`AttributeError` pointing at the TensorFlow 2 way. The few names TensorFlow 2 programs still
use from it work: `logging` (levels, `set_verbosity`, `get_verbosity`, the log functions, over
the runtime's Python logger), `enable_eager_execution` and `enable_v2_behavior` (nothing to
do), `executing_eagerly` and `set_random_seed` (`rt.random.set_seed`)."""

from __future__ import annotations

import logging as _logging
import types as _types
from typing import Any, NoReturn

from ..arguments import strict_keywords as _strict_keywords
from ..context import executing_eagerly
from ..ops.random import set_seed as set_random_seed

_LOGGER = _logging.getLogger("runtime")


@_strict_keywords("compat.v1.logging.set_verbosity")
def _set_verbosity(v: int) -> None:
    """Sets the level of the runtime's loggers (`logging.ERROR` silences warnings)."""
    _LOGGER.setLevel(v)


def _get_verbosity() -> int:
    """The effective level of the runtime's loggers."""
    return _LOGGER.getEffectiveLevel()


#: `tf.compat.v1.logging`: levels and functions over the runtime's Python logger
logging = _types.SimpleNamespace(
    DEBUG=_logging.DEBUG, INFO=_logging.INFO, WARN=_logging.WARNING, ERROR=_logging.ERROR,
    FATAL=_logging.FATAL, set_verbosity=_set_verbosity, get_verbosity=_get_verbosity,
    debug=_LOGGER.debug, info=_LOGGER.info, warn=_LOGGER.warning, warning=_LOGGER.warning,
    error=_LOGGER.error, fatal=_LOGGER.critical, log=_LOGGER.log)


@_strict_keywords("compat.v1.enable_eager_execution")
def enable_eager_execution(config: Any = None, device_policy: Any = None,
                           execution_mode: Any = None) -> None:
    """Nothing to do: eager execution is always on, as in TensorFlow 2."""


def enable_v2_behavior() -> None:
    """Nothing to do: TensorFlow 2's behaviour is the only one."""

_HINTS = {
    "Session": "call the function (or an rt.function) directly, eagerly",
    "placeholder": "pass values as arguments of an rt.function (input_signature= for specs)",
    "estimator": "use rt.keras models with compile/fit, or a custom training loop",
    "train": "use rt.train.Checkpoint / CheckpointManager and rt.keras.optimizers",
    "get_variable": "create an rt.Variable (or a layer's add_weight)",
    "global_variables_initializer": "variables are initialised when they are made",
}


def __getattr__(name: str) -> NoReturn:
    if name.startswith("__"):
        raise AttributeError(name)
    hint = _HINTS.get(name, "use its TensorFlow 2 counterpart under rt (see "
                            "docs/tensorflow-users.md)")
    raise AttributeError(f"rt.compat.v1.{name}: TensorFlow 1's API (sessions, placeholders, "
                         f"estimators, graph collections) is not provided here; {hint}.")


__all__ = ["enable_eager_execution", "enable_v2_behavior", "executing_eagerly", "logging",
           "set_random_seed"]
