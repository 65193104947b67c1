"""`rt.summary`: TensorBoard summaries (scalars, histograms, text, images, audio, graphs,
any tensor with `write`).

    writer = rt.summary.create_file_writer("logs/run1")
    with writer.as_default(step=0):
        rt.summary.scalar("loss", 0.5)

Events are written with tensorboardX (`pip install 'autograph-rt[summary]'`) in TF 2's
format (tensor summaries with their plugin's metadata) and read by TensorBoard. Called
eagerly, a summary is written at once. Called inside an `rt.function` (either tier), it
is staged as a `WriteSummary` op and written at every call of the function, with the
values of that call:

- a writer, step or `record_if` set inside the traced function is part of the graph: an
  int step is a constant, a variable step (an optimizer's `iterations`) is read at each call;
- what the function leaves unset is taken at each call: the default writer, the default step
  and the `record_if` conditions in effect around that call;
- a saved function writes to the default writer where it is called after loading (a writer
  set inside the traced function is not saved).

Summaries return True when written, False when no writer records (eagerly) and None
inside a compiled function.
"""

from __future__ import annotations

import contextlib
import types as _types
from typing import Any, Iterator

import numpy as np

from .. import context as _context
from ..arguments import strict_keywords
from ..function import add_function_callback, remove_function_callback
from ..ops import array_math
from ..ops.core import apply, convert_to_tensor
from ..ops.summary import WRITE_SUMMARY
from ..tensor import EagerTensor, Tensor
from ._state import STATE, HostRef, SummaryWriter, condition_value, made_in_trace, resolve_step, write_now
from ._state import create_file_writer as _create_file_writer
from .graph_proto import to_graph_def

__all__ = ["SummaryWriter", "audio", "create_file_writer", "create_noop_writer", "experimental",
           "flush", "graph", "histogram", "image", "record_if", "scalar",
           "should_record_summaries", "text", "trace_export", "trace_off", "trace_on", "write"]


@strict_keywords('rt.summary.create_file_writer')
def create_file_writer(logdir: str, max_queue: int | None = None,
                       flush_millis: int | None = None, filename_suffix: str | None = None,
                       name: str | None = None) -> SummaryWriter:
    """A writer of event files in `logdir` (made when missing).

    `max_queue`: events held before a write (10); `flush_millis`: the longest time between
    writes (120000); `filename_suffix`: added to the event file's name; `name` is accepted
    for compatibility. Raises ImportError when tensorboardX is not installed."""
    return _create_file_writer(logdir, max_queue=max_queue, flush_millis=flush_millis,
                               filename_suffix=filename_suffix, name=name)


@strict_keywords('rt.summary.create_noop_writer')
def create_noop_writer() -> SummaryWriter:
    """A writer that writes nothing: as the default, summaries are not recorded."""
    return SummaryWriter(None, None)


def _check_name(name: Any, caller: str) -> str:
    if not isinstance(name, str) or not name:
        raise TypeError(f"rt.summary.{caller}: name must be a non-empty str, got {name!r}.")
    return name


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "_as_tensor")


def _eager_value(value: Any) -> Any:
    if _is_tensor(value):
        return np.asarray(convert_to_tensor(value)._value)
    return value


def _summary(kind: str, name: str, data: Any, step: Any, options: dict) -> bool | None:
    name = _check_name(name, kind)
    if _context.current_graph() is None:
        if step is not None:
            step = _eager_value(step)
        return write_now(kind, name, _eager_value(data), step, options)
    return _stage(kind, name, data, step, options)


def _stage(kind: str, name: str, data: Any, step: Any, options: dict) -> None:
    """Adds a WriteSummary op. Settings made inside the traced function (a writer, a step,
    record_if) become part of the op; those in effect around the call are read when it runs."""
    writer = None
    if STATE.writer is not None and made_in_trace(STATE.writer_origin):
        if STATE.writer.closed:
            return None  # a no-op or closed writer records nothing, at any call
        writer = HostRef(STATE.writer)
    conditions, callables = [], []
    for condition, origin in zip(STATE.conditions, STATE.condition_origins):
        if not made_in_trace(origin):
            continue  # checked when the op runs
        if _is_tensor(condition):
            conditions.append(convert_to_tensor(condition))
        elif callable(condition):
            callables.append(condition)
        elif not condition_value(condition):
            return None  # decided at trace time
    slots, inputs = [], []
    if kind == "text" and not _is_tensor(data):
        options = {**options, "constant": _text_constant(data)}
    else:
        slots.append("data")
        inputs.append(convert_to_tensor(data))
    if step is None and _is_tensor(STATE.step) and (
            made_in_trace(STATE.step_origin) or not _is_eager_tensor(STATE.step)):
        step = STATE.step  # a variable (or graph tensor) is read at every call
    elif step is None and STATE.step is not None and made_in_trace(STATE.step_origin):
        step = STATE.step  # an int set inside the function is a constant of the graph
    step_attr = None
    if _is_tensor(step):
        slots.append("step")
        inputs.append(convert_to_tensor(step))
    elif step is not None:
        step_attr = resolve_step(step, kind)
    if conditions:
        condition = conditions[0]
        for other in conditions[1:]:
            condition = array_math.logical_and(condition, other)
        slots.append("cond")
        inputs.append(condition)
    attrs = {"kind": kind, "tag": name, "slots": tuple(slots), "writer": writer,
             "step": step_attr, "record": HostRef(tuple(callables)) if callables else None,
             "options": tuple(sorted(options.items()))}
    apply(WRITE_SUMMARY, inputs, attrs, name=f"write_{kind}_summary")
    return None


def _is_eager_tensor(value: Any) -> bool:
    return isinstance(value, EagerTensor)


def _text_constant(data: Any) -> Any:
    """Python text as a str, or nested tuples of str (plain values an op attribute holds)."""
    array = np.asarray(data, dtype=object)
    if not array.ndim:
        return str(data)

    def nest(items: Any) -> Any:
        return tuple(nest(x) for x in items) if isinstance(items, list) else str(items)
    return nest(array.tolist())


@strict_keywords('rt.summary.scalar')
def scalar(name: str, data: Any, step: Any = None, description: str | None = None) -> Any:
    """Writes a scalar `data` (a number or a scalar tensor) under `name` at `step`."""
    return _summary("scalar", name, data, step, {"description": description})


@strict_keywords('rt.summary.histogram')
def histogram(name: str, data: Any, step: Any = None, buckets: int | None = None,
              description: str | None = None) -> Any:
    """Writes a histogram of the values of `data` (any shape) with `buckets` buckets (30)."""
    if buckets is not None and (not isinstance(buckets, (int, np.integer)) or buckets < 1):
        raise ValueError(f"rt.summary.histogram: buckets must be a positive int, got "
                         f"{buckets!r}.")
    return _summary("histogram", name, data, step,
                    {"buckets": None if buckets is None else int(buckets),
                     "description": description})


@strict_keywords('rt.summary.text')
def text(name: str, data: Any, step: Any = None, description: str | None = None) -> Any:
    """Writes a string (or a tensor of strings) shown by TensorBoard's text dashboard."""
    return _summary("text", name, data, step, {"description": description})


@strict_keywords('rt.summary.image')
def image(name: str, data: Any, step: Any = None, max_outputs: int = 3,
          description: str | None = None) -> Any:
    """Writes up to `max_outputs` images of `data` [k, height, width, channels] (uint8, or
    floats in [0, 1]; 1, 3 or 4 channels) as PNGs, in one tensor summary tagged `name`."""
    if not isinstance(max_outputs, (int, np.integer)) or max_outputs < 0:
        raise ValueError(f"rt.summary.image: max_outputs must be an int >= 0, got "
                         f"{max_outputs!r}.")
    return _summary("image", name, data, step,
                    {"max_outputs": int(max_outputs), "description": description})


@strict_keywords('rt.summary.graph')
def graph(graph_data: Any) -> bool:
    """Writes a graph for TensorBoard's graph dashboard: a ConcreteFunction, a Graph, a
    GraphDef from `as_graph_def()`, or a TensorBoard GraphDef protobuf. Eager only."""
    if _context.current_graph() is not None:
        raise ValueError("rt.summary.graph cannot be called inside a compiled function; call "
                         "it eagerly, e.g. with f.get_concrete_function(x).")
    writer = STATE.writer
    if writer is None or writer.closed:
        return False
    if not all(condition_value(c) for c in STATE.conditions):
        return False
    return writer._add_graph(to_graph_def(graph_data))


@strict_keywords('rt.summary.flush')
def flush(writer: SummaryWriter | None = None, name: str | None = None) -> None:
    """Writes the pending events of `writer` (the default writer when None) to disk."""
    writer = STATE.writer if writer is None else writer
    if writer is not None:
        writer.flush()


@strict_keywords('rt.summary.record_if')
@contextlib.contextmanager
def record_if(condition: Any) -> Iterator[None]:
    """Within the context, summaries are written only when `condition` holds: a bool, a
    callable returning one (asked at each summary), or a bool tensor."""
    STATE.push_condition(condition)
    try:
        yield
    finally:
        STATE.pop_condition()


@strict_keywords('rt.summary.should_record_summaries')
def should_record_summaries() -> bool:
    """True when a summary written now would be recorded (a writer is set, conditions hold)."""
    writer = STATE.writer
    if writer is None or writer.closed:
        return False
    return all(condition_value(c) for c in STATE.conditions)


def _record_concrete(function, name, graph_, inputs, outputs) -> None:
    if STATE.tracing is not None:
        STATE.tracing.append(function)


@strict_keywords('rt.summary.trace_on')
def trace_on(graph: bool = True, profiler: bool = False) -> None:
    """Starts recording the graphs of the `rt.function`s traced from now on (`trace_export`
    writes them). `profiler` is accepted; no profile is recorded."""
    STATE.tracing = [] if graph else None
    add_function_callback(_record_concrete)


@strict_keywords('rt.summary.trace_off')
def trace_off() -> None:
    """Stops recording and forgets the recorded graphs."""
    STATE.tracing = None
    try:
        remove_function_callback(_record_concrete)
    except KeyError:
        pass


@strict_keywords('rt.summary.trace_export')
def trace_export(name: str, step: Any = 0, profiler_outdir: str | None = None) -> bool:
    """Writes the graphs recorded since `trace_on` with the default writer (one graph; each
    function under its own name scope when several were traced) and stops recording.
    `name` and `step` are accepted for compatibility (a graph event has no tag or step)."""
    _check_name(name, "trace_export")
    recorded = list(STATE.tracing or ())
    trace_off()
    writer = STATE.writer
    if writer is None or writer.closed or not recorded:
        return False
    if len(recorded) == 1:
        return writer._add_graph(to_graph_def(recorded[0]))
    return writer._add_graph(to_graph_def(recorded, scopes=[c.name for c in recorded]))


@strict_keywords('rt.summary.experimental.get_step')
def _get_step() -> Any:
    """The default step (None when unset): an int, a tensor or a variable."""
    return STATE.step


@strict_keywords('rt.summary.experimental.set_step')
def _set_step(step: Any) -> None:
    """Sets the default step of summaries: an int, a tensor, or a variable (read when each
    summary is written, so an optimizer's `iterations` follows training)."""
    if step is not None and not _is_tensor(step):
        value = np.asarray(step)
        if value.size != 1 or value.dtype.kind not in "iu":
            raise TypeError(f"rt.summary.experimental.set_step: step must be an int, a tensor "
                            f"or a variable, got {step!r}.")
        step = int(value.reshape(()))
    STATE.set_step(step)


_get_step.__name__, _set_step.__name__ = "get_step", "set_step"
from .more import audio, summary_scope, write, write_raw_pb  # noqa: E402 - they use the above

experimental = _types.SimpleNamespace(get_step=_get_step, set_step=_set_step,
                                      summary_scope=summary_scope, write_raw_pb=write_raw_pb)
