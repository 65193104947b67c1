"""The staged summary op: `rt.summary.scalar` (and the other writers) inside a compiled
function become a `WriteSummary` op, whose kernel writes an event at every call of the graph.

The kernel hands the values to `runtime.summary` (imported when the op first runs), which
picks the writer and the step and encodes the event. The attributes are plain values except
`writer` and `record` (host objects set inside the traced function, or None): a saved op has
None there, so a loaded function writes to the default writer where it is called.
"""

from __future__ import annotations

import importlib

from ..opdef import Effect, define


def _write_kernel(*values, kind, tag, slots, writer, step, record, options):
    """Writes one summary event: `values` are the staged inputs named by `slots`."""
    summary = importlib.import_module("runtime.summary._state")
    staged = dict(zip(slots, values))
    summary.write_staged(kind, tag, staged, writer=writer, step=step, record=record,
                         options=dict(options))


def saved_attrs(attrs: dict, where: str) -> dict:
    """The attributes a saved WriteSummary holds: its writer is dropped (the loaded function
    writes to the default writer); a Python record_if condition cannot be saved."""
    if attrs["record"] is not None:
        raise ValueError(f"{where} cannot be saved: it is recorded under rt.summary.record_if "
                         "with a Python callable; pass a bool tensor (or a bool) instead.")
    return {**attrs, "writer": None}


WRITE_SUMMARY = define("WriteSummary", lambda *xs, **attrs: [], _write_kernel,
                       effects=Effect.IO | Effect.READ, num_outputs=0, differentiable=False)
