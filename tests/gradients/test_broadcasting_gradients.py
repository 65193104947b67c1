"""Broadcasting binary ops on random shapes: gradients are summed back to each input's shape."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt

from .fd import check_gradients

OPS = {
    "add": lambda x, y: x + y,
    "subtract": lambda x, y: x - y,
    "multiply": lambda x, y: x * y,
    "divide": lambda x, y: x / (rt.abs(y) + 1.0),
    "maximum": lambda x, y: rt.maximum(x, y),
    "where": lambda x, y: rt.where(x > y, x * 2.0, y),
}


@st.composite
def broadcast_pair(draw):
    """Two shapes that broadcast together: a full shape, and one with dims dropped or set to 1."""
    full = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))
    drop = draw(st.integers(0, len(full)))
    other = [d if draw(st.booleans()) else 1 for d in full[drop:]]
    return (full, other) if draw(st.booleans()) else (other, full)


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(OPS)), shapes=broadcast_pair(), seed=st.integers(0, 2 ** 16))
def test_broadcast_gradients_match_finite_differences(name, shapes, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, shapes[0])
    y = rng.uniform(-2, 2, shapes[1])
    if name in ("maximum", "where"):  # away from ties, where the gradient jumps
        a, b = np.broadcast_arrays(x, y)
        if a.size and np.abs(a - b).min() < 0.05:
            return
    check_gradients(OPS[name], x, y, modes=("eager", "staged"))
