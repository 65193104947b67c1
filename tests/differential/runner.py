"""Runs a generated program natively, converted and staged, and compares the outcomes.

Four runs per argument tuple:

- `native`: the program on Python values (`v` a float64 array);
- `converted`: `ag.to_graph(program)` on the same Python values;
- `reference`: the program on NumPy values (`np.int32`, `np.float32`, a float32 array), the
  dtypes a tensor gets, so int32 wrap-around and float32 rounding match the staged run;
- `staged`: `rt.function(program)` on `rt.constant`s of the NumPy values, one compiled
  function for all argument tuples; results are read with `.numpy()`. It is compiled with
  `ag.experimental.Feature.STAGED_PRINT`, so its `print`s run at every call like the
  reference's (by default a `print` of converted code runs once per trace, as Python code
  does; tests/autograph covers that rule).

What must agree:

- `converted` with `native`: everything, exactly — the value, the exception type and the
  printed output (converted code on Python values *is* Python).
- `staged` with `reference`: ints exactly and floats with `allclose` (float32); printed output
  token by token, numbers with the same tolerance (a staged `print` of tensors prints at every
  call, so the output of each call is compared with the reference's). When the reference
  raises, the staged run must raise the same type with the same message, or a subclass of it
  (a staged `raise ValueError(...)` reaches the caller as `rt.errors.InvalidArgumentError`, a
  `ValueError`), or `rt.errors.InvalidArgumentError` in place of an `AssertionError` (a staged
  assertion fails when the graph runs). The one refusal allowed is the documented one: an
  `except` of converted code that would have to catch a staged `raise` is refused while
  tracing (`ag.StagingError` naming the `except`, or `UncaughtStagingError` when that
  `except` would catch a `StagingError` too), whatever the reference did. Any other staged
  exception where the reference returns is a mismatch.

Every generated program terminates, so a run still going after `TIMEOUT` seconds is stopped
(with `SIGALRM`, where there is one) and reported as a mismatch.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import itertools
import re
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

import autograph as ag
import runtime as rt
from autograph.operators.staged_raise import UncaughtStagingError
from runtime.backends.base import JitCompileError

_module_ids = itertools.count()


@dataclass
class Outcome:
    """What one run did: returned `value` or raised `error`, and printed `stdout`."""

    value: Any = None
    error: Optional[BaseException] = None
    stdout: str = ""

    def describe(self) -> str:
        what = (f"raised {type(self.error).__name__}: {self.error}" if self.error is not None
                else f"returned {self.value!r}")
        return f"{what}; printed {self.stdout!r}"


def load(source: str, directory: Path) -> Any:
    """Writes `source` to a fresh file in `directory` and imports it as a module."""
    name = f"differential_program_{next(_module_ids)}"
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # compiled here rather than by the loader: no bytecode cache that a later file of the same
    # name, size and modification time could be mistaken for
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


def unload(module: Any) -> None:
    sys.modules.pop(module.__name__, None)


class RunTimeout(Exception):
    """A run that did not finish within `TIMEOUT` seconds (every generated program does)."""


JIT_TIMEOUT = 600.0
TIMEOUT = 20.0
_limit_active = [False]


def _alarm(signum, frame):
    if _limit_active[0]:
        raise RunTimeout("did not finish within its time limit")


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Stops the code inside after `seconds`; the alarm repeats every second in case it
    lands where Python ignores exceptions (a weakref callback, `__del__`)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _alarm)
    _limit_active[0] = True
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        _limit_active[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run(fn: Callable, args: tuple, timeout: float = TIMEOUT) -> Outcome:
    """`fn(*args)`'s value or exception and printout, stopped after `timeout` seconds (a
    Numba-tier run gets longer: its first call compiles, slowly on a busy machine, and an
    alarm inside Numba's compiler leaves it in a broken state)."""
    out = io.StringIO()
    outcome = Outcome()
    with contextlib.redirect_stdout(out), np.errstate(all="ignore"), _time_limit(timeout):
        try:
            outcome.value = fn(*args)
        except (Exception, UncaughtStagingError) as error:  # noqa: BLE001 - an outcome to compare
            _limit_active[0] = False
            outcome.error = error
    outcome.stdout = out.getvalue()
    return outcome


def python_args(args: tuple) -> tuple:
    a, b, x, y, v = args
    return a, b, x, y, np.array(v, dtype=np.float64)


def numpy_args(args: tuple) -> tuple:
    a, b, x, y, v = args
    return np.int32(a), np.int32(b), np.float32(x), np.float32(y), np.array(v, dtype=np.float32)


def tensor_args(args: tuple) -> tuple:
    return tuple(rt.constant(value) for value in numpy_args(args))


def _as_array(value: Any) -> np.ndarray:
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def same_value(expected: Any, got: Any, exact: bool) -> bool:
    if not isinstance(expected, tuple) or not isinstance(got, tuple) or len(expected) != len(got):
        return False
    for e, g in zip(expected, got):
        e, g = _as_array(e), _as_array(g)
        if e.shape != g.shape:
            return False
        if exact or e.dtype.kind in "iub":
            if not np.array_equal(e, g, equal_nan=True):
                return False
        elif not np.allclose(e.astype(np.float64), g.astype(np.float64), rtol=1e-4, atol=1e-5,
                             equal_nan=True):
            return False
    return True


_TOKEN = re.compile(r"[\[\]\s]+")


def same_printout(expected: str, got: str) -> bool:
    """Printed text, word by word, numbers compared with the float32 tolerance."""
    left, right = _TOKEN.split(expected.strip()), _TOKEN.split(got.strip())
    if len(left) != len(right):
        return False
    for e, g in zip(left, right):
        if e == g:
            continue
        try:
            if not np.isclose(float(e), float(g), rtol=1e-4, atol=1e-5, equal_nan=True):
                return False
        except ValueError:
            return False
    return True


def converted_mismatch(native: Outcome, converted: Outcome) -> Optional[str]:
    """Why the converted run differs from the native one, or None."""
    if isinstance(converted.error, RunTimeout):
        return "converted run did not finish"
    if type(native.error) is not type(converted.error):
        return "exception type"
    if native.error is None and not same_value(native.value, converted.value, exact=True):
        return "value"
    if native.stdout != converted.stdout:
        return "printed output"
    return None


def same_message(reference: BaseException, staged: BaseException) -> bool:
    """Whether the staged error carries the reference's message (it may add a location)."""
    expected = str(reference).strip("'")
    return not expected or expected in str(staged)


EXCEPT_REFUSAL = "inside a `try` whose `except` clause catches it"


def is_except_refusal(error: BaseException) -> bool:
    """Whether `error` is the documented refusal of an `except` that would have to catch a
    staged `raise`."""
    return (isinstance(error, (ag.StagingError, UncaughtStagingError))
            and EXCEPT_REFUSAL in str(error))


def staged_mismatch(reference: Outcome, staged: Outcome, source: str) -> Optional[str]:
    """Why the staged run differs from the reference run, or None (see the module docstring)."""
    if isinstance(staged.error, RunTimeout):
        return "staged run did not finish"
    if staged.error is not None:
        if reference.error is not None:
            if isinstance(staged.error, type(reference.error)) and same_message(
                    reference.error, staged.error):
                return None
            if isinstance(reference.error, AssertionError) and isinstance(
                    staged.error, rt.errors.InvalidArgumentError):
                return None
        if is_except_refusal(staged.error):
            return None
        return "staged exception"
    if reference.error is not None:
        return "exception not raised"
    if not same_value(reference.value, staged.value, exact=False):
        return "value"
    if not same_printout(reference.stdout, staged.stdout):
        return "printed output"
    return None


@dataclass
class Mismatch:
    """A difference between two runs of one program on one argument tuple."""

    seed: int
    source: str
    args: tuple
    stage: str
    reason: str
    outcomes: dict

    def __str__(self) -> str:
        runs = "\n".join(f"  {name}: {outcome.describe()}" for name, outcome in self.outcomes.items())
        return (f"{self.stage} run differs ({self.reason}) for seed {self.seed}, "
                f"args {self.args}\n{runs}\n--- program ---\n{self.source}")


TIER_NAMES = {True: "staged (Numba tier)", "xla": "staged (XLA tier)"}


def refused(jit: bool | str, outcome: Outcome) -> bool:
    """Whether the XLA tier refused the program with its documented `JitCompileError`
    (printing is refused there, docs/xla.md): no value to compare. The
    Numba tier compiles every program the generator writes, so there a refusal is a
    mismatch."""
    return jit == "xla" and isinstance(outcome.error, JitCompileError)


def check_program(seed: int, source: str, arg_tuples: list, directory: Path,
                  jit: bool | str = False) -> list[Mismatch]:
    """Runs the program of `source` four ways on every argument tuple (five with `jit`: also
    staged on the compiler tier it names, `True` for Numba or `"xla"`, compared with the
    reference like the staged run); the differences found."""
    module = load(source, directory)
    try:
        program = module.program
        converted = ag.to_graph(program)
        compiled = rt.function(
            program, experimental_autograph_options=ag.experimental.Feature.STAGED_PRINT)
        jitted = rt.function(
            program, experimental_autograph_options=ag.experimental.Feature.STAGED_PRINT,
            jit_compile=jit) if jit else None
        found = []
        references = [run(program, numpy_args(args)) for args in arg_tuples]
        for args, reference in zip(arg_tuples, references):
            native = run(program, python_args(args))
            outcomes = {"native": native, "converted": run(converted, python_args(args)),
                        "reference (NumPy values)": reference,
                        "staged": run(compiled, tensor_args(args))}
            reason = converted_mismatch(native, outcomes["converted"])
            if reason:
                found.append(Mismatch(seed, source, args, "converted", reason, outcomes))
            if jitted is not None:
                outcomes[TIER_NAMES[jit]] = run(jitted, tensor_args(args), JIT_TIMEOUT)
            for stage in ("staged", *TIER_NAMES.values()):
                if stage not in outcomes or refused(jit, outcomes[stage]):
                    continue
                reason = staged_mismatch(reference, outcomes[stage], source)
                if reason:
                    found.append(Mismatch(seed, source, args, stage, reason, outcomes))
        return found
    finally:
        unload(module)
