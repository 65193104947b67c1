"""The staged summary op: `rt.summary.scalar` (and the other writers) inside a compiled
function become a `WriteSummary` op, whose kernel writes an event at every call of the graph.

The kernel hands the values to `runtime.summary` through `context.hooks` (the package sits
above ops and registers its writing function when imported; until then no writer exists, so
the kernel writes nothing), which picks the writer and the step and encodes the event. The
attributes are plain values except `writer` and `record` (host objects set inside the traced
function, or None): a saved op has None there, so a loaded function writes to the default
writer where it is called.
"""

from __future__ import annotations

from .. import context
from ..opdef import Effect, define


def _write_kernel(*values, kind, tag, slots, writer, step, record, options):
    """Writes one summary event: `values` are the staged inputs named by `slots`."""
    write = context.hooks.write_summary
    if write is None:  # runtime.summary is not loaded: no writer exists, so none records
        return
    staged = dict(zip(slots, values))
    write(kind, tag, staged, writer=writer, step=step, record=record, options=dict(options))


def saved_attrs(attrs: dict, where: str) -> dict:
    """The attributes a saved WriteSummary holds: its writer is dropped (the loaded function
    writes to the default writer); a Python record_if condition cannot be saved."""
    if attrs["record"] is not None:
        raise ValueError(f"{where} cannot be saved: it is recorded under rt.summary.record_if "
                         "with a Python callable; pass a bool tensor (or a bool) instead.")
    return {**attrs, "writer": None}


WRITE_SUMMARY = define("WriteSummary", lambda *xs, **attrs: [], _write_kernel,
                       effects=Effect.IO | Effect.READ, num_outputs=0, differentiable=False)
