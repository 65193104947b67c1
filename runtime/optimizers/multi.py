"""Keras 3's `OptimizerMap` and `MultiOptimizer`: different optimizers for different
variables, chosen by the variable's path."""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Iterable

import numpy as np

from ..ops.variables import Variable
from .base import Optimizer
from .loss_scale import LossScaleOptimizer, _optimizer_classes


def _serialize(optimizer: Optimizer) -> dict:
    return {"module": "keras.optimizers", "class_name": type(optimizer).__name__,
            "config": optimizer.get_config(), "registered_name": None}


def _deserialize(config):
    if isinstance(config, Optimizer):
        return config
    kind = _optimizer_classes().get(config.get("class_name"))
    if kind is None:
        raise ValueError(f"Unknown optimizer class {config.get('class_name')!r}.")
    return kind.from_config(config.get("config", {}))


def _path(variable) -> str:
    return getattr(variable, "path", None) or variable.name.rsplit(":", 1)[0]


class OptimizerMap(MutableMapping):
    """A mapping from variable paths (or regular expressions matching whole paths) to
    optimizers, with `default_optimizer` for the variables no key matches; called with a
    variable it gives that variable's optimizer."""

    def __init__(self, default_optimizer, optimizer_map: dict | None = None) -> None:
        if not isinstance(default_optimizer, Optimizer):
            raise TypeError("default_optimizer must be a Keras Optimizer instance. Received: "
                            f"{default_optimizer}")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"optimizer_map must be a dictionary. Received: {optimizer_map}")
        self._default_optimizer = default_optimizer
        self._optimizer_map = dict(optimizer_map or {})

    @property
    def default_optimizer(self) -> Optimizer:
        return self._default_optimizer

    def __getitem__(self, key: str) -> Optimizer:
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matching = [p for p in self._optimizer_map if re.fullmatch(p, key)]
        if len(matching) > 1:
            raise ValueError(f"Multiple optimizers assigned to variable {key}.")
        return self._optimizer_map[matching[0]] if matching else self._default_optimizer

    def __setitem__(self, key: str, optimizer: Optimizer) -> None:
        if key in self._optimizer_map:
            raise ValueError(f"'{key}' already exists in the OptimizerMap with value "
                             f"{self._optimizer_map[key]}. Please make sure to not use "
                             "duplicated keys.")
        if not isinstance(key, str):
            raise ValueError(f"key must be a string. Received: {key}")
        if not isinstance(optimizer, Optimizer):
            raise ValueError(f"optimizer must be a Keras Optimizer instance. Received: "
                             f"{optimizer}")
        if isinstance(optimizer, (LossScaleOptimizer, MultiOptimizer)):
            raise ValueError(f"optimizer cannot be {type(optimizer).__name__}.")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key: str) -> None:
        del self._optimizer_map[key]

    def __len__(self) -> int:
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable) -> Optimizer:
        return self[_path(variable)]

    def get_config(self) -> dict:
        return {"default_optimizer": _serialize(self._default_optimizer),
                "optimizer_map": {k: _serialize(v) for k, v in self._optimizer_map.items()}}

    @classmethod
    def from_config(cls, config: dict) -> "OptimizerMap":
        return cls(_deserialize(config["default_optimizer"]),
                   {k: _deserialize(v) for k, v in (config.get("optimizer_map") or {}).items()})


class MultiOptimizer(Optimizer):
    """Applies each gradient with the optimizer `optimizer_map` gives its variable (an
    `OptimizerMap`, or any callable from a variable to an optimizer); its own `iterations`
    counts the steps. Its learning rate is the inner optimizers' own (reading or setting it
    here raises AttributeError, as Keras)."""

    def __init__(self, optimizer_map, loss_scale_factor=None, name: str | None = None) -> None:
        if loss_scale_factor is not None:
            raise NotImplementedError("MultiOptimizer(loss_scale_factor=...) is not offered; "
                                      "wrap the model's optimizer in a LossScaleOptimizer "
                                      "instead.")
        super().__init__(name, {"learning_rate": 0.0})
        self._optimizer_map = optimizer_map
        self.loss_scale_factor = None
        self._inner: list[Optimizer] = []
        for opt in (*getattr(optimizer_map, "values", lambda: ())(),
                    getattr(optimizer_map, "default_optimizer", None)):
            if opt is not None and opt not in self._inner:
                self._inner.append(opt)

    @property
    def optimizers(self) -> list[Optimizer]:
        return list(self._inner)

    @property
    def learning_rate(self):
        raise AttributeError("Learning rate cannot be accessed on a MultiOptimizer. Access the "
                             "learning rate on the individual sub-optimizers instead.")

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        raise AttributeError("Learning rate cannot be set on a MultiOptimizer. Set the learning "
                             "rate on the individual sub-optimizers instead.")

    @property
    def variables(self) -> list[Variable]:
        own = [] if self._iterations is None else [self._iterations]
        return own + [v for opt in self._inner for v in opt.variables]

    def _for(self, var) -> Optimizer:
        opt = self._optimizer_map(var)
        if not isinstance(opt, Optimizer):
            raise ValueError(f"Optimizer for variable {var} is not an Optimizer instance.")
        if isinstance(opt, (LossScaleOptimizer, MultiOptimizer)):
            raise ValueError(f"{type(opt).__name__} cannot be used inside an MultiOptimizer.")
        if opt not in self._inner:
            self._inner.append(opt)
        return opt

    def _grouped(self, items, variable=lambda item: item) -> list:
        """(optimizer, its items) for each inner optimizer that has items."""
        groups: dict[int, list] = {}
        for item in items:
            groups.setdefault(id(self._for(variable(item))), []).append(item)
        return [(opt, groups[id(opt)]) for opt in list(self._inner) if id(opt) in groups]

    def build(self, var_list: Iterable[Variable]) -> None:
        self.iterations  # noqa: B018 (created on first read)
        for opt, variables in self._grouped(var_list):
            opt.build(variables)

    def apply_gradients(self, grads_and_vars: Iterable, name: str | None = None,
                        experimental_aggregate_gradients: bool = True):
        iterations = self.iterations
        for opt, pairs in self._grouped(grads_and_vars, lambda pair: pair[1]):
            opt.apply_gradients(pairs,
                                experimental_aggregate_gradients=experimental_aggregate_gradients)
        iterations.assign_add(np.int64(1))
        return iterations

    def finalize_variable_values(self, var_list) -> None:
        for opt, variables in self._grouped(var_list):
            opt.finalize_variable_values(variables)

    def get_config(self) -> dict:
        optimizer_map = self._optimizer_map
        if isinstance(optimizer_map, OptimizerMap):
            optimizer_map = {"module": "keras.optimizers", "class_name": "OptimizerMap",
                             "config": optimizer_map.get_config(), "registered_name": None}
        return {"optimizer_map": optimizer_map, "loss_scale_factor": None, "name": self._name}

    @classmethod
    def from_config(cls, config: dict) -> "MultiOptimizer":
        config = dict(config)
        optimizer_map = config.pop("optimizer_map")
        if isinstance(optimizer_map, dict) and optimizer_map.get("class_name") == "OptimizerMap":
            optimizer_map = OptimizerMap.from_config(optimizer_map["config"])
        return cls(optimizer_map, **config)

    def __repr__(self) -> str:
        return f"<MultiOptimizer of {len(self._inner)} optimizers>"


__all__ = ["MultiOptimizer", "OptimizerMap"]
