"""The object graph of a checkpoint: which objects hold which, by which edge name.

Trackable objects are `rt.Variable`s (the leaves that hold values), `rt.Module`s (layers and
models among them), optimizers, `rt.train.Checkpoint`s, and lists, tuples and dicts holding
any of those. The edges leaving each kind:

- a Module: one edge per attribute holding something trackable, attribute names sorted;
- a Layer: first its weights made by `add_weight`, by their short names (`kernel`, `bias`),
  then its attributes as a Module; a `Sequential` adds `layer_with_weights-N` (its layers
  that have weights, counted from 0) and `layer-N` (all of its layers) as Keras does;
- an optimizer: `iter` (its step counter), one edge per hyperparameter variable
  (`learning_rate`; `learning_rate-float64` for the copy of another dtype than float32), and
  its slot variables, which are saved under the variable they belong to (see `slot_key`);
- a list or tuple: `0`, `1`, ...; a dict: its keys (as strings);
- a Checkpoint: its keyword arguments and `save_counter`.

A variable's key is the path of the first edges that reach it, breadth first from the root,
followed by `/.ATTRIBUTES/VARIABLE_VALUE` (`model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE`).
"""

from __future__ import annotations

from typing import Any, Iterator

from .. import deferred_restore as deferred
from ..module import Module
from ..ops.variables import Variable

VALUE_SUFFIX = ".ATTRIBUTES/VARIABLE_VALUE"
_MAX_CONTAINER_DEPTH = 32


def escape(name: str) -> str:
    """An edge name as it appears in a key: `/` and `.` escaped, so that the names made by
    the format (`.ATTRIBUTES`, `.OPTIMIZER_SLOT`) never clash with user names."""
    return name.replace("\\", "\\\\").replace("/", "\\S").replace(".", "\\.")


def value_key(path: list[str]) -> str:
    """The key of a variable reached by `path` (edge names from the root)."""
    return "/".join([escape(name) for name in path] + [VALUE_SUFFIX])


def slot_key(variable_path: list[str], optimizer_path: list[str], slot: str) -> str:
    """The key of the optimizer slot `slot` of a variable (TensorFlow's layout)."""
    return "/".join([escape(name) for name in variable_path] + [".OPTIMIZER_SLOT"]
                    + [escape(name) for name in optimizer_path] + [escape(slot), VALUE_SUFFIX])


def _is_optimizer(value: Any) -> bool:
    """An `rt.optimizers.Optimizer` (told by its interface: this layer does not import it)."""
    return callable(getattr(type(value), "apply_gradients", None)) and \
        isinstance(getattr(value, "_slots", None), dict)


def _is_checkpoint(value: Any) -> bool:
    """An `rt.train.Checkpoint` (it names its own children)."""
    return callable(getattr(type(value), "_checkpoint_children", None))


def _has_own_children(value: Any) -> bool:
    """An object that names its trackable parts itself (`_trackable_children()`), such as an
    `rt.random.Generator` and its state variable."""
    return callable(getattr(type(value), "_trackable_children", None))


class _DeferredKey:
    """The hashable stand-in a wrapper files its pending restorations under."""


def _notifying(method):
    def mutate(self, *args, **kwargs):
        result = method(self, *args, **kwargs)
        deferred.created(self)  # a restore may be waiting for the new items
        return result
    mutate.__name__ = method.__name__
    mutate.__doc__ = method.__doc__
    return mutate


class ListWrapper(list):
    """A list assigned to a `Checkpoint` attribute (as TensorFlow wraps it): its items are
    saved under `0`, `1`, ...; an item appended after a `restore` gets its saved value."""

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self._deferred_key = _DeferredKey()

    for _name in ("append", "extend", "insert", "__setitem__", "__iadd__"):
        locals()[_name] = _notifying(getattr(list, _name))
    del _name

    def __repr__(self) -> str:
        return f"ListWrapper({list.__repr__(self)})"


class DictWrapper(dict):
    """A dict assigned to a `Checkpoint` attribute: its values are saved under their keys; a
    value set after a `restore` gets its saved value."""

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self._deferred_key = _DeferredKey()

    for _name in ("__setitem__", "update", "setdefault"):
        locals()[_name] = _notifying(getattr(dict, _name))
    del _name

    def __repr__(self) -> str:
        return f"_DictWrapper({dict.__repr__(self)})"


def is_trackable(value: Any) -> bool:
    """True for a variable, module, optimizer or checkpoint (not for containers), or an
    object that names its trackable parts."""
    return (isinstance(value, (Variable, Module)) or _is_optimizer(value)
            or _is_checkpoint(value) or _has_own_children(value))


def _holds_trackable(value: Any, depth: int = 0) -> bool:
    if is_trackable(value):
        return True
    if depth >= _MAX_CONTAINER_DEPTH:
        return False
    if isinstance(value, (list, tuple)):
        return any(_holds_trackable(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return any(_holds_trackable(item, depth + 1) for item in value.values())
    return False


def kind(value: Any) -> str:
    """The kind of node recorded in the index for `value`."""
    if isinstance(value, Variable):
        return "variable"
    if _is_checkpoint(value):
        return "checkpoint"
    if _is_optimizer(value):
        return "optimizer"
    if isinstance(value, Module):
        return "module"
    if _has_own_children(value):
        return "object"
    if isinstance(value, dict):
        return "dict"
    return "list"


def _attribute_children(obj: Any, skip: frozenset = frozenset()) -> Iterator[tuple[str, Any]]:
    attributes = vars(obj)
    for key in sorted(attributes):
        if key in skip or key.startswith("__"):
            continue
        value = attributes[key]
        if _holds_trackable(value):
            yield key, value


def _weight_name(layer: Any, variable: Variable, index: int) -> str:
    name = variable.name[:-2] if variable.name.endswith(":0") else variable.name
    prefix = f"{layer.name}/"
    if getattr(variable, "_path", None) is not None and name and "/" not in name:
        return name  # a Keras weight's own name ("kernel")
    return name[len(prefix):] if name.startswith(prefix) and len(name) > len(prefix) \
        else f"weight-{index}"


def _layer_children(layer: Any) -> Iterator[tuple[str, Any]]:
    for index, variable in enumerate(layer.__dict__.get("_weights", ())):
        yield _weight_name(layer, variable, index), variable
    skip = {"_weights"}
    stack = layer.__dict__.get("_stack")
    if isinstance(stack, list) and callable(getattr(layer, "add", None)):  # a Sequential
        skip.add("_stack")
        with_weights = [item for item in stack if getattr(item, "weights", item.variables)]
        for index, item in enumerate(with_weights):
            yield f"layer_with_weights-{index}", item
        for index, item in enumerate(stack):
            yield f"layer-{index}", item
    yield from _attribute_children(layer, frozenset(skip))


def _optimizer_children(optimizer: Any) -> Iterator[tuple[str, Any]]:
    if optimizer._iterations is not None:
        yield "iter", optimizer._iterations
    for name, value in sorted(optimizer._hyper_values.items()):
        if isinstance(value, Variable):
            yield name, value
    for (name, dtype), variable in sorted(optimizer._hyper_vars.items(),
                                          key=lambda item: (item[0][0], item[0][1].name)):
        yield (name if dtype.name == "float32" else f"{name}-{dtype.name}"), variable


def children(obj: Any) -> list[tuple[str, Any]]:
    """The (edge name, child) pairs leaving `obj`, each pair once, in a fixed order."""
    if isinstance(obj, Variable):
        return []
    if _is_checkpoint(obj):
        found = obj._checkpoint_children()
    elif _is_optimizer(obj):
        found = _optimizer_children(obj)
    elif _has_own_children(obj):
        found = obj._trackable_children()
    elif isinstance(obj, Module) and isinstance(vars(obj).get("_weights"), list):  # a Layer
        found = _layer_children(obj)
    elif isinstance(obj, Module):
        found = _attribute_children(obj)
    elif isinstance(obj, dict):
        found = ((str(key), value) for key, value in obj.items() if _holds_trackable(value))
    elif isinstance(obj, (list, tuple)):
        found = ((str(i), value) for i, value in enumerate(obj) if _holds_trackable(value))
    else:
        return []
    result, seen = [], set()
    for name, child in found:
        if (name, id(child)) not in seen and not any(n == name for n, _ in result):
            seen.add((name, id(child)))
            result.append((name, child))
    return result


def optimizer_slots(optimizer: Any) -> list[tuple[Variable, str, Variable]]:
    """(variable, slot name, slot variable) for every slot the optimizer has made."""
    found = []
    for ref, slots in optimizer._slots.items():
        for name, slot in slots.items():
            found.append((ref.deref(), name, slot))
    return found


class ObjectGraph:
    """The live object graph from a root, breadth first: `nodes[i]` is an object, `edges[i]`
    its (name, node index) pairs, `paths[i]` the edge names of the first path that reached it.
    """

    def __init__(self, root: Any) -> None:
        self.nodes: list[Any] = [root]
        self.edges: list[list[tuple[str, int]]] = []
        self.paths: list[list[str]] = [[]]
        self.index: dict[int, int] = {id(root): 0}
        position = 0
        while position < len(self.nodes):
            obj = self.nodes[position]
            out = []
            for name, child in children(obj):
                node = self.index.get(id(child))
                if node is None:
                    node = len(self.nodes)
                    self.index[id(child)] = node
                    self.nodes.append(child)
                    self.paths.append(self.paths[position] + [name])
                out.append((name, node))
            self.edges.append(out)
            position += 1

    def variables(self) -> list[tuple[int, Variable]]:
        """(node index, variable) for every variable reached (slots not included)."""
        return [(i, obj) for i, obj in enumerate(self.nodes) if isinstance(obj, Variable)]

    def slots(self) -> list[tuple[int, int, str, Variable]]:
        """(optimizer node, variable node, slot name, slot variable) for the slots of the
        variables in this graph (a slot of a variable outside it is not saved)."""
        found = []
        for node, obj in enumerate(self.nodes):
            if _is_optimizer(obj):
                for variable, name, slot in optimizer_slots(obj):
                    var_node = self.index.get(id(variable))
                    if var_node is not None:
                        found.append((node, var_node, name, slot))
        return found
