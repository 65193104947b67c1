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
from ..attr_kinds import MAX_DIM, MAX_ITEMS, MAX_RANK, MAX_STR, NONE, STR, AttrKind, is_int_in, kind, one_of
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


def _is_text(v, depth: int = 0) -> bool:
    """A str, or nested tuples of str (text a summary writes)."""
    if type(v) is str:
        return len(v) <= MAX_STR
    return (type(v) is tuple and depth < MAX_RANK and len(v) <= MAX_ITEMS
            and all(_is_text(x, depth + 1) for x in v))


_OPTIONS = {
    "description": lambda v: v is None or (type(v) is str and len(v) <= MAX_STR),
    "buckets": lambda v: v is None or is_int_in(v, 1, MAX_DIM),
    "max_outputs": lambda v: is_int_in(v, 0, MAX_DIM),
    "constant": _is_text,
    "sample_rate": lambda v: type(v) is float and v > 0,  # audio
    "encoding": lambda v: v is None or v == "wav",
    "metadata": lambda v: type(v) is str and len(v) <= MAX_STR and not v.strip(
        "0123456789abcdef"),  # tensor: SummaryMetadata's bytes, in hex
}


@kind("summary slots")
def _SLOTS(v, ctx):
    ok = (type(v) is tuple and len(v) == ctx.n_inputs and len(set(v)) == len(v)
          and all(s in ("data", "step", "cond") for s in v))
    return None if ok else f"a tuple of {ctx.n_inputs} distinct of 'data', 'step', 'cond'"


@kind("summary options")
def _OPTIONS_KIND(v, ctx):
    ok = type(v) is tuple and all(
        type(item) is tuple and len(item) == 2 and item[0] in _OPTIONS
        and _OPTIONS[item[0]](item[1]) for item in v)
    return None if ok else ("a tuple of (name, value) pairs: description, buckets, "
                            "max_outputs, constant, sample_rate, encoding, metadata")


_STEP = AttrKind("an optional int64 step", lambda v, ctx: None if v is None or is_int_in(
    v, -2 ** 63, 2 ** 63) else "None or an int64 step")

WRITE_SUMMARY = define("WriteSummary", lambda *xs, **attrs: [], _write_kernel,
                       effects=Effect.IO | Effect.READ, num_outputs=0, differentiable=False,
                       attrs={"kind": one_of("scalar", "histogram", "text", "image", "audio",
                                             "tensor", "raw"), "tag": STR,
                              "slots": _SLOTS, "options": _OPTIONS_KIND, "step": _STEP,
                              "writer": NONE, "record": NONE})  # host objects: see saved_attrs
