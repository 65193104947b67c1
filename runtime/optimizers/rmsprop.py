"""RMSprop: steps scaled by a running root mean square of the gradient."""

from __future__ import annotations

from typing import Any

from ..ops import array_math
from .base import Hyper, Optimizer
from .numbers import real_number


class RMSprop(Optimizer):
    """With slots starting at zero:

        velocity = rho * velocity + (1 - rho) * grad ** 2
        (centered) average = rho * average + (1 - rho) * grad;  denom = velocity - average ** 2
        step = learning_rate * grad / sqrt(denom + epsilon)    (denom = velocity if not centered)
        var -= step          (with momentum m: moment = m * moment + step; var -= moment)
    """

    def __init__(self, learning_rate: Hyper = 0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, name: str | None = None,
                 **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`); any other keyword raises `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        for label, value in (("rho", rho), ("momentum", momentum)):
            if not isinstance(value, (int, float)) or not 0 <= value < 1:
                raise ValueError(f"RMSprop {label} must be a number in [0, 1), got {value!r}.")
        self.rho = float(rho)
        self.momentum = float(momentum)
        self.epsilon = real_number(type(self).__name__, "epsilon", epsilon)
        self.centered = bool(centered)
        self._slot_names = ("velocity",) + (("average_gradient",) if centered else ()) + \
            (("momentum",) if momentum else ())

    def _update(self, grad, var, slots, hyper) -> None:
        velocity = slots["velocity"]
        new_velocity = array_math.add(array_math.multiply(velocity, self.rho),
                                      array_math.multiply(array_math.square(grad), 1 - self.rho))
        velocity.assign(new_velocity)
        denom = new_velocity
        if self.centered:
            average = slots["average_gradient"]
            new_average = array_math.add(array_math.multiply(average, self.rho),
                                         array_math.multiply(grad, 1 - self.rho))
            average.assign(new_average)
            denom = array_math.subtract(denom, array_math.square(new_average))
        step = array_math.divide(array_math.multiply(hyper["learning_rate"], grad),
                                 array_math.sqrt(array_math.add(denom, self.epsilon)))
        if self.momentum:
            moment = slots["momentum"]
            new_moment = array_math.add(array_math.multiply(moment, self.momentum), step)
            moment.assign(new_moment)
            step = new_moment
        var.assign_sub(step)
