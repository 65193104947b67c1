"""Keras 3's `LossScaleOptimizer` (`keras.optimizers` and `keras.mixed_precision`): dynamic
loss scaling around another optimizer, for float16 training."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from .. import context
from ..ops import array_composed, array_math
from ..ops.control_flow import cond
from ..ops.core import convert_to_tensor
from ..ops.variables import Variable
from .base import Optimizer

_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None,
                  "clipvalue": None, "use_ema": False, "ema_momentum": 0.99,
                  "ema_overwrite_frequency": None, "loss_scale_factor": None,
                  "gradient_accumulation_steps": None}


def _optimizer_classes() -> dict:
    found, todo = {}, [Optimizer]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            found.setdefault(sub.__name__, sub)
            todo.append(sub)
    return found


class LossScaleOptimizer(Optimizer):
    """Wraps `inner_optimizer`: `scale_loss(loss)` multiplies the loss by the dynamic scale
    (`initial_scale` at first) before differentiating (fit does it), and `apply_gradients`
    divides the gradients by it. When every gradient is finite the inner optimizer applies
    them, and after `dynamic_growth_steps` finite steps in a row the scale doubles; otherwise
    the step is skipped and the scale halves."""

    def __init__(self, inner_optimizer, initial_scale: float = 2.0 ** 15,
                 dynamic_growth_steps: int = 2000, name: str | None = None,
                 **kwargs: Any) -> None:
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, "
                             "simply set `loss_scale_factor` directly on the `inner_optimizer`.")
        for key, default in _BASE_DEFAULTS.items():
            if key in kwargs and kwargs.pop(key) != default:
                raise ValueError(f"LossScaleOptimizer does not support `{key}`. Instead, set "
                                 f"`{key}` on the `inner_optimizer`.")
        if kwargs:
            raise ValueError("LossScaleOptimizer does not support arguments: "
                             f"`{'`, `'.join(kwargs)}`.")
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError("LossScaleOptimizer: `inner_optimizer` must be an optimizer, got "
                            f"{inner_optimizer!r:.80}.")
        super().__init__(name or "loss_scale_optimizer", {"learning_rate": 0.0})
        self.inner_optimizer = inner_optimizer
        self.initial_scale, self.dynamic_growth_steps = initial_scale, dynamic_growth_steps
        self._counter: Variable | None = None
        self._scale: Variable | None = None

    def _own(self) -> tuple[Variable, Variable]:
        if self._counter is None:
            with context.init_scope():
                self._counter = Variable(np.int64(0), trainable=False,
                                         name=f"{self._name}/step_counter")
                self._scale = Variable(np.float32(self.initial_scale), trainable=False,
                                       name=f"{self._name}/dynamic_scale")
        return self._counter, self._scale

    @property
    def step_counter(self) -> Variable:
        return self._own()[0]

    @property
    def dynamic_scale(self) -> Variable:
        return self._own()[1]

    @property
    def variables(self) -> list[Variable]:
        own = [] if self._counter is None else [self._counter, self._scale]
        return own + self.inner_optimizer.variables

    @property
    def iterations(self) -> Variable:
        return self.inner_optimizer.iterations

    @property
    def learning_rate(self):
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        self.inner_optimizer.learning_rate = value

    def build(self, var_list: Iterable[Variable]) -> None:
        self._own()
        self.inner_optimizer.build(var_list)

    def scale_loss(self, loss):
        """`loss` times the current scale."""
        loss = convert_to_tensor(loss)
        scale = self.dynamic_scale.read_value()
        return array_math.multiply(loss, array_math.cast(scale, loss.dtype))

    def check_finite(self, grads) -> Any:
        """True when every element of every gradient is finite."""
        flags = [array_math.reduce_all(array_composed.is_finite(convert_to_tensor(g)))
                 for g in grads if g is not None]
        return array_math.reduce_all(array_math.stack(flags)) if flags else \
            convert_to_tensor(True)

    def apply_gradients(self, grads_and_vars: Iterable, name: str | None = None,
                        experimental_aggregate_gradients: bool = True):
        pairs = [(g, v) for g, v in grads_and_vars]
        counter, scale = self._own()
        for _, var in pairs:  # the inner optimizer's state exists before any branch runs
            self.inner_optimizer._slots_for(var)
        self.inner_optimizer.build([v for _, v in pairs])

        def finite():
            s = scale.read_value()
            unscaled = [(None if g is None else
                         array_math.divide(convert_to_tensor(g),
                                           array_math.cast(s, convert_to_tensor(g).dtype)), v)
                        for g, v in pairs]
            self.inner_optimizer.apply_gradients(
                unscaled, experimental_aggregate_gradients=experimental_aggregate_gradients)
            grow = array_math.equal(counter.read_value(), self.dynamic_growth_steps - 1)
            counter.assign(array_math.where(grow, np.int64(0),
                                            array_math.add(counter.read_value(), np.int64(1))))
            scale.assign(array_math.where(grow, array_math.multiply(s, 2.0), s))
            return convert_to_tensor(True)

        def skip():
            counter.assign(np.int64(0))
            scale.assign(array_math.multiply(scale.read_value(), 0.5))
            return convert_to_tensor(False)

        cond(self.check_finite([g for g, _ in pairs]), finite, skip)
        return self.iterations

    def finalize_variable_values(self, var_list) -> None:
        finalize = getattr(self.inner_optimizer, "finalize_variable_values", None)
        if finalize is not None:
            finalize(var_list)

    def get_config(self) -> dict:
        return {"name": self._name,
                "inner_optimizer": {"module": "keras.optimizers",
                                    "class_name": type(self.inner_optimizer).__name__,
                                    "config": self.inner_optimizer.get_config(),
                                    "registered_name": None},
                "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config: dict) -> "LossScaleOptimizer":
        config = dict(config)
        inner = config.pop("inner_optimizer")
        if isinstance(inner, dict):
            kind = _optimizer_classes().get(inner.get("class_name"))
            if kind is None:
                raise ValueError(f"LossScaleOptimizer.from_config: unknown optimizer class "
                                 f"{inner.get('class_name')!r}.")
            inner = kind.from_config(inner.get("config", {}))
        return cls(inner, **config)

    def __repr__(self) -> str:
        return f"<LossScaleOptimizer of {self.inner_optimizer!r}>"
