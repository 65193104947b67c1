"""`jit_compile=True`: a concrete function's graph compiled to machine code with Numba."""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import re
import time

import numpy as np

from ...graph import graphs_within
from ...opdef import Effect
from ...ops.debugging import ASSERT
from ...ops.variables import ASSIGN
from ..base import JitCompileError, aliasing, describe
from ..shared import HeldLocks, numpy_fallback
from . import cache
from .lowering import HEADER, lower
from .split import split
from .tiered import BackgroundCompile

INSTALL_HINT = "pip install 'autograph-rt[jit]'"
FASTMATH = {"contract", "nsz"}  # no `arcp`: LLVM turns 1/sqrt(x) into an estimate (nan at 0 and inf)
_BODY_OFFSET = HEADER.count("\n") + 2  # file line of kernel body line 0


# the modules whose Numba functions the cached kernels compile into themselves
_INLINED = ("helpers.py", "window_kernels.py")


@functools.cache
def _helpers_digest() -> str:
    """A digest of the modules of `_INLINED` (a kernel cached before one changed is another
    file, never loaded)."""
    digest = hashlib.sha256()
    for name in _INLINED:
        with open(os.path.join(os.path.dirname(__file__), name), "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:16]


def check_numba() -> None:
    """ImportError with the install command when Numba is missing, without importing it."""
    try:
        found = importlib.util.find_spec("numba") is not None
    except ValueError:  # sys.modules["numba"] is None: an import of it fails
        found = False
    if not found:
        raise ImportError(f"jit_compile=True compiles with Numba, which is not installed: "
                          f"{INSTALL_HINT}")


def require_numba():
    """The numba module; ImportError with the install command when it is missing."""
    try:
        return importlib.import_module("numba")
    except ImportError:
        raise ImportError(f"jit_compile=True compiles with Numba, which is not installed: "
                          f"{INSTALL_HINT}") from None


class JitCompiled:
    """A graph compiled by Numba: `fn(*input values)` returns the output values."""

    def __init__(self, graph, source: str, fn, kernel, lowered):
        self.graph = graph
        self.source = source
        self.fn = fn  # the NumPy tier's function while the kernel compiles in the background
        self.kernel = kernel
        self.lowered = lowered
        self.background: BackgroundCompile | None = None

    def wait(self, timeout: float | None = None) -> bool:
        """Blocks until calls run the kernel, or its background compile failed (True), or
        `timeout` seconds passed (False). At once True when the kernel was compiled before
        the first call returned (waiting on, or a loop's saves passed between kernels)."""
        return self.background is None or self.background.wait(timeout)

    def op_at(self, tb):
        return None  # machine code has no Python frames to map back to ops


def compile_graph(program, name: str, log=None, wait: bool = True) -> JitCompiled:
    """Lowers, loads (from the on-disk cache when it is there) and compiles a Program.

    Without `wait`, the kernel compiles in the background while the NumPy tier runs the calls
    (tiered.py), except for a graph that passes a loop's saves to or from another kernel: the
    two graphs must run on one tier, so it compiles now."""
    start = time.perf_counter()
    graph = program.graph
    lowered = lower(graph, FASTMATH)
    spec = _signature_spec(graph, lowered)
    if not wait and spec is not None and not _passes_saves(graph):
        # the worker splits the source: the calls meanwhile run on the NumPy tier, and its
        # process spends nothing on what only the kernel needs
        return _compile_in_background(program, name, spec, lowered, log)
    lowered.source, split_up = final_source(lowered.source)
    if split_up:
        lowered.line_ops = {}
    numba = require_numba()
    module = _load(numba, lowered)
    kernel = module.kernel
    signature = None if spec is None else signature_of(numba, spec)
    if signature is not None:
        _compile(kernel, signature, lowered, name)
    seconds = time.perf_counter() - start
    if log is not None:
        hits = sum(kernel.stats.cache_hits.values())
        how = "loaded from the on-disk cache" if hits else "compiled"
        log(1, f"jit_compile: {name} {how} with numba in {seconds:.3f} s "
               f"({lowered.fused_loops} fused loops{', parallel' if lowered.parallel else ''})")
    fn = _caller(program, name, kernel if signature is not None else
                 _CompileOnFirstCall(numba, kernel, lowered, name), lowered)
    return JitCompiled(program.traced, lowered.source, fn, kernel, lowered)


def final_source(source: str) -> tuple[str, bool]:
    """The kernel module's source as it is compiled, and whether it was split: a large
    kernel is split into parts compiled one by one, repeats once (split.py)."""
    parts = split(source)
    return (source, False) if parts is None else (parts, True)


def _passes_saves(graph) -> bool:
    """Whether the graph takes or returns a loop's saves (a variant: the other kernel's)."""
    return any(t.dtype.name == "variant" for t in list(graph.inputs) + list(graph.outputs))


def _compile_in_background(program, name, spec, lowered, log) -> JitCompiled:
    """A JitCompiled whose calls run the NumPy tier until its kernel is ready. Numba is
    imported in this process only once the worker has compiled the kernel (its import alone
    takes longer than many first epochs)."""
    compiled = JitCompiled(program.traced, lowered.source, numpy_fallback(program, name)(),
                           None, lowered)

    def finish():
        report = compiled.background.worker
        if report.get("split"):  # the worker compiled the kernel's parts (split.py)
            lowered.source, lowered.line_ops = report["source"], {}
            compiled.source = lowered.source
        numba = require_numba()
        kernel = compiled.kernel = _load(numba, lowered).kernel
        _compile(kernel, signature_of(numba, spec), lowered, name)
        return _caller(program, name, kernel, lowered)
    if log is not None:
        log(1, f"jit_compile: {name} runs on the NumPy tier while its kernel compiles in the "
               f"background ({lowered.fused_loops} fused loops)")
    compiled.background = BackgroundCompile(
        compiled, lowered.source, spec, finish, lambda exc: _explain(
            exc, lowered, name, lines=not getattr(exc, "split", False)), name, log)
    return compiled


def cache_salt(numba) -> str:
    """What the kernel's file name hashes besides its source. The optimisation level
    (NUMBA_OPT) is part of it: a kernel compiled at another level is another file, never
    loaded in place of this one; so are the helpers the kernel inlines (Numba's cache checks
    only the kernel's own file)."""
    return (f"numba {numba.__version__} numpy {np.__version__} opt {int(numba.config.OPT)} "
            f"helpers {_helpers_digest()}")


def _load(numba, lowered):
    """The kernel's module, from its file in the cache directory, with its NumPy calls."""
    module = cache.load(lowered.source, cache_salt(numba))
    module._OPS[:] = lowered.calls  # the same calls for the same source (vectorised.py)
    return module


def _compile(kernel, signature, lowered, name: str) -> None:
    """Compiles `kernel` for `signature`; any failure of Numba or LLVM is a JitCompileError."""
    try:
        kernel.compile(signature)
    except Exception as exc:  # NumbaError, and LLVM's RuntimeError for a module it rejects
        raise JitCompileError(_explain(exc, lowered, name)) from None


class _CompileOnFirstCall:
    """A kernel whose argument types are known at its first call (a tuple of a loop's saved
    values): compiles then, turning failures into JitCompileError, and runs the kernel."""

    def __init__(self, numba, kernel, lowered, name: str):
        self._numba, self._kernel, self._lowered, self._name = numba, kernel, lowered, name
        self._compiled = False

    def __call__(self, *args):
        if not self._compiled:
            signature = tuple(self._numba.typeof(a) for a in args)
            _compile(self._kernel, signature, self._lowered, self._name)
            self._compiled = True
        return self._kernel(*args)

    def __getattr__(self, name):
        return getattr(self._kernel, name)


def _signature_spec(graph, lowered) -> list | None:
    """The kernel's argument types as plain data, (dtype name, rank, read-only) each, for the
    worker process too; None when an input is a tuple of saved loop values, whose type Numba
    infers from the first call (the forward kernel made it)."""
    if any(t.dtype.name == "variant" for t in graph.inputs):
        return None
    spec = [(np.dtype(t.dtype.as_numpy_dtype).name, t.shape.rank, False) for t in graph.inputs]
    spec += [(np.dtype(v.dtype.as_numpy_dtype).name, v.shape.rank, False)
             for v in lowered.variables]
    spec += [(k.dtype.name, k.ndim, not k.flags.writeable) for k in lowered.constants]
    return spec


def signature_of(numba, spec: list) -> tuple:
    """The Numba types of a `_signature_spec`."""
    def type_of(dtype, rank, readonly):
        scalar = numba.from_dtype(np.dtype(dtype))
        return scalar if rank == 0 else numba.types.Array(scalar, rank, "C", readonly=readonly)
    return tuple(type_of(*entry) for entry in spec)


def _explain(exc, lowered, name: str, lines: bool = True) -> str:
    """Numba's (or LLVM's) error, led by the op (and user line) whose kernel line it names
    (unless not `lines`: the line numbers are those of the split source)."""
    first = str(exc).strip().splitlines() or [type(exc).__name__]
    if not type(exc).__module__.startswith("numba"):  # LLVM's RuntimeError, say
        first[0] = f"{type(exc).__name__}: {first[0]}"
    where = f"the graph of {name}"
    for match in re.finditer(r"line (\d+)", str(exc) if lines else ""):
        op = lowered.line_ops.get(int(match.group(1)) - _BODY_OFFSET)
        if op is not None:
            where = describe(op)
            break
    return (f"jit_compile=True: Numba could not compile {where}: "
            f"{' '.join(first[:3])}. Use jit_compile=False for this function.")


def _caller(program, name: str, kernel, lowered):
    """The Python function that reads variables, calls the kernel and stores the results.

    The assigned variables' locks (in creation order, so callers never deadlock) are held from
    the read of their values to the store of the new ones: a read-modify-write is atomic, as on
    the NumPy tier. When the kernel raises, nothing is stored and, unless the graph prints or
    draws random numbers, the NumPy tier runs the call again op by op: the updates made before
    the failing op remain and its error is raised (docs/guarantees.md), in its words, naming
    the op (a graph without variables too). Results and stored
    values that may be views of an input array or a constant are copied (`aliasing`).
    """
    graph = program.graph
    params = [f"a{i}" for i in range(len(graph.inputs))]
    args = [f"{p}[()]" if rank == 0 and t.dtype.name != "variant" else p
            for p, rank, t in zip(params, lowered.input_ranks, graph.inputs)]
    args += [f"var{i}._value[()]" if v.shape.rank == 0 else f"var{i}._value"
             for i, v in enumerate(lowered.variables)]
    args += [f"k{i}" for i in range(len(lowered.constants))]
    call = f"kernel({', '.join(args)})"
    fallback = f"fallback()({', '.join(params)})"
    alias = aliasing(graph)
    lines = [f"def run({', '.join(params)}):"]
    if lowered.variables:
        unset = " or ".join(f"var{i}._value is None" for i in range(len(lowered.variables)))
        lines += [f"    if {unset}:", f"        return {fallback}"]
    n_out = len(graph.outputs)
    stores = []
    for k, i in enumerate(lowered.assigned):
        var = lowered.variables[i]
        value = _box(f"r[{n_out + k}]", var.dtype, var.shape.rank)
        if var.shape.rank != 0 and _assigns_alias(graph, var, alias):
            value += ".copy()"
        stores.append(f"var{i}._value = {value}")
    if stores:
        locks = sorted(lowered.assigned, key=lambda i: lowered.variables[i]._id)
        # one context for all the locks: a `with` of many managers nests one block each, and
        # Python allows 20 (an Adam step assigns dozens of variables)
        lines.append("    with held:" if len(locks) > 1 else f"    with var{locks[0]}._lock:")
        if _may_run_again(graph):
            lines += ["        try:", f"            r = {call}", "        except JitCompileError:",
                      "            raise", "        except Exception:", "            r = None",
                      "        else:"]
            lines += [f"            {line}" for line in stores]
            lines += ["    if r is None:", f"        return {fallback}"]
        else:
            lines.append(f"        r = {call}")
            lines += [f"        {line}" for line in stores]
    elif _may_run_again(graph):  # the NumPy tier's error, word for word, naming the op
        lines += ["    try:", f"        r = {call}", "    except JitCompileError:", "        raise",
                  "    except Exception:", f"        return {fallback}"]
    else:
        lines.append(f"    r = {call}")
    outs = []
    for j, t in enumerate(graph.outputs):
        out = _box(f"r[{j}]", t.dtype, t.shape.rank)
        if id(t) in alias and t.shape.rank != 0 and t.dtype.name != "variant":
            out += ".copy()"
        outs.append(out)
    lines.append(f"    return {outs[0]}" if n_out == 1 else f"    return ({''.join(o + ', ' for o in outs)})")
    namespace = {"kernel": kernel, "np": np, "fallback": numpy_fallback(program, name),
                 "JitCompileError": JitCompileError}
    if stores and len(lowered.assigned) > 1:
        namespace["held"] = HeldLocks([lowered.variables[i]._lock for i in locks])
    namespace.update({f"var{i}": v for i, v in enumerate(lowered.variables)})
    namespace.update({f"k{i}": k for i, k in enumerate(lowered.constants)})
    exec(compile("\n".join(lines) + "\n", f"<rt-jit {name}>", "exec"), namespace)
    return namespace["run"]


def _assigns_alias(graph, var, alias: set[int]) -> bool:
    """Whether an `assign` of `var` in `graph` may store a view of an input or a constant."""
    return any(op.opdef is ASSIGN and op.attrs["var"] is var
               and op.attrs["mode"] == "assign" and id(op.inputs[0]) in alias
               for g in graphs_within(graph) for op in g.operations)


def _may_run_again(graph) -> bool:
    """Whether a failed kernel call may be run again by the NumPy tier: no op of the graph
    prints or draws random numbers (those would happen twice; an assertion may be checked
    again)."""
    return not any(op.opdef.effects & Effect.RANDOM
                   or (op.opdef.effects & Effect.IO and op.opdef is not ASSERT)
                   for g in graphs_within(graph) for op in g.operations)


def _box(expr: str, dtype, rank: int) -> str:
    if rank or dtype.name == "variant":
        return expr
    return f"np.{np.dtype(dtype.as_numpy_dtype).type.__name__}({expr})"


