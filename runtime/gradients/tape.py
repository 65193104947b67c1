"""Recording ops on the active gradient tapes."""

from __future__ import annotations

from .. import context


def record_operation(opdef, inputs, outputs, attrs, operation) -> None:
    """Tells every active tape that `opdef` mapped `inputs` to `outputs`."""
    for tape in context.state.tapes:
        tape._record(opdef, inputs, outputs, attrs, operation)
