"""Muon (Jordan et al., 2024): momentum orthogonalized by Newton-Schulz iterations for
matrices, with AdamW for every other variable, as Keras 3 combines them."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..ops import array_math
from ..ops.core import constant
from ..ops.linalg import matmul
from ..ops.variables import Variable
from .base import Hyper, Optimizer
from .numbers import real_number


class Muon(Optimizer):
    """For a 2-D variable (not an embedding with `exclude_embeddings`, nor matched by a regex of
    `exclude_layers`), with the slot m ("momentum") starting at zero:

        m = momentum * m + grad;   g = grad + momentum * m  (nesterov) or m
        var -= learning_rate * NS(g) * sqrt(max(rows, cols)) * rms_rate    (rms_rate None: no scale)

    where NS runs `ns_steps` quintic Newton-Schulz iterations (x = a x + (b A + c A A) x, A = x x^T,
    on g / (|g|_F + 1e-7), transposed when it has more rows than columns); its weight decay is
    `weight_decay`. Every other variable takes an AdamW step with learning rate
    `learning_rate * adam_lr_ratio` (slots "momentum", "velocity"), decayed by
    `adam_weight_decay`.
    """

    def __init__(self, learning_rate: Hyper = 0.001, adam_beta_1: float = 0.9,
                 adam_beta_2: float = 0.999, adam_weight_decay: float = 0.004,
                 epsilon: float = 1e-7, weight_decay: float = 0.004, name: str | None = None,
                 exclude_layers: list[str] | None = None, exclude_embeddings: bool = True,
                 muon_a: float = 3.4445, muon_b: float = -4.7750, muon_c: float = 2.0315,
                 adam_lr_ratio: float = 1, momentum: float = 0.95, ns_steps: int = 5,
                 nesterov: bool = True, rms_rate: float | None = 0.2, **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`); any other keyword raises `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, weight_decay=weight_decay,
                         **kwargs)
        owner = type(self).__name__
        self.adam_beta_1 = real_number(owner, "adam_beta_1", adam_beta_1)
        self.adam_beta_2 = real_number(owner, "adam_beta_2", adam_beta_2)
        self.epsilon = real_number(owner, "epsilon", epsilon)
        self.muon_a = real_number(owner, "muon_a", muon_a)
        self.muon_b = real_number(owner, "muon_b", muon_b)
        self.muon_c = real_number(owner, "muon_c", muon_c)
        self.adam_lr_ratio = real_number(owner, "adam_lr_ratio", adam_lr_ratio)
        self.momentum = real_number(owner, "momentum", momentum)
        self.adam_weight_decay = None if adam_weight_decay is None else \
            real_number(owner, "adam_weight_decay", adam_weight_decay)
        self.rms_rate = None if rms_rate is None else real_number(owner, "rms_rate", rms_rate)
        if isinstance(ns_steps, bool) or not isinstance(ns_steps, int) or ns_steps < 0:
            raise ValueError(f"Muon: `ns_steps` must be an int >= 0, got {ns_steps!r}.")
        self.ns_steps = ns_steps
        self.nesterov = bool(nesterov)
        self.exclude_embeddings = bool(exclude_embeddings)
        self.exclude_layers = list(exclude_layers or [])
        self._slot_names = ("momentum", "velocity")

    def _uses_adamw(self, var: Variable) -> bool:
        """True for a variable that takes AdamW steps instead of Muon's."""
        if var.shape.rank != 2:
            return True
        path = getattr(var, "path", None) or var.name
        if self.exclude_embeddings and "embedding" in path.lower():
            return True
        return any(re.search(pattern, path) for pattern in self.exclude_layers)

    def _initial_slot(self, var, name):
        if name == "velocity" and not self._uses_adamw(var):
            return None
        return super()._initial_slot(var, name)

    def _weight_decay_for(self, var):
        return self.adam_weight_decay if self._uses_adamw(var) else self.weight_decay

    def _prepare(self, dtype) -> dict:
        hyper = super()._prepare(dtype)
        t = array_math.cast(array_math.add(self.iterations, 1), dtype)
        b1_power = array_math.pow(constant(self.adam_beta_1, dtype), t)
        b2_power = array_math.pow(constant(self.adam_beta_2, dtype), t)
        hyper["alpha"] = array_math.divide(
            array_math.multiply(array_math.multiply(hyper["learning_rate"], self.adam_lr_ratio),
                                array_math.sqrt(array_math.subtract(1, b2_power))),
            array_math.subtract(1, b1_power))
        return hyper

    def _update(self, grad, var, slots, hyper) -> None:
        if "velocity" in slots:
            self._adamw_update(grad, var, slots["momentum"], slots["velocity"], hyper)
            return
        m = slots["momentum"]
        new_m = array_math.add(m, array_math.add(grad, array_math.multiply(m, self.momentum - 1)))
        m.assign(new_m)
        g = array_math.add(grad, array_math.multiply(new_m, self.momentum)) if self.nesterov \
            else new_m
        update = array_math.multiply(self._newton_schulz(g), hyper["learning_rate"])
        if self.rms_rate is not None:
            rows, cols = var.shape.as_list()
            update = array_math.multiply(update, float(np.sqrt(max(rows, cols))) * self.rms_rate)
        var.assign_sub(update)

    def _adamw_update(self, grad, var, m, v, hyper) -> None:
        new_m = array_math.add(m, array_math.multiply(array_math.subtract(grad, m),
                                                      1 - self.adam_beta_1))
        new_v = array_math.add(v, array_math.multiply(array_math.subtract(array_math.square(grad), v),
                                                      1 - self.adam_beta_2))
        m.assign(new_m)
        v.assign(new_v)
        var.assign_sub(array_math.divide(array_math.multiply(new_m, hyper["alpha"]),
                                         array_math.add(array_math.sqrt(new_v), self.epsilon)))

    def _newton_schulz(self, x):
        """The quintic Newton-Schulz approximation of the orthogonal factor of matrix `x`."""
        rows, cols = x.shape.as_list()
        tall = rows > cols
        if tall:
            x = array_math.transpose(x)
        norm = array_math.sqrt(array_math.reduce_sum(array_math.square(x)))
        x = array_math.divide(x, array_math.add(norm, 1e-7))
        for _ in range(self.ns_steps):
            gram = matmul(x, x, transpose_b=True)
            poly = array_math.add(array_math.multiply(gram, self.muon_b),
                                  array_math.multiply(matmul(gram, gram), self.muon_c))
            x = array_math.add(array_math.multiply(x, self.muon_a), matmul(poly, x))
        return array_math.transpose(x) if tall else x
