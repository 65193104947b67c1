"""`rt.Module`: TensorFlow 2's `tf.Module`, a named container of variables and submodules.

    class Dense(rt.Module):
        def __init__(self, n_in, n_out, name=None):
            super().__init__(name=name)
            self.w = rt.Variable(rt.random.normal([n_in, n_out]), name="w")
            self.b = rt.Variable(rt.zeros([n_out]), name="b")

        @rt.function
        def __call__(self, x):
            return rt.nn.relu(rt.matmul(x, self.w) + self.b)

`variables`, `trainable_variables`, `non_trainable_variables` and `submodules` walk the
attributes as TensorFlow does: attribute names in sorted order, values inside lists, tuples
and dicts (dict values in sorted key order), each object once; a module's own values come
before those of its submodules. `rt.layers.Layer` is a Module that keeps Keras's rules.
"""

from __future__ import annotations

import collections
import functools
import re
import threading
from typing import Any, Callable, Iterator

from . import context
from .exports import export
from .ops.variables import Variable

_VALID_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"  # compiled on first use (re's cache), not at import
_MAX_DEPTH = 64  # nesting of lists, tuples and dicts inside one attribute


def snake_case(name: str) -> str:
    """`MyDense2` -> `my_dense2`, `Conv2D` -> `conv2_d`: the default name of a module of that
    class, as `tf.Module` names it."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def keras_snake_case(name: str) -> str:
    """`Conv2D` -> `conv2d`, `MaxPooling2D` -> `max_pooling2d`: the default name of a Keras
    layer of that class (Keras 3 splits no capital that follows a digit, and drops what is
    not a word character)."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", re.sub(r"\W+", "", name))
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


# Keras's automatic names (`dense`, `dense_1`, `adam`, ...): one counter per base name,
# shared by layers and optimizers as in Keras 3; keras.backend.clear_session resets it
keras_names: "collections.Counter[str]" = collections.Counter()
keras_names_lock = threading.Lock()


def keras_unique_name(base: str) -> str:
    """`base` the first time, then `base_1`, `base_2`, ..."""
    with keras_names_lock:
        count = keras_names[base]
        keras_names[base] += 1
    return base if count == 0 else f"{base}_{count}"


def _leaves(value, stack: list, depth: int = 0) -> Iterator[Any]:
    """The values inside `value`, walking lists, tuples and dicts (dict values by sorted key,
    as `tf.nest` does); a container already being walked (a cycle) is not entered again."""
    if isinstance(value, (list, tuple, dict)):
        if depth >= _MAX_DEPTH or any(item is value for item in stack):
            return
        stack.append(value)
        try:
            if isinstance(value, dict):
                try:
                    keys = sorted(value)
                except TypeError:  # keys that do not compare: insertion order
                    keys = list(value)
                items = [value[key] for key in keys]
            else:
                items = value
            for item in items:
                yield from _leaves(item, stack, depth + 1)
        finally:
            stack.pop()
    else:
        yield value


@export("Module")
class Module:
    """A named container of variables, submodules and functions (TensorFlow's `tf.Module`).

    Subclass it, call `super().__init__(name=...)`, and assign `rt.Variable`s, other modules,
    or lists, tuples and dicts of them as attributes: `variables`, `trainable_variables`,
    `non_trainable_variables` and `submodules` find them. Methods may be compiled with
    `rt.function`; `rt.GradientTape` differentiates with respect to `trainable_variables`;
    `rt.saved_model.save(module, path)` saves its `rt.function` methods that have an
    `input_signature`, with its variables.
    """

    def __init__(self, name: str | None = None) -> None:
        """`name` must be a Python identifier; the default is the class name in snake_case
        (`MyDense` -> `my_dense`), not made unique, as in TensorFlow."""
        if name is None:
            name = snake_case(type(self).__name__)
        elif not isinstance(name, str) or not re.match(_VALID_NAME, name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid "
                             "Python identifiers (e.g. 'dense_1').")
        self._name = name

    @property
    def name(self) -> str:
        """The name given to `__init__` (or the snake_case class name)."""
        try:
            return self._name
        except AttributeError:
            raise AttributeError(f"{type(self).__name__}.__init__ must call super().__init__() "
                                 "before the module is used.") from None

    @property
    def name_scope(self):
        """A `rt.name_scope(self.name)` context: `with self.name_scope:` prefixes the names
        of the ops created inside with the module's name."""
        return context.name_scope(self.name)

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorator: the method runs inside the module's `name_scope`."""
        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return method_with_name_scope

    # -- walking the attributes ---------------------------------------------------------------
    def _children(self, seen: set) -> Iterator[Any]:
        """The values of this module's attributes not met before (in `seen`), in TensorFlow's
        order: attribute names sorted, then the values inside each."""
        attributes = vars(self)
        for key in sorted(attributes):
            for leaf in _leaves(attributes[key], []):
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
                yield leaf

    def _walk_variables(self, seen: set, frozen: bool) -> Iterator[tuple[Variable, bool]]:
        """(variable, trainable) pairs: this module's own variables, then its submodules'."""
        seen.add(id(self))
        modules = []
        for leaf in self._children(seen):
            if isinstance(leaf, Variable):
                yield leaf, leaf.trainable and not frozen
            elif isinstance(leaf, Module):
                modules.append(leaf)
        for module in modules:
            yield from module._walk_variables(seen, frozen)

    def _walk_submodules(self, seen: set) -> Iterator["Module"]:
        """This module's own submodules, then (for each of them) theirs."""
        seen.add(id(self))
        modules = [leaf for leaf in self._children(seen) if isinstance(leaf, Module)]
        yield from modules
        for module in modules:
            yield from module._walk_submodules(seen)

    @property
    def variables(self) -> tuple[Variable, ...]:
        """Every `rt.Variable` reachable from the attributes, each once: this module's own
        (attributes in sorted order), then its submodules'."""
        return tuple(v for v, _ in self._walk_variables(set(), False))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        """The `variables` created with `trainable=True`."""
        return tuple(v for v, trainable in self._walk_variables(set(), False) if trainable)

    @property
    def non_trainable_variables(self) -> tuple[Variable, ...]:
        """The `variables` created with `trainable=False`."""
        return tuple(v for v, trainable in self._walk_variables(set(), False) if not trainable)

    @property
    def submodules(self) -> tuple["Module", ...]:
        """Every module reachable from the attributes, not this one: the direct ones first."""
        return tuple(self._walk_submodules(set()))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{getattr(self, '_name', '?')}'>"
