"""A function with a branch, a loop, a variable, a captured value and a dead op."""

import numpy as np

import runtime as rt

scale = rt.Variable(2.0, name="scale")
offset = rt.constant(np.array([0.5, 0.25], np.float32))


def pipeline(x, n):
    s = rt.zeros_like(x)
    if rt.reduce_sum(x) > 0:
        s = x * 2.0
    else:
        s = x - 1.0
    i = 0
    while i < n:
        s = s + scale
        i += 1
    unused = x * 3.0  # noqa: F841 - dead: not drawn in the report
    return s + offset


def double(x):
    return x * 2.0


class Scaler:
    def __init__(self):
        self.w = rt.Variable([1.0, 2.0], name="w")

    @rt.function
    def apply(self, x):
        if x[0] > 0:
            return x * self.w
        return x


@rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
def total(x):
    return rt.reduce_sum(x)
