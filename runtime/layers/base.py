"""`Layer`: a callable holding weights, built on first call, tracking what it owns.

Weights are created on the first call, under `rt.init_scope()`, so a layer first called
while a compiled function traces still gets eager variables, made once and shared by every
graph. Attributes that are layers, variables, or lists/tuples/dicts of them are tracked:
`variables`, `trainable_variables` and `submodules` walk them when asked.
"""

from __future__ import annotations

import inspect
import logging
import threading
import types
import warnings
import weakref
from typing import Any, Callable, Iterator

import numpy as np

from autograph.logging_util import warn

from .. import context, nest
from .. import deferred_restore as _checkpoint_deferred
from .. import dtypes as _dtypes
from ..arguments import init_keyword_names, raise_unknown_keywords
from ..function.conversion import convert as _autograph_convert
from ..graph import FuncGraph
from ..module import Module
from ..module import keras_snake_case as _snake_case
from ..module import keras_unique_name as _unique_name
from ..ops import array_math, math_composed
from ..ops.core import convert_to_tensor
from ..ops.variables import Variable
from ..shapes import TensorShape
from ..tensor import SymbolicTensor, Tensor
from . import constraints as _constraints
from . import dtype_policy as _dtype_policy
from . import initializers as _initializers
from . import input_spec as _input_spec
from . import regularizers as _regularizers
from . import seed_generator as _seed_generator
from . import serialization as _serialization
from .seed_generator import SeedGenerator

logger = logging.getLogger("runtime.layers")


class _CallContext(threading.local):
    """The `training` value of the layer calls in progress (inner layers inherit it), and
    the layers whose call or build is running (Keras's name scopes: a weight's `path`)."""

    def __init__(self):
        self.training: list = []
        self.owners: list = []


class _Owning:
    """Within the block, `layer` is the innermost layer making weights (see `weight_path`)."""

    __slots__ = ("layer", "pushed")

    def __init__(self, layer) -> None:
        self.layer = layer

    def __enter__(self) -> None:
        owners = _call_context.owners
        self.pushed = not owners or owners[-1] is not self.layer
        if self.pushed:
            owners.append(self.layer)

    def __exit__(self, *exc) -> None:
        if self.pushed:
            _call_context.owners.pop()


def weight_path(layer, name: str) -> str:
    """Keras 3's path of a weight `name` that `layer` makes now: the names of the layers
    whose call or build is running, ending with `layer`'s (`"sequential/dense/kernel"`)."""
    owners = list(_call_context.owners)
    if not owners or owners[-1] is not layer:
        owners.append(layer)
    return "/".join([o.name for o in owners] + [name])


def _scoped_build(build: Callable) -> Callable:
    def build_in_scope(self, *args, **kwargs):
        with _Owning(self):
            return build(self, *args, **kwargs)
    build_in_scope.__wrapped__ = build
    for key in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(build_in_scope, key, getattr(build, key, None))
    build_in_scope._scoped = True
    return build_in_scope


_call_context = _CallContext()
_seed_generator.scope_names = lambda: [owner.name for owner in _call_context.owners]




_call_params_cache: "weakref.WeakKeyDictionary[type, tuple]" = weakref.WeakKeyDictionary()


_converted_calls: "weakref.WeakKeyDictionary[Callable, Callable]" = weakref.WeakKeyDictionary()
# the variables add_weight made (by id): a layer's weights, as Keras 3 tracks its Variables
_weights_made: "weakref.WeakValueDictionary[int, Variable]" = weakref.WeakValueDictionary()


def _call_params(cls) -> tuple[bool, bool, bool, tuple[str, ...]]:
    """(call takes `training`, call takes **kwargs, call takes `mask`, its parameter names
    when some are `<name>_mask` parameters, else ()), looking through compiled methods."""
    cached = _call_params_cache.get(cls)
    if cached is not None:
        return cached
    fn = inspect.getattr_static(cls, "call")
    fn = getattr(fn, "python_function", fn)
    fn = getattr(fn, "__func__", fn)
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        result = (False, False, False, ())
    else:
        result = ("training" in params,
                  any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()),
                  "mask" in params,
                  tuple(params) if any(n.endswith("_mask") for n in params) else ())
    _call_params_cache[cls] = result
    return result


def keras_mask(value) -> Any:
    """The mask a layer attached to `value` (Keras's `_keras_mask`), or None."""
    return getattr(value, "_keras_mask", None) if isinstance(value, Tensor) else None


def _masks_of(inputs) -> Any:
    """The masks of `inputs`, in their structure (None where a tensor has none)."""
    if isinstance(inputs, Tensor):
        return getattr(inputs, "_keras_mask", None)
    if isinstance(inputs, (list, tuple, dict)):
        return nest.map_structure(keras_mask, inputs)
    return None


def _any_mask(masks) -> bool:
    if masks is None:
        return False
    if isinstance(masks, Tensor):
        return True
    return any(m is not None for m in nest.flatten(masks))


def _tracked_leaves(value, depth: int = 0) -> Iterator[Any]:
    """The modules (layers among them) and variables inside an attribute value (walking
    lists, tuples and dicts)."""
    if isinstance(value, (Module, Variable, SeedGenerator)):
        yield value
    elif depth < 16 and isinstance(value, (list, tuple)):
        for item in value:
            yield from _tracked_leaves(item, depth + 1)
    elif depth < 16 and isinstance(value, dict):
        for item in value.values():
            yield from _tracked_leaves(item, depth + 1)


def _shape_of(value):
    if isinstance(value, (Tensor, TensorShape)) or hasattr(value, "shape"):
        return TensorShape(getattr(value, "shape", value))
    return None


class Layer(Module):
    """A callable with weights: override `call(inputs, training=None)`, and `build` if needed.

    `build(input_shape)` runs once, before the first `call`; create weights there with
    `add_weight`. Layers, other `rt.Module`s and variables assigned as attributes (also inside
    lists, tuples and dicts) are tracked into `variables`, `trainable_variables` and
    `submodules`, Keras's way: own weights first, in assignment order, then the sublayers';
    a layer with `trainable=False` makes all of its variables non-trainable. Names need not
    be identifiers and are made unique (`dense`, `dense_1`, ...).
    """

    # whether instances pass masks on by default (`supports_masking`): layers keeping the
    # time axis set it, as Keras's do
    _passes_masks: bool = False
    # Keras's `_convert_input_args`: False for layers that take their inputs as given (lookups,
    # hashing, text vectorization, category encoding, functional models)
    _convert_input_args: bool = True
    # Keras's `_build_at_init`: layers without weights (Dropout, pooling, activations, ...)
    # are built when made, unless a subclass overrides `build`
    _built_at_init: bool = False
    # Keras's base-layer keywords besides trainable, name, dtype and dynamic (see __init__)
    _keras_keywords: frozenset[str] = frozenset({
        "input_dim", "input_shape", "batch_input_shape", "batch_size", "weights",
        "activity_regularizer", "autocast", "implementation"})

    def __setattr__(self, name: str, value: Any) -> None:
        # an initializer named by a string or a config is made when assigned, as Keras's
        # layers make theirs in __init__: a random one takes its seed from Python's `random`
        # then, so layers draw Keras's seeds in Keras's order
        if name.endswith("_initializer") and isinstance(value, (str, dict)):
            value = _initializers.get(value)
        super().__setattr__(name, value)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if callable(build) and not getattr(build, "_scoped", False):
            cls.build = _scoped_build(build)  # weights it makes take the layer's path

    def __new__(cls, *args: Any, **kwargs: Any):
        # the constructor's arguments, for the default get_config (see serialization.py)
        layer = super().__new__(cls)
        layer.__dict__["_init_arguments"] = _serialization.InitArguments(args, kwargs)
        return layer

    def __init__(self, trainable: bool = True, name: str | None = None, dtype=None,
                 dynamic: bool = False, **kwargs: Any) -> None:
        """Keras's base-layer keywords; any other keyword raises `TypeError`.

        `input_shape` (or `input_dim`, `batch_input_shape`, with `batch_size`) records the
        expected input shape: a `Sequential` whose first layer has one builds itself at once.
        `weights` are initial values for `set_weights`, set when the layer is built.
        `activity_regularizer` (a regularizer, a name such as "l2", or a callable) adds a penalty
        on each output to `losses` at every call, divided by the batch size as in Keras 3.
        `autocast` (True by default, as in Keras 3): floating inputs are cast to the layer's
        floating `dtype` when it is called. `dynamic=True` and `implementation` are not
        implemented and raise `NotImplementedError`.
        """
        unknown = [key for key in kwargs if key not in self._keras_keywords]
        if unknown:
            raise_unknown_keywords(type(self).__name__, unknown,
                                   self._keras_keywords | init_keyword_names(type(self)))
        _refuse_unimplemented(type(self).__name__, kwargs, dynamic)
        self._layer_initialized = True
        self._weights: list[Variable] = []
        self.built = False
        self.trainable = bool(trainable)
        self._name = _layer_name(name, type(self))
        self._dtype = _dtype_policy.as_dtype(dtype)
        self.autocast = bool(kwargs.get("autocast", True))
        self._batch_input_shape = _batch_input_shape(kwargs)
        self._initial_weights = kwargs.get("weights")
        self._losses: list = []  # add_loss's, cleared when an outermost layer call starts
        self._weight_penalties: dict[int, Callable] = {}  # id(variable) -> its regularizer
        self.activity_regularizer = kwargs.get("activity_regularizer")
        if self._built_at_init and type(self).build is Layer.build:
            self.built = True

    @property
    def activity_regularizer(self):
        """The regularizer of this layer's outputs (None for none)."""
        return self.__dict__.get("_activity_regularizer")

    @activity_regularizer.setter
    def activity_regularizer(self, value) -> None:
        value = _regularizers.get(value, "activity_regularizer")
        self.__dict__["_activity_regularizer"] = value
        if value is not None:
            _losses_in_use.set()

    @property
    def dynamic(self) -> bool:
        """False: every layer here can be traced into a graph."""
        return False

    # -- identity ---------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> str:
        """The name of the dtype of this layer's weights (`"float32"` unless given), a string
        as in Keras 3 (it equals the DType: `layer.dtype == rt.float32`)."""
        return self._dtype.name

    # Keras 3's names of the dtype the layer computes in and keeps its weights in: one dtype
    compute_dtype = dtype
    variable_dtype = dtype

    @property
    def dtype_policy(self) -> _dtype_policy.DTypePolicy:
        """Keras 3's policy of this layer: its compute and variable dtype, `dtype`."""
        return _dtype_policy.DTypePolicy(self._dtype)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self.name}'>"

    # -- calling ------------------------------------------------------------------------
    def __call__(self, inputs, *args: Any, training=None, **kwargs: Any):
        """Builds the layer on first use, then runs `call`.

        `training` is passed to `call` only when `call` takes it; when it is None, the
        value of the enclosing layer call is used, and otherwise `call`'s default applies.
        """
        if "_layer_initialized" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}.__init__ must call super().__init__() "
                               "before the layer is used.")
        if _has_keras_tensors((inputs, args, kwargs)):  # a functional model being defined
            return _functional_hooks["call_symbolically"](self, inputs, args, kwargs, training)
        if self._convert_input_args:
            inputs, args, kwargs = self._converted_inputs((inputs, args, kwargs))
        else:
            inputs = _as_tensors(inputs)
        with _Owning(self):
            return self._built_and_called(inputs, args, kwargs, training)

    def _built_and_called(self, inputs, args: tuple, kwargs: dict, training):
        if self.__dict__.get("input_spec") is not None:  # Keras checks before building
            _input_spec.assert_input_compatibility(self.input_spec, inputs, self.name)
        if not self.built:
            self._build_once(inputs)
        elif self._built_at_init and "_build_input_shape" not in self.__dict__:
            self._record_input(inputs)  # built when made: what a saved model rebuilds from
        stack = _call_context.training
        if not stack and _losses_in_use.is_set():  # an outermost call: losses start again
            self._clear_losses()
        if training is None and stack:
            training = stack[-1]
        takes_training, takes_kwargs, takes_mask, params = _call_params(type(self))
        if training is not None and (takes_training or takes_kwargs):
            kwargs["training"] = training
        previous_mask = self._pass_masks(inputs, args, kwargs, takes_mask, params)
        stack.append(training)
        try:
            if context.current_graph() is not None:
                with context.name_scope(self.name):
                    outputs = self._traced_call()(inputs, *args, **kwargs)
            else:
                outputs = self.call(inputs, *args, **kwargs)
        finally:
            stack.pop()
        if _any_mask(previous_mask) or type(self).compute_mask is not Layer.compute_mask:
            self._set_output_masks(inputs, outputs, previous_mask)
        if self.__dict__.get("_activity_regularizer") is not None:
            self._add_activity_losses(outputs)
        return outputs

    def _converted_inputs(self, values):
        """Keras's conversion of a call's arguments: arrays (NumPy, pandas: anything with
        `__array__`) become tensors, and floating tensors are cast to the layer's floating
        dtype when `autocast` is on, keeping their masks."""
        target = self._dtype if self.__dict__.get("autocast", True) and \
            self._dtype.is_floating else None
        return _convert_nest(values, target)

    def compute_output_shape(self, input_shape):
        """Keras's default: the shape of the output for inputs of `input_shape` (with the
        batch dimension, e.g. `(None, 8, 8, 1)`; a list or dict of shapes for several
        inputs), as a tuple, found by calling the layer on placeholders in a throwaway graph
        (nothing runs; an unbuilt layer is built, as Keras's symbolic call builds it)."""
        graph = FuncGraph(f"{self.name}_output_shape")
        with context.graph_scope(graph):
            outputs = self(_placeholders(graph, input_shape, self._dtype, self.name))
        return nest.map_structure(
            lambda t: None if t.shape.rank is None else tuple(t.shape.as_list()), outputs)

    # -- masks --------------------------------------------------------------------------------
    def _pass_masks(self, inputs, args, kwargs, takes_mask: bool, params) -> Any:
        """Gives `call` the masks of its inputs, as Keras does: `mask=` (the inputs' masks,
        when `call` takes `mask` and none was given) or, for calls of several tensors,
        `<name>_mask=` for each parameter `<name>` that has one; returns the mask the
        output masks derive from."""
        if takes_mask and kwargs.get("mask") is None:
            masks = _masks_of(inputs)
            if masks is not None:
                kwargs["mask"] = masks
        elif params:
            names = params[1:] if params and params[0] == "self" else params
            given = {**dict(zip(names[1:], args)), **kwargs}
            for name, value in [(names[0] if names else None, inputs), *given.items()]:
                if name is not None and f"{name}_mask" in names \
                        and kwargs.get(f"{name}_mask") is None:
                    found = _masks_of(value)
                    if _any_mask(found):
                        kwargs[f"{name}_mask"] = found
        given_mask = kwargs.get("mask")
        return given_mask if given_mask is not None else _masks_of(inputs)

    @property
    def trainable(self) -> bool:
        """Whether training updates the layer's weights; setting it sets every sublayer's
        too (freezing a model freezes its layers), as in Keras."""
        return self.__dict__.get("_trainable", True)

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._set_trainable(bool(value), set())

    def _set_trainable(self, value: bool, seen: set) -> None:
        seen.add(id(self))
        self.__dict__["_trainable"] = value
        if "_weights" not in self.__dict__:  # set before Layer.__init__ ran: no sublayers yet
            return
        for item in list(self._tracked()):
            if isinstance(item, Layer) and id(item) not in seen:
                item._set_trainable(value, seen)

    def _first_node(self, what: str):
        nodes = self.__dict__.get("_inbound_nodes")
        if not nodes:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no "
                                 f"defined {what}; call it on Keras tensors (keras.Input) first.")
        return nodes[0]

    @property
    def input(self):
        """The Keras tensors the layer was first called on in a functional model."""
        return self._first_node("input").call_args[0]

    @property
    def output(self):
        """The Keras tensors the layer's first call in a functional model returned."""
        return self._first_node("output").outputs

    @property
    def supports_masking(self) -> bool:
        """Whether the layer passes masks on (`compute_mask`): True for layers that keep
        the time axis (Dense, Dropout, activations, ...) and for layers that define
        `compute_mask`; a layer that does not drops the mask with a warning, as in Keras."""
        found = self.__dict__.get("_supports_masking")
        if found is None:
            return self._passes_masks or type(self).compute_mask is not Layer.compute_mask
        return found

    @supports_masking.setter
    def supports_masking(self, value: bool) -> None:
        self.__dict__["_supports_masking"] = bool(value)

    def compute_mask(self, inputs, mask=None):
        """The mask of this layer's output, given its inputs and their `mask`: the same mask
        by default (for layers that support masking)."""
        return mask

    def _set_output_masks(self, inputs, outputs, previous_mask) -> None:
        """Attaches `compute_mask`'s result to the outputs that have no mask yet; a layer that
        does not support masking warns that it drops its inputs' mask (as Keras does)."""
        if not self.supports_masking:
            if _any_mask(previous_mask):
                warnings.warn(f"Layer '{self.name}' (of type {type(self).__name__}) was passed "
                              "an input with a mask attached to it. However, this layer does "
                              "not support masking and will therefore destroy the mask "
                              "information. Downstream layers will not see the mask.",
                              UserWarning, stacklevel=4)  # past Layer.__call__
            return
        flat = [t for t in nest.flatten(outputs) if isinstance(t, Tensor)]
        if not flat or all(getattr(t, "_keras_mask", None) is not None for t in flat):
            return
        masks = self.compute_mask(inputs, previous_mask)
        if masks is None:
            return
        flat_masks = [masks] if isinstance(masks, Tensor) else nest.flatten(masks)
        for tensor, mask in zip(flat, flat_masks):
            if mask is not None and getattr(tensor, "_keras_mask", None) is None:
                tensor._keras_mask = mask

    def _traced_call(self) -> Callable:
        """`call` as used while a function traces: autograph-converted when it is user code.

        A `call` compiled with `rt.function` converts itself; the runtime's own layers and
        calls whose source is unavailable run as written.
        """
        if "call" in self.__dict__:
            return self.call
        raw = inspect.getattr_static(type(self), "call")
        if not isinstance(raw, types.FunctionType) or \
                (raw.__module__ or "").split(".")[0] == __name__.split(".")[0]:
            return self.call
        converted = _converted_calls.get(raw)
        if converted is None:
            try:
                converted = _autograph_convert(raw, None)
            except Exception as exc:  # conversion is best effort: run the code as written
                warn(logger, "%s.call could not be converted by autograph and runs as written "
                               "(tensor-dependent `if`/`while` will fail): %s",
                               type(self).__name__, exc)
                converted = raw
            _converted_calls[raw] = converted
        return types.MethodType(converted, self)

    def call(self, inputs, training=None):
        """The layer's computation; the default returns `inputs` unchanged."""
        return inputs

    # -- building --------------------------------------------------------------------------
    def _record_input(self, inputs):
        """Records the shapes (and dtype) of the first inputs, which a saved model is rebuilt
        from; returns the shapes."""
        shapes = nest.map_structure(_shape_of, inputs, expand_composites=False) \
            if nest.is_nested(inputs) else _shape_of(inputs)
        self._build_input_shape = shapes
        self._build_input_dtype = getattr(inputs, "dtype", None)
        return shapes

    def _build_once(self, inputs) -> None:
        shapes = self._record_input(inputs)
        with context.init_scope():
            self.__dict__["_building"] = True  # build() is running for a first call
            try:
                self.build(shapes)
            finally:
                self.__dict__["_building"] = False
            self.built = True
            initial, self._initial_weights = getattr(self, "_initial_weights", None), None
            if initial is not None:
                self.set_weights(initial)
            _checkpoint_deferred.created(self)  # saved values waiting for these weights

    def build(self, input_shape=None) -> None:
        """Creates the weights; `input_shape` is a TensorShape (or a nest of them).

        The default, called directly on a layer whose sublayers are not built yet (as in
        `model.build((None, 3))`), runs `call` once on placeholders of `input_shape` in a
        throwaway graph, so that every sublayer creates its weights (as Keras does).
        """
        if not self.__dict__.get("_building") and not self.built and \
                input_shape is not None and type(self).build is Layer.build and \
                any(isinstance(m, Layer) and not m.built for m in self.submodules):
            build_by_run(self, input_shape)
        self.built = True

    def add_weight(self, *args, shape=None, initializer: str | Callable | None = None,
                   dtype=None, trainable: bool = True, autocast: bool = True, regularizer=None,
                   constraint=None, aggregation: str | None = "none",
                   overwrite_with_gradient: bool = False, name: str | None = None) -> Variable:
        """A new variable owned by this layer, created eagerly even while a function traces.

        Keras 3's arguments: positionally `(shape, initializer, dtype)`, the others by keyword
        (`shape` defaults to a scalar; `name` to "variable", "variable_1", ...). A leading
        string positional (tf.keras 2's `add_weight("kernel", shape)`) is refused with Keras
        3's ValueError: the name is a keyword.
        `initializer` is a name (`"glorot_uniform"`, `"zeros"`, ...) or a callable
        `(shape, dtype=dtype) -> value` (as Keras calls it, so `rt.random.normal` works); the
        default is glorot_uniform for floats, zeros otherwise. `regularizer` (a regularizer,
        a name such as "l2", or a callable) puts a penalty on the weight into `losses`.
        `constraint` (a constraint, a name such as "max_norm", or a callable) is applied to
        the weight by the optimizer after each update. `aggregation` is Keras's multi-replica
        annotation (one replica here); `autocast` has nothing to do without mixed precision;
        `overwrite_with_gradient=True` is not implemented and raises NotImplementedError.
        """
        name, shape, dtype, initializer, trainable, regularizer = _weight_arguments(
            self, args, dict(shape=shape, initializer=initializer, dtype=dtype,
                             trainable=trainable, regularizer=regularizer, name=name))
        _check_weight_options(self, constraint, aggregation, overwrite_with_gradient)
        regularizer = _regularizers.get(regularizer, "regularizer")
        dtype = _dtypes.as_dtype(dtype) if dtype is not None else self._dtype
        dims = TensorShape(shape)
        if not dims.is_fully_defined():
            raise ValueError(f"{self.name}.add_weight({name!r}): the shape {dims} must be fully "
                             "defined; build the layer from an input with a known last dimension.")
        _serialization.reserve_weight(f"{self.name}/{name}", dims)  # load_model's size check
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = _initializers.get(initializer)
        with context.init_scope():
            value = convert_to_tensor(init(tuple(dims.as_list()), dtype=dtype))
            if value.dtype is not dtype:
                raise TypeError(f"{self.name}.add_weight({name!r}): the initializer returned "
                                f"{value.dtype.name} values for a {dtype.name} weight.")
            variable = Variable(value, trainable=trainable, name=f"{self.name}/{name}",
                                constraint=_constraints.get(constraint, "constraint"))
            if type(variable) is Variable:  # Keras 3's short name and path
                variable._name, variable._path = name, weight_path(self, name)
        self._weights.append(variable)
        _weights_made[id(variable)] = variable
        if regularizer is not None:
            self.__dict__.setdefault("_weight_penalties", {})[id(variable)] = regularizer
        return variable

    # -- losses -----------------------------------------------------------------------------
    def add_loss(self, loss) -> None:
        """Adds a scalar loss (a tensor, from `call`) to `losses`; `fit` adds it to the
        loss it minimises. Losses added in a call last until the next outermost call."""
        for value in nest.flatten(loss):
            if not isinstance(value, (Tensor, int, float, np.ndarray, np.generic)):
                raise ValueError(f"{self.name}.add_loss takes tensors, got {value!r:.100}.")
            self.__dict__.setdefault("_losses", []).append(convert_to_tensor(value))
        _losses_in_use.set()

    def add_metric(self, *args: Any, **kwargs: Any) -> None:
        """Refused, as in Keras 3 (tf.keras 2's `add_metric` was removed)."""
        raise NotImplementedError(
            "Layer.add_metric() was removed in Keras 3: give the metric to "
            "Model.compile(metrics=[...]), or create keras.metrics objects in __init__ or "
            "build and call their update_state() in call.")

    @property
    def losses(self) -> list:
        """This layer's and its sublayers' losses: those added by `add_loss` and activity
        regularizers in the latest call, then the penalty of each trainable weight that has
        a regularizer, computed when read (Keras 3's order)."""
        layers = [self, *(m for m in self.submodules if isinstance(m, Layer))]
        found = [loss for layer in layers for loss in layer.__dict__.get("_losses", ())
                 if _visible_here(loss)]
        penalties: dict[int, Callable] = {}
        for layer in layers:
            penalties.update(layer.__dict__.get("_weight_penalties", {}))
        if penalties:
            for variable in self.trainable_variables:
                if id(variable) in penalties:
                    found.append(convert_to_tensor(penalties[id(variable)](variable)))
        return found

    def _clear_losses(self) -> None:
        for layer in [self, *self.submodules]:
            if isinstance(layer, Layer):
                layer.__dict__.get("_losses", []).clear()

    def _add_activity_losses(self, outputs) -> None:
        """The activity regularizer's penalty on each output, divided by its batch size."""
        for output in nest.flatten(outputs):
            if not isinstance(output, Tensor):
                continue
            loss = convert_to_tensor(self.activity_regularizer(output))
            if output.shape.rank:
                batch = output.shape[0]
                if batch is None:
                    batch = array_math.cast(array_math.shape(output)[0], loss.dtype)
                loss = math_composed.divide_no_nan(loss, array_math.cast(batch, loss.dtype))
            self.add_loss(loss)

    # -- tracking ---------------------------------------------------------------------------
    def _tracked(self) -> Iterator[Any]:
        yield from self._weights
        for key, value in self.__dict__.items():
            if key != "_weights":
                yield from _tracked_leaves(value)

    def _walk_variables(self, seen: set, frozen: bool,
                        seeds: bool = False) -> Iterator[tuple[Variable, bool]]:
        """(variable, trainable) pairs: this layer's own first, then (with `seeds`) the states
        of its seed generators, then its sublayers' in order. As in Keras 3, only weights
        (made by `add_weight`, this layer's or another's) count: a raw `rt.Variable` assigned
        to an attribute, or one inside a plain `rt.Module`, is not a weight (it is not
        trained by `fit`, though checkpoints keep it)."""
        seen.add(id(self))
        frozen = frozen or not self.trainable
        layers, generators = [], []
        for item in self._tracked():
            if id(item) in seen:
                continue
            seen.add(id(item))
            if isinstance(item, Module):
                layers.append(item)
            elif isinstance(item, SeedGenerator):
                generators.append(item)
            elif _weights_made.get(id(item)) is item:
                yield item, item.trainable and not frozen
        if seeds:
            yield from ((g.state, False) for g in generators)
        for layer in layers:
            if isinstance(layer, Layer):
                yield from layer._walk_variables(seen, frozen, seeds)
            else:  # a plain module: only the layer weights it holds
                yield from ((v, t) for v, t in layer._walk_variables(seen, frozen)
                            if _weights_made.get(id(v)) is v)

    @property
    def variables(self) -> list[Variable]:
        """Every variable of this layer and its sublayers, own weights first; as in Keras 3,
        the states of seed generators (a Dropout's) are variables but not weights."""
        return [v for v, _ in self._walk_variables(set(), False, seeds=True)]

    @property
    def weights(self) -> list[Variable]:
        """The weights of this layer and its sublayers (made by `add_weight`), own first."""
        return [v for v, _ in self._walk_variables(set(), False)]

    @property
    def trainable_variables(self) -> list[Variable]:
        """The variables that gradients update (none when the layer is not trainable)."""
        return [v for v, trainable in self._walk_variables(set(), False) if trainable]

    trainable_weights = trainable_variables

    @property
    def non_trainable_variables(self) -> list[Variable]:
        """The variables gradients leave alone, seed generators' states among them."""
        return [v for v, trainable in self._walk_variables(set(), False, seeds=True)
                if not trainable]

    @property
    def non_trainable_weights(self) -> list[Variable]:
        return [v for v, trainable in self._walk_variables(set(), False) if not trainable]

    @property
    def layers(self) -> list["Layer"]:
        """The layers assigned to this layer's attributes (directly, or in lists and dicts)."""
        seen = {id(self)}
        found = []
        for item in self._tracked():
            if isinstance(item, Layer) and id(item) not in seen:
                seen.add(id(item))
                found.append(item)
        return found

    @property
    def submodules(self) -> list[Module]:
        """Every layer (or other `rt.Module`) below this one, depth first."""
        return list(self._walk_submodules(set()))

    def _walk_submodules(self, seen: set) -> Iterator[Module]:
        seen.add(id(self))
        for item in self._tracked():
            if isinstance(item, Module) and id(item) not in seen:
                seen.add(id(item))
                yield item
                yield from item._walk_submodules(seen)

    # -- weights as NumPy --------------------------------------------------------------------
    def get_weights(self) -> list:
        """The values of `weights`, as NumPy arrays."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, values) -> None:
        """Assigns NumPy values to `weights`, in order."""
        variables = self.weights
        values = list(values)
        if len(values) != len(variables):
            raise ValueError(f"{self.name}.set_weights got {len(values)} values for "
                             f"{len(variables)} variables.")
        for variable, value in zip(variables, values):
            variable.assign(value)

    def count_params(self) -> int:
        """The number of scalars in `variables`; a ValueError (as in Keras) for a layer that
        is not built yet, whose weights do not exist."""
        variables = self.weights
        if not self.built and not variables:
            raise ValueError(f"{self.name}.count_params(): the layer is not built yet, so its "
                             "weights do not exist; build it with layer.build(input_shape) "
                             "(e.g. (None, 3)) or call it on data first.")
        return sum(int(v.shape.num_elements() or 0) for v in variables)

    # -- configs ----------------------------------------------------------------------------
    def get_config(self) -> dict:
        """The constructor arguments that rebuild this layer (without its weights): by
        default the arguments it was constructed with, defaults filled in, plus `name`,
        `trainable` and `dtype` (see `runtime.layers.serialization`)."""
        return _serialization.layer_config(self)

    @classmethod
    def from_config(cls, config: dict) -> "Layer":
        """A new layer from `get_config()`'s dict."""
        return _serialization.layer_from_config(cls, config)

    def get_build_config(self) -> dict | None:
        """Keras 3's: `{"input_shape": ...}`, the shape (a tuple, or a list of them) the layer
        was built with by its first call; None for a layer not built that way (or built when
        made, as Keras's weightless layers are). Serialized with the layer's config, also for
        the layers a layer holds (Bidirectional's, TimeDistributed's), as Keras writes it."""
        shape = self.__dict__.get("_build_input_shape")
        if not self.built or self._built_at_init:
            return None
        if isinstance(shape, TensorShape) and shape.rank is not None:
            return {"input_shape": tuple(shape.as_list())}
        if isinstance(shape, (list, tuple)) and shape and all(
                isinstance(s, TensorShape) and s.rank is not None for s in shape):
            return {"input_shape": [tuple(s.as_list()) for s in shape]}
        return None

    def build_from_config(self, config: dict | None) -> None:
        """Keras 3's: builds the layer from `get_build_config()`'s dict (`input_shape`, or
        `shapes_dict` of keyword shapes); nothing for an empty one or a built layer."""
        if not config or self.built:
            return
        if "input_shape" in config:
            shape = config["input_shape"]
            nested = isinstance(shape, list) and shape and isinstance(shape[0], (list, tuple))
            shapes = [TensorShape(s) for s in shape] if nested else TensorShape(shape)
            with context.init_scope():
                self.build(shapes)
            self._build_input_shape = shapes
        elif "shapes_dict" in config:
            with context.init_scope():
                self.build(**{key: TensorShape(value)
                              for key, value in config["shapes_dict"].items()})
        else:
            raise ValueError(f"{self.name}.build_from_config: expected a dict with "
                             f"'input_shape' or 'shapes_dict', got {config!r:.100}.")
        self.built = True


def _refuse_unimplemented(layer: str, kwargs: dict, dynamic: bool) -> None:
    """NotImplementedError for the Keras layer keywords this runtime does not honour."""
    reasons = {
        "dynamic": (dynamic, "every layer here is traced into graphs; call it eagerly "
                             "(outside rt.function) to run its Python code"),
        "implementation": (kwargs.get("implementation") is not None,
                           "it selects between Keras's recurrent kernels, and the "
                           "recurrent layers here have one"),
        "inputs": (kwargs.get("inputs") is not None or kwargs.get("outputs") is not None,
                   "a subclass of Model cannot be given inputs and outputs; build a functional "
                   "model with rt.Model(inputs, outputs) (keras.Model) itself"),
    }
    for key, (given, why) in reasons.items():
        if given:
            raise NotImplementedError(f"{layer}({key}=...) is not implemented: {why}.")



class _KerasVariableType(type):
    def __instancecheck__(cls, value) -> bool:
        return isinstance(value, Variable) and getattr(value, "_path", None) is not None


class KerasVariable(metaclass=_KerasVariableType):
    """Keras 3's `keras.Variable(initializer, shape=None, dtype=None, trainable=True,
    autocast=True, aggregation="none", synchronization="auto", name=None)`: an `rt.Variable`
    with Keras's short `name` and `path` (both `name`, "variable" by default).

    `initializer` is a value (array, tensor, number) or an initializer (a name such as
    "zeros", or a callable `(shape, dtype)`, which needs `shape`); `dtype` defaults to the
    value's own, or float32 for an initializer. The weights layers make (`add_weight`) are
    Keras variables too: `isinstance(layer.kernel, keras.Variable)` is True, and an
    `rt.Variable` made directly is not one.
    """

    def __new__(cls, initializer, shape=None, dtype=None, trainable: bool = True,
                autocast: bool = True, aggregation: str = "none", synchronization: str = "auto",
                name: str | None = None) -> Variable:
        if aggregation not in _AGGREGATIONS:
            raise ValueError(f"keras.Variable: invalid aggregation {aggregation!r}; expected "
                             f"one of {[a for a in _AGGREGATIONS if a]}.")
        if name is not None and (not isinstance(name, str) or "/" in name):
            raise ValueError(f"keras.Variable: `name` must be a string without '/', got "
                             f"{name!r}.")
        if isinstance(initializer, str) or (callable(initializer) and
                                            not isinstance(initializer, (Tensor, np.ndarray))):
            if shape is None:
                raise ValueError("keras.Variable: an initializer needs a `shape` (e.g. "
                                 "keras.Variable('zeros', shape=(3,))).")
            dtype = _dtypes.as_dtype(dtype if dtype is not None else "float32")
            with context.init_scope():
                value = convert_to_tensor(_initializers.get(initializer)(
                    tuple(TensorShape(shape).as_list()), dtype=dtype))
        else:
            value = convert_to_tensor(initializer, dtype=dtype)
            if shape is not None and not TensorShape(shape).is_compatible_with(value.shape):
                raise ValueError(f"keras.Variable: the initial value has shape {value.shape}, "
                                 f"not the `shape` {tuple(shape)}.")
        with context.init_scope():
            variable = Variable(value, trainable=trainable, name=name or "variable")
        if type(variable) is Variable:
            variable._name = variable._path = name or "variable"
        return variable


_AGGREGATIONS = (None, "none", "mean", "sum", "only_first_replica")


def _weight_arguments(layer, args: tuple, given: dict) -> tuple:
    """`add_weight`'s (name, shape, dtype, initializer, trainable, regularizer) from its
    positional `args` (Keras 3's `shape, initializer, dtype`, or a leading name) and keywords."""
    names: tuple[str, ...] = ("shape", "initializer", "dtype")
    if args and isinstance(args[0], str):  # tf.keras 2's order; Keras 3 refuses it so
        raise ValueError("`name` must be passed as a keyword argument. Received: "
                         f"add_weight({args[0]!r}, ...). Use: add_weight(shape=..., "
                         f"name={args[0]!r}).")
    if len(args) > len(names):
        raise TypeError(f"add_weight() takes at most {len(names)} positional arguments but "
                        f"{len(args)} were given.")
    defaults = {"shape": None, "initializer": None, "dtype": None, "trainable": True,
                "regularizer": None}
    for key, value in zip(names, args):
        if given[key] is not defaults[key]:
            raise ValueError(f"`{key}` was passed both positionally and as a keyword argument.")
        given[key] = value
    name = given["name"] if given["name"] is not None else _unique_name("variable")
    return (name, () if given["shape"] is None else given["shape"], given["dtype"],
            given["initializer"], given["trainable"], given["regularizer"])


def _check_weight_options(layer, constraint, aggregation, overwrite_with_gradient) -> None:
    """Keras's checks of add_weight's options; what is not implemented raises by name."""
    if aggregation not in _AGGREGATIONS:
        raise ValueError("Invalid value for argument `aggregation`. Expected one of `None`, "
                         "`'none'`, `'mean'`, `'sum'`, `'only_first_replica'`. Received: "
                         f"aggregation={aggregation}")
    if overwrite_with_gradient:
        raise NotImplementedError(f"{layer.name}.add_weight: overwrite_with_gradient=True is "
                                  "not implemented here.")


def _layer_name(name, cls: type) -> str:
    """`name`, or a unique snake_case name of `cls` when it is None (an empty name stays
    empty, as in Keras); Keras's ValueError for a name that is not a string or holds `/`."""
    if name is None:
        return _unique_name(_snake_case(cls.__name__))
    if not isinstance(name, str) or "/" in name:
        raise ValueError("Argument `name` must be a string and cannot contain character `/`. "
                         f"Received: name={name} (of type {type(name)})")
    return name


def positive_int(value, argument: str, layer: str, python_int: bool = False) -> int:
    """`value` as an int when it is a positive integer (not a bool, float or string), else
    the ValueError Keras raises, naming the argument. With `python_int`, a NumPy integer is
    refused too, as the Keras 3 layers that check `isinstance(value, int)` refuse it."""
    kinds = int if python_int else (int, np.integer)
    if isinstance(value, bool) or not isinstance(value, kinds) or value <= 0:
        hint = f" (a Python int: int({argument}) for a NumPy integer)" \
            if isinstance(value, np.integer) and value > 0 else ""
        raise ValueError(f"{layer}: invalid value for argument `{argument}`: expected a positive "
                         f"integer{hint}, got {argument}={value!r}.")
    return int(value)


def _batch_input_shape(kwargs: dict) -> tuple | None:
    """Keras's expected input shape from `batch_input_shape`, or `input_shape` / `input_dim`
    with `batch_size` (None when none is given)."""
    if kwargs.get("batch_input_shape") is not None:
        return tuple(kwargs["batch_input_shape"])
    shape = kwargs.get("input_shape")
    if shape is None and kwargs.get("input_dim") is not None:
        shape = (kwargs["input_dim"],)
    if shape is None:
        return None
    dims = tuple(shape) if isinstance(shape, (list, tuple, TensorShape)) else (shape,)
    return (kwargs.get("batch_size"),) + dims


_losses_in_use = threading.Event()  # set once a layer has losses: calls then clear them


def _visible_here(loss) -> bool:
    """Whether a recorded loss can be used now: an eager value, or a tensor of the graph
    being built (or of one enclosing it), not one left from an earlier trace."""
    if not isinstance(loss, SymbolicTensor):
        return True
    graph = context.current_graph()
    while graph is not None:
        if graph is loss.graph:
            return True
        graph = getattr(graph, "outer_graph", None)
    return False


def _is_shape(value) -> bool:
    """Whether `value` is one shape (a TensorShape, or a list/tuple of ints and None)."""
    if isinstance(value, TensorShape):
        return True
    return isinstance(value, (list, tuple)) and all(
        d is None or (isinstance(d, (int, np.integer)) and not isinstance(d, bool))
        for d in value)


def _placeholders(graph, shapes, dtype, layer: str):
    """Placeholders of `shapes` (one shape, or a list, tuple or dict of shapes)."""
    if _is_shape(shapes):
        return graph.placeholder(TensorShape(shapes), dtype, name="inputs")
    if isinstance(shapes, dict):
        return {key: _placeholders(graph, value, dtype, layer) for key, value in shapes.items()}
    if isinstance(shapes, (list, tuple)) and shapes:
        return [_placeholders(graph, value, dtype, layer) for value in shapes]
    raise ValueError(f"{layer}.build: `input_shape` must be a shape with the batch dimension "
                     f"such as (None, 3), or a list or dict of shapes; got {shapes!r}.")


def build_by_run(layer: Layer, input_shape, dtype=None) -> None:
    """Calls `layer` on placeholders of `input_shape` in a throwaway graph: its layers create
    their weights (eagerly, as on a first call) and nothing runs."""
    graph = FuncGraph(f"{layer.name}_build")
    dtype = _dtypes.as_dtype(dtype if dtype is not None else layer.dtype)
    with context.graph_scope(graph):
        layer(_placeholders(graph, input_shape, dtype, layer.name))


# filled by runtime.layers.functional, which sits above this module
_functional_hooks: dict[str, Callable] = {}


def _has_keras_tensors(structure) -> bool:
    """Whether the call's arguments hold symbolic Keras tensors (`keras.Input` results)."""
    return any(getattr(type(x), "_is_keras_tensor", False) for x in nest.flatten(structure))


def _convert_nest(value, target):
    """`value` with its arrays made tensors and its floating tensors cast to `target` (None:
    no cast); lists, tuples and dicts are walked, and come back unchanged when nothing in
    them is."""
    if isinstance(value, Tensor):
        if target is None or not value.dtype.is_floating or value.dtype == target:
            return value
        cast = array_math.cast(value, target)
        mask = getattr(value, "_keras_mask", None)
        if mask is not None:
            cast._keras_mask = mask
        return cast
    if isinstance(value, (list, tuple)):
        items = [_convert_nest(v, target) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        found = {k: _convert_nest(v, target) for k, v in value.items()}
        if all(found[k] is v for k, v in value.items()):
            return value
        return found if type(value) is dict else type(value)(found)
    if hasattr(value, "__array__") and not isinstance(value, (str, bytes, type)):
        try:
            tensor = convert_to_tensor(value)
        except (TypeError, ValueError):  # an object array of mixed values: left as it is
            return value
        return _convert_nest(tensor, target)
    return value


def _as_tensors(inputs):
    """NumPy inputs become tensors; tensors, variables and Python structures pass through."""
    if isinstance(inputs, (np.ndarray, np.generic)):
        return convert_to_tensor(inputs)
    return inputs
