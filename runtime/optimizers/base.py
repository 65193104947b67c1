"""`Optimizer`: applies gradients to variables, keeping per-variable slots and a step counter.

Everything an optimizer owns (the step counter, hyperparameters, slots such as momentum) is
a variable created lazily under `rt.init_scope()`: the first `apply_gradients` creates it
eagerly, once, even when that call happens while a compiled train step traces. The updates
themselves are ordinary variable assignments, so they run eagerly or are staged into the
graph being built, like any op.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..gradients import GradientTape
from ..ops import array_ops
from ..ops.core import convert_to_tensor
from ..ops.variable_ops import Variable
from ..tensor import Tensor

Hyper = float | Callable[[Tensor], Any] | Variable


class Optimizer:
    """Base class: subclasses define `_slot_names` and `_update(grad, var, hyper)`.

    Hyperparameters given as floats become non-trainable variables, so assigning a new
    `learning_rate` takes effect in train steps that are already compiled. A callable
    learning rate is called with the step counter (a tensor) at every step.
    """

    _slot_names: tuple[str, ...] = ()

    def __init__(self, name: str, **hyper: Hyper) -> None:
        self._name = name
        self._hyper_values: dict[str, Hyper] = dict(hyper)
        self._hyper_vars: dict[str, Variable] = {}
        self._slots: dict[Any, dict[str, Variable]] = {}
        self._iterations: Variable | None = None

    # -- state --------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def iterations(self) -> Variable:
        """The number of `apply_gradients` calls so far (an int64 variable)."""
        if self._iterations is None:
            with context.init_scope():
                self._iterations = Variable(np.int64(0), trainable=False,
                                            name=f"{self._name}/iterations")
        return self._iterations

    def _hyper_variable(self, name: str, dtype: _dtypes.DType) -> Variable | None:
        """The variable holding a float hyperparameter in `dtype` (one per dtype in use)."""
        value = self._hyper_values[name]
        if isinstance(value, Variable):
            return value
        if callable(value):
            return None
        var = self._hyper_vars.get((name, dtype))
        if var is None:
            with context.init_scope():
                var = Variable(np.asarray(value, dtype.as_numpy_dtype), trainable=False,
                               name=f"{self._name}/{name}")
            self._hyper_vars[(name, dtype)] = var
        return var

    def _get_hyper(self, name: str):
        """The current value of a hyperparameter (a float, a callable or a variable)."""
        return self._hyper_values[name]

    def _set_hyper(self, name: str, value: Hyper) -> None:
        plain = not callable(value) and not isinstance(value, Variable)
        for (key, dtype), var in list(self._hyper_vars.items()):
            if key != name:
                continue
            if plain:
                var.assign(np.asarray(value, dtype.as_numpy_dtype))
            else:
                del self._hyper_vars[(key, dtype)]
        self._hyper_values[name] = float(value) if plain else value

    @property
    def learning_rate(self):
        return self._get_hyper("learning_rate")

    @learning_rate.setter
    def learning_rate(self, value: Hyper) -> None:
        self._set_hyper("learning_rate", value)

    lr = learning_rate

    def _hyper_tensor(self, name: str, dtype: _dtypes.DType) -> Tensor:
        """A hyperparameter as a scalar tensor of `dtype`, read when the step runs."""
        var = self._hyper_variable(name, dtype)
        if var is None:
            value = convert_to_tensor(self._hyper_values[name](self.iterations))
        else:
            value = var.read_value()
        return value if value.dtype is dtype else array_ops.cast(value, dtype)

    def get_slot(self, var: Variable, slot_name: str) -> Variable:
        """The slot variable `slot_name` (e.g. "momentum", "m", "v") of `var`."""
        try:
            return self._slots[var.ref()][slot_name]
        except KeyError:
            raise KeyError(f"{self._name} has no slot {slot_name!r} for {var.name}; slots are "
                           f"created by the first apply_gradients. Slot names: "
                           f"{list(self._slot_names)}.") from None

    def get_slot_names(self) -> list[str]:
        return list(self._slot_names)

    @property
    def variables(self) -> list[Variable]:
        """The step counter, hyperparameter variables and slots created so far."""
        found = [] if self._iterations is None else [self._iterations]
        found += list(self._hyper_vars.values())
        for slots in self._slots.values():
            found += list(slots.values())
        return found

    def _slots_for(self, var: Variable) -> dict[str, Variable]:
        """This variable's slots, created (zeros, eagerly) on first use."""
        key = var.ref()
        slots = self._slots.get(key)
        if slots is None:
            base = var.name[:-2] if var.name.endswith(":0") else var.name
            with context.init_scope():
                slots = {name: Variable(np.zeros(var.shape.as_list(), var.dtype.as_numpy_dtype),
                                        trainable=False, name=f"{base}/{self._name}/{name}")
                         for name in self._slot_names}
            self._slots[key] = slots
        return slots

    # -- applying ---------------------------------------------------------------------------
    def apply_gradients(self, grads_and_vars: Iterable, name: str | None = None, **_ignored: Any):
        """Applies each (gradient, variable) pair; pairs whose gradient is None are skipped.

        `grads_and_vars` may be any iterable, a generator too. Returns the step counter.
        """
        pairs = []
        for pair in grads_and_vars:
            try:
                if isinstance(pair, Tensor):
                    raise TypeError
                grad, var = pair
            except (TypeError, ValueError):
                raise TypeError(f"{self._name}.apply_gradients needs (gradient, variable) pairs, "
                                f"got {pair!r}.") from None
            if grad is None:
                continue
            if not isinstance(var, Variable):
                raise TypeError(f"{self._name}.apply_gradients: {var!r} is not an rt.Variable; "
                                "only variables can be updated.")
            pairs.append((self._check_grad(grad, var), var))
        if not pairs:
            raise ValueError(f"{self._name}.apply_gradients: no gradients were provided for any "
                             "variable (every gradient is None). Check that the loss depends on "
                             "the variables and was computed under the tape.")
        if len({id(v) for _, v in pairs}) != len(pairs):
            raise ValueError(f"{self._name}.apply_gradients: a variable appears twice; sum its "
                             "gradients first.")
        iterations = self.iterations
        hyper_by_dtype: dict = {}
        for grad, var in pairs:
            hyper = hyper_by_dtype.get(var.dtype)
            if hyper is None:
                hyper = hyper_by_dtype[var.dtype] = self._prepare(var.dtype)
            self._update(grad, var, self._slots_for(var), hyper)
        iterations.assign_add(np.int64(1))
        return iterations

    def _check_grad(self, grad, var: Variable) -> Tensor:
        if isinstance(grad, Tensor):
            grad = convert_to_tensor(grad)
            if grad.dtype is not var.dtype:
                raise TypeError(f"{self._name}: the gradient of {var.name} is {grad.dtype.name} "
                                f"but the variable is {var.dtype.name}.")
        else:
            grad = convert_to_tensor(np.asarray(grad, dtype=var.dtype.as_numpy_dtype))
        if not grad.shape.is_compatible_with(var.shape):
            raise ValueError(f"{self._name}: the gradient of {var.name} has shape {grad.shape} "
                             f"but the variable has shape {var.shape}.")
        return grad

    def _prepare(self, dtype: _dtypes.DType) -> dict:
        """Per-step values shared by every variable of one dtype (learning rate, ...)."""
        return {"learning_rate": self._hyper_tensor("learning_rate", dtype)}

    def _update(self, grad: Tensor, var: Variable, slots: dict, hyper: dict) -> None:
        raise NotImplementedError

    def minimize(self, loss, var_list, tape=None):
        """Computes the gradients of `loss` for `var_list` and applies them.

        `loss` is a zero-argument callable (evaluated under a new tape) or a tensor computed
        under `tape`; `var_list` is a list of variables or a callable returning one.
        """
        if callable(loss):
            with GradientTape() as tape:
                loss_value = loss()
        elif tape is None:
            raise ValueError(f"{self._name}.minimize: pass `loss` as a callable, or pass the "
                             "`tape` it was computed under.")
        else:
            loss_value = loss
        variables = list(var_list() if callable(var_list) else var_list)
        grads = tape.gradient(loss_value, variables)
        return self.apply_gradients(zip(grads, variables))

    def __repr__(self) -> str:
        hyper = ", ".join(f"{k}={v!r}" for k, v in self._hyper_values.items())
        return f"<{type(self).__name__} {hyper}>"
