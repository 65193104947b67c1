"""Functions run by both tiers: each case is (name, python function, arguments)."""

from __future__ import annotations

import numpy as np

import runtime as rt

RNG = np.random.default_rng(7)
F32 = RNG.standard_normal((6, 5)).astype(np.float32)
BIG = RNG.standard_normal(200_000).astype(np.float32)


def elementwise_chain(x):
    y = x * 2.0 + 1.0
    y = rt.tanh(y) * rt.exp(-rt.abs(x)) - rt.sqrt(rt.abs(y) + 1.0)
    y = rt.maximum(y, -0.5) + rt.minimum(y, 0.5) * rt.sigmoid(x)
    return y / (rt.square(x) + 1.0), rt.cast(y > 0.0, rt.int32)


def big_chain(x):
    y = x * 1.5 - 0.25
    y = rt.nn.relu(y) + rt.floor(x) - rt.round(x * 3.0) / 3.0
    return rt.reduce_sum(y * y), y


def broadcasting(x, row):
    return x * row + rt.reduce_mean(x, axis=0, keepdims=True), rt.where(x > 0.0, x, row)


def reductions(x):
    return (rt.reduce_sum(x), rt.reduce_max(x, axis=1), rt.reduce_min(x, axis=[0, 1]),
            rt.reduce_mean(x, axis=1, keepdims=True), rt.argmax(x, axis=1),
            rt.reduce_prod(x[:2, :2]), rt.reduce_any(x > 1.0), rt.reduce_all(x > -5.0))


def linear_algebra(x):
    w = rt.transpose(x)
    return rt.matmul(x, w), rt.matmul(x, x, transpose_a=True), rt.reshape(x, [5, 6])


def shapes_and_indexing(x):
    stacked = rt.stack([x, x * 2.0])
    return (rt.concat([x, x], axis=1), stacked[1, 2:4, ::2], rt.expand_dims(x, 0),
            rt.squeeze(rt.expand_dims(x, 2), 2), rt.shape(x), rt.size(x),
            rt.gather(x, 3), rt.zeros_like(x), rt.ones_like(x) + rt.fill([6, 5], 2.0))


def scalar_loop(n):
    i = 0
    s = 0.0
    while i < n:
        if i % 3 == 0:
            s = s * 0.5 + rt.cast(i, rt.float32)
        else:
            s = s - 1.0
        i += 1
    return i, s


def nested_loops(n):
    total = 0
    for i in rt.range(n):
        for j in rt.range(i):
            total += i * j
    return total


def array_loop(x, n):
    for _ in rt.range(n):
        x = x * 0.9 + rt.reduce_mean(x)
    return x


def appended_rows(n):
    rows = []
    for i in rt.range(n):
        rows.append(rt.fill([4], rt.cast(i, rt.float32)) * 0.5)
    return rt.stack(rows)


def tensor_array_ops(x):
    ta = rt.TensorArray(rt.float32, size=6)
    ta = ta.unstack(x)
    out = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
    for i in rt.range(6):
        out = out.write(i, ta.read(5 - i) * 2.0)
    scalars = rt.TensorArray(rt.int32, size=3)
    for i in rt.range(3):
        scalars = scalars.write(i, i * i)
    return out.stack(), out.gather([0, 2]), out.concat(), scalars.stack(), out.size()


def conditional(x, flag):
    if flag > 0:
        y = x * 2.0
    else:
        y = -x
    return y, rt.cond(rt.reduce_sum(x) > 0.0, lambda: 1.0, lambda: 2.0)


def integer_math(a, b):
    return a // b, a % b, a * b - a, rt.maximum(a, b), a + 1


def nn_and_splits(x, labels):
    parts = rt.split(x, [2, 3], axis=1)
    rows = rt.unstack(x[:3])
    loss = rt.nn.softmax_cross_entropy_with_logits(labels, x)
    return (rt.nn.softmax(x), rt.nn.log_softmax(x), loss, parts[0], parts[1], rows[2],
            rt.reverse(x, [0, 1]), rt.cumsum(x[0], exclusive=True, reverse=True),
            rt.cumsum(rt.cast(x[1] > 0.0, rt.int32)))


WEIGHTS = rt.Variable(np.array([0.5, -0.3], np.float32))


def loop_gradient(x, n):
    with rt.GradientTape() as tape:
        y = x
        s = 0.0
        for _ in rt.range(n):
            y = rt.tanh(y * WEIGHTS) + 0.1
            s = s + rt.reduce_sum(y) * 0.5
        loss = rt.reduce_sum(y * y) + s
    return loss, tape.gradient(loss, WEIGHTS)


def broadcast_gradient(x, row):
    bias = rt.constant(row)
    with rt.GradientTape() as tape:
        tape.watch(bias)
        loss = rt.reduce_sum(rt.tanh(x * bias + 1.0)) + rt.reduce_sum(x[0, 0] * bias)
    return tape.gradient(loss, bias)


def branch_gradient(x, flag):
    with rt.GradientTape() as tape:
        if flag > 0:
            y = rt.exp(x * WEIGHTS)
        else:
            y = rt.square(x - WEIGHTS)
        loss = rt.reduce_sum(y)
    return loss, tape.gradient(loss, WEIGHTS)


def scalar_shapes(x):
    one = rt.reshape(x[0, :1], [])
    total = rt.zeros([]) + rt.fill([], 2.0)
    for i in range(3):
        total = total + rt.squeeze(x[i:i + 1, 1:2]) * one
    return total, rt.expand_dims(one, 0)


CASES = [
    ("elementwise_chain", elementwise_chain, (F32,)),
    ("big_chain", big_chain, (BIG,)),
    ("broadcasting", broadcasting, (F32, F32[0])),
    ("reductions", reductions, (F32,)),
    ("linear_algebra", linear_algebra, (F32,)),
    ("shapes_and_indexing", shapes_and_indexing, (F32,)),
    ("scalar_loop", scalar_loop, (np.int32(50),)),
    ("nested_loops", nested_loops, (np.int32(12),)),
    ("array_loop", array_loop, (F32, np.int32(7))),
    ("appended_rows", appended_rows, (np.int32(37),)),
    ("tensor_array_ops", tensor_array_ops, (F32,)),
    ("conditional_true", conditional, (F32, np.int32(1))),
    ("conditional_false", conditional, (F32, np.int32(-1))),
    ("nn_and_splits", nn_and_splits, (F32, rt.nn.softmax(F32).numpy())),
    ("loop_gradient", loop_gradient, (np.array([1.0, 2.0], np.float32), np.int32(4))),
    ("branch_gradient_true", branch_gradient, (np.array([1.0, 2.0], np.float32), np.int32(1))),
    ("branch_gradient_false", branch_gradient, (np.array([1.0, 2.0], np.float32), np.int32(0))),
    ("scalar_shapes", scalar_shapes, (F32,)),
    ("broadcast_gradient", broadcast_gradient, (F32, F32[0])),
    ("integer_math", integer_math, (np.arange(1, 9, dtype=np.int32), np.int32(3))),
]
