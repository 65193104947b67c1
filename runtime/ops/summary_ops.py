"""The staged summary op: `rt.summary.scalar` (and the other writers) inside a compiled
function become a `WriteSummary` op, whose kernel writes an event at every call of the graph.

The kernel hands the values to `runtime.summary` (imported when the op first runs), which
picks the writer and the step and encodes the event.
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


WRITE_SUMMARY = define("WriteSummary", lambda *xs, **attrs: [], _write_kernel,
                       effects=Effect.IO | Effect.READ, num_outputs=0, differentiable=False)
