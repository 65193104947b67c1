"""The trace cache of a Function: its concrete functions and the fast callers that run them."""

from __future__ import annotations

import threading
from typing import Callable

from .. import nest
from ..shapes import TensorSpec
from ..tracing import spec_of
from . import logs
from .callers import make_caller
from .concrete import ConcreteFunction
from .keys import leaf_key_or_none
from .signature import describe, fits, has_tensor_leaf

FAST_CACHE_LIMIT = 4096


class TraceCache:
    """Concrete functions by canonical call key, in trace order, plus fast callers by call key."""

    def __init__(self, name: str):
        self.name = name
        self.fast: dict = {}       # call key as given -> caller(args, kwargs)
        self.by_key: dict = {}     # canonical call key -> ConcreteFunction
        self.traced: list[ConcreteFunction] = []
        self._lock = threading.RLock()

    def lookup(self, key, args: tuple, kwargs: dict,
               trace: Callable[[], ConcreteFunction]) -> ConcreteFunction:
        """The concrete function for canonical (args, kwargs): cached, fitting, or `trace()`d."""
        concrete = self.by_key.get(key)
        if concrete is None:
            with self._lock:
                concrete = self.by_key.get(key)
                if concrete is None:
                    concrete = self._fitting(args, kwargs)
                    if concrete is None:
                        concrete = trace()
                        self.traced.append(concrete)
                    elif logs.wanted(2):
                        logs.log_event(2, f"Cache hit for {self.name}: the graph traced for "
                                          f"{describe(concrete.structured_input_signature[0])} fits")
                    self.by_key[key] = concrete
        return concrete

    def _fitting(self, args: tuple, kwargs: dict) -> ConcreteFunction | None:
        """An existing concrete function whose specs are supertypes of these arguments."""
        if not has_tensor_leaf(args, kwargs):
            return None
        for concrete in self.traced:
            if fits(concrete.structured_input_signature, args, kwargs):
                return concrete
        return None

    def add_caller(self, key, concrete: ConcreteFunction, args: tuple, kwargs: dict,
                   bound: tuple | None = None) -> None:
        """Keeps a fast caller of `concrete` for calls with this key, while there is room;
        `bound` is the call's (args, kwargs) after binding, defaults applied."""
        if len(self.fast) < FAST_CACHE_LIMIT:
            caller = make_caller(concrete, args, kwargs, bound)
            if caller is not None:
                self.fast[key] = caller

    def relaxed_shapes(self, args: tuple, kwargs: dict) -> list:
        """Shapes for reduce_retracing: dims that differ from earlier traces become None."""
        specs = [spec_of(leaf) for leaf in nest.flatten((args, kwargs))]
        specs = [s for s in specs if s is not None]
        shapes = [s.shape for s in specs]
        for concrete in self.traced:
            old = [s for s in nest.flatten(concrete.structured_input_signature)
                   if isinstance(s, TensorSpec)]
            if len(old) == len(specs) and all(o.dtype is s.dtype for o, s in zip(old, specs)):
                shapes = [s.most_specific_common_supertype([o.shape]) for s, o in zip(shapes, old)]
        return shapes

    def retrace_reason(self, args: tuple, kwargs: dict, names: list[str]) -> str:
        """Why a call needs a new trace, in words (for the logs)."""
        if not self.traced:
            return "first call"
        old_args, old_kwargs = self.traced[-1].structured_input_signature
        pairs = [(names[i] if i < len(names) else f"argument {i}", new, old)
                 for i, (new, old) in enumerate(zip(args, old_args))]
        pairs += [(k, kwargs[k], old_kwargs.get(k)) for k in kwargs]
        for name, new, old in pairs:
            new_spec = spec_of(new)
            if isinstance(old, TensorSpec) and new_spec is not None:
                if new_spec.dtype is not old.dtype or not new_spec.shape.is_subtype_of(old.shape):
                    return (f"argument {name!r} changed from {describe(old)} to "
                            f"{describe(TensorSpec(new_spec.shape, new_spec.dtype))}")
            elif leaf_key_or_none(new) != leaf_key_or_none(old):
                return f"argument {name!r} changed from {old!r:.60} to {new!r:.60}"
        return "a new combination of arguments"
