"""Every staged program of the test suite's corpora on the XLA tier: the NumPy tier's values,
or a JitCompileError (counted; at most a fifth of the programs may be refused)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

pytest.importorskip("jax")

import autograph as ag  # noqa: E402
import runtime as rt  # noqa: E402
from runtime.backends.base import JitCompileError  # noqa: E402

from ..autograph import corpus as ag_corpus  # noqa: E402
from ..autograph.helpers import run  # noqa: E402
from ..autograph.test_corpus import _tensor  # noqa: E402
from ..jit import corpus as jit_corpus  # noqa: E402


def _programs() -> list:
    """(name, fn, list of argument tuples, options) of every staged corpus program."""
    found = []
    for case in ag_corpus.CASES:
        if not case.staged:
            continue
        options = {}
        if "staged_print" in case.tags:
            options["experimental_autograph_options"] = ag.experimental.Feature.STAGED_PRINT
        examples = [tuple(a if i in case.static else _tensor(a) for i, a in enumerate(args))
                    for args in case.args]
        found.append((f"autograph.{case.name}", case.fn, examples, options))
    for name, fn, args in jit_corpus.CASES:
        found.append((f"jit.{name}", fn, [tuple(args)], {}))
    return found


PROGRAMS = _programs()


def _leaves(value) -> list:
    return [np.asarray(v.numpy() if hasattr(v, "numpy") else v) for v in rt.nest.flatten(value)]


def _compare(name, xla, plain) -> None:
    if plain.error is not None:  # the program raises: so must the XLA tier's run
        assert xla.error is not None, f"{name}: the NumPy tier raised {plain.error.__name__}"
        return
    assert xla.error is None, f"{name}: {xla.error.__name__}: {xla.message}"
    a, b = _leaves(xla.value), _leaves(plain.value)
    assert len(a) == len(b), name
    for x, y in zip(a, b):
        assert x.shape == y.shape and x.dtype == y.dtype, (name, x.dtype, y.dtype, x.shape, y.shape)
        if x.dtype.kind in "fc":
            np.testing.assert_allclose(x, y, rtol=2e-6, atol=1e-6, err_msg=name)
        else:
            np.testing.assert_array_equal(x, y, err_msg=name)
    assert xla.stdout == plain.stdout, name


@functools.cache
def _outcome(index: int) -> str:
    """'ok' or 'refused: <message>' for PROGRAMS[index]; AssertionError on a wrong value."""
    name, fn, examples, options = PROGRAMS[index]
    xla = rt.function(fn, jit_compile="xla", **options)
    plain = rt.function(fn, **options)
    for args in examples:
        a = run(xla, args)
        if a.error is JitCompileError:
            return f"refused: {a.message}"
        _compare(f"{name}{args}", a, run(plain, args))
    return "ok"


@pytest.mark.parametrize("index", range(len(PROGRAMS)), ids=[p[0] for p in PROGRAMS])
def test_a_corpus_program_gives_the_numpy_tiers_values_or_is_refused(index):
    outcome = _outcome(index)
    if outcome != "ok":
        # a refusal names the op, the user's line and the tier that runs it
        assert "cannot compile" in outcome and "NumPy tier" in outcome, outcome


def test_at_most_a_fifth_of_the_corpus_is_refused():
    outcomes = [_outcome(i) for i in range(len(PROGRAMS))]
    refused = [(PROGRAMS[i][0], o) for i, o in enumerate(outcomes) if o != "ok"]
    print(f"\nXLA tier corpus: {len(PROGRAMS) - len(refused)} of {len(PROGRAMS)} programs "
          f"compile, {len(refused)} refused")
    for name, message in refused:
        print(f"  {name}: {message[:160]}")
    assert len(refused) <= len(PROGRAMS) // 5, refused
