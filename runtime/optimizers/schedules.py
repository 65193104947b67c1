"""Learning-rate schedules: callables `schedule(step) -> learning rate`, given to an
optimizer as its `learning_rate` (it calls them with its step counter at every step)."""

from __future__ import annotations

import math
from typing import Sequence

from ..arguments import strict_keywords
from ..ops import array_math
from ..ops.core import convert_to_tensor
from .numbers import positive_number, real_number


class LearningRateSchedule:
    """Base class: define `__call__(step)` and `get_config()`."""

    def __call__(self, step):
        raise NotImplementedError

    def get_config(self) -> dict:
        raise NotImplementedError

    @classmethod
    def from_config(cls, config: dict) -> "LearningRateSchedule":
        return cls(**config)


def _float_step(step):
    return array_math.cast(convert_to_tensor(step), "float32")


def _keras_name(schedule) -> str:
    """Keras 3's default schedule name: the class's (`PiecewiseConstant` for that one)."""
    name = type(schedule).__name__
    return "PiecewiseConstant" if name == "PiecewiseConstantDecay" else name


class ExponentialDecay(LearningRateSchedule):
    """`initial_learning_rate * decay_rate ** (step / decay_steps)` (the exponent floored
    with `staircase`)."""

    @strict_keywords()
    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float,
                 staircase: bool = False, name: str | None = None) -> None:
        owner = type(self).__name__
        self.initial_learning_rate = real_number(owner, "initial_learning_rate",
                                                 initial_learning_rate)
        self.decay_steps = positive_number(owner, "decay_steps", decay_steps)
        self.decay_rate = real_number(owner, "decay_rate", decay_rate)
        self.staircase = bool(staircase)
        self.name = name if name is not None else _keras_name(self)

    def __call__(self, step):
        exponent = array_math.divide(_float_step(step), float(self.decay_steps))
        if self.staircase:
            exponent = array_math.floor(exponent)
        return array_math.multiply(self.initial_learning_rate,
                                   array_math.pow(self.decay_rate, exponent))

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class InverseTimeDecay(ExponentialDecay):
    """`initial_learning_rate / (1 + decay_rate * step / decay_steps)`."""

    def __call__(self, step):
        ratio = array_math.divide(_float_step(step), float(self.decay_steps))
        if self.staircase:
            ratio = array_math.floor(ratio)
        return array_math.divide(self.initial_learning_rate,
                                 array_math.add(1.0, array_math.multiply(self.decay_rate, ratio)))


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[i]` for steps in (boundaries[i-1], boundaries[i]]."""

    @strict_keywords()
    def __init__(self, boundaries: Sequence[float], values: Sequence[float],
                 name: str | None = None) -> None:
        if len(values) != len(boundaries) + 1:
            raise ValueError("PiecewiseConstantDecay needs one more value than boundaries, got "
                             f"{len(boundaries)} boundaries and {len(values)} values.")
        self.boundaries = [real_number("PiecewiseConstantDecay", "boundaries", b)
                           for b in boundaries]
        self.values = [real_number("PiecewiseConstantDecay", "values", v) for v in values]
        self.name = name if name is not None else _keras_name(self)

    def __call__(self, step):
        step = _float_step(step)
        rate = convert_to_tensor(self.values[0], "float32")
        for boundary, low, high in zip(self.boundaries, self.values, self.values[1:]):
            past = array_math.cast(array_math.greater(step, float(boundary)), "float32")
            rate = array_math.add(rate, array_math.multiply(past, high - low))
        return rate

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class CosineDecay(LearningRateSchedule):
    """`initial * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps))
    + alpha)`."""

    @strict_keywords()
    def __init__(self, initial_learning_rate: float, decay_steps: int, alpha: float = 0.0,
                 name: str | None = None) -> None:
        self.initial_learning_rate = real_number("CosineDecay", "initial_learning_rate",
                                                 initial_learning_rate)
        self.decay_steps = positive_number("CosineDecay", "decay_steps", decay_steps)
        self.alpha = real_number("CosineDecay", "alpha", alpha)
        self.name = name if name is not None else _keras_name(self)

    def __call__(self, step):
        fraction = array_math.divide(array_math.minimum(_float_step(step), float(self.decay_steps)),
                                     float(self.decay_steps))
        cosine = array_math.multiply(0.5, array_math.add(1.0, array_math.cos(
            array_math.multiply(math.pi, fraction))))
        return array_math.multiply(self.initial_learning_rate,
                                   array_math.add(array_math.multiply(1.0 - self.alpha, cosine),
                                                  self.alpha))

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """`(initial - end) * (1 - min(step, decay_steps) / decay_steps) ** power + end`; with
    `cycle`, decay_steps grows to the next multiple of itself past the step instead of the
    step stopping at it."""

    @strict_keywords()
    def __init__(self, initial_learning_rate: float, decay_steps: int,
                 end_learning_rate: float = 0.0001, power: float = 1.0, cycle: bool = False,
                 name: str = "PolynomialDecay") -> None:
        self.initial_learning_rate = real_number("PolynomialDecay", "initial_learning_rate",
                                                 initial_learning_rate)
        self.decay_steps = positive_number("PolynomialDecay", "decay_steps", decay_steps)
        self.end_learning_rate = real_number("PolynomialDecay", "end_learning_rate",
                                             end_learning_rate)
        self.power = real_number("PolynomialDecay", "power", power)
        self.cycle = bool(cycle)
        self.name = name

    def __call__(self, step):
        step = _float_step(step)
        steps = float(self.decay_steps)
        if self.cycle:  # a multiple of decay_steps at or past the step (1 at step 0)
            multiple = array_math.ceil(array_math.divide(step, steps))
            steps = array_math.multiply(steps, array_math.maximum(multiple, 1.0))
        else:
            step = array_math.minimum(step, steps)
        left = array_math.subtract(1.0, array_math.divide(step, steps))
        return array_math.add(array_math.multiply(
            self.initial_learning_rate - self.end_learning_rate,
            array_math.pow(left, self.power)), self.end_learning_rate)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): the first period lasts `first_decay_steps`,
    each next one `t_mul` times longer and starting `m_mul` times lower; within a period
    the rate falls from its start to `alpha` times the initial rate along a half cosine."""

    @strict_keywords()
    def __init__(self, initial_learning_rate: float, first_decay_steps: int,
                 t_mul: float = 2.0, m_mul: float = 1.0, alpha: float = 0.0,
                 name: str = "SGDRDecay") -> None:
        owner = "CosineDecayRestarts"
        self.initial_learning_rate = real_number(owner, "initial_learning_rate",
                                                 initial_learning_rate)
        self.first_decay_steps = positive_number(owner, "first_decay_steps", first_decay_steps)
        self.t_mul = real_number(owner, "t_mul", t_mul)
        self.m_mul = real_number(owner, "m_mul", m_mul)
        self.alpha = real_number(owner, "alpha", alpha)
        self.name = name

    def __call__(self, step):
        fraction = array_math.divide(_float_step(step), float(self.first_decay_steps))
        if self.t_mul == 1.0:
            restart = array_math.floor(fraction)
            fraction = array_math.subtract(fraction, restart)
        else:  # the period `restart` and the fraction of it done
            restart = array_math.floor(array_math.divide(
                array_math.log(array_math.subtract(1.0, array_math.multiply(
                    fraction, 1.0 - self.t_mul))), math.log(self.t_mul)))
            period = array_math.pow(self.t_mul, restart)
            before = array_math.divide(array_math.subtract(1.0, period), 1.0 - self.t_mul)
            fraction = array_math.divide(array_math.subtract(fraction, before), period)
        cosine = array_math.multiply(
            array_math.multiply(0.5, array_math.pow(self.m_mul, restart)),
            array_math.add(1.0, array_math.cos(array_math.multiply(math.pi, fraction))))
        return array_math.multiply(self.initial_learning_rate, array_math.add(
            array_math.multiply(1.0 - self.alpha, cosine), self.alpha))

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self.t_mul,
                "m_mul": self.m_mul, "alpha": self.alpha, "name": self.name}


def serialize(learning_rate_schedule: LearningRateSchedule) -> dict:
    """Keras 3's config of a schedule: module, class_name, config, registered_name."""
    if not isinstance(learning_rate_schedule, LearningRateSchedule):
        raise TypeError(f"serialize takes a LearningRateSchedule, got "
                        f"{type(learning_rate_schedule).__name__}.")
    return {"module": "keras.optimizers.schedules",
            "class_name": type(learning_rate_schedule).__name__,
            "config": learning_rate_schedule.get_config(), "registered_name": None}


def deserialize(config: dict, custom_objects: dict | None = None) -> LearningRateSchedule:
    """The schedule a `serialize` config (or Keras's) describes; `custom_objects` names
    schedule classes of your own."""
    classes = {cls.__name__: cls for cls in (ExponentialDecay, InverseTimeDecay,
                                             PiecewiseConstantDecay, CosineDecay,
                                             PolynomialDecay, CosineDecayRestarts)}
    classes.update(custom_objects or {})
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"deserialize takes a schedule's config (a dict with 'class_name' "
                         f"and 'config'), got {config!r}.")
    cls = classes.get(config["class_name"])
    if cls is None:
        raise ValueError(f"Unknown learning rate schedule {config['class_name']!r}; known: "
                         f"{sorted(classes)} (pass others in custom_objects).")
    return cls.from_config(config.get("config", {}))


__all__ = ["LearningRateSchedule", "ExponentialDecay", "InverseTimeDecay",
           "PiecewiseConstantDecay", "CosineDecay", "PolynomialDecay", "CosineDecayRestarts",
           "serialize", "deserialize"]
