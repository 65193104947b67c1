"""Generated programs behave the same natively, converted by `ag.to_graph` and staged by
`rt.function`.

Each seed gives one program (`generator.generate`), written to a real file and imported, run
on three argument tuples four ways and compared as `runner` describes. 300 programs run by
default (a few seconds); more with

    DIFFERENTIAL_PROGRAMS=10000 python -m pytest -q tests/differential

and `DIFFERENTIAL_SEED=N` moves the first seed. `DIFFERENTIAL_JIT_PROGRAMS` (20 by default)
programs also run staged on the Numba tier (`jit_compile=True`), and `DIFFERENTIAL_XLA_PROGRAMS`
(20) on the XLA tier (`jit_compile="xla"`), compared like the staged run; each compiles
kernels, so they take about a second each. A failure prints the program, its seed, the
arguments and every run's outcome. Grammar features with a known bug are listed, with what
goes wrong, in `generator.KNOWN_GAPS`; removing an entry turns the feature back on.
"""

from __future__ import annotations

import os

import pytest

from .generator import KNOWN_GAPS, arguments, generate
from .runner import check_program

PROGRAMS = int(os.environ.get("DIFFERENTIAL_PROGRAMS", "300"))
FIRST_SEED = int(os.environ.get("DIFFERENTIAL_SEED", "0"))
JIT_PROGRAMS = int(os.environ.get("DIFFERENTIAL_JIT_PROGRAMS", "20"))
XLA_PROGRAMS = int(os.environ.get("DIFFERENTIAL_XLA_PROGRAMS", "20"))


def test_generated_programs_behave_the_same_native_converted_and_staged(tmp_path):
    failures = []
    for seed in range(FIRST_SEED, FIRST_SEED + PROGRAMS):
        program = generate(seed)
        failures += check_program(seed, program.source, arguments(seed), tmp_path)
        if len(failures) >= 3:
            break
    assert not failures, "\n\n".join(str(f) for f in failures)


def test_generated_programs_behave_the_same_on_the_numba_tier(tmp_path):
    failures = []
    for seed in range(FIRST_SEED, FIRST_SEED + JIT_PROGRAMS):
        program = generate(seed)
        failures += check_program(seed, program.source, arguments(seed), tmp_path, jit=True)
        if len(failures) >= 3:
            break
    assert not failures, "\n\n".join(str(f) for f in failures)


def test_generated_programs_behave_the_same_on_the_xla_tier(tmp_path):
    pytest.importorskip("jax")
    failures = []
    for seed in range(FIRST_SEED, FIRST_SEED + XLA_PROGRAMS):
        program = generate(seed)
        failures += check_program(seed, program.source, arguments(seed), tmp_path, jit="xla")
        if len(failures) >= 3:
            break
    assert not failures, "\n\n".join(str(f) for f in failures)


def test_the_generator_is_deterministic_and_covers_its_grammar():
    assert generate(7).source == generate(7).source
    assert arguments(7) == arguments(7)
    used = set().union(*(generate(seed).features for seed in range(200)))
    expected = {"if", "elif", "for", "while", "break", "continue", "loop_else", "early_return",
                "return_in_loop", "with", "try_finally", "try_except", "raise", "assert", "append",
                "augassign", "ternary", "bool_ops", "print", "vector", "python_bound",
                "tensor_bound", "min_max", "int_to_float"}
    assert expected <= used, expected - used


def test_known_gaps_are_generated_when_not_excluded():
    used = set().union(*(generate(seed, gaps=()).features for seed in range(300)))
    assert set(KNOWN_GAPS) <= used, set(KNOWN_GAPS) - used
