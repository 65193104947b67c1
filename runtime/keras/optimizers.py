"""`keras.optimizers`: the runtime's optimizers, `schedules`, and `get`."""

from __future__ import annotations

from ..optimizers import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop, schedules

_BY_NAME = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop, "adagrad": Adagrad}


def get(identifier) -> Optimizer:
    """An optimizer from a name ("adam", "sgd", ...) with default settings, or as given."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(f"Unknown optimizer {identifier!r}; known names are {sorted(_BY_NAME)}.")


def serialize(optimizer: Optimizer) -> dict:
    """`{"class_name", "config"}` of an optimizer."""
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config: dict) -> Optimizer:
    """The optimizer described by `serialize`'s result."""
    classes = {cls.__name__: cls for cls in _BY_NAME.values()}
    if config.get("class_name") not in classes:
        raise ValueError(f"Unknown optimizer class {config.get('class_name')!r}.")
    return classes[config["class_name"]].from_config(config.get("config", {}))


__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Optimizer", "schedules", "get",
           "serialize", "deserialize"]
