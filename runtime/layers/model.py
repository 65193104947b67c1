"""`Model`: a layer that is a whole network; `Sequential`: a model that is a list of layers."""

from __future__ import annotations

from typing import Any, Iterable

from .. import context as _context
from .. import dtypes as _dtypes
from .. import html_repr as _html_repr
from .. import nest
from ..arguments import strict_keywords
from ..ops import array_math
from ..shapes import TensorShape
from . import distributed_fit as _distributed
from . import dtype_policy as _dtype_policy
from . import saving as _saving
from . import serialization as _serialization
from . import summary_table as _summary_table
from .base import Layer, _functional_hooks
from .base import build_by_run as _build_by_run
from .training import Training

_functional_subclasses: dict = {}


def _functional_subclass(cls: type, functional: type) -> type:
    """`cls` with `functional` among its bases (made once a class), named as `cls`."""
    made = _functional_subclasses.get(cls)
    if made is None:
        made = type(cls.__name__, (cls, functional), {"__module__": cls.__module__,
                                                       "__qualname__": cls.__qualname__})
        _functional_subclasses[cls] = made
    return made


class Model(Training, Layer):
    """A network: subclass, assign layers in `__init__`, and write `call(inputs, training=None)`.

    `call` may be compiled with `rt.function` / `rt.defun`; each distinct Python `training`
    value then gives its own graph. `compile` / `fit` / `evaluate` / `predict` train it the
    Keras way (see `runtime.layers.training`).

    A model takes Keras's model keywords `trainable`, `name`, `dtype`, `dynamic` and
    `autocast` (see `Layer`); any other keyword raises `TypeError`.
    """

    _keras_keywords = frozenset({"autocast", "inputs", "outputs"})

    def __new__(cls, *args: Any, **kwargs: Any):
        # Model(inputs, outputs) itself (not a subclass) is a functional model, as in Keras
        if cls is Model and ("inputs" in kwargs or "outputs" in kwargs or
                             (args and _keras_structure(args[0]))):
            functional = _functional_hooks["Functional"]
            return functional.__new__(functional, *args, **kwargs)
        functional = _functional_hooks.get("Functional")
        if (functional is not None and not issubclass(cls, functional) and
                ("outputs" in kwargs or (len(args) > 1 and _keras_structure(args[0])))):
            # a subclass given (inputs, outputs): a functional model with the subclass's
            # methods (its own train_step, ...), as Keras 3 makes it
            return _distributed.created(super().__new__(_functional_subclass(cls, functional)))
        return _distributed.created(super().__new__(cls, *args, **kwargs))

    # -- saving ------------------------------------------------------------------------------
    def save(self, filepath: str, overwrite: bool = True, **kwargs: Any) -> None:
        """Saves the architecture (the layers' configs, as JSON) and the weights (.npz):
        into a zip file when `filepath` ends in `.keras`, else into a directory.
        `keras.models.load_model(filepath)` rebuilds the model."""
        _saving.save_model(self, filepath, overwrite=overwrite, **kwargs)

    def save_weights(self, filepath: str, overwrite: bool = True) -> None:
        """Writes the weights (in `weights` order, with their names and shapes) to an .npz
        file at exactly `filepath`."""
        _saving.save_weights(self, filepath, overwrite=overwrite)

    def to_json(self, **kwargs: Any) -> str:
        """The model's class and config as JSON (`keras.models.model_from_json` rebuilds it);
        keyword arguments go to `json.dumps`."""
        return _saving.model_to_json(self, **kwargs)

    def export(self, filepath: str, format: str = "tf_saved_model", verbose: bool | None = None,
               input_signature: Any = None) -> None:
        """Writes a SavedModel serving the model's predictions (endpoints `serve` and
        `serving_default`, as Keras 3's export): `rt.saved_model.load(filepath).serve(x)`."""
        _saving.export(self, filepath, format=format, verbose=verbose,
                       input_signature=input_signature)

    def quantize(self, mode=None, config=None, filters=None, type_check: bool = True) -> None:
        """Keras's `Model.quantize`: `mode` and `config` (a `keras.quantizers` config) and
        `filters` are checked as Keras checks them, then `NotImplementedError` is raised:
        quantized layers (int8, int4, float8) and GPTQ's and AWQ's calibration runs are not
        implemented here."""
        quantize_model = _context.hooks.quantize_model  # set by runtime.keras.quantizers
        if quantize_model is None:  # not loaded: no quantization config has been made
            raise NotImplementedError(f"{type(self).__name__}.quantize({mode!r}): quantized "
                                      "layers are not implemented in this runtime.")
        quantize_model(self, mode=mode, config=config, filters=filters)

    def load_weights(self, filepath: str, skip_mismatch: bool = False) -> None:
        """Assigns the weights written by `save_weights` (the model must be built with the
        same architecture)."""
        _saving.load_weights(self, filepath, skip_mismatch=skip_mismatch)

    @strict_keywords()
    def summary(self, line_length: int | None = None, positions=None, print_fn=print,
                expand_nested: bool = False, show_trainable: bool = False,
                layer_range=None) -> str | None:
        """Prints Keras 3's layer table (Layer (type), Output Shape, Param #, and Connected
        to for a functional model that is not a chain) through `print_fn` (returns None),
        or returns it when `print_fn` is None. `line_length`, `positions`, `expand_nested`
        (rows for the layers of nested models), `show_trainable` and `layer_range` (two
        layer names or patterns) as in Keras."""
        return _summary_table.print_summary(
            self, print_fn, line_length=line_length, positions=positions,
            expand_nested=expand_nested, show_trainable=show_trainable,
            layer_range=layer_range)

    def _repr_html_(self) -> str:
        """Jupyter's view: the summary's table in HTML."""
        return _html_repr.model_html(*_summary_table.summary_parts(self))

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> "Model":
        """A model from `get_config()`'s dict (a functional config gives a functional model);
        `custom_objects` maps the names of custom layers in it to their classes, as in Keras."""
        with _serialization.custom_object_scope(custom_objects or {}):
            return super().from_config(config)

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """The layer called `name`, or at position `index` of `layers` (Keras's rule)."""
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No layer named {name!r} in model {self.name!r}; its layers are "
                         f"{[layer.name for layer in self.layers]}.")

    @property
    def input_shape(self):
        """The shape of the model's input (a list of shapes for several), with the batch
        dimension, as Keras 3 gives it for functional and Sequential models."""
        return _shapes_of(self.inputs)

    @property
    def output_shape(self):
        """The shape of the model's output (a list of shapes for several)."""
        return _shapes_of(self.outputs)


def _shapes_of(tensors: list):
    """Keras 3's `input_shape` / `output_shape`: one tensor's shape as a tuple, several as a
    list of tuples."""
    shapes = [tuple(t.shape.as_list()) for t in tensors]
    return shapes[0] if len(shapes) == 1 else shapes


class Sequential(Model):
    """Calls its layers one after the other; `training` reaches those that take it.

    When the first layer was given an `input_shape` (or `input_dim`, `batch_input_shape`),
    the model is built as layers are added, as in Keras: their weights exist before the
    first call, and a layer that does not fit the shape is refused by `add`.
    """

    def __init__(self, layers: Iterable[Layer] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._stack: list[Layer] = []
        self._input_spec: tuple | None = None  # (batch shape, dtype) of a keras.Input
        for layer in layers or ():
            self.add(layer, rebuild=False)
        if self._stack:
            self._rebuild()

    def add(self, layer: Layer, rebuild: bool = True) -> None:
        """Appends a layer; a `keras.Input(...)` (or `InputLayer`) given first sets the
        input shape, and the model is built at once (unless `rebuild=False`)."""
        spec = _input_spec(layer)
        if spec is not None:
            if self._stack or self._input_spec is not None:
                raise ValueError("Sequential: an Input can only come first.")
            self._input_spec = spec
            self.__dict__["_input_tensor"] = layer if hasattr(layer, "node") else layer.output
            return
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add needs a Layer, got {layer!r}.")
        self._stack.append(layer)
        if rebuild:
            try:
                self._rebuild()
            except Exception:
                self._stack.pop()
                raise

    def _rebuild(self) -> None:
        """Builds the layers for the declared input shape, if there is one, and calls them on
        the model's Input as Keras's Sequential does after each `add` (so its Keras tensors
        are named in Keras's order)."""
        shape, dtype = self._input_spec or _declared_input(self._stack[0])
        if shape is not None:
            _build_symbolically(self, shape, dtype)
            self._name_tensors()
        elif "_input_tensor" in self.__dict__:   # built by a first call
            self._name_tensors()

    def _name_tensors(self) -> None:
        """The model's Keras tensors, made now (a layer that cannot be called on Keras
        tensors leaves them to be made when `inputs` is read, and raise there)."""
        try:
            self._symbolic_io()
        except Exception:  # noqa: BLE001 - only names and shapes are made here
            self.__dict__.pop("_symbolic_cache", None)

    def build(self, input_shape=None) -> None:
        """Creates every layer's weights for inputs of `input_shape` (with the batch
        dimension, e.g. `(None, 3)`), as Keras's `Sequential.build` does; without it, the
        shape of a first `Input` or of the first layer's `input_shape`."""
        if self.__dict__.get("_building"):  # the first call is building the model
            self.built = True
            if "_input_tensor" not in self.__dict__ and self._stack:
                self._name_tensors()   # Keras's Input of the first call's shape
            return
        if not self._stack:
            raise ValueError(f"{self.name}.build: the model has no layers yet; add layers "
                             "before building it.")
        shape, dtype = self._input_spec or _declared_input(self._stack[0])
        if input_shape is not None:
            shape = input_shape
        if shape is None:
            raise ValueError(f"{self.name}.build needs `input_shape`, the shape of the inputs "
                             "with the batch dimension, such as model.build((None, 3)).")
        _build_by_run(self, shape, dtype)

    def pop(self, rebuild: bool = True) -> Layer:
        """Removes and returns the last layer (the model's Keras tensors are made again
        unless `rebuild=False`, as in Keras)."""
        if not self._stack:
            raise TypeError("Sequential.pop: there are no layers to remove.")
        layer = self._stack.pop()
        if rebuild and self._stack:
            self._rebuild()
        return layer

    @property
    def layers(self) -> list[Layer]:
        """The layers, in calling order."""
        return list(self._stack)

    def _symbolic_io(self) -> tuple:
        """(input, output) Keras tensors of the layers called on a `keras.Input` of the
        model's input shape (declared, or of its first call), as Keras's Sequential builds
        them; made again after `add`/`pop`, from the same Input."""
        key = tuple(id(layer) for layer in self._stack)
        cached = self.__dict__.get("_symbolic_cache")
        if cached is not None and cached[0] == key:
            return cached[1]
        inputs = self.__dict__.get("_input_tensor")
        if inputs is None:
            shape, dtype = self._input_spec or (
                _declared_input(self._stack[0]) if self._stack else (None, None))
            built = self.__dict__.get("_build_input_shape")
            if shape is None and isinstance(built, TensorShape) and built.rank is not None:
                shape = tuple(built.as_list())
                dtype = self.__dict__.get("_build_input_dtype") or self.dtype
            if shape is None:
                raise AttributeError(f"Sequential model '{self.name}' has no defined inputs "
                                     "yet: start it with keras.Input(shape=...), give its "
                                     "first layer an input_shape, or call it once.")
            inputs = _functional_hooks["Input"](batch_shape=tuple(shape), dtype=dtype)
            self.__dict__["_input_tensor"] = inputs
        x = inputs
        for layer in self._stack:
            x = layer(x)
        self.__dict__["_symbolic_cache"] = (key, (inputs, x))
        return inputs, x

    @property
    def inputs(self) -> list:
        """The model's `keras.Input` tensor, in a list (Keras's `Sequential.inputs`)."""
        return [self._symbolic_io()[0]]

    @property
    def outputs(self) -> list:
        """The last layer's output Keras tensor, in a list."""
        return [self._symbolic_io()[1]]

    def get_config(self) -> dict:
        """Keras 3's: the name, dtype policy, the layers' configs (an `InputLayer` first once
        the input is known, each built layer with the `build_config` of its input shape) and
        `build_input_shape` once known."""
        shape, _ = self._input_spec or (None, None)
        if shape is None and "_build_input_shape" in self.__dict__:
            built = self._build_input_shape
            shape = built.as_list() if isinstance(built, TensorShape) and \
                built.rank is not None else None
        layers = []
        if shape is not None:
            try:
                history = getattr(self._symbolic_io()[0], "_keras_history", None)
            except (AttributeError, TypeError, ValueError):
                history = None
            if history is not None:
                layers.append(_serialization.serialize_layer(history[0].layer))
        for layer in self._stack:
            entry = _serialization.serialize_layer(layer)
            built = layer.__dict__.get("_build_input_shape")
            if layer.built and isinstance(built, TensorShape) and built.rank is not None \
                    and not layer._built_at_init:  # Keras's layers built when made have none
                entry = {**entry, "build_config": {"input_shape": built.as_list()}}
            layers.append(entry)
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": _dtype_policy.policy_config(_dtypes.as_dtype(self.dtype)),
                  "layers": layers}
        return config if shape is None else {**config, "build_input_shape": list(shape)}

    @classmethod
    def from_config(cls, config: dict) -> "Sequential":
        model = cls(name=config.get("name"), trainable=config.get("trainable", True))
        for entry in config.get("layers", []):
            model.add(_serialization.deserialize_layer(entry))
        shape = config.get("build_input_shape")
        if shape is not None and not model.built:
            dtype = config.get("input_dtype") or "float32"
            model._input_spec = (tuple(shape), _dtypes.as_dtype(dtype))
            _build_symbolically(model, tuple(shape), _dtypes.as_dtype(dtype))
        return model

    def call(self, inputs, training=None):
        shape = (self._input_spec or (getattr(self._stack[0], "_batch_input_shape", None),))[0] \
            if self._stack else None
        x = inputs if shape is None else adjust_input_rank(inputs, shape)
        for layer in self._stack:
            x = layer(x, training=training)
        return x


def adjust_input_rank(value, shape):
    """An input one axis short of its declared `shape` whose last size is 1 gets that axis,
    and one with an extra last axis of size 1 loses it (Keras's rule: `predict(x)` of a
    `[n]` array for a model of `Input((1,))`); other values are returned as they are."""
    if not hasattr(value, "shape") or isinstance(value, (list, tuple, dict)):
        return value
    dims = TensorShape(value.shape).as_list() if TensorShape(value.shape).rank is not None \
        else None
    ref = list(shape)
    if dims is None or len(dims) == len(ref):
        return value
    if len(dims) == len(ref) - 1 and ref[-1] == 1:
        return array_math.expand_dims(value, -1)
    if len(dims) == len(ref) + 1 and dims[-1] == 1:
        return array_math.squeeze(value, [-1])
    return value


def _params(layer: Layer) -> int:
    """The number of scalars in a layer's variables (0 before it is built)."""
    return sum(int(v.shape.num_elements() or 0) for v in layer.weights)


def _keras_structure(value) -> bool:
    """Whether `value` is a Keras tensor or a non-empty list/dict of them."""
    flat = nest.flatten(value)
    return bool(flat) and all(getattr(type(x), "_is_keras_tensor", False) for x in flat)


def _input_spec(value) -> tuple | None:
    """(batch shape, dtype) of a `keras.Input` tensor or an `InputLayer`, else None."""
    if getattr(type(value), "_is_keras_tensor", False):
        return tuple(value.shape.as_list()), value.dtype
    if type(value).__name__ == "InputLayer" and hasattr(value, "output"):
        return tuple(value._batch_input_shape), value.dtype
    return None


def _declared_input(layer: Layer) -> tuple:
    """(batch shape, dtype) a first layer declares (its `input_shape`, or the input of a
    model given one, as a Sequential first in a Sequential), else (None, its dtype)."""
    if isinstance(layer, Sequential):
        if layer._input_spec is not None:
            return layer._input_spec
        if layer._stack:
            return _declared_input(layer._stack[0])
    inputs = getattr(layer, "_nested_inputs", None)  # a functional model of one input
    if getattr(type(inputs), "_is_keras_tensor", False):
        return tuple(inputs.shape.as_list()), inputs.dtype
    return getattr(layer, "_batch_input_shape", None), layer.dtype


_build_symbolically = _serialization.build_symbolically
