"""Keras-style training for `Model`: `compile`, `fit`, `evaluate`, `predict`.

    model.compile(rt.optimizers.Adam(0.01), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, y, epochs=5, batch_size=32, validation_data=(x_val, y_val))
    history.history["loss"]                      # one mean value a epoch

One training step (forward, loss, gradients, update) is a compiled `rt.function`, traced
once for batches of any size: its inputs' first axis is unknown, as in the batches Keras's
data adapters give (layers see the other dimensions, as they do in Keras).
"""

from __future__ import annotations

import functools
import itertools
import sys
import types
import warnings
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Union

import numpy as np

from .. import nest
from .. import optimizers as _optimizers
from ..arguments import strict_keywords
from ..backends import JitCompileError
from ..function import function
from ..function.logs import user_stacklevel
from ..gradients import GradientTape
from ..ops import array_math, math_composed, random
from ..ops.core import convert_to_tensor
from ..ops.extension_type import ExtensionType
from ..ops.ragged import RaggedTensor
from ..ops.ragged_ops import gather_rows
from ..ops.sparse import SparseTensor, to_dense
from ..shapes import TensorSpec
from ..tracing import spec_of
from . import custom_steps as _custom
from . import distributed_fit as _distributed
from . import jit_choice as _jit_choice
from . import losses as _losses
from . import metrics as _metrics
from .callbacks import Callback, History, ProgbarLogger
from .global_settings import capped_epochs, capped_steps
from .progress import StepProgress
from .py_dataset import PyDataset, epoch_batches


class Training:
    """The training methods of `Model` (a mixin: it uses the layer's call and variables)."""

    @strict_keywords()
    def compile(self, optimizer="rmsprop", loss: Union[str, Callable, None] = None,
                loss_weights=None, metrics: Optional[Sequence[Union[str, Callable]]] = None,
                weighted_metrics: Optional[Sequence[Union[str, Callable]]] = None,
                run_eagerly: Optional[bool] = None, steps_per_execution: int = 1,
                jit_compile="auto", auto_scale_loss: bool = True) -> None:
        """Sets the optimizer (an optimizer object or a Keras name: "adam", "sgd", "rmsprop",
        "adamw", "adagrad", any case, with Keras's defaults), the loss (a callable
        `fn(y_true, y_pred)` or a name such as "mse", "sparse_categorical_crossentropy",
        "categorical_crossentropy", "binary_crossentropy") and metrics (names such as
        "accuracy" or "mae", callables, or metric objects; "accuracy" picks binary, sparse
        or categorical accuracy from the shapes, as Keras 3 does). The arguments are Keras
        3's, in its order.

        `loss_weights` (a float, or a list or dict of one) scales the loss (not the
        regularization losses); `weighted_metrics` are metrics weighed by fit's and
        evaluate's `sample_weight` (named "weighted_<name>" when `metrics` has that name too).
        `run_eagerly=True` runs each step as plain Python (for debugging); `jit_compile`
        picks the compiler tier of the step functions as in `rt.function` ("auto": the tier
        docs/tiers.md recommends for the model's layers, see `runtime/layers/jit_choice.py`;
        `model.jit_compile` reports the tier picked); `steps_per_execution` and `auto_scale_loss` (for float16 training)
        are accepted for Keras compatibility (each step is one call)."""
        if int(steps_per_execution) < 1:
            raise ValueError(f"steps_per_execution must be a positive integer, got "
                             f"{steps_per_execution!r}.")
        auto = isinstance(jit_compile, str) and jit_compile == "auto"
        jit_compile = _jit_choice.resolve(self, jit_compile, bool(run_eagerly))
        self._jit_compile = jit_compile
        optimizer = get_optimizer(optimizer)
        self.run_eagerly = bool(run_eagerly)
        loss_fn = None if _output_names(self, loss) else _loss_function(loss)
        given_metrics = metrics is not None or weighted_metrics is not None
        metrics, metric_outputs = _metrics_by_output(_output_names(self, loss), metrics)
        self._compiled_metrics = _metric_list(metrics)
        weighted = _metric_list(weighted_metrics, "weighted_metrics")
        resolved = [_metrics.get(m) for m in self._compiled_metrics]
        plain_names = {name for name, _ in resolved}
        resolved += [(f"weighted_{name}" if name in plain_names else name, m)
                     for name, m in (_metrics.get(m) for m in weighted)]
        flags = [False] * len(self._compiled_metrics) + [True] * len(weighted)
        self._stateful_metrics = [m for _, m in resolved if _is_stateful(m)]
        self._stateful_positions = {1 + i for i, (_, m) in enumerate(resolved) if _is_stateful(m)}
        named = [(name, _stateful_step(m, w) if _is_stateful(m) else _counted(m, w))
                 for (name, m), w in zip(resolved, flags)]
        named = _on_outputs(named, metric_outputs, _output_names(self, loss))
        loss_fn = _per_output_loss(self, loss, loss_weights) or \
            _scaled(_weighted_loss(loss, loss_fn), _loss_weight(loss_weights))
        named += [(name, _counted(fn)) for name, fn in getattr(loss_fn, "per_output", [])]
        if loss is None:  # the model's add_loss terms alone, as in Keras
            loss_fn = _no_loss(self)
        self.optimizer = optimizer
        self.loss = loss
        self._log_names = _unique(["loss"] + [name for name, _ in named])
        self._compiled_with_metrics = given_metrics
        self._per_output_losses = [name for name, _ in getattr(loss_fn, "per_output", [])]
        self._compiled_losses_seen = False
        def step(fn, exact_first: bool = False):
            if self.run_eagerly:
                return fn
            # a partial has no __code__: a model compiled many times (one step function
            # each) is not the recompiling loop rt.function warns about
            def make(tier=jit_compile):
                return function(functools.partial(fn), reduce_retracing=True, jit_compile=tier)
            return _BatchStep(make, exact_first, auto and jit_compile not in (None, False)
                              and (functools.partial(make, False), self._auto_tier_refused))
        self._train_step = step(_train_step(self, optimizer, loss_fn, named))
        self._test_step = step(_test_step(self, loss_fn, named))
        self._predict_step = step(_predict_step(self), exact_first=True)
        self._compiled_loss = loss_fn
        stateful = {name: m for (name, _), (_, m) in zip(named, resolved) if _is_stateful(m)}
        self._metric_trackers = (_custom.MeanTracker("loss"),
                                 _custom.CompileMetrics(named, stateful))
        for method in ("train_step", "test_step"):  # the model's own steps, as in Keras
            if _custom.overrides(self, method):
                setattr(self, f"_{method}",
                        _custom.OrderedStep(self, step(_custom.custom_step(self, method))))

    @property
    def jit_compile(self) -> bool | str | None:
        """The tier of the step functions, as Keras 3 reports it: compile's `jit_compile`,
        with "auto" resolved (False: the NumPy tier; True: Numba; "xla"); before compile, the
        tier "auto" would pick."""
        if not hasattr(self, "_jit_compile"):
            return _jit_choice.recommended_tier(self)
        return self._jit_compile

    @jit_compile.setter
    def jit_compile(self, value) -> None:
        raise AttributeError(f"model.jit_compile = {value!r}: the tier is chosen when the "
                             f"step functions are made; pass compile(jit_compile={value!r}).")

    def _auto_tier_refused(self, error: Exception) -> None:
        """compile(jit_compile="auto")'s compiler tier refused a step: the NumPy tier runs."""
        _jit_choice.note_refused(self._jit_compile, error)
        self._jit_compile = False

    # the strategy the model's variables were made in (rt.distribute), as Keras's
    distribute_strategy = property(_distributed.model_strategy)

    @property
    def metrics(self) -> list:
        """Keras 3's `model.metrics` once compiled: a "loss" tracker (a mean) and the compiled
        metrics as one "compile_metrics" entry (its result: a dict by name); a subclass may
        list its own instead."""
        return _custom.default_metrics(self)

    @property
    def metrics_names(self) -> list:
        """Keras 3's names of `model.metrics`: `[]` before compile, then `"loss"`, with
        `"compile_metrics"` when compile was given metrics (their values are the logs of
        `fit` and `evaluate`) and, once a model of several outputs with a loss each has
        been fitted or evaluated, `"<output>_loss"` for each output; then the metric objects
        the model's layers hold. A subclass that defines `metrics` gets their names."""
        if type(self).metrics is not Training.metrics:
            return [metric.name for metric in self.metrics]
        if getattr(self, "_train_step", None) is None:
            return []
        names = ["loss"]
        if self._compiled_with_metrics:
            names.append("compile_metrics")
        if self._compiled_losses_seen:
            names += self._per_output_losses
        return names + [metric.name for metric in _layer_metrics(self)]

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None,
                     training: bool = True):
        """The compiled loss of `y` and `y_pred` (weighed by `sample_weight`) plus the
        model's `losses` (regularization, add_loss), as Keras's compute_loss."""
        self._check_compiled("compute_loss")
        return _with_model_losses(self, self._compiled_loss(y, y_pred, sample_weight))

    @strict_keywords()
    def fit(self, x=None, y=None, batch_size: Optional[int] = None, epochs: int = 1,
            verbose: Union[int, str] = "auto", callbacks: Optional[Sequence[Callback]] = None,
            validation_split: float = 0.0, validation_data=None, shuffle: bool = True,
            class_weight=None, sample_weight=None, initial_epoch: int = 0,
            steps_per_epoch: Optional[int] = None, validation_steps: Optional[int] = None,
            validation_batch_size: Optional[int] = None,
            validation_freq: Union[int, Sequence[int]] = 1) -> History:
        """Trains for `epochs` passes over (x, y) in batches (32 samples by default); returns
        the `History` (also `model.history`). The arguments are Keras 3's, in its order.

        `x` may be an `rt.data.Dataset` or a Python generator of `(x, y)` or
        `(x, y, sample_weight)` batches (then `y` and `batch_size` are not used, and a
        dataset's own shuffling applies).
        `steps_per_epoch`: batches a epoch; the next epoch continues where the last stopped,
        as Keras does (an infinite dataset such as `dataset.repeat()` or generator needs it).
        `validation_data` (x_val, y_val), (x_val, y_val, w_val), a dataset or a generator is
        evaluated (as "val_*" logs) after the epochs `validation_freq` names (every n-th
        epoch, or a list of epochs counted from 1), in batches of `validation_batch_size`,
        at most `validation_steps` of them; or `validation_split` keeps that fraction of the
        samples, the last ones before shuffling, as Keras does, for validation (arrays only).
        `initial_epoch`: the epoch to start at (to resume a run: epochs counts from 0).
        `sample_weight` (one weight per sample) or `class_weight` ({class: weight}; a class
        missing from it weighs 1) weigh the loss as Keras does, sum(w * loss) / samples; the
        metrics are not weighted.
        `verbose`: 0 silent, 1 or "auto" a progress bar (`ProgbarLogger`) on a terminal (one
        line per epoch elsewhere), 2 one line per epoch. A callback may set
        `model.stop_training = True`: fit stops after that batch (the epoch still ends)."""
        self._check_compiled("fit")
        epochs = capped_epochs(epochs)  # keras.config.set_max_epochs
        verbose = _check_verbose(verbose)
        batch_size = _default_batch_size(batch_size)
        _check_validation_freq(validation_freq)
        if validation_split and validation_data is None:
            if _dataset_of(x, y, "fit", steps_per_epoch) is not None or _is_generator(x) or \
                    isinstance(x, PyDataset):
                raise ValueError("fit(validation_split=...) needs arrays; with a dataset pass "
                                 "validation_data (e.g. dataset.take(n) and dataset.skip(n)).")
            x, y = self._as_arrays(x), self._as_arrays(y)
            _check_lengths(x, y)
            weights = _sample_weights(y, sample_weight, class_weight, "fit")
            x, y, weights, validation_data = _split_validation(x, y, weights, validation_split)
            sample_weight, class_weight = weights, None
        feed = self._feed("fit", x, y, batch_size, sample_weight, class_weight, shuffle,
                          capped_steps(_check_steps(steps_per_epoch, "steps_per_epoch")))
        if feed.same_size and isinstance(self._train_step, _BatchStep) and not _all_built(self):
            # Keras builds the model from the data's spec, whose first axis is the batch
            # size when every batch is full: layers built in the first trace record it
            self._train_step.exact_next = True
        history = History()
        callbacks = _callback_list(callbacks, history, verbose)
        for callback in callbacks:
            callback.set_model(self)
            callback.set_params({"verbose": verbose, "epochs": epochs, "steps": feed.length})
        self.history = history
        self.stop_training = False
        logs: dict = {}
        for callback in callbacks:
            callback.on_train_begin({})
        first = _check_initial_epoch(initial_epoch)
        first = getattr(self, "_initial_epoch", None) or first  # set by BackupAndRestore
        self._initial_epoch = None
        for epoch in range(first, epochs):
            for callback in callbacks:
                callback.on_epoch_begin(epoch, {})
            totals = self._new_means()
            batches = 0
            for step, (x_batch, y_batch, w_batch) in enumerate(
                    _distributed.epoch_batches(self, feed.epoch())):
                for callback in callbacks:
                    callback.on_train_batch_begin(step, {})
                batch_logs = _keras_order(_distributed.train_batch(
                    self, self._train_step, totals, x_batch, y_batch, w_batch, _count(x_batch)))
                batches += 1
                for callback in callbacks:
                    callback.on_train_batch_end(step, batch_logs)
                if self.stop_training:
                    break
            _distributed.end_epoch(self)  # replicas on Dask workers: their state back
            if not batches:  # a generator that ran out: nothing more to train on
                _ran_out_warning()
                break
            logs = totals.means()
            if validation_data is not None and _should_validate(epoch, validation_freq):
                *pair, held_weights = _validation_triple(validation_data)
                values = self.evaluate(*pair, batch_size=validation_batch_size or batch_size,
                                       return_dict=True, callbacks=callbacks, verbose=0,
                                       sample_weight=held_weights, steps=validation_steps)
                logs.update({f"val_{k}": v for k, v in values.items()})
            logs = _keras_order(logs)
            for callback in callbacks:
                callback.on_epoch_end(epoch, logs)
            if self.stop_training:
                break
        if epochs > 0 and hasattr(self.optimizer, "finalize_variable_values"):
            self.optimizer.finalize_variable_values(self.trainable_variables)  # use_ema
        for callback in callbacks:
            callback.on_train_end(logs)
        return history

    def _feed(self, method: str, x, y, batch_size: int, sample_weight, class_weight,
              shuffle: bool, steps: Optional[int]) -> "_Feed":
        """The batches of `x` (arrays, a dataset or a generator) for `method`."""
        dataset = _dataset_of(x, y, method, steps)
        if isinstance(x, PyDataset):
            if y is not None or sample_weight is not None:
                raise ValueError(f"{method}: when x is a PyDataset, y and sample_weight must "
                                 "not be given: its batches hold the targets (and weights).")
            rng = random.SEEDS.generator
            return _Feed(lambda: self._dataset_batches(epoch_batches(x, shuffle, rng), method,
                                                       class_weight), x.num_batches, steps)
        if dataset is not None or _is_generator(x):
            if sample_weight is not None:
                raise ValueError(f"{method}: sample_weight takes arrays; a dataset or "
                                 f"generator yields its weights itself, as (x, y, "
                                 f"sample_weight) batches.")
            if dataset is not None:
                return _Feed(lambda: self._dataset_batches(dataset._open(), method,
                                                           class_weight),
                             _dataset_steps(dataset), steps, _fixed_batch(dataset))
            generator = self._dataset_batches(x, method, class_weight)
            return _Feed(lambda: generator, None, steps)
        if y is None:
            raise TypeError(f"{method}() missing the targets y (or pass a dataset of (x, y)).")
        if any(isinstance(v, ExtensionType) for v in nest.flatten((x, y), expand_composites=False)):
            raise ValueError(f"{method}: x or y is an extension type value, which is not "
                             "batched from memory; give a dataset of its batches: "
                             "rt.data.Dataset.from_tensor_slices((x, y)).batch(32).")
        x, y = self._as_arrays(x), self._as_arrays(y)
        _check_lengths(x, y)
        weights = _sample_weights(y, sample_weight, class_weight, method)
        rng = random.SEEDS.generator  # rt.random.set_seed makes the shuffles reproducible
        def batches():
            order = rng.permutation(_count(x)) if shuffle else np.arange(_count(x))
            return _batches(x, y, weights, order, batch_size)
        return _Feed(batches, -(-_count(x) // batch_size), steps,
                     _count(x) % batch_size == 0)

    @strict_keywords()
    def evaluate(self, x=None, y=None, batch_size: Optional[int] = None,
                 verbose: Union[int, str] = "auto", sample_weight=None, steps: Optional[int] = None,
                 callbacks: Optional[Sequence[Callback]] = None, return_dict: bool = False):
        """The loss (and metrics) over (x, y), averaged over all samples: a float without
        metrics, else the list `[loss, *metrics]`; a dict by name with `return_dict`.
        `x` may be an `rt.data.Dataset` or a generator of `(x, y)` (or
        `(x, y, sample_weight)`) batches, of which `steps` are read (all by default);
        `sample_weight` weighs the loss as in `fit`; `callbacks` get the test hooks.
        `verbose` 1 or "auto" draws Keras's progress bar with the running logs, 2 its one
        line at the end, 0 nothing."""
        self._check_compiled("evaluate")
        verbose = _check_verbose(verbose)
        feed = self._feed("evaluate", x, y, _default_batch_size(batch_size), sample_weight,
                          None, False, capped_steps(_check_steps(steps, "steps")))
        logs = self._test_logs(feed.epoch(), _with_model(self, callbacks),
                               StepProgress(feed.length, verbose))
        if return_dict:
            return _keras_order(logs)
        return self._flat_results(logs)

    def _flat_results(self, logs: dict):
        """The list `evaluate` and the `*_on_batch` methods return, in Keras 3's order: the
        values named in `metrics_names`, "compile_metrics" standing for the compiled metrics
        in their order (a model of several outputs logs them under prefixed names, which
        Keras leaves to the end), then the others by sorted name; one value alone when there
        is one."""
        names: list = []
        for name in self.metrics_names:
            if name == "compile_metrics" and not getattr(self, "_per_output_losses", None):
                names += [key for key in getattr(self, "_log_names", ()) if key != "loss"]
            else:
                names.append(name)
        values = [logs[name] for name in names if name in logs]
        values += [logs[key] for key in sorted(logs) if key not in names]
        return values[0] if len(values) == 1 else values

    @strict_keywords()
    def predict(self, x, batch_size: Optional[int] = None, verbose: Union[int, str] = "auto",
                steps: Optional[int] = None,
                callbacks: Optional[Sequence[Callback]] = None) -> np.ndarray:
        """The model's outputs for `x` (with `training=False`), batch by batch, as one array;
        `x` may be a dataset or generator of batches (of x, or of (x, y) pairs), of which
        `steps` are read (all by default); `callbacks` get the predict hooks; `verbose` as
        in `evaluate`."""
        if getattr(self, "_predict_step", None) is None:
            self._predict_step = _BatchStep(lambda: function(
                functools.partial(_predict_step(self)), reduce_retracing=True), exact_first=True)
        verbose = _check_verbose(verbose)
        batch_size = _default_batch_size(batch_size)
        steps = capped_steps(_check_steps(steps, "steps"))
        dataset = _dataset_of(x, None, "predict", steps)
        if dataset is not None or _is_generator(x) or isinstance(x, PyDataset):
            source = x._open() if dataset is not None else \
                epoch_batches(x, False, None) if isinstance(x, PyDataset) else x
            inputs = (self._as_arrays(b[0] if type(b) is tuple else b) for b in source)
            length = _dataset_steps(dataset) if dataset is not None else \
                x.num_batches if isinstance(x, PyDataset) else None
        else:
            x = self._as_arrays(x)
            inputs = (_take(x, slice(start, start + batch_size))
                      for start in range(0, _count(x), batch_size))
            length = -(-_count(x) // batch_size)
        if steps is not None:
            inputs = itertools.islice(inputs, steps)
            length = steps if length is None else min(steps, length)
        parts = self._predicted(inputs, _with_model(self, callbacks),
                                StepProgress(length, verbose))
        if not parts:
            return np.zeros((0,), self._dtype.as_numpy_dtype)
        return nest.map_structure(lambda *p: np.concatenate([np.asarray(a) for a in p]), *parts)

    @strict_keywords()
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       return_dict: bool = False):
        """One training step on one batch: the loss (with the model's `losses`) and metrics
        of that batch, as `evaluate` returns them (metrics start again at each call, as in
        Keras 3)."""
        return self._on_batch("train_on_batch", x, y, sample_weight, class_weight, return_dict)

    @strict_keywords()
    def test_on_batch(self, x, y=None, sample_weight=None, return_dict: bool = False):
        """The loss and metrics of one batch, without training."""
        return self._on_batch("test_on_batch", x, y, sample_weight, None, return_dict)

    def predict_on_batch(self, x) -> np.ndarray:
        """The model's outputs for one batch (with `training=False`)."""
        if getattr(self, "_predict_step", None) is None:
            self._predict_step = _BatchStep(lambda: function(
                functools.partial(_predict_step(self)), reduce_retracing=True), exact_first=True)
        return nest.map_structure(np.asarray, self._predict_step(self._as_arrays(x)))

    def _on_batch(self, method: str, x, y, sample_weight, class_weight, return_dict: bool):
        self._check_compiled(method)
        if y is None:
            raise TypeError(f"{method}() missing the targets y.")
        x, y = self._as_arrays(x), self._as_arrays(y)
        _check_lengths(x, y)
        weights = _sample_weights(y, sample_weight, class_weight, method)  # as in fit
        totals = self._new_means()  # stateful metrics start again
        step = self._train_step if method == "train_on_batch" else self._test_step
        totals.add(step(x, y, weights), _count(x))
        logs = totals.means()
        if return_dict:
            return _keras_order(logs)
        return self._flat_results(logs)

    # -- helpers ---------------------------------------------------------------------------------
    def _test_logs(self, batches, callbacks: list, progress: StepProgress) -> dict:
        """The means of the test step over `batches`, calling the callbacks' test hooks and
        drawing the `progress`."""
        for callback in callbacks:
            callback.on_test_begin({})
        totals = self._new_means()
        for step, (x_batch, y_batch, w_batch) in enumerate(batches):
            for callback in callbacks:
                callback.on_test_batch_begin(step, {})
            batch_logs = _keras_order(totals.add(self._test_step(x_batch, y_batch, w_batch),
                                                 _count(x_batch)))
            progress.update(batch_logs)
            for callback in callbacks:
                callback.on_test_batch_end(step, batch_logs)
        logs = totals.means()
        progress.finish(_keras_order(logs))
        for callback in callbacks:
            callback.on_test_end(_keras_order(logs))
        return logs

    def _predicted(self, inputs, callbacks: list, progress: StepProgress) -> list:
        """The predict step's outputs for each batch of `inputs`, calling the predict hooks
        and drawing the `progress`."""
        for callback in callbacks:
            callback.on_predict_begin({})
        parts = []
        for step, batch in enumerate(inputs):
            for callback in callbacks:
                callback.on_predict_batch_begin(step, {})
            parts.append(self._predict_step(_strings_as_tensors(batch)))
            progress.update({})
            for callback in callbacks:
                callback.on_predict_batch_end(step, {"outputs": parts[-1]})
        progress.finish({})
        for callback in callbacks:
            callback.on_predict_end({})
        return parts

    def _check_compiled(self, method: str) -> None:
        if getattr(self, "_train_step", None) is None:
            raise RuntimeError(f"call model.compile(optimizer, loss) before model.{method}().")

    def _new_means(self) -> "_Means":
        """Running means for one pass; stateful metrics start again from zero."""
        stateful = getattr(self, "_stateful_metrics", [])
        if _custom.overrides(self, "train_step") or _custom.overrides(self, "test_step"):
            stateful = list(stateful) + list(self.metrics)  # what its own steps report
        for metric in stateful:
            metric.reset_state()
        self._compiled_losses_seen = True  # Keras lists the per-output losses from now on
        per_batch = {i for i, name in enumerate(self._log_names)
                     if name in getattr(self, "_per_output_losses", ())}
        return _Means(self._log_names, getattr(self, "_stateful_positions", set()), per_batch)

    def _dataset_batches(self, elements, method: str, class_weight=None):
        """The (x, y, sample_weight or None) batches, as arrays, of an iterator over the
        (x, y) or (x, y, sample_weight) batches of a dataset or generator; `class_weight`
        weighs the batches without weights of their own, as Keras does."""
        for element in elements:
            if type(element) is not tuple:  # x alone (no targets), as Keras unpacks it
                element = (element,)
            if len(element) not in (1, 2, 3):
                raise ValueError(f"{method}: a dataset or generator must yield x, (x, y) or "
                                 f"(x, y, sample_weight) batches, got {_structure(element)}.")
            if len(element) == 1:
                yield _strings_as_tensors(self._as_arrays(element[0])), None, None
                continue
            y = self._as_arrays(element[1])
            if len(element) == 3:
                weight = _weight_array(element[2], method)
            else:
                weight = _sample_weights(y, None, class_weight, method)
            yield _strings_as_tensors(self._as_arrays(element[0])), y, weight

    def _as_arrays(self, values):
        """NumPy arrays (a list or dict of them for a model of several inputs); float64 data
        becomes the model's float dtype, int64 int32; a pandas Series is a column `[n, 1]`,
        as in Keras; a SparseTensor its dense values; a RaggedTensor stays one (its values
        converted likewise)."""
        if isinstance(values, RaggedTensor):
            flat = values.flat_values
            target = {np.float64: self._dtype, np.int64: "int32"}.get(flat.dtype.as_numpy_dtype)
            return values if target is None else values.with_flat_values(array_math.cast(flat, target))
        if isinstance(values, SparseTensor):
            values = to_dense(values, validate_indices=False)
        if isinstance(values, ExtensionType):
            return values   # the model's call takes it as it is
        if isinstance(values, (list, tuple, dict)) and nest.is_nested(values) and \
                all(hasattr(v, "shape") for v in nest.flatten(values)):
            return nest.map_structure(self._as_arrays, values)
        array = np.asarray(values)
        if _is_pandas_series(values):
            array = array[:, None]
        if array.dtype == np.float64:
            return array.astype(self._dtype.as_numpy_dtype)
        if array.dtype == np.int64:
            return array.astype(np.int32)
        return array


_OPTIMIZERS = {cls.__name__.lower(): cls for cls in (
    _optimizers.SGD, _optimizers.Adam, _optimizers.AdamW, _optimizers.RMSprop,
    _optimizers.Adagrad, _optimizers.Adadelta, _optimizers.Adafactor, _optimizers.Adamax,
    _optimizers.Ftrl, _optimizers.Lion, _optimizers.Muon, _optimizers.Nadam)}


def _is_metric(value) -> bool:
    return all(callable(getattr(value, m, None)) for m in ("update_state", "result",
                                                            "reset_state")) and \
        not isinstance(value, type)


def _layer_metrics(model) -> list:
    """The metric objects (keras.metrics) the model's layers hold as attributes, as Keras 3
    lists them in `model.metrics`: the model's own public attributes', then each layer's."""
    found: list = []
    seen: set = set()
    for owner in [model, *model.submodules]:
        for key, value in vars(owner).items():
            if key.startswith("_"):
                continue
            for item in (value if isinstance(value, (list, tuple)) else [value]):
                if _is_metric(item) and id(item) not in seen:
                    seen.add(id(item))
                    found.append(item)
    return found


def _keras_order(logs: dict) -> dict:
    """Logs by name in sorted order, as Keras 3 hands them to callbacks and returns them
    (`history.history`, `evaluate(return_dict=True)`; a model's own step's logs in Keras's
    order of them, custom_steps.keras_order); lists of values keep the metrics' order."""
    return _custom.keras_order(logs)


def _is_pandas_series(value) -> bool:
    """Whether `value` is a pandas Series (without importing pandas)."""
    return type(value).__name__ == "Series" and \
        type(value).__module__.split(".")[0] == "pandas"


def get_optimizer(identifier):
    """An optimizer from a Keras name ("adam", "SGD", ...: any case, a new optimizer with
    Keras's defaults) or an optimizer object (returned as is)."""
    if isinstance(identifier, str):
        cls = _OPTIMIZERS.get(identifier.lower())
        if cls is not None:
            return cls()
        known = ", ".join(repr(name) for name in sorted(_OPTIMIZERS))
        raise ValueError(f"Could not interpret optimizer identifier: {identifier} (Unknown "
                         f"optimizer {identifier!r}); known names are {known} (any "
                         f"case), or pass an optimizer object such as "
                         f"rt.keras.optimizers.Adam(learning_rate=1e-3).")
    if isinstance(identifier, type) and hasattr(identifier, "apply_gradients"):
        raise ValueError(f"optimizer must be an optimizer object, got the class "
                         f"{identifier.__name__}; call it: {identifier.__name__}().")
    if hasattr(identifier, "apply_gradients"):
        return identifier
    raise ValueError(f"Could not interpret optimizer identifier {identifier!r:.100}: pass an "
                     f"optimizer name such as 'adam' or an optimizer object.")


def _with_model(model, callbacks) -> list:
    """`callbacks` as a list, each told the model."""
    callbacks = list(callbacks or ())
    for callback in callbacks:
        callback.set_model(model)
    return callbacks


def _unique(names: list[str]) -> list[str]:
    """`names` with a repeated name numbered ("precision", "precision_1", ...), so that each
    metric has its own entry in the logs and the history."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        count = seen.get(name, 0)
        seen[name] = count + 1
        while count and f"{name}_{count}" in names + out:
            count += 1
        out.append(f"{name}_{count}" if count else name)
    return out


def _output_names(model, loss) -> list[str] | None:
    """The names of a functional model's outputs (its dict keys, else the output layers'
    names) when `loss` is a list or dict (one loss per output, as Keras takes them); None
    for one loss for the whole output."""
    outputs = getattr(model, "_nested_outputs", None)
    if not isinstance(loss, (list, tuple, dict)) or outputs is None:
        return None
    if isinstance(outputs, dict):
        return list(outputs)
    if not isinstance(outputs, (list, tuple)) or (len(outputs) == 1 and not isinstance(
            loss, dict)):
        return None
    return [tensor.node.layer.name for tensor in outputs]


def _metrics_by_output(names: list[str] | None, metrics) -> tuple:
    """(flat metrics, the output index of each) for a model of several outputs given metrics
    by output (a list with one list per output, or a dict by output name), as Keras takes
    them; a flat list is refused there, as in Keras. (metrics, None) otherwise."""
    if not names or not metrics:
        return metrics, None
    by_output = isinstance(metrics, dict) or (
        isinstance(metrics, (list, tuple)) and len(metrics) == len(names) and
        all(m is None or isinstance(m, (list, tuple)) for m in metrics))
    if not by_output:
        raise ValueError(f"compile(metrics=...): for a model of several outputs ({names}), "
                         "metrics must be a dict by output name or a list with one list of "
                         "metrics per output, as in Keras.")
    flat, outputs = [], []
    for index, entry in enumerate(_by_output(metrics, names, "compile(metrics=...)")):
        entry = [] if entry is None else entry if isinstance(entry, (list, tuple)) else [entry]
        flat += list(entry)
        outputs += [index] * len(entry)
    return flat, outputs


def _on_outputs(named: list, outputs: list | None, names: list[str] | None) -> list:
    """The metrics given by output read their output's targets and predictions and are
    logged as "<output name>_<metric name>", as in Keras."""
    if outputs is None:
        return named
    def on_output(fn, index):
        def metric(y, prediction, sample_weight=None):
            return fn(_by_output(y, names, "the targets")[index],
                      _by_output(prediction, names, "the model's outputs")[index],
                      sample_weight)
        return metric
    picked = [(f"{names[i]}_{name}", on_output(fn, i))
              for (name, fn), i in zip(named, outputs)]
    return picked + named[len(outputs):]


def _by_output(value, names: list[str], what: str) -> list:
    """`value` (a list in the outputs' order, or a dict by output name) as a list."""
    if isinstance(value, dict):
        unknown = sorted(set(value) - set(names))
        if unknown:
            raise ValueError(f"{what}: {unknown} are not output names; the model's outputs are "
                             f"{names}.")
        return [value.get(name) for name in names]
    if not isinstance(value, (list, tuple)) or len(value) != len(names):
        raise ValueError(f"{what} needs one entry per output ({len(names)}: {names}), got "
                         f"{value!r:.80}.")
    return list(value)


def _per_output_loss(model, loss, loss_weights) -> Callable | None:
    """For a model of several outputs given one loss each (a list, or a dict by output
    name), `fn(y, prediction, sample_weight)`: the sum of each output's loss times its
    `loss_weights` entry (1 when not given), as Keras's compile computes it."""
    names = _output_names(model, loss)
    if names is None:
        return None
    missing = sorted(set(names) - set(loss)) if isinstance(loss, dict) else []
    losses = [None if entry is None else _weighted_loss(entry, _loss_function(entry))
              for entry in _by_output(loss, names, "compile(loss=...)")]
    weights = [1.0] * len(names) if loss_weights is None else [
        1.0 if w is None else float(w)
        for w in _by_output(loss_weights, names, "compile(loss_weights=...)")]
    def total(y, prediction, sample_weight=None):
        if missing:  # refused when training or evaluating starts, as Keras does
            raise ValueError(f"compile(loss=...): a dict of losses needs every output name "
                             f"{names} (None for an output without a loss), as in Keras; "
                             f"{missing} missing.")
        targets = _by_output(y, names, "the targets")
        predicted = _by_output(prediction, names, "the model's outputs")
        terms = [fn(t, p, sample_weight) * w
                 for fn, t, p, w in zip(losses, targets, predicted, weights) if fn is not None]
        return sum(terms[1:], terms[0])
    total.__name__ = "loss"
    active = [(f"{name}_loss", _one_output(fn, index, names))
              for index, (name, fn) in enumerate(zip(names, losses)) if fn is not None]
    total.per_output = active if len(active) > 1 else []  # logged when several, as Keras
    return total


def _one_output(loss_fn: Callable, index: int, names: list[str]) -> Callable:
    """`fn(y, prediction)`: the unweighted loss of output `index` (Keras logs it as
    "<output name>_loss")."""
    def output_loss(y, prediction):
        return loss_fn(_by_output(y, names, "the targets")[index],
                       _by_output(prediction, names, "the model's outputs")[index])
    return output_loss


def _loss_function(loss) -> Callable:
    """The loss for a callable or a name: every name `keras.losses.get` knows ("mse",
    "huber", "kl_divergence", "MeanSquaredError", ...), as Keras's compile takes them."""
    return _losses.get(loss)


def _no_loss(model) -> Callable:
    """compile() without a loss: the model trains on its own `add_loss` terms alone, as in
    Keras; a step with none of them has nothing to minimize."""
    def no_loss(y_true, y_pred, sample_weight=None):
        if not model.losses:
            raise ValueError("No loss to compute: the model was compiled without a loss and "
                             "added none with add_loss(). Provide a `loss` argument in "
                             "`compile()`.")
        return convert_to_tensor(0.0)
    return no_loss


def _metric_list(metrics, argument: str = "metrics") -> list:
    """compile's `metrics` as a list (a single name or metric is refused, as in Keras)."""
    if not metrics:
        return []
    if isinstance(metrics, dict):
        raise ValueError(f"compile({argument}=...): a dict of metrics by output is not "
                         f"supported; pass one list of metrics for the model's output.")
    if not isinstance(metrics, (list, tuple)):
        raise ValueError(f"compile({argument}=...) takes a list or tuple of metrics, e.g. "
                         f"{argument}=[{metrics!r:.60}], got {type(metrics).__name__}.")
    return [m() if isinstance(m, type) else m for m in metrics]  # a class: a new metric


def _split_validation(x, y, weights, fraction):
    """(x_train, y_train, w_train, (x_val, y_val, w_val)): the last `fraction` of the samples
    (and of their weights, when given) held out, as Keras's `validation_split` does (before
    any shuffling)."""
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or \
            not 0.0 <= fraction < 1.0:
        raise ValueError(f"fit(validation_split=...) must be a fraction in [0, 1), got "
                         f"{fraction!r}.")
    at = int(np.floor(_count(x) * (1.0 - fraction)))
    if at == 0 or at == _count(x):
        raise ValueError(f"fit(validation_split={fraction}) leaves no sample for "
                         f"{'training' if at == 0 else 'validation'} out of {_count(x)}.")
    kept, held = slice(0, at), slice(at, None)
    return (_take(x, kept), _take(y, kept), None if weights is None else weights[kept],
            (_take(x, held), _take(y, held), None if weights is None else weights[held]))


def _check_verbose(verbose) -> int:
    """`verbose` as an int: "auto" is 1, as in Keras."""
    if verbose == "auto":
        return 1
    if isinstance(verbose, bool) or not isinstance(verbose, (int, np.integer)) or \
            verbose not in (0, 1, 2):
        raise ValueError(f"verbose must be 0, 1, 2 or 'auto', got {verbose!r}.")
    return int(verbose)


def _default_batch_size(batch_size) -> int:
    """`batch_size`, 32 when None (Keras's default), checked."""
    batch_size = 32 if batch_size is None else batch_size
    _check_batch_size(batch_size)
    return int(batch_size)


def _check_steps(steps, name: str) -> Optional[int]:
    if steps is None:
        return None
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"{name} must be a positive integer or None, got {steps!r}.")
    return int(steps)


def _check_validation_freq(freq) -> None:
    if isinstance(freq, bool) or not isinstance(freq, (int, np.integer, list, tuple)) or \
            (isinstance(freq, (int, np.integer)) and freq < 1):
        raise ValueError(f"fit(validation_freq=...) must be a positive int (validate every "
                         f"n-th epoch) or a list of epochs counted from 1, got {freq!r}.")


def _should_validate(epoch: int, freq) -> bool:
    """Whether epoch `epoch` (from 0) is validated: every `freq`-th one, or those listed
    (from 1), as Keras's `validation_freq`."""
    if isinstance(freq, (list, tuple)):
        return epoch + 1 in freq
    return (epoch + 1) % int(freq) == 0


def _callback_list(callbacks, history: History, verbose: int) -> list:
    """The user's callbacks, then the `History`, then a `ProgbarLogger` when `verbose` and
    none was given, as Keras's `CallbackList` orders them."""
    callbacks = list(callbacks or ())
    for callback in callbacks:
        if not isinstance(callback, Callback):
            raise TypeError(f"fit(callbacks=...) takes keras.callbacks.Callback objects, got "
                            f"{callback!r:.80}.")
    callbacks.append(history)
    if verbose and not any(isinstance(c, ProgbarLogger) for c in callbacks):
        callbacks.append(ProgbarLogger())
    return callbacks


def _ran_out_warning() -> None:
    warnings.warn("Your input ran out of data; interrupting training. Make sure that your "
                  "dataset or generator can generate at least `steps_per_epoch * epochs` "
                  "batches; you may need dataset.repeat().", stacklevel=user_stacklevel())


def _structure(element) -> str:
    if type(element) is tuple:
        return f"a tuple of {len(element)}"
    return f"a {type(element).__name__}"


def _is_generator(x) -> bool:
    """Whether `x` is a Python generator or iterator of batches (not an array or a list)."""
    return isinstance(x, (types.GeneratorType, Iterator)) and not hasattr(x, "shape")


class _Feed:
    """The batches of one input for each epoch, as Keras's epoch iterator hands them out:
    all of them each epoch; or, with `steps` a epoch, the next `steps` batches, continuing
    where the last epoch stopped and starting again once all `num_batches` were read (an
    epoch may then be short; an input that runs out warns)."""

    def __init__(self, make: Callable[[], Iterable], num_batches: Optional[int],
                 steps: Optional[int], same_size: bool = False) -> None:
        self.make, self.num_batches, self.steps = make, num_batches, steps
        self.same_size = same_size  # every batch holds the same number of samples
        self.iterator: Optional[Iterator] = None
        self.seen = 0

    @property
    def length(self) -> Optional[int]:
        """The batches a epoch, when known."""
        return self.steps or self.num_batches

    def epoch(self) -> Iterator:
        if self.steps is None:
            yield from self.make()
            return
        if self.iterator is None:
            self.iterator, self.seen = iter(self.make()), 0
        for _ in range(self.steps):
            if self.num_batches is not None and self.seen >= self.num_batches:
                _ran_out_warning()
                break
            try:
                batch = next(self.iterator)
            except StopIteration:
                self.num_batches, self.iterator = self.seen, None
                _ran_out_warning()
                return
            self.seen += 1
            yield batch
        if self.num_batches is not None and self.seen >= self.num_batches:
            self.iterator = None


def _check_initial_epoch(initial_epoch) -> int:
    if isinstance(initial_epoch, bool) or not isinstance(initial_epoch, (int, np.integer)) or \
            initial_epoch < 0:
        raise ValueError(f"fit(initial_epoch=...) must be a non-negative integer, got "
                         f"{initial_epoch!r}.")
    return int(initial_epoch)


def _check_batch_size(batch_size) -> None:
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}.")


class _BatchStep:
    """A step function traced for batches of any size: at the first call with new leaves
    (dtypes and ranks), a new step function (from `make`) is traced with inputs whose first
    axis is unknown, and it serves every later batch of that structure. One function a
    structure, so that batches of other ranks (a dataset's `[batch]` columns after arrays'
    `[batch, 1]`) are traced anew, never merged into inputs of unknown rank.

    `exact_first` (predict's steps, as Keras's): the first call of a structure is traced with
    its own shapes, and the unknown first axis only once a batch of another size comes."""

    def __init__(self, make: Callable[[], Any], exact_first: bool = False, fallback=None):
        self._make = make
        self._fallback = fallback or None  # (make on the NumPy tier, hook) for "auto"
        self._steps: dict = {}
        self._exact: dict = {}  # key -> the shapes of the exact first trace, until relaxed
        self._exact_first = exact_first
        self.exact_next = False  # the next new structure's first trace: its own shapes
        self.step = make()  # the first structure's (the rt.function's own API: see below)

    def __call__(self, *args):
        if not self._fallback:
            return self._call(*args)
        try:
            return self._call(*args)
        except JitCompileError as error:  # "auto"'s tier refused it: the NumPy tier runs
            self._make, refused = self._fallback
            self._fallback = None
            self._steps.clear()
            self._exact.clear()
            self.step = self._make()
            refused(error)
            return self._call(*args)

    def _call(self, *args):
        key = tuple(type(leaf) if s is None else (s.dtype, s.shape.rank)
                    for leaf, s in ((leaf, spec_of(leaf)) for leaf in nest.flatten(args)))
        step = self._steps.get(key)
        if step is None:
            step = self.step if not self._steps else self._make()
            self._steps[key] = step
            if self._exact_first or self.exact_next:
                self.exact_next = False
                self._exact[key] = _shapes(args)
            else:
                step.get_concrete_function(*nest.map_structure(_any_batch, args))
        elif key in self._exact and _shapes(args) != self._exact[key]:
            step.get_concrete_function(*nest.map_structure(_any_batch, args))
            del self._exact[key]
        return step(*args)

    def experimental_get_tracing_count(self) -> int:
        """The traces of every structure's step function."""
        return sum(step.experimental_get_tracing_count() for step in self._steps.values())

    def __getattr__(self, name: str):
        return getattr(self.step, name)  # the rt.function's own API


def _shapes(args) -> tuple:
    """The shapes of the array and tensor leaves of `args`."""
    return tuple(None if s is None else tuple(s.shape.as_list())
                 for s in map(spec_of, nest.flatten(args)))


def _any_batch(leaf):
    """The TensorSpec of an array or tensor with its first axis unknown; others as they are."""
    spec = spec_of(leaf)
    if spec is None or not spec.shape.rank:
        return leaf
    return TensorSpec([None] + spec.shape.as_list()[1:], spec.dtype)


def _train_step(model, optimizer, loss_fn, metrics):
    def train_step(x, y, sample_weight=None):
        with GradientTape() as tape:
            prediction = model(x, training=True)
            loss = _with_model_losses(model, loss_fn(y, prediction, sample_weight))
            scaled = optimizer.scale_loss(loss) if hasattr(optimizer, "scale_loss") else loss
        variables = model.trainable_variables
        if variables:  # a model without trainable weights trains nothing, as in Keras
            optimizer.apply_gradients(zip(tape.gradient(scaled, variables), variables))
        return [loss] + [fn(y, prediction, sample_weight) for _, fn in metrics]
    return train_step


def _test_step(model, loss_fn, metrics):
    def test_step(x, y, sample_weight=None):
        prediction = model(x, training=False)
        loss = _with_model_losses(model, loss_fn(y, prediction, sample_weight))
        return [loss] + [fn(y, prediction, sample_weight) for _, fn in metrics]
    return test_step


def _with_model_losses(model, loss):
    """`loss` plus `model.losses` (regularization penalties, `add_loss`): Keras trains on
    and reports the total."""
    return sum(model.losses, loss)


def _predict_step(model):
    def predict_step(x):
        return model(x, training=False)
    return predict_step


def _check_lengths(x, y) -> None:
    counts = [len(a) for a in nest.flatten(x, expand_composites=False) + nest.flatten(y, expand_composites=False)]
    if len(set(counts)) > 1:
        raise ValueError(f"x and y must have the same number of samples: {_count(x)} and "
                         f"{_count(y)}" if len(set(counts[:1] + counts[-1:])) > 1 else
                         f"the inputs must have the same number of samples, got {counts}")


class _Means:
    """Running weighted means of a step's results, by name, as Keras's metric trackers keep
    them: the loss weighs each batch by its samples, a metric by what it counted (its
    kept values, under a mask); for the positions in `latest`, stateful metrics, the latest
    value (it already covers the whole pass). `add` returns the means so far, which Keras
    logs at each batch."""

    def __init__(self, names: list[str], latest: set | None = None,
                 per_batch: set | None = None):
        self.names = names
        # the per-output losses: Keras 3's trackers of them take each batch's mean with
        # weight 1, whatever its size (the total loss weighs the batch by its samples)
        self.per_batch = per_batch or set()
        self.sums = np.zeros(len(names))
        self.weights = np.zeros(len(names))
        self.latest = latest or set()
        self.last: list = [0.0] * len(names)
        self.ranks: dict | None = None   # a model's own step's order of its logs

    def add(self, values, count: int) -> dict:
        if isinstance(values, dict):  # a model's own step: its results, as they are
            self.names = list(values)
            self.ranks = getattr(values, "ranks", None)
            self.latest = set(range(len(values)))
            self.last = [_logged(value) for value in values.values()]
            return self.means()
        for i, value in enumerate(values):
            if i in self.latest:
                self.last[i] = _logged(value)
                continue
            weight = count
            if isinstance(value, (tuple, list)):  # (mean, what it counted)
                value, weight = value
                weight = float(weight)
            if i in self.per_batch:
                weight = 1.0
            self.sums[i] += float(value) * weight
            self.weights[i] += weight
        return self.means()

    def means(self) -> dict:
        """The means by name, as float32 values (Keras's metric results are float32)."""
        means = _custom.StepLogs(
            (name, self.last[i] if i in self.latest else
             (float(np.float32(self.sums[i] / self.weights[i])) if self.weights[i] else 0.0))
            for i, name in enumerate(self.names))
        means.ranks = self.ranks or {}
        return means


def _logged(value):
    """A stateful metric's result for the logs: a float, or an array of them (a score per
    class or per threshold, as Keras logs it)."""
    array = np.asarray(value)
    return float(array) if array.ndim == 0 else array


def _counted(fn: Callable, weighted: bool = False) -> Callable:
    """A metric function's step result: (the mean of its values, how many it counted), as
    Keras's mean metrics accumulate them. Under a mask on the predictions (`_keras_mask`) it
    counts the kept values only; otherwise each sample once (the mean of a sample's values
    first), and a function giving one value counts the batch's samples. A `weighted` metric
    given sample weights counts each sample by its weight: sum(w * v) / sum(w)."""
    def metric(y_true, y_pred, sample_weight=None):
        mask = getattr(y_pred, "_keras_mask", None)
        values = array_math.cast(convert_to_tensor(fn(y_true, y_pred)), "float32")
        if not values.shape.rank:
            return values, _batch_size(y_true)
        if weighted and sample_weight is not None and mask is None:
            return _weighted_mean(values, sample_weight)
        if mask is None or values.shape.rank < convert_to_tensor(mask).shape.rank:
            if values.shape.rank > 1:
                values = array_math.reduce_mean(values, axis=list(range(1, values.shape.rank)))
            return array_math.reduce_mean(values), array_math.cast(array_math.size(values),
                                                                   "float32")
        weight = _losses.mask_weights(None, mask, values.dtype, "sum")
        weight = weight * array_math.ones_like(values)
        counted = array_math.reduce_sum(weight)
        return math_composed.divide_no_nan(array_math.reduce_sum(values * weight),
                                           counted), counted
    metric.__name__ = getattr(fn, "__name__", "metric")
    return metric


def _batch_size(y_true):
    first = nest.flatten(y_true)[0]
    return array_math.cast(array_math.shape(convert_to_tensor(first))[0], "float32")


def _is_stateful(metric) -> bool:
    """Whether `metric` is a stateful metric object (update_state / result / reset_state)."""
    return all(hasattr(metric, name) for name in ("update_state", "result", "reset_state"))


def _stateful_step(metric, weighted: bool = False) -> Callable:
    def update_and_read(y_true, y_pred, sample_weight=None):
        if weighted and sample_weight is not None:
            metric.update_state(y_true, y_pred, sample_weight=sample_weight)
        else:
            metric.update_state(y_true, y_pred)
        return metric.result()
    return update_and_read


def _weighted_mean(values, sample_weight) -> tuple:
    """(sum(w * v) / sum(w), sum(w)) over the samples: each sample's values averaged first."""
    if values.shape.rank > 1:
        values = array_math.reduce_mean(values, axis=list(range(1, values.shape.rank)))
    weights = array_math.reshape(array_math.cast(convert_to_tensor(sample_weight), "float32"),
                                 [-1])
    total = array_math.reduce_sum(weights)
    return math_composed.divide_no_nan(array_math.reduce_sum(values * weights), total), total


def _loss_weight(loss_weights) -> float:
    """compile's `loss_weights` for a model of one output: a float, or a list or dict of one."""
    if loss_weights is None:
        return 1.0
    value = loss_weights
    if isinstance(loss_weights, (list, tuple)) and len(loss_weights) == 1:
        value = loss_weights[0]
    elif isinstance(loss_weights, dict) and len(loss_weights) == 1:
        value = next(iter(loss_weights.values()))
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise ValueError(f"compile(loss_weights=...) takes a float (or a list or dict of one "
                         f"float) for a model of one output, got {loss_weights!r:.80}.")
    return float(value)


def _scaled(loss_fn: Callable, weight: float) -> Callable:
    """`loss_fn` times `weight` (itself when 1)."""
    if weight == 1.0:
        return loss_fn
    def scaled(y_true, y_pred, sample_weight=None):
        return loss_fn(y_true, y_pred, sample_weight) * weight
    scaled.__name__ = loss_fn.__name__
    return scaled


def _weighted_loss(loss, loss_fn: Callable) -> Callable:
    """`fn(y_true, y_pred, sample_weight=None)`: the scalar loss as Keras's compile reduces
    it: the mean of the per-sample (or per-step) losses, weighed by `sample_weight` and by
    the predictions' mask (`_keras_mask`: the mean over the kept steps). A `Loss` object
    weighs, masks and reduces itself."""
    def weighted(y_true, y_pred, sample_weight=None):
        if hasattr(loss_fn, "reduction"):  # a Loss object: it weighs and reduces as Keras
            value = convert_to_tensor(loss_fn(y_true, y_pred, sample_weight=sample_weight))
            return array_math.reduce_mean(value) if value.shape.rank else value
        mask = getattr(y_pred, "_keras_mask", None)
        values = convert_to_tensor(loss_fn(y_true, y_pred))
        if not values.shape.rank:
            if sample_weight is not None:
                raise NotImplementedError(
                    f"sample weights need a loss that gives one value per sample; "
                    f"{loss!r:.60} gives one value per batch. Pass a keras.losses function or "
                    f"Loss object.")
            return values
        return _losses.reduce_weighted(values, sample_weight, mask)
    weighted.__name__ = getattr(loss_fn, "__name__", "loss")
    return weighted


def _sample_weights(y, sample_weight, class_weight, method: str):
    """One float32 weight per sample, from `sample_weight` or from `class_weight` and the
    labels (integer labels, or the argmax of one-hot ones) as Keras computes them; or None."""
    if sample_weight is not None and class_weight is not None:
        raise ValueError(f"{method}: give sample_weight or class_weight, not both (as Keras).")
    if class_weight is not None:
        if not isinstance(class_weight, dict) or nest.is_nested(y):
            raise ValueError(f"{method}(class_weight=...) takes a dict {{class: weight}} for a "
                             f"model of one output, got {type(class_weight).__name__}.")
        labels = np.asarray(y)
        if labels.ndim > 1:
            labels = labels.argmax(-1) if labels.shape[-1] != 1 else labels[..., 0]
        labels = np.round(labels).astype(np.int64).reshape(len(labels), -1)[:, 0]
        return np.array([float(class_weight.get(int(c), 1.0)) for c in labels], np.float32)
    if sample_weight is None:
        return None
    weights = _weight_array(sample_weight, method)
    if len(weights) != _count(y):
        raise ValueError(f"{method}: sample_weight has {len(weights)} weights for "
                         f"{_count(y)} samples; give one weight per sample.")
    return weights


def _weight_array(sample_weight, method: str) -> np.ndarray:
    weights = np.asarray(sample_weight, np.float32)
    if weights.ndim == 0:
        raise ValueError(f"{method}: sample_weight must hold one weight per sample, got a "
                         f"scalar {sample_weight!r}.")
    return weights


def _batches(x, y, weights, order, batch_size: int):
    """(x, y, weights or None) batches of `batch_size` samples taken in `order`."""
    for start in range(0, _count(x), batch_size):
        index = order[start:start + batch_size]
        yield (_strings_as_tensors(_take(x, index)), _take(y, index),
               None if weights is None else weights[index])


def _strings_as_tensors(x):
    """String arrays as string tensors, so that a compiled step keys them by shape (not by
    identity, which would retrace at every batch)."""
    if isinstance(x, RaggedTensor):
        return x
    return nest.map_structure(
        lambda v: convert_to_tensor(v) if isinstance(v, np.ndarray) and v.dtype.kind in "OUS"
        else v, x)


def _dataset_of(x, y, method: str, steps: Optional[int] = None):
    """`x` when it is an `rt.data.Dataset` (then `y` must be None), else None. An infinite
    dataset needs `steps`."""
    data = sys.modules.get("runtime.data.dataset")
    if data is None or not isinstance(x, data.Dataset):
        return None
    if y is not None:
        raise ValueError(f"{method}: y must not be given when x is a dataset (it yields (x, y)).")
    if data.INFINITE == x._card and steps is None:
        what = "steps_per_epoch" if method == "fit" else "steps"
        raise ValueError(f"{method}: the dataset is infinite; pass {what}=... (the batches "
                         f"a epoch) or take() a finite number of batches.")
    return x


def _validation_triple(validation_data) -> tuple:
    """(x, y, sample_weight) of `validation_data`: a dataset (then y and the weights are
    None), (x_val, y_val) or (x_val, y_val, sample_weight_val)."""
    data = sys.modules.get("runtime.data.dataset")
    if data is not None and isinstance(validation_data, data.Dataset) or \
            _is_generator(validation_data) or isinstance(validation_data, PyDataset):
        return validation_data, None, None
    parts = tuple(validation_data)
    if len(parts) not in (2, 3):
        raise ValueError(f"fit(validation_data=...) must be (x_val, y_val), (x_val, y_val, "
                         f"sample_weight_val) or a dataset, got {len(parts)} items.")
    return parts if len(parts) == 3 else (*parts, None)


def _fixed_batch(dataset) -> bool:
    """Whether the first axis of every component of a dataset's elements is known: its
    batches all hold that many samples."""
    specs = nest.flatten(dataset.element_spec)
    return bool(specs) and all(isinstance(s, TensorSpec) and s.shape.rank and
                               s.shape.as_list()[0] is not None for s in specs)


def _all_built(model) -> bool:
    return bool(model.built) and all(m.built for m in model.submodules if hasattr(m, "built"))


def _dataset_steps(dataset) -> Optional[int]:
    return dataset._card if dataset._card >= 0 else None


def _count(x) -> int:
    """The number of samples of an array (or of the first array of a list or dict)."""
    if isinstance(x, RaggedTensor):
        return len(x)
    return len(nest.flatten(x)[0]) if nest.is_nested(x) else len(x)


def _take(x, index):
    """`x[index]`, for each array of a list or dict too (the rows of a RaggedTensor)."""
    if isinstance(x, RaggedTensor):
        return x[index] if isinstance(index, slice) else gather_rows(x, convert_to_tensor(np.asarray(index)))
    return nest.map_structure(lambda a: a[index], x) if nest.is_nested(x) else x[index]
