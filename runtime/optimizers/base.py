"""`Optimizer`: applies gradients to variables, keeping per-variable slots and a step counter.

Everything an optimizer owns (the step counter, hyperparameters, slots such as momentum) is
a variable created lazily under `rt.init_scope()`: the first `apply_gradients` creates it
eagerly, once, even when that call happens while a compiled train step traces. The updates
themselves are ordinary variable assignments, so they run eagerly or are staged into the
graph being built, like any op.
"""

from __future__ import annotations

import contextlib
import inspect
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from .. import context, distribute_context
from .. import deferred_restore as _checkpoint_deferred
from .. import dtypes as _dtypes
from ..arguments import init_keyword_names, raise_unknown_keywords, strict_keywords
from ..gradients import GradientTape
from ..module import keras_snake_case, keras_unique_name
from ..ops import array_math
from ..ops.core import convert_to_tensor
from ..ops.variables import Variable
from ..tensor import Tensor
from . import schedules as _schedules
from .numbers import is_real

Hyper = float | Callable[[Tensor], Any] | Variable


class Optimizer:
    """Base class: subclasses define `_slot_names` and `_update(grad, var, hyper)`.

    Hyperparameters given as floats become non-trainable variables, so assigning a new
    `learning_rate` takes effect in train steps that are already compiled. A callable
    learning rate is called with the step counter (a tensor) at every step.
    """

    _slot_names: tuple[str, ...] = ()

    def __init__(self, name: str | None, hyper: Mapping[str, Hyper] | None = None, *,
                 clipnorm: float | None = None, clipvalue: float | None = None,
                 global_clipnorm: float | None = None, weight_decay: float | None = None,
                 use_ema: bool = False, ema_momentum: float = 0.99,
                 ema_overwrite_frequency: int | None = None,
                 loss_scale_factor: float | None = None,
                 gradient_accumulation_steps: int | None = None, **kwargs: Any) -> None:
        """`hyper` maps hyperparameter names (such as "learning_rate") to their values.

        The Keras options (subclasses pass them on with their other keywords):
        `clipnorm` scales each gradient down to at most this L2 norm, `global_clipnorm` all
        gradients together to at most this joint norm, `clipvalue` clips each element to
        [-clipvalue, clipvalue] (at most one of the three); `weight_decay` w subtracts
        `learning_rate * w * var` from each updated variable before its update, as Keras
        does. Keras 3's `use_ema`, `ema_momentum`, `ema_overwrite_frequency`,
        `loss_scale_factor` and `gradient_accumulation_steps` are taken at their defaults
        (what `get_config` gives back); another value raises `NotImplementedError`. Any other
        keyword raises `TypeError`. `name=None` is Keras's automatic name: the class's in
        snake_case, made unique (`adam`, `adam_1`, `rm_sprop`).
        """
        if kwargs:
            raise_unknown_keywords(type(self).__name__, kwargs,
                                   init_keyword_names(type(self)) - {"hyper"})
        if use_ema and not 0 <= ema_momentum <= 1:
            raise ValueError(f"{type(self).__name__}: `ema_momentum` must be in the range "
                             f"[0, 1]. Received: ema_momentum={ema_momentum}")
        if use_ema and ema_overwrite_frequency and (
                not isinstance(ema_overwrite_frequency, int) or ema_overwrite_frequency < 1):
            raise ValueError(f"{type(self).__name__}: `ema_overwrite_frequency` must be an "
                             "integer >= 1 or None. Received: ema_overwrite_frequency="
                             f"{ema_overwrite_frequency}")
        self.use_ema, self.ema_momentum = bool(use_ema), ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self._averages: dict[Any, Variable] = {}
        for key, value, default in (("loss_scale_factor", loss_scale_factor, None),
                                    ("gradient_accumulation_steps", gradient_accumulation_steps,
                                     None)):
            if value != default:
                raise NotImplementedError(
                    f"{type(self).__name__}({key}={value!r}) is not offered: only Keras's "
                    f"default {key}={default!r} is. Leave it out.")
        if name is None:
            name = keras_unique_name(keras_snake_case(type(self).__name__))
        clipping = {key: value for key, value in (("clipnorm", clipnorm), ("clipvalue", clipvalue),
                                                  ("global_clipnorm", global_clipnorm))
                    if value is not None}
        if len(clipping) > 1:
            raise ValueError(f"{type(self).__name__}: at most one of clipnorm, clipvalue and "
                             f"global_clipnorm can be set, got {', '.join(clipping)}.")
        for key, value in (*clipping.items(), ("weight_decay", weight_decay)):
            if value is None:
                continue
            number = isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
            if not (number and (value >= 0 if key == "weight_decay" else value > 0)):
                kind = "non-negative" if key == "weight_decay" else "positive"
                raise ValueError(f"{type(self).__name__} {key} must be a {kind} number, got "
                                 f"{value!r}.")
        self.clipnorm = None if clipnorm is None else float(clipnorm)
        self.clipvalue = None if clipvalue is None else float(clipvalue)
        self.global_clipnorm = None if global_clipnorm is None else float(global_clipnorm)
        self.weight_decay = None if weight_decay is None else float(weight_decay)
        self._name = name
        self._hyper_values: dict[str, Hyper] = {
            key: _checked_hyper(type(self).__name__, key, value)
            for key, value in dict(hyper or {}).items()}
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
            _checkpoint_deferred.created(self)
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
            _checkpoint_deferred.created(self)
        return var

    def _get_hyper(self, name: str):
        """The current value of a hyperparameter (a float, a callable or a variable)."""
        return self._hyper_values[name]

    def _set_hyper(self, name: str, value: Hyper) -> None:
        value = _checked_hyper(type(self).__name__, name, value)
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
        """As Keras 3: the float32 variable holding a plain rate (`.numpy()`, `float()` and
        arithmetic read it; assigning a number writes it), the schedule's current value for a
        schedule, or the variable given."""
        value = self._hyper_values["learning_rate"]
        if isinstance(value, Variable):
            return value
        if callable(value):
            return convert_to_tensor(value(self.iterations))
        return self._hyper_variable("learning_rate", _dtypes.float32)

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
        return value if value.dtype is dtype else array_math.cast(value, dtype)

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

    def build(self, var_list: Iterable[Variable]) -> None:
        """Creates the step counter and the slots of each variable of `var_list` now (the
        first `apply_gradients` otherwise does), as Keras's `Optimizer.build` does."""
        self.iterations  # noqa: B018 (created on first read)
        var_list = list(var_list)
        for var in var_list:
            if not isinstance(var, Variable):
                raise TypeError(f"{self._name}.build needs rt.Variables, got {var!r}.")
            for name in self._hyper_values:  # in the order a first step creates them
                self._hyper_variable(name, var.dtype)
        for var in var_list:
            self._slots_for(var)

    @property
    def variables(self) -> list[Variable]:
        """The step counter, hyperparameter variables and slots created so far."""
        found = [] if self._iterations is None else [self._iterations]
        found += list(self._hyper_vars.values())
        for slots in self._slots.values():
            found += list(slots.values())
        return found + list(self.__dict__.get("_averages", {}).values())

    def _slots_for(self, var: Variable) -> dict[str, Variable]:
        """This variable's slots, created (zeros, eagerly) on first use."""
        key = var.ref()
        slots = self._slots.get(key)
        if slots is None:
            base = getattr(var, "path", None) or var.name.rsplit(":", 1)[0]  # Keras's path
            initial = {name: self._initial_slot(var, name) for name in self._slot_names}
            with context.init_scope():
                slots = {name: Variable(value, trainable=False, name=f"{base}/{self._name}/{name}")
                         for name, value in initial.items() if value is not None}
            self._slots[key] = slots
            _checkpoint_deferred.created(self)  # restores saved slots
        return slots

    def _initial_slot(self, var: Variable, name: str) -> np.ndarray | None:
        """The starting value of slot `name` of `var` (zeros like it), or None for a slot
        this variable does not have."""
        return np.zeros(var.shape.as_list(), var.dtype.as_numpy_dtype)

    # -- applying ---------------------------------------------------------------------------
    @strict_keywords()
    def apply_gradients(self, grads_and_vars: Iterable, name: str | None = None,
                        experimental_aggregate_gradients: bool = True):
        """Applies each (gradient, variable) pair; pairs whose gradient is None are skipped.

        `grads_and_vars` may be any iterable, a generator too. Returns the step counter.
        `name` is a name scope for the update ops. Inside `strategy.run` the gradients are
        first summed over the replicas (unless `experimental_aggregate_gradients=False`).
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
        replica = distribute_context.replica_context()
        if replica is not None and replica.num_replicas_in_sync > 1:
            # in strategy.run: the gradients summed over the replicas, then each replica
            # updates its copy of the (mirrored) variables and of the slots the same way
            weight = getattr(replica, "_gradient_weight", None)  # fit: the replica's share
            if weight is not None:
                pairs = [(array_math.multiply(g, array_math.cast(weight, g.dtype)), v)
                         for g, v in pairs]
            if experimental_aggregate_gradients:
                summed = replica.all_reduce("SUM", [g for g, _ in pairs])
                pairs = [(g, v) for g, (_, v) in zip(summed, pairs)]
            with distribute_context.local_updates(), \
                    context.name_scope(name) if name else contextlib.nullcontext():
                return self._apply(self._clipped(pairs))
        with context.name_scope(name) if name else contextlib.nullcontext():
            return self._apply(self._clipped(pairs))

    def _apply(self, pairs: list) -> Variable:
        iterations = self.iterations
        hyper_by_dtype: dict = {}
        for _, var in pairs:
            if var.dtype not in hyper_by_dtype:
                hyper_by_dtype[var.dtype] = self._prepare(var.dtype)
            self._slots_for(var)  # made before any update, as Keras's build makes them
        for _, var in pairs:
            decay = self._weight_decay_for(var)
            if decay:
                rate = array_math.multiply(hyper_by_dtype[var.dtype]["learning_rate"], decay)
                var.assign_sub(array_math.multiply(var.read_value(), rate))
        for grad, var in pairs:
            self._update(grad, var, self._slots_for(var), hyper_by_dtype[var.dtype])
        for _, var in pairs:  # as Keras: a weight's constraint after its update
            if var.constraint is not None:
                var.assign(var.constraint(var.read_value()))
        if self.__dict__.get("use_ema"):
            self._update_averages([var for _, var in pairs], iterations)
        iterations.assign_add(np.int64(1))
        return iterations

    def _average_of(self, var: Variable) -> Variable:
        """The exponential moving average of `var` (use_ema), made (zeros) on first use."""
        average = self._averages.get(var.ref())
        if average is None:
            base = getattr(var, "path", None) or var.name.rsplit(":", 1)[0]
            with context.init_scope():
                average = Variable(np.zeros(var.shape.as_list(), var.dtype.as_numpy_dtype),
                                   trainable=False, name=f"{base}/{self._name}/average")
            self._averages[var.ref()] = average
        return average

    def _update_averages(self, variables: list, iterations: Variable) -> None:
        """As Keras: average = m * average + (1 - m) * var, m = ema_momentum (0 at the first
        step); every `ema_overwrite_frequency` steps the variables take their averages."""
        step = iterations.read_value()
        first = array_math.equal(step, np.int64(0))
        for var in variables:
            average = self._average_of(var)
            momentum = array_math.where(first, array_math.zeros_like(var.read_value()),
                                        array_math.fill(array_math.shape(var.read_value()),
                                                        np.asarray(self.ema_momentum,
                                                                   var.dtype.as_numpy_dtype)))
            average.assign(array_math.add(array_math.multiply(momentum, average.read_value()),
                                          array_math.multiply(array_math.subtract(1.0, momentum),
                                                              var.read_value())))
        if self.ema_overwrite_frequency:
            overwrite = array_math.equal(
                array_math.floormod(array_math.add(step, np.int64(1)),
                                    np.int64(self.ema_overwrite_frequency)), np.int64(0))
            for var in variables:
                var.assign(array_math.where(overwrite, self._average_of(var).read_value(),
                                            var.read_value()))

    def finalize_variable_values(self, var_list) -> None:
        """With use_ema, each variable of `var_list` takes its moving average (fit calls this
        at its end, as Keras's does)."""
        if not self.__dict__.get("use_ema"):
            return
        for var in var_list:
            average = self._averages.get(var.ref())
            if average is not None:
                var.assign(average.read_value())

    def _weight_decay_for(self, var: Variable) -> float | None:
        """The decoupled weight decay applied to `var` before its update."""
        return self.weight_decay

    def _clipped(self, pairs: list) -> list:
        """The (gradient, variable) pairs with `clipvalue`, `clipnorm` or `global_clipnorm`
        applied to the gradients."""
        if self.clipvalue is not None:
            return [(array_math.clip_by_value(g, -self.clipvalue, self.clipvalue), v)
                    for g, v in pairs]
        if self.clipnorm is not None:
            return [(_scaled(g, _squared_norm(g), self.clipnorm), v) for g, v in pairs]
        if self.global_clipnorm is not None:
            total = _squared_norm(pairs[0][0])
            for g, _ in pairs[1:]:
                total = array_math.add(total, _squared_norm(g))
            return [(_scaled(g, total, self.global_clipnorm), v) for g, v in pairs]
        return pairs

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

    def apply(self, grads: Iterable, trainable_variables: Iterable[Variable] | None = None):
        """Keras 3's form of `apply_gradients`: the gradients, and the variables in the same
        order (required here: there is no default variable list)."""
        if trainable_variables is None:
            raise ValueError(f"{self._name}.apply(grads, trainable_variables): pass the "
                             f"variables the gradients are for, in the same order.")
        return self.apply_gradients(zip(grads, trainable_variables))

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

    def get_config(self) -> dict:
        """The constructor arguments, read back from the attributes of the same names (a
        schedule as `{"class_name", "config"}`); `from_config` rebuilds the optimizer."""
        config: dict[str, Any] = {}
        for key in inspect.signature(type(self).__init__).parameters:
            if key == "name":
                value = self._name
            elif key in self._hyper_values:  # not the property: it would make the variable
                value = self._hyper_values[key]
            else:
                value = getattr(self, key, None)
            if key == "self" or value is None and not hasattr(self, key):
                continue
            if hasattr(value, "get_config") and not isinstance(value, Variable):
                value = {"module": "keras.optimizers.schedules",
                         "class_name": type(value).__name__, "config": value.get_config(),
                         "registered_name": None}
            elif isinstance(value, Variable):
                value = float(value.numpy())
            config[key] = value
        common = {"weight_decay": self.weight_decay, "clipnorm": self.clipnorm,
                  "global_clipnorm": self.global_clipnorm, "clipvalue": self.clipvalue,
                  **_KERAS_DEFAULTS, "use_ema": self.__dict__.get("use_ema", False),
                  "ema_momentum": self.__dict__.get("ema_momentum", 0.99),
                  "ema_overwrite_frequency": self.__dict__.get("ema_overwrite_frequency")}
        if not any(p.kind is p.VAR_KEYWORD
                   for p in inspect.signature(type(self).__init__).parameters.values()):
            common = {}  # a TF1 optimizer (GradientDescentOptimizer, ...) takes none of them
        ordered = {key: config.pop(key) for key in ("name", "learning_rate") if key in config}
        return {**ordered, **common, **config}

    @classmethod
    def from_config(cls, config: dict) -> "Optimizer":
        """An optimizer from `get_config()`'s dict (schedules of `optimizers.schedules`)."""
        config = dict(config)
        for key, value in config.items():
            if isinstance(value, dict) and {"class_name", "config"} <= set(value):
                schedule = getattr(_schedules, value["class_name"], None)
                if schedule is None:
                    raise ValueError(f"{cls.__name__}.from_config: unknown schedule "
                                     f"{value['class_name']!r}.")
                config[key] = schedule.from_config(value["config"])
        return cls(**config)

    def __repr__(self) -> str:
        hyper = ", ".join(f"{k}={v!r}" for k, v in self._hyper_values.items())
        return f"<{type(self).__name__} {hyper}>"


# Keras 3's optimizer options taken at their defaults only (see Optimizer.__init__)
_KERAS_DEFAULTS = {"use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
                   "loss_scale_factor": None, "gradient_accumulation_steps": None}


def _checked_hyper(owner: str, name: str, value: Any) -> Hyper:
    """`value` when it can be a hyperparameter such as the learning rate (a number, an
    `rt.Variable`, a schedule or another callable of the step); a ValueError naming it
    otherwise, as Keras refuses `learning_rate=None` or `"0.1"` when the optimizer is made."""
    if is_real(value) or isinstance(value, Variable) or \
            (callable(value) and not isinstance(value, type)):
        return value
    if isinstance(value, Tensor) and value.shape.rank == 0 and context.executing_eagerly() \
            and (value.dtype.is_floating or value.dtype.is_integer):
        return float(value.numpy())  # a scalar tensor, as TF1's optimizers take one
    raise ValueError(f"{owner}: `{name}` must be a float, a LearningRateSchedule or a callable "
                     f"(that takes the step and returns the {name.replace('_', ' ')}), got "
                     f"{value!r:.80}.")


def _squared_norm(grad: Tensor) -> Tensor:
    """The sum of the squares of `grad`'s elements, as a float64 scalar."""
    return array_math.cast(array_math.reduce_sum(array_math.square(grad)), _dtypes.float64)


def _scaled(grad: Tensor, squared_norm: Tensor, limit: float) -> Tensor:
    """`grad * limit / max(norm, limit)`: scaled down to norm `limit` when its norm (the
    square root of `squared_norm`) is larger, unchanged otherwise."""
    scale = array_math.divide(limit, array_math.maximum(array_math.sqrt(squared_norm), limit))
    return array_math.multiply(grad, array_math.cast(scale, grad.dtype))
