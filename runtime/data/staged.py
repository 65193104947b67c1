"""Datasets inside compiled functions.

A dataset (or iterator) passed to an `rt.function` is traced by its `element_spec`: the graph
sees a stand-in (`DatasetArgument`), and each call binds the stand-in, on the calling thread,
to the dataset that call passes; two datasets with one element_spec share one trace.

Iteration is staged with two host ops that have an IO effect (so no pass folds, merges or
drops them, and they run in program order at every call):

    DatasetIteratorOpen   (attr source)            -> handle: a Python iterator of the
                                                      source's elements, opened when it runs
    DatasetIteratorGetNext(handle; attrs specs)    -> has_value, *components

`for x in ds:` in converted code becomes a `while_loop` carrying the user's variables and
the current element: the element is fetched before the loop and again at the end of each
iteration, and the loop runs while `has_value` is true (so `break`/`continue`/`return` under
tensor conditions stage as in any loop; after a `break` one element more has been pulled
from a fresh iterator, which is then dropped). `next(it)` on a staged iterator raises
`OutOfRangeError` at run time when the data has ended. `ds.reduce` stages the same loop.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from .. import context
from ..function import function as rt_function
from ..function.conversion import convert
from ..ops.control_flow import while_loop
from ..ops.core import apply, convert_to_tensor
from ..ops.data import ITERATOR_GET_NEXT, ITERATOR_OPEN
from ..shapes import TensorShape, TensorSpec
from . import sparse_elements as _sparse
from . import structure as st
from .dataset import STAGED, Dataset, Iterator, _output_spec

OPEN, GET_NEXT = ITERATOR_OPEN, ITERATOR_GET_NEXT
UNROLL_LIMIT = 1000  # staged next() calls on one iterator: more is an unending Python loop


def _apply(opdef, inputs, attrs, name):
    return apply(opdef, inputs, attrs, name=name)


def _open(source) -> Any:
    """Stages opening `source`; a dataset built from the function's tensors (`range(n)`)
    takes them as inputs, and the op binds their values before it opens the dataset."""
    inputs = source._graph_inputs() if isinstance(source, Dataset) else []
    return _apply(OPEN, inputs, {"source": source}, "DatasetIteratorOpen")


class _Fetcher:
    """Stages `get_next` on one handle: `fetch()` -> (has_value, *components)."""

    def __init__(self, handle, spec, strict=False):
        self.handle, self.spec, self.strict = handle, spec, strict
        self.specs = tuple(st.flatten(spec))
        if not all(isinstance(s, TensorSpec) for s in self.specs):
            raise TypeError("A dataset whose elements are datasets (window) cannot be iterated "
                            f"inside a compiled function ({spec!r:.200}); flat_map the windows "
                            "into tensors first (`ds.flat_map(lambda w: w.batch(size))`).")

    def fetch(self) -> tuple:
        out = _apply(GET_NEXT, [self.handle], {"specs": self.specs, "flatten": st.flatten,
                                               "strict": self.strict}, "DatasetIteratorGetNext")
        return tuple(out)

    def pack(self, flat: tuple) -> Any:
        return _sparse.decode_all(st.pack(self.spec, list(flat)), _sparse.decode_symbolic)


class StagedIterator:
    """`iter(dataset)` while a function traces: `next()` stages a get-next op."""

    def __init__(self, source):
        self.element_spec = source.element_spec
        self._handle = _open(source)
        self._fetcher = _Fetcher(self._handle, self.element_spec, strict=True)
        self._staged = 0

    def __next__(self) -> Any:
        self._staged += 1
        if self._staged > UNROLL_LIMIT:
            raise RuntimeError(
                f"A Python loop over a dataset staged {UNROLL_LIMIT} get-next ops while tracing: "
                "without autograph a `for` over a dataset in a compiled function never ends "
                "when traced. Convert the function (rt.function(autograph=True), the default, "
                "with its source in a file) or use `ds.reduce`.")
        flat = self._fetcher.fetch()
        return self._fetcher.pack(flat[1:])

    get_next = __next__

    def __iter__(self):
        return self

    def _ag_staged_items(self):
        fetcher = _Fetcher(self._handle, self.element_spec)
        return fetcher.fetch, fetcher.pack


def staged_iterator(source) -> StagedIterator:
    return StagedIterator(source)


def staged_next(iterator) -> Any:
    fetcher = _Fetcher(_open(iterator), iterator.element_spec, strict=True)
    return fetcher.pack(fetcher.fetch()[1:])


def _ag_staged_items(source):
    """For autograph's `for` over a dataset or iterator: None when not tracing, else the
    staged fetch and pack functions (see the module docstring)."""
    if context.current_graph() is None:
        return None
    fetcher = _Fetcher(_open(source), source.element_spec)
    return fetcher.fetch, fetcher.pack


Dataset._ag_staged_items = _ag_staged_items
Iterator._ag_staged_items = _ag_staged_items


class DatasetArgument(Dataset):
    """Stands, in a traced graph, for a dataset (or iterator) passed as an argument; each call
    binds it, on the calling thread, to the one that call passes."""

    def __init__(self, value):
        self._first = value
        self._local = threading.local()
        self._spec = value.element_spec
        self._card = value._card if isinstance(value, Dataset) else -2
        self._is_iterator = isinstance(value, Iterator)

    @property
    def bound(self):
        v = getattr(self._local, "value", None)
        return self._first if v is None else v

    def _bind_argument(self, value) -> None:
        self._local.value = value

    def _fits(self, value) -> bool:
        kind = Iterator if self._is_iterator else Dataset
        return isinstance(value, kind) and st.spec_key(value.element_spec) == st.spec_key(self._spec)

    def _open(self):
        return self.bound._open()

    def _blocks(self):
        return self.bound._blocks() if not self._is_iterator else None

    def _elements(self):
        return self.bound._open()

    def __next__(self):
        if not self._is_iterator:
            raise TypeError("'Dataset' object is not an iterator; call iter() on it first.")
        if context.current_graph() is not None:
            return staged_next(self)
        return next(self.bound)

    get_next = __next__

    def _trace_key(self) -> tuple:
        kind = "rt.data.Iterator" if self._is_iterator else "rt.data.Dataset"
        return (kind, st.spec_key(self._spec))

    def __repr__(self) -> str:
        return f"<dataset argument element_spec={self._spec!r}>"


def reduce_dataset(dataset, initial_state: Any, reduce_func: Callable) -> Any:
    """`dataset.reduce(initial_state, reduce_func)`: eagerly a loop over a traced function;
    while tracing, a staged `while_loop` over a get-next op."""
    if not callable(reduce_func):
        raise TypeError("reduce: reduce_func must be callable.")
    state = st.map_structure(convert_to_tensor, tuple(initial_state)
                             if isinstance(initial_state, list) else initial_state)
    unpack = type(dataset.element_spec) is tuple
    if context.current_graph() is None:
        traced = rt_function(reduce_func, autograph=True)
        for element in dataset._open():
            tensors = st.to_tensors(element)
            state = traced(state, *tensors) if unpack else traced(state, tensors)
            if state is None:
                raise TypeError("reduce: reduce_func returned None; it must return the new state.")
            state = st.map_structure(convert_to_tensor, tuple(state) if isinstance(state, list) else state)
        return state
    fn = convert(reduce_func)
    fetcher = _Fetcher(_open(dataset), dataset.element_spec)
    first = fetcher.fetch()
    flat_state = st.flatten(state)
    n_state = len(flat_state)

    def cond(has, *rest):
        return has

    def body(has, *rest):
        s = st.pack(state, list(rest[:n_state]))
        element = fetcher.pack(rest[n_state:])
        new = fn(s, *element) if unpack else fn(s, element)
        if new is None:
            raise TypeError("reduce: reduce_func returned None; it must return the new state.")
        new = st.map_structure(convert_to_tensor, tuple(new) if isinstance(new, list) else new)
        _output_spec(new, "reduce")
        nxt = fetcher.fetch()
        return (nxt[0], *st.flatten(new), *nxt[1:])

    invariants = [TensorShape([])] + [TensorShape(None) if False else t.shape for t in flat_state] + \
        [s.shape for s in fetcher.specs]
    out = while_loop(cond, body, (first[0], *flat_state, *first[1:]), shape_invariants=invariants)
    return st.pack(state, list(out[1:1 + n_state]))


STAGED.update(iterator=staged_iterator, next=staged_next, reduce=reduce_dataset,
              argument=DatasetArgument)

__all__ = ["DatasetArgument", "StagedIterator", "reduce_dataset", "TensorSpec"]
