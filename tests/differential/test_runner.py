"""The runner's judgement: what counts as an outcome and which staged refusal is allowed."""

from __future__ import annotations

import autograph as ag
import runtime as rt
from autograph.operators.staged_raise import UncaughtStagingError

from .runner import Outcome, run, staged_mismatch


def fallback(x):
    try:
        if x > 0:
            raise ValueError("positive")
        y = x
    except ValueError:
        y = x * 2
    return y


def test_the_uncaught_refusal_is_an_outcome_and_allowed():
    staged = run(rt.function(fallback), (rt.constant(1.0),))
    assert isinstance(staged.error, UncaughtStagingError)
    assert staged_mismatch(run(fallback, (1.0,)), staged, "") is None


def test_only_the_except_refusal_is_allowed():
    returned = Outcome(value=(1,))
    refusal = "ValueError is raised ..., inside a `try` whose `except` clause catches it."
    assert staged_mismatch(returned, Outcome(error=ag.StagingError(refusal)), "") is None
    assert staged_mismatch(returned, Outcome(error=UncaughtStagingError(refusal)), "") is None
    other = "'l' is assigned in only one branch ... an `except` ..."
    assert staged_mismatch(returned, Outcome(error=ag.StagingError(other)), "") == "staged exception"
    assert staged_mismatch(returned, Outcome(error=ValueError(refusal)), "") == "staged exception"
