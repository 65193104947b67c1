"""The trace cache of a Function: its concrete functions and the fast callers that run them.

The cache is bounded: it keeps at most `get_trace_cache_size()` concrete functions per
Function (256 by default), dropping the least recently looked-up one (calls served by a fast
caller do not count as look-ups). A dropped concrete function is traced again when needed.
Looking for an existing trace that fits new arguments scans only the traces of the same
structure, dtypes and Python values, so each look-up costs the same however many traces exist.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable

from .. import nest
from ..exports import export
from ..shapes import TensorShape, TensorSpec
from ..tracing import spec_of
from . import logs
from .callers import make_caller
from .concrete import ConcreteFunction
from .keys import leaf_key_or_none
from .signature import describe, fits, has_tensor_leaf

FAST_CACHE_LIMIT = 4096  # fast callers, and canonical keys, per Function
_limits = {"concrete_functions": 256}


@export("config.set_trace_cache_size")
def set_trace_cache_size(size: int) -> None:
    """Keeps at most `size` concrete functions per Function (least recently used dropped)."""
    if int(size) < 1:
        raise ValueError(f"The trace cache size must be at least 1, got {size!r}.")
    _limits["concrete_functions"] = int(size)


@export("config.get_trace_cache_size")
def get_trace_cache_size() -> int:
    """How many concrete functions each Function keeps (256 unless set)."""
    return _limits["concrete_functions"]


def family_key(args, kwargs):
    """What a fitting trace shares with a call: tensor leaves by dtype, others by value."""
    leaves = []
    for leaf in nest.flatten((list(args), kwargs)):
        spec = spec_of(leaf)
        leaves.append(("T", spec.dtype.name) if spec is not None else leaf_key_or_none(leaf))
    extras = tuple(leaf._trace_key_extra() for leaf in  # a SparseTensor's static shape
                   nest.flatten((list(args), kwargs), expand_composites=False)
                   if hasattr(leaf, "_trace_key_extra"))
    return len(args), tuple(sorted(kwargs)), tuple(leaves), extras


class TraceCache:
    """Concrete functions by canonical call key, in trace order, plus fast callers by call key."""

    def __init__(self, name: str):
        self.name = name
        self.fast: dict = {}       # call key as given -> caller(args, kwargs)
        self.by_key: dict = {}     # canonical call key -> ConcreteFunction
        self.traced: list[ConcreteFunction] = []
        self._recent: OrderedDict = OrderedDict()  # id -> concrete, least recently used first
        self._families: dict = {}  # family_key -> [ConcreteFunction] in trace order
        self._keys: dict = {}      # id(concrete) -> (family, canonical keys, fast keys)
        self._fast_owner: dict = {}  # fast key -> id of the concrete function its caller runs
        self._lock = threading.RLock()

    def lookup(self, key, args: tuple, kwargs: dict,
               trace: Callable[[], ConcreteFunction]) -> ConcreteFunction:
        """The concrete function for canonical (args, kwargs): cached, fitting, or `trace()`d."""
        concrete = self.by_key.get(key)
        if concrete is None:
            with self._lock:  # one trace per key, however many threads ask for it
                concrete = self.by_key.get(key)
                if concrete is None:
                    concrete = self._find_or_trace(key, args, kwargs, trace)
        try:
            self._recent.move_to_end(id(concrete))  # one C call: atomic, no lock needed
        except KeyError:  # dropped meanwhile by another thread's trace
            pass
        return concrete

    def _find_or_trace(self, key, args, kwargs, trace) -> ConcreteFunction:
        family = family_key(args, kwargs)
        concrete = self._fitting(family, args, kwargs)
        if concrete is None:
            concrete = trace()
            self._add(concrete, family)
        elif logs.wanted(2):
            logs.log_event(2, f"Cache hit for {self.name}: the graph traced for "
                              f"{describe(concrete.structured_input_signature[0])} fits")
        self._remember(key, concrete)
        return concrete

    def _fitting(self, family, args: tuple, kwargs: dict) -> ConcreteFunction | None:
        """An existing concrete function whose specs are supertypes of these arguments."""
        if not has_tensor_leaf(args, kwargs):
            return None
        for concrete in self._families.get(family, ()):
            if fits(concrete.structured_input_signature, args, kwargs):
                return concrete
        return None

    def _add(self, concrete: ConcreteFunction, family) -> None:
        self.traced.append(concrete)
        self._recent[id(concrete)] = concrete
        self._families.setdefault(family, []).append(concrete)
        self._keys[id(concrete)] = (family, set(), set())
        while len(self._recent) > _limits["concrete_functions"]:
            self._drop(self._recent.popitem(last=False)[1])

    def _drop(self, concrete: ConcreteFunction) -> None:
        """Forgets `concrete`: its trace, keys and fast callers."""
        family, keys, fast_keys = self._keys.pop(id(concrete))
        self.traced.remove(concrete)
        members = self._families[family]
        members.remove(concrete)
        if not members:
            del self._families[family]
        for key in keys:
            del self.by_key[key]
        for key in fast_keys:
            del self.fast[key]
            del self._fast_owner[key]

    def holds(self, concrete: ConcreteFunction) -> bool:
        """Whether `concrete` is still in the cache (not dropped as least recently used)."""
        return id(concrete) in self._keys

    def _remember(self, key, concrete) -> None:
        """by_key[key] = concrete, forgetting the oldest key when the table is full."""
        if key in self.by_key:
            return
        if len(self.by_key) >= FAST_CACHE_LIMIT:
            old = next(iter(self.by_key))
            self._keys[id(self.by_key.pop(old))][1].discard(old)
        self.by_key[key] = concrete
        self._keys[id(concrete)][1].add(key)

    def add_caller(self, key, concrete: ConcreteFunction, args: tuple, kwargs: dict,
                   bound: tuple | None = None) -> None:
        """Keeps a fast caller of `concrete` for calls with this key (unless another thread
        holds the cache, tracing: then a later call adds it, and this one does not wait);
        `bound` is the call's (args, kwargs) after binding, defaults applied."""
        if key in self.fast:
            return
        caller = make_caller(concrete, args, kwargs, bound)
        if caller is None or not self._lock.acquire(blocking=False):
            return
        try:
            if id(concrete) not in self._keys or key in self.fast:
                return
            if len(self.fast) >= FAST_CACHE_LIMIT:
                old = next(iter(self.fast))
                del self.fast[old]
                self._keys[self._fast_owner.pop(old)][2].discard(old)
            self.fast[key] = caller
            self._fast_owner[key] = id(concrete)
            self._keys[id(concrete)][2].add(key)
        finally:
            self._lock.release()

    def relaxed_shapes(self, args: tuple, kwargs: dict) -> list:
        """Shapes for reduce_retracing: a tensor whose shape differs from an earlier trace's
        gets every dim None (of its rank, or an unknown rank when ranks differ), so that one
        relaxed graph serves the later shapes of that rank, whichever dims vary."""
        specs = [spec_of(leaf) for leaf in nest.flatten((args, kwargs))]
        specs = [s for s in specs if s is not None]
        shapes = [s.shape for s in specs]
        for concrete in self.traced:
            old = [s for s in nest.flatten(concrete.structured_input_signature)
                   if isinstance(s, TensorSpec)]
            if len(old) == len(specs) and all(o.dtype is s.dtype for o, s in zip(old, specs)):
                shapes = [s.most_specific_common_supertype([o.shape]) for s, o in zip(shapes, old)]
        return [shape if shape == spec.shape or shape.rank is None
                else TensorShape([None] * shape.rank) for shape, spec in zip(shapes, specs)]

    def changed_argument(self, args: tuple, kwargs: dict, names: list[str]):
        """(name, old, new) of the first argument that differs from the last trace, or None."""
        if not self.traced:
            return None
        old_args, old_kwargs = self.traced[-1].structured_input_signature
        pairs = [(names[i] if i < len(names) else f"argument {i}", new, old)
                 for i, (new, old) in enumerate(zip(args, old_args))]
        pairs += [(k, kwargs[k], old_kwargs.get(k)) for k in kwargs]
        for name, new, old in pairs:
            new_spec = spec_of(new)
            if isinstance(old, TensorSpec) and new_spec is not None:
                if new_spec.dtype is not old.dtype or not new_spec.shape.is_subtype_of(old.shape):
                    return name, describe(old), describe(TensorSpec(new_spec.shape, new_spec.dtype))
            elif leaf_key_or_none(new) != leaf_key_or_none(old):
                return name, f"{old!r:.60}", f"{new!r:.60}"
        return None

    def retrace_reason(self, args: tuple, kwargs: dict, names: list[str]) -> str:
        """Why a call needs a new trace, in words (for the logs)."""
        if not self.traced:
            return "first call"
        changed = self.changed_argument(args, kwargs, names)
        if changed is None:
            return "a new combination of arguments"
        return f"argument {changed[0]!r} changed from {changed[1]} to {changed[2]}"
