"""The functional API: `Input` tensors, layers called on them, and `Model(inputs, outputs)`.

    inputs = keras.Input(shape=(4,))
    hidden = keras.layers.Dense(8, activation="relu")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(1)(hidden))

`Input` returns a `KerasTensor`: a symbolic value with a shape and a dtype but no data.
A layer called on Keras tensors is built (its weights are created, eagerly) and run once
on placeholders in a throwaway graph to learn its output shapes; the call is recorded as
a `Node` and the results are new Keras tensors. `Model(inputs, outputs)` then collects the
nodes between them, and calling the model replays them on real tensors.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from .. import context, nest
from .. import dtypes as _dtypes
from ..arguments import strict_keywords
from ..graph import FuncGraph
from ..ops import array_math
from ..ops.core import convert_to_tensor
from ..ops.ragged import RaggedTensor
from ..ops.sparse import SparseTensor
from ..ops.sparse import to_dense as _sparse_to_dense
from ..ops.variables import Variable
from ..shapes import TensorShape
from ..tensor import Tensor
from . import serialization as _serialization
from .base import Layer, _functional_hooks, _unique_name
from .model import Model, adjust_input_rank


class KerasTensor:
    """A symbolic tensor of a functional model being defined: `shape`, `dtype`, `name`."""

    _is_keras_tensor = True

    def __init__(self, shape, dtype, name: str | None = None, sparse: bool = False,
                 ragged: bool = False) -> None:
        self.shape = TensorShape(shape)
        self.dtype = _dtypes.as_dtype(dtype)
        # Keras 3's automatic names: keras_tensor, keras_tensor_1, ... (one counter with the
        # layer names', reset by clear_session), so a serving signature's input is named as
        # in Keras (`keras_tensor_15`)
        self.name = name or _unique_name("keras_tensor")
        self.sparse = sparse
        self.ragged = ragged
        self._keras_history: tuple[Node, int] | None = None

    @property
    def node(self) -> "Node":
        return self._keras_history[0]

    def __repr__(self) -> str:
        shape = tuple(self.shape.as_list()) if self.shape.rank is not None else None
        return (f"<KerasTensor shape={shape}, dtype={self.dtype.name}, sparse={self.sparse}, "
                f"ragged={self.ragged}, name={self.name}>")

    def __bool__(self) -> bool:
        raise TypeError("A KerasTensor is symbolic: it has no value to test. Use it as the input "
                        "of layers, then build a Model from it.")

    def __array__(self, *args, **kwargs):
        raise TypeError("A KerasTensor is symbolic and cannot be converted to a NumPy array; "
                        "call a layer on it, or build a Model and call the model on data.")


class Node:
    """One call of `layer` in a functional graph: its arguments (Keras tensors among them),
    an explicit `training` value if one was given, and the Keras tensors it produced."""

    def __init__(self, layer: Layer, call_args: tuple, training, outputs) -> None:
        self.layer = layer
        self.call_args = call_args  # (inputs, args, kwargs)
        self.training = training
        self.outputs = outputs
        for index, tensor in enumerate(nest.flatten(outputs)):
            tensor._keras_history = (self, index)
        layer.__dict__.setdefault("_inbound_nodes", []).append(self)

    @property
    def inbound_tensors(self) -> list[KerasTensor]:
        return [x for x in nest.flatten(self.call_args) if isinstance(x, KerasTensor)]


class InputLayer(Layer):
    """The layer at the start of a functional model: its output is an `Input` tensor."""

    @strict_keywords()
    def __init__(self, shape=None, batch_size: int | None = None, dtype=None,
                 sparse: bool | None = None, batch_shape=None, input_tensor=None,
                 optional: bool = False, name: str | None = None, ragged: bool | None = None,
                 input_shape=None) -> None:
        """Keras 3's arguments (`shape` without the batch axis, or `batch_shape`);
        `input_shape` is Keras 2's name for `shape`."""
        if input_tensor is not None:
            raise NotImplementedError("InputLayer(input_tensor=...) is not implemented: give "
                                      "the shape and dtype instead.")
        if optional:
            raise NotImplementedError("InputLayer(optional=True) is not implemented: every "
                                      "input takes a value.")
        if shape is not None and input_shape is not None:
            raise ValueError("InputLayer takes `shape` or its older name `input_shape`, not "
                             "both.")
        input_shape = shape if shape is not None else input_shape
        if batch_shape is None:
            if input_shape is None:
                raise ValueError("Input needs a shape (shape=(4,), without the batch "
                                 "dimension) or a batch_shape.")
            dims = input_shape.as_list() if isinstance(input_shape, TensorShape) else \
                list(input_shape) if isinstance(input_shape, (list, tuple)) else [input_shape]
            batch_shape = [batch_size] + dims
        elif input_shape is not None:
            raise ValueError("Input takes a shape or a batch_shape, not both.")
        for dim in list(batch_shape):
            if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int) or dim < 0):
                raise ValueError(f"Input shape dimensions must be non-negative integers or None, "
                                 f"got {list(batch_shape)}.")
        super().__init__(name=name or _unique_name("input_layer"), dtype=dtype)
        self._batch_input_shape = tuple(batch_shape)
        self.built = True
        self.sparse = bool(sparse)  # a SparseTensor given to it is densified (same values)
        self.ragged = bool(ragged)  # a RaggedTensor given to it reaches the layers as it is
        tensor = KerasTensor(self._batch_input_shape, self.dtype, name=name,
                             sparse=self.sparse, ragged=self.ragged)
        Node(self, ((), (), {}), None, tensor)

    @property
    def input(self) -> KerasTensor:
        """The Input tensor (an InputLayer's input is its output, as in Keras)."""
        return self.output

    def get_config(self) -> dict:
        """Keras 3's: the batch shape, dtype name, sparse, ragged, name and optional."""
        return {"batch_shape": list(self._batch_input_shape), "dtype": self.dtype,
                "sparse": self.sparse, "ragged": self.ragged, "name": self.name,
                "optional": False}

    @classmethod
    def from_config(cls, config: dict) -> "InputLayer":
        return cls(**config)


# Keras 3's names of the operators a Keras tensor takes (`2 * x + 1`, `x[:, 0]`, `x > 0`)
_OPERATORS: dict[str, Callable] = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
    "true_divide": operator.truediv, "floor_divide": operator.floordiv, "mod": operator.mod,
    "power": operator.pow, "matmul": operator.matmul, "less": operator.lt,
    "less_equal": operator.le, "greater": operator.gt, "greater_equal": operator.ge,
    "not_equal": operator.ne, "logical_and": operator.and_, "logical_or": operator.or_,
    "logical_xor": operator.xor, "negative": operator.neg, "absolute": operator.abs,
    "logical_not": operator.invert, "get_item": operator.getitem}


class TensorOperation(Layer):
    """An operator applied to Keras tensors while a functional model is defined, recorded as
    a step of the model as Keras 3 records its operations (`multiply`, `add`, `get_item`,
    ...): `constant` is the operand that is not a tensor (a number, or the index of
    `get_item`), first when `constant_first` (`2 * x`)."""

    def __init__(self, operation: str, constant=None, constant_first: bool = False,
                 name: str | None = None) -> None:
        if operation not in _OPERATORS:
            raise ValueError(f"TensorOperation: unknown operation {operation!r}; expected one "
                             f"of {sorted(_OPERATORS)}.")
        super().__init__(name=name or _unique_name(operation))
        self.operation = operation
        self.constant = constant
        self.constant_first = bool(constant_first)
        self.built = True

    def call(self, inputs):
        operands = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if self.constant is not None:
            operands.insert(0 if self.constant_first else len(operands), self.constant)
        return _OPERATORS[self.operation](*operands)

    def get_config(self) -> dict:
        return {"name": self.name, "operation": self.operation,
                "constant": _encode_constant(self.constant),
                "constant_first": self.constant_first}

    @classmethod
    def from_config(cls, config: dict) -> "TensorOperation":
        config = dict(config)
        config["constant"] = _decode_constant(config.get("constant"))
        return cls(**config)


def _encode_constant(value):
    """A JSON form of an operand or index: numbers as they are, slices, `...` and tuples
    tagged (a list stays a list: it indexes differently from a tuple)."""
    if isinstance(value, slice):
        return {"slice": [value.start, value.stop, value.step]}
    if value is Ellipsis:
        return {"ellipsis": True}
    if isinstance(value, tuple):
        return {"tuple": [_encode_constant(v) for v in value]}
    if isinstance(value, list):
        return [_encode_constant(v) for v in value]
    if isinstance(value, (Tensor, Variable)):
        value = value.numpy()
    if hasattr(value, "tolist"):  # NumPy scalars and arrays
        return value.tolist()
    return value


def _decode_constant(value):
    if isinstance(value, dict) and "slice" in value:
        return slice(*value["slice"])
    if isinstance(value, dict) and "ellipsis" in value:
        return Ellipsis
    if isinstance(value, dict) and "tuple" in value:
        return tuple(_decode_constant(v) for v in value["tuple"])
    if isinstance(value, list):
        return [_decode_constant(v) for v in value]
    return value


def _apply_operator(operation: str, *operands):
    """`operation` of Keras tensors and constants, as a `TensorOperation` of the model."""
    tensors = [x for x in operands if isinstance(x, KerasTensor)]
    constants = [x for x in operands if not isinstance(x, KerasTensor)]
    layer = TensorOperation(operation, constants[0] if constants else None,
                            constant_first=bool(constants) and
                            not isinstance(operands[0], KerasTensor))
    return layer(tensors if len(tensors) > 1 else tensors[0])


def _install_operators() -> None:
    """Gives KerasTensor Python's operators, each recorded as a `TensorOperation`."""
    binary = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
              "floordiv": "floor_divide", "mod": "mod", "pow": "power", "matmul": "matmul",
              "and": "logical_and", "or": "logical_or", "xor": "logical_xor"}
    for dunder, operation in binary.items():
        setattr(KerasTensor, f"__{dunder}__",
                lambda self, other, op=operation: _apply_operator(op, self, other))
        setattr(KerasTensor, f"__r{dunder}__",
                lambda self, other, op=operation: _apply_operator(op, other, self))
    for dunder, operation in {"lt": "less", "le": "less_equal", "gt": "greater",
                              "ge": "greater_equal", "ne": "not_equal",
                              "getitem": "get_item"}.items():
        setattr(KerasTensor, f"__{dunder}__",
                lambda self, other, op=operation: _apply_operator(op, self, other))
    for dunder, operation in {"neg": "negative", "abs": "absolute",
                              "invert": "logical_not"}.items():
        setattr(KerasTensor, f"__{dunder}__", lambda self, op=operation: _apply_operator(op, self))


_install_operators()


@strict_keywords()
def Input(shape=None, batch_size: int | None = None, name: str | None = None, dtype=None,
          sparse: bool | None = None, tensor=None, ragged: bool | None = None,
          type_spec=None, batch_shape=None) -> KerasTensor:
    """A symbolic input of a functional model: `shape` without the batch dimension (None
    for a size known only at call time), `dtype` float32 unless given."""
    if type_spec is not None:
        raise NotImplementedError("Input(type_spec=...) is not implemented: give the shape "
                                  "and dtype.")
    layer = InputLayer(input_shape=shape, batch_size=batch_size, dtype=dtype, name=name,
                       batch_shape=batch_shape, sparse=sparse, ragged=ragged,
                       input_tensor=tensor)
    return layer.output


def call_symbolically(layer: Layer, inputs, args: tuple, kwargs: dict, training):
    """`layer(inputs, *args, **kwargs)` on Keras tensors: builds the layer, infers the output
    shapes by running it on placeholders in a throwaway graph, and records the call."""
    call_args = (inputs, args, kwargs)
    placeholders: dict[int, Any] = {}
    masks: dict[int, KerasTensor] = {}   # id(mask placeholder) -> the input's mask
    graph = FuncGraph(f"{layer.name}_symbolic")
    with context.graph_scope(graph):
        def placeholder(x):
            if not isinstance(x, KerasTensor):
                return x
            if id(x) not in placeholders:
                placeholders[id(x)] = graph.placeholder(x.shape, x.dtype, name="input")
                mask = getattr(x, "_keras_mask", None)
                if isinstance(mask, KerasTensor):  # the mask a masking layer gave it
                    placeholders[id(x)]._keras_mask = graph.placeholder(
                        mask.shape, mask.dtype, name="mask")
                    masks[id(placeholders[id(x)]._keras_mask)] = mask
            return placeholders[id(x)]
        real_inputs, real_args, real_kwargs = nest.map_structure(placeholder, call_args)
        result = layer(real_inputs, *real_args, training=training, **real_kwargs)

    def keras_tensor(value):
        if not hasattr(value, "shape") or not hasattr(value, "dtype"):
            raise TypeError(f"{layer.name} returned {value!r} when called on Keras tensors; a "
                            "layer in a functional model must return tensors.")
        tensor = KerasTensor(value.shape, value.dtype)
        mask = getattr(value, "_keras_mask", None)
        if mask is not None and hasattr(mask, "shape"):  # Keras tensors carry their mask
            # an input's mask passed on is the same Keras tensor; a new one is named next
            known = masks.get(id(mask))
            if known is None:
                for _ in range(getattr(layer, "_mask_steps", 1) - 1):
                    _unique_name("keras_tensor")  # Keras's intermediate mask tensors
                known = KerasTensor(mask.shape, mask.dtype)
            tensor._keras_mask = known
        return tensor
    outputs = nest.map_structure(keras_tensor, result)
    Node(layer, call_args, training, outputs)
    return outputs


def _is_keras_structure(value) -> bool:
    flat = nest.flatten(value)
    return bool(flat) and all(isinstance(x, KerasTensor) for x in flat)


class Functional(Model):
    """A model defined by its `inputs` and `outputs` Keras tensors (single tensors, lists or
    dicts): calling it replays the layer calls that lead from the inputs to the outputs.
    Built when constructed: its weights exist at once."""

    _convert_input_args = False  # each input is converted to its Input's dtype instead

    def __init__(self, inputs, outputs, name: str | None = None, trainable: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(name=name, trainable=trainable, **kwargs)
        for label, value in (("inputs", inputs), ("outputs", outputs)):
            if not _is_keras_structure(value):
                raise TypeError(f"Model({label}=...) needs Keras tensors (from keras.Input and "
                                f"layers called on them), or lists or dicts of them; got "
                                f"{value!r}.")
        if isinstance(inputs, tuple):
            inputs = list(inputs)
        if isinstance(outputs, tuple):
            outputs = list(outputs)
        flat_inputs = nest.flatten(inputs)
        for tensor in flat_inputs:
            if not isinstance(tensor.node.layer, InputLayer):
                raise ValueError(f"Model inputs must come from keras.Input; {tensor!r} is the "
                                 f"output of layer {tensor.node.layer.name!r}.")
        self._nested_inputs = inputs
        self._nested_outputs = outputs
        self._nodes = _nodes_between(flat_inputs, nest.flatten(outputs))
        layers: list[Layer] = [t.node.layer for t in flat_inputs]
        for node in self._nodes:
            if not any(node.layer is known for known in layers):
                layers.append(node.layer)
        self._functional_layers = layers
        self.built = True

    # -- structure ------------------------------------------------------------------------
    @property
    def layers(self) -> list[Layer]:
        """The model's layers, the InputLayers first, then in the order they are called."""
        return list(self._functional_layers)

    @property
    def inputs(self) -> list[KerasTensor]:
        return nest.flatten(self._nested_inputs)

    @property
    def outputs(self) -> list[KerasTensor]:
        return nest.flatten(self._nested_outputs)

    @property
    def input(self):
        return self._nested_inputs

    @property
    def output(self):
        return self._nested_outputs

    @property
    def input_names(self) -> list[str]:
        return [t.node.layer.name for t in self.inputs]

    # -- calling ----------------------------------------------------------------------------
    def call(self, inputs, training=None):
        values: dict[int, Any] = {}
        for tensor, value in zip(self.inputs, self._match_inputs(inputs)):
            values[id(tensor)] = value
        for node in self._nodes:
            args = nest.map_structure(
                lambda x: values[id(x)] if isinstance(x, KerasTensor) else x, node.call_args)
            node_inputs, node_args, node_kwargs = args
            flag = node.training if node.training is not None else training
            result = node.layer(node_inputs, *node_args, training=flag, **node_kwargs)
            flat = nest.flatten(result)
            expected = nest.flatten(node.outputs)
            if len(flat) != len(expected):
                raise ValueError(f"{node.layer.name} returned {len(flat)} tensors where it "
                                 f"returned {len(expected)} when the model was defined.")
            for tensor, value in zip(expected, flat):
                values[id(tensor)] = value
        return nest.map_structure(lambda t: values[id(t)], self._nested_outputs)

    def _match_inputs(self, inputs) -> list:
        """The given inputs in the order of `self.inputs`, shape-checked."""
        expected = self.inputs
        if isinstance(inputs, dict):
            if isinstance(self._nested_inputs, dict):
                keys = sorted(self._nested_inputs)  # nest.flatten's order of a dict
                missing = [k for k in keys if k not in inputs]
                if missing:
                    raise ValueError(f"{self.name} expects inputs {keys}; missing {missing}.")
                flat = [inputs[k] for k in keys]
            else:
                names = self.input_names
                missing = [n for n in names if n not in inputs]
                if missing:
                    raise ValueError(f"{self.name} expects inputs named {names}; missing "
                                     f"{missing}.")
                flat = [inputs[n] for n in names]
        elif len(expected) == 1:
            if isinstance(inputs, (list, tuple)) and len(inputs) == 1:
                inputs = inputs[0]
            flat = [inputs]
        else:
            if not isinstance(inputs, (list, tuple)) or len(inputs) != len(expected):
                raise ValueError(f"{self.name} expects {len(expected)} inputs (a list or dict), "
                                 f"got {_describe(inputs)}.")
            flat = nest.flatten(list(inputs))
            if len(flat) != len(expected):
                raise ValueError(f"{self.name} expects {len(expected)} inputs, got {len(flat)}.")
        checked = []
        for tensor, value in zip(expected, flat):
            if isinstance(value, RaggedTensor):
                if value.dtype != tensor.dtype:
                    value = value.with_flat_values(_as_input_dtype(value.flat_values, tensor.dtype))
                if not value.shape.is_compatible_with(tensor.shape):
                    raise ValueError(f"Input {tensor.node.layer.name!r} of {self.name} has shape "
                                     f"{tensor.shape}, got a RaggedTensor of shape {value.shape}.")
                checked.append(value)
                continue
            if isinstance(value, SparseTensor):
                value = _sparse_to_dense(value, validate_indices=False)
            if not isinstance(value, (Tensor, Variable)):
                value = convert_to_tensor(value)
            value = _as_input_dtype(value, tensor.dtype)
            value = adjust_input_rank(value, tensor.shape.as_list())
            shape = TensorShape(value.shape)
            if not shape.is_compatible_with(tensor.shape):
                raise ValueError(f"Input {tensor.node.layer.name!r} of {self.name} has shape "
                                 f"{tensor.shape}, got a value of shape {shape}.")
            checked.append(value)
        return checked

    # -- configs ------------------------------------------------------------------------------
    def get_config(self) -> dict:
        """The layers, each with the calls ("inbound_nodes") that connect it, and where the
        inputs and outputs are: enough for `from_config` to rebuild the graph."""
        node_index: dict[int, int] = {}
        counts: dict[int, int] = {}
        for node in [t.node for t in self.inputs] + self._nodes:
            if id(node) not in node_index:
                node_index[id(node)] = counts.get(id(node.layer), 0)
                counts[id(node.layer)] = node_index[id(node)] + 1

        def history(tensor: KerasTensor) -> list:
            node, index = tensor._keras_history
            return [node.layer.name, node_index[id(node)], index]

        def encode(value):  # Keras 3's form of a Keras tensor in a call's arguments
            if isinstance(value, KerasTensor):
                return {"class_name": "__keras_tensor__",
                        "config": {"shape": tuple(value.shape.as_list()),
                                   "dtype": value.dtype.name,
                                   "keras_history": history(value)}}
            return _serialization.serialize_value(value)

        def call(node) -> dict:  # Keras 3's inbound node: args [inputs, *args], kwargs
            inputs, args, kwargs = node.call_args
            kwargs = dict(kwargs) if node.training is None else \
                {**kwargs, "training": node.training}
            return {"args": [nest.map_structure(encode, inputs),
                             *nest.map_structure(encode, list(args))],
                    "kwargs": nest.map_structure(encode, kwargs)}
        layers = []
        for layer in self.layers:
            entry = _serialization.serialize_layer(layer)
            entry["name"] = layer.name
            nodes = [node for node in self._nodes if node.layer is layer]
            if nodes and layer.built and not layer._built_at_init and \
                    not isinstance(layer, InputLayer):
                entry["build_config"] = {"input_shape": nest.map_structure(
                    lambda t: t.shape.as_list() if isinstance(t, KerasTensor) else None,
                    nodes[0].call_args[0])}
            entry["inbound_nodes"] = [call(node) for node in nodes]
            layers.append(entry)
        return {"name": self.name, "trainable": self.trainable, "layers": layers,
                "input_layers": nest.map_structure(history, self._nested_inputs),
                "output_layers": nest.map_structure(history, self._nested_outputs)}

    @classmethod
    def from_config(cls, config: dict) -> "Functional":
        layers: dict[str, Layer] = {}
        pending = []
        for entry in config["layers"]:
            layer = _serialization.deserialize_layer(entry)
            layers[entry["name"]] = layer
            pending += [(entry["name"], spec) for spec in entry.get("inbound_nodes", [])]
        produced: dict[tuple, list] = {}
        for name, layer in layers.items():
            if isinstance(layer, InputLayer):
                produced[(name, 0)] = [layer.output]
        calls: dict[str, int] = {name: 0 for name in layers}
        while pending:
            progress = False
            for item in list(pending):
                name, spec = item
                refs = _tensor_refs([spec["args"], spec["kwargs"]])
                if not all((r[0], r[1]) in produced for r in refs):
                    continue
                node_kwargs = _decode(spec["kwargs"], produced)
                if "training" in spec:  # this runtime's earlier form: [inputs, [args]]
                    node_inputs, node_args = _decode(spec["args"], produced)
                    node_kwargs["training"] = spec["training"]
                else:  # Keras 3's: [inputs, *args], training among the kwargs if given
                    node_inputs, *node_args = _decode(spec["args"], produced)
                node_kwargs.setdefault("training", None)
                result = layers[name](node_inputs, *node_args, **node_kwargs)
                offset = 1 if isinstance(layers[name], InputLayer) else 0
                produced[(name, calls[name] + offset)] = nest.flatten(result)
                calls[name] += 1
                pending.remove(item)
                progress = True
            if not progress:
                raise ValueError("The functional model config is inconsistent: some layer calls "
                                 "read tensors that no layer produces.")

        def find(ref):
            return produced[(ref[0], ref[1])][ref[2]]

        def is_ref(value):
            return isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)

        def rebuild(structure):
            if is_ref(structure):
                return find(structure)
            if isinstance(structure, dict):
                return {k: rebuild(v) for k, v in structure.items()}
            return [rebuild(v) for v in structure]
        model = cls(rebuild(config["input_layers"]), rebuild(config["output_layers"]),
                    name=config.get("name"), trainable=config.get("trainable", True))
        return model


_serialization.FUNCTIONAL_BUILDERS[Model] = Functional.from_config


def _history(value) -> list | None:
    """The `[layer, node, index]` of a Keras tensor in a saved call's arguments (Keras 3's
    `{"class_name": "__keras_tensor__", "config": {..., "keras_history": ...}}`, or this
    runtime's earlier `{"__keras_tensor__": [...]}`), None for another value."""
    if isinstance(value, dict) and set(value) == {"__keras_tensor__"}:
        return value["__keras_tensor__"]
    if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__" and \
            isinstance(value.get("config"), dict) and "keras_history" in value["config"]:
        return value["config"]["keras_history"]
    return None


def _tensor_refs(value) -> list[tuple]:
    """The `[layer, node, index]` references to Keras tensors in a saved call's arguments."""
    if _history(value) is not None:
        return [tuple(_history(value))]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [ref for item in value for ref in _tensor_refs(item)]
    return []


def _decode(value, produced: dict):
    """A saved call's arguments with the Keras tensors they reference put back."""
    if _history(value) is not None:
        owner, index, position = _history(value)
        return produced[(owner, index)][position]
    if isinstance(value, dict):
        return {k: _decode(v, produced) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v, produced) for v in value]
    return _serialization.deserialize_value(value)


def _as_input_dtype(value, dtype: _dtypes.DType):
    """`value` cast to its Input's dtype, as Keras 3 converts a functional model's inputs
    (numbers to numbers and bools; strings stay as they are)."""
    if value.dtype == dtype or _dtypes.string in (value.dtype, dtype):
        return value
    return array_math.cast(value, dtype)


def _describe(value) -> str:
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)}"
    return f"one value of shape {getattr(value, 'shape', '?')}"


def _nodes_between(inputs: list[KerasTensor], outputs: list[KerasTensor]) -> list[Node]:
    """The nodes computing `outputs` from `inputs`, in an order where each node comes after
    the nodes it reads; a ValueError names an Input the outputs need that is not given."""
    given = {id(t) for t in inputs}
    order: list[Node] = []
    done: set[int] = set()
    active: set[int] = set()

    def visit(tensor: KerasTensor) -> None:
        if id(tensor) in given:
            return
        node = tensor.node
        if id(node) in done:
            return
        if isinstance(node.layer, InputLayer):
            raise ValueError(f"Graph disconnected: the outputs depend on Input "
                             f"{node.layer.name!r}, which is not among the model's inputs.")
        if id(node) in active:
            raise ValueError("The functional graph has a cycle.")
        active.add(id(node))
        for inbound in node.inbound_tensors:
            visit(inbound)
        active.discard(id(node))
        done.add(id(node))
        order.append(node)
    for tensor in outputs:
        visit(tensor)
    return order


_functional_hooks.update(call_symbolically=call_symbolically, Functional=Functional, Input=Input)
