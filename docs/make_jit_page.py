"""Writes the op table of docs/jit.md from the op registry and the Numba tier's rules.

    python docs/make_jit_page.py          # rewrite the generated part of docs/jit.md
    python docs/make_jit_page.py --check  # exit 1 when it is stale

The part between the BEGIN and END markers is generated; the rest of the page is prose.
The test suite runs the check, so the table always says how the tier really runs each op.
"""

from __future__ import annotations

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's runtime, and generated_region

import generated_region  # noqa: E402

PAGE = HERE / "jit.md"
SCRIPT = "make_jit_page.py"

NOT_IN_KERNELS = {
    "Const": "written once as a literal or a kernel argument",
    "Placeholder": "a kernel argument",
    "PartitionedCall": "a tape's record of an eager call (never in a traced graph)",
}
# ops the compiler tiers refuse by name while the NumPy tier runs them (none at present)
NUMPY_TIER_ONLY: set = set()


def how(name: str, opdef) -> str:
    """How the Numba tier runs ops of type `name` (the dispatch of KernelWriter._write_op)."""
    from runtime.backends.numba import tensor_arrays, vectorised, windows
    from runtime.backends.numba.rules import ALIASES, writer
    from runtime.ops.array_math import FILL  # fused, but written by its writer on its own

    def numpy_from(n: int) -> str:
        return f" (NumPy's routine through object mode on {n} elements or more)"
    numpy_large = numpy_from(vectorised.VECTOR_MIN_SIZE)
    if name in NOT_IN_KERNELS:
        return NOT_IN_KERNELS[name]
    if name in NUMPY_TIER_ONLY:
        return "**refused** (JitCompileError naming the op; the NumPy tier runs it)"
    if opdef.strings:
        return "**refused**: the tier holds no strings (JitCompileError naming the op)"
    found = writer(opdef)
    if opdef in ALIASES:
        return "the input's value (no code)"
    if found is not None and found.scalar is not None and opdef is not FILL:
        large = numpy_large if opdef in vectorised.TRANSCENDENTAL else ""
        return f"native: scalar code, fused into loops{large}"
    if opdef is tensor_arrays.STACK_POP:
        return ("native: the rows but the last (a stack of a loop's saves: the count less one; "
                "else a view) and a copy of the last row (an empty stack raises); its NumPy "
                "kernel through object mode for rows of unknown rank")
    if opdef is tensor_arrays.STACK_PUSH:
        return ("native: a stack of a loop's saves is a growing buffer (array, count, claim); "
                "the row is stored in place when the buffer has room and no other stack holds "
                "that row, else the rows are copied into a buffer of twice the count")
    if opdef in windows.DESCRIPTIONS:
        return windows.DESCRIPTIONS[opdef]
    if found is not None and found.numpy_fallback:
        if opdef in vectorised.ROW_OPS:
            return f"native{numpy_from(vectorised.ROW_MIN_SIZE)}"
        if opdef in vectorised.AXIS_REDUCTIONS:
            return (f"native (axis reductions of {vectorised.VECTOR_MIN_SIZE} elements or more: "
                    "NumPy through object mode)")
        return ("native (its writer in rules.py), or its NumPy kernel through object mode "
                "where the writer does not cover a case")
    if opdef.region:
        return f"native `{'while' if opdef.is_loop else 'if'}`"
    if opdef.variable:
        return "kernel arguments and results (the first call, while a variable is unset, runs on NumPy)"
    if opdef in tensor_arrays.GRADIENTS:
        return ("native: a map {index: element gradient} as a buffer (array, present, size); "
                "missing elements are zeros")
    if opdef in tensor_arrays.SAVES_GRADIENTS:
        return ("native: the gradient of a loop's saves (a second order), one stack "
                "[iterations, *shape] per saved value, rows added in place")
    if opdef.carrier is not None:
        return "native: a growing buffer (array, written, size)"
    if opdef.kernel is not None:
        return "its NumPy kernel through object mode"
    return "**refused**: the op has no kernel"


def table() -> str:
    import runtime.autograph_backend  # noqa: F401 -- registers RaiseUnless, as staging a raise does
    from runtime.opdef import builtin_ops

    ops = builtin_ops()
    lines = [f"| op ({len(ops)}) | on the Numba tier |", "|---|---|"]
    lines += [f"| `{name}` | {how(name, ops[name])} |" for name in sorted(ops)]
    return "\n".join(lines)


def render(text: str) -> str:
    """`text` with its generated part replaced by the current table."""
    return generated_region.replace(text, SCRIPT, table())


def main(argv: list[str]) -> int:
    return generated_region.main(PAGE, render, argv, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
