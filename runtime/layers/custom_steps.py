"""A model's own `train_step` / `test_step` under `fit` and `evaluate`, as Keras 3 runs them.

A `Model` subclass that defines `train_step(self, data)` (or `test_step`) gets it called for
every batch, with `data` packed as Keras packs it (`x`, `(x, y)` or `(x, y, sample_weight)`);
the dict it returns (metric results, nested dicts flattened) is what the logs show. Inside, the
Keras 3 helpers are there: `self.compute_loss(x, y, y_pred, sample_weight)` (the compiled
loss plus the model's `losses`), `self.metrics` (a "loss" tracker and the compiled metrics,
unless the subclass lists its own), and the optimizer's `apply(grads, variables)`.
"""

from __future__ import annotations

from typing import Any, Callable

from ..ops import array_math, math_composed
from ..ops.core import convert_to_tensor
from ..ops.variables import Variable


class MeanTracker:
    """A running (weighted) mean kept in two variables: Keras's `Mean` metric, as
    `model.metrics` lists it for the loss."""

    def __init__(self, name: str = "loss") -> None:
        self.name = name
        self.total = Variable(0.0, trainable=False, name=f"{name}_total")
        self.count = Variable(0.0, trainable=False, name=f"{name}_count")

    def update_state(self, values, sample_weight=None) -> None:
        values = array_math.cast(convert_to_tensor(values), "float32")
        if sample_weight is None:
            self.total.assign_add(array_math.reduce_sum(values))
            self.count.assign_add(array_math.cast(array_math.size(values), "float32"))
            return
        weights = array_math.cast(convert_to_tensor(sample_weight), "float32") + values * 0.0
        self.total.assign_add(array_math.reduce_sum(values * weights))
        self.count.assign_add(array_math.reduce_sum(weights))

    def result(self):
        return math_composed.divide_no_nan(self.total.value(), self.count.value())

    def reset_state(self) -> None:
        self.total.assign(0.0)
        self.count.assign(0.0)


class CompileMetrics:
    """The metrics given to `compile`, as one entry of `model.metrics` (Keras's
    "compile_metrics"): `update_state(y, y_pred, sample_weight)` updates each, `result()` is
    a dict of their results by name."""

    name = "compile_metrics"

    def __init__(self, named: list, stateful: dict) -> None:
        self._named = named  # (name, step fn) as compile made them
        self._stateful = stateful  # name -> metric object, for those keeping their own state
        self._means = {name: MeanTracker(name) for name, _ in named if name not in stateful}

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        for name, fn in self._named:
            out = fn(y_true, y_pred, sample_weight)
            if name in self._means:
                mean, count = out
                count = array_math.cast(convert_to_tensor(count), "float32")
                tracker = self._means[name]
                tracker.total.assign_add(array_math.cast(mean, "float32") * count)
                tracker.count.assign_add(count)

    def result(self) -> dict:
        return {name: (self._means[name].result() if name in self._means
                       else self._stateful[name].result()) for name, _ in self._named}

    def reset_state(self) -> None:
        for tracker in self._means.values():
            tracker.reset_state()
        for metric in self._stateful.values():
            metric.reset_state()


def overrides(model, method: str) -> bool:
    """Whether the model's class defines `method` (`train_step`, `test_step`) itself."""
    return callable(getattr(type(model), method, None))


def pack(x, y, sample_weight) -> Any:
    """`data` as Keras hands it to a step: x alone, (x, y) or (x, y, sample_weight)."""
    if y is None:
        return (x,) if isinstance(x, (list, tuple)) else x
    return (x, y) if sample_weight is None else (x, y, sample_weight)


class StepLogs(dict):
    """Logs of a model's own step, with `ranks`: each name's place in Keras's order of the
    logs it hands to callbacks (the step's top-level names sorted, a nested dict's names at
    its key's place), by which `keras_order` sorts them."""

    ranks: dict = {}


def flat_logs(results) -> StepLogs:
    """A step's returned dict with nested dicts (compile_metrics) flattened into it."""
    if not isinstance(results, dict):
        raise TypeError(f"train_step and test_step must return a dict of metric results by "
                        f"name, got {type(results).__name__}.")
    out = StepLogs()
    ranks: dict = {}
    for name, value in sorted(results.items()):  # nested dicts in place, as Keras logs
        inner = flat_logs(value) if isinstance(value, dict) else {name: value}
        for i, key in enumerate(inner):
            ranks[key] = (str(name), i)
        out.update(inner)
    out.ranks = ranks
    return out


def keras_order(logs: dict) -> dict:
    """Logs as Keras 3 hands them to callbacks and returns them: sorted by name; the names
    of a model's own step (`StepLogs`) at their ranks, the others (`val_*`) by name."""
    ranks = getattr(logs, "ranks", None)
    if not ranks:
        return dict(sorted(logs.items()))
    return dict(sorted(logs.items(), key=lambda item: ranks.get(item[0], (item[0], 0))))


def custom_step(model, method: str) -> Callable:
    """`fn(x, y, sample_weight)`: the model's own `method` on the packed batch, its logs
    flattened."""
    def step(x, y, sample_weight=None):
        results = getattr(model, method)(pack(x, y, sample_weight))
        flat_logs(results)  # refuses what is not a dict of results, while tracing
        return results     # flattened by OrderedStep, after a compiled step's outputs
    return step


class OrderedStep:
    """A compiled custom step whose logs come in Keras's order for `evaluate`'s list: the
    names of `model.metrics` first (a compile_metrics entry by its metrics), then the rest
    sorted."""

    def __init__(self, model, step: Callable) -> None:
        self._model = model
        self._step = step

    def __call__(self, *args):
        logs = flat_logs(self._step(*args))
        names: list = []
        for metric in self._model.metrics:
            names += ([name for name, _ in metric._named] if isinstance(metric, CompileMetrics)
                      else [getattr(metric, "name", None)])
        first = [name for name in names if name in logs]
        ordered = StepLogs((name, logs[name]) for name in first + sorted(set(logs) - set(first)))
        ordered.ranks = logs.ranks
        return ordered


def default_metrics(model) -> list:
    """Keras 3's `model.metrics` after compile: the loss tracker and the compiled metrics."""
    trackers = getattr(model, "_metric_trackers", None)
    if not trackers:
        return []
    if not getattr(model, "_compiled_with_metrics", True) and \
            not getattr(model, "_per_output_losses", None):
        return list(trackers[:1])  # compiled without metrics: the loss tracker alone
    return list(trackers)
