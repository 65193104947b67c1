"""`rt.compat.v1`: TensorFlow 1's API (graphs run by sessions, placeholders, estimators,
collections, `tf1.train.Saver`) is not provided. Importing this module works, so that a
TensorFlow 2 program importing it beside `tf` ports; using any of its names raises
`AttributeError` pointing at the TensorFlow 2 way."""

from __future__ import annotations

from typing import NoReturn

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
