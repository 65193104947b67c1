"""The XLA tier against hand-written NumPy and JAX's own jit, on one thread.

Run: python benchmarks/bench_xla.py [section ...] (sets OPENBLAS_NUM_THREADS=1 and XLA's
one-thread flags before NumPy and JAX load; pin it to one core with `taskset -c 1`). Sections:
rows (the elementwise, reduction, loop and decoding cases), overhead (first call and call
overhead), training (MLP steps, nested arguments, chained calls), lstm (the LSTM classifier
step and its first call), cnn (a small CNN's step); all of them without arguments. Prints
per-call times, ratios to NumPy (lower is faster) and to jax.jit: ours and jax.jit's are
measured alternately in the same process, the best of several rounds each, as CPU time of
the process (other processes on the machine do not count; XLA's threads do).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                   "intra_op_parallelism_threads=1")

import sys  # noqa: E402
import time  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402

# CPU time of this process: single-threaded work is timed without the machine's other load
CLOCK = time.process_time


def best(fn, *args, repeat=5, number=3):
    fn(*args)
    times = []
    for _ in range(repeat):
        start = CLOCK()
        for _ in range(number):
            out = fn(*args)
        np.asarray(out[0] if isinstance(out, (tuple, list)) else out)
        times.append((CLOCK() - start) / number)
    return min(times)


C = float(np.sqrt(2 / np.pi))


def np_gelu_softmax(x):
    g = 0.5 * x * (1 + np.tanh(C * (x + 0.044715 * x * x * x)))
    e = np.exp(g - g.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def rt_gelu_softmax(x):
    g = 0.5 * x * (1.0 + rt.tanh(C * (x + 0.044715 * x * x * x)))
    return rt.nn.softmax(g, axis=1)


def jax_gelu_softmax(x):
    g = 0.5 * x * (1 + jnp.tanh(C * (x + 0.044715 * x * x * x)))
    return jax.nn.softmax(g, axis=1)


def np_lse(x):
    m = x.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(x - m).sum(axis=1, keepdims=True)))[:, 0]


def rt_lse(x):
    return rt.math.reduce_logsumexp(x, axis=1)


def jax_lse(x):
    return jax.scipy.special.logsumexp(x, axis=1)


A = np.random.default_rng(0).standard_normal((64, 64)) / 8


def np_rk4(y):
    h = 0.001
    for _ in range(1000):
        k1 = np.tanh(A @ y)
        k2 = np.tanh(A @ (y + h / 2 * k1))
        k3 = np.tanh(A @ (y + h / 2 * k2))
        k4 = np.tanh(A @ (y + h * k3))
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def rt_rk4(y):
    a = rt.constant(A)
    h = 0.001
    for _ in rt.range(1000):
        k1 = rt.tanh(rt.reshape(rt.matmul(a, rt.reshape(y, [64, 1])), [64]))
        k2 = rt.tanh(rt.reshape(rt.matmul(a, rt.reshape(y + h / 2 * k1, [64, 1])), [64]))
        k3 = rt.tanh(rt.reshape(rt.matmul(a, rt.reshape(y + h / 2 * k2, [64, 1])), [64]))
        k4 = rt.tanh(rt.reshape(rt.matmul(a, rt.reshape(y + h * k3, [64, 1])), [64]))
        y = y + h / 6 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y


def jax_rk4(y):
    a, h = jnp.asarray(A), 0.001

    def step(_, y):
        k1 = jnp.tanh(a @ y)
        k2 = jnp.tanh(a @ (y + h / 2 * k1))
        k3 = jnp.tanh(a @ (y + h / 2 * k2))
        k4 = jnp.tanh(a @ (y + h * k3))
        return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return jax.lax.fori_loop(0, 1000, step, y)


def np_chain(x):
    return np.sqrt(np.abs(np.sin(x * 1.5 + 0.5) * np.exp(-x) - 0.25)) + x * x


def rt_chain(x):
    return rt.sqrt(rt.abs(rt.sin(x * 1.5 + 0.5) * rt.exp(-x) - 0.25)) + x * x


def jax_chain(x):
    return jnp.sqrt(jnp.abs(jnp.sin(x * 1.5 + 0.5) * jnp.exp(-x) - 0.25)) + x * x


def np_chain12(x):
    return (np.sqrt(np.abs(np.sin(x * 1.5 + 0.5) * np.exp(-x) - 0.25)) + x * x) * 0.5


def rt_chain12(x):
    return (rt.sqrt(rt.abs(rt.sin(x * 1.5 + 0.5) * rt.exp(-x) - 0.25)) + x * x) * 0.5


def jax_chain12(x):
    return (jnp.sqrt(jnp.abs(jnp.sin(x * 1.5 + 0.5) * jnp.exp(-x) - 0.25)) + x * x) * 0.5


# -- LSTM 64 -> 128, batch 32, T = 100: loss and gradients of the weights ---------------------
T, B, D, H = 100, 32, 64, 128


def _sig(z):
    return 1 / (1 + np.exp(-z))


def np_lstm(x, w, b):
    h = np.zeros((B, H), np.float32)
    c = np.zeros((B, H), np.float32)
    saved = []
    for t in range(T):
        xh = np.concatenate([x[t], h], 1)
        z = xh @ w + b
        i, f, o, g = _sig(z[:, :H]), _sig(z[:, H:2 * H]), _sig(z[:, 2 * H:3 * H]), np.tanh(z[:, 3 * H:])
        c_prev, c = c, f * c + i * g
        tc = np.tanh(c)
        h = o * tc
        saved.append((xh, i, f, o, g, c_prev, tc))
    loss = np.sum(h * h)
    dw, db = np.zeros_like(w), np.zeros_like(b)
    dh, dc = 2 * h, np.zeros_like(h)
    for xh, i, f, o, g, c_prev, tc in reversed(saved):
        do = dh * tc
        dc = dc + dh * o * (1 - tc * tc)
        dz = np.concatenate([dc * g * i * (1 - i), dc * c_prev * f * (1 - f), do * o * (1 - o),
                             dc * i * (1 - g * g)], 1)
        dw += xh.T @ dz
        db += dz.sum(0)
        dh = (dz @ w.T)[:, D:]
        dc = dc * f
    return loss, dw, db


def rt_lstm(x, w, b):
    with rt.GradientTape() as tape:
        tape.watch(w)
        tape.watch(b)
        h = rt.zeros([B, H], rt.float32)
        c = rt.zeros([B, H], rt.float32)
        for t in rt.range(T):
            z = rt.matmul(rt.concat([x[t], h], 1), w) + b
            i, f, o, g = rt.split(z, 4, axis=1)
            c = rt.sigmoid(f) * c + rt.sigmoid(i) * rt.tanh(g)
            h = rt.sigmoid(o) * rt.tanh(c)
        loss = rt.reduce_sum(h * h)
    dw, db = tape.gradient(loss, [w, b])
    return loss, dw, db


def jax_lstm(x, w, b):
    def loss_fn(w, b):
        def step(carry, xt):
            h, c = carry
            z = jnp.concatenate([xt, h], 1) @ w + b
            i, f, o, g = jnp.split(z, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            return (jax.nn.sigmoid(o) * jnp.tanh(c), c), None
        zeros = jnp.zeros((B, H), jnp.float32)
        (h, _), _ = jax.lax.scan(step, (zeros, zeros), x)
        return jnp.sum(h * h)
    loss, (dw, db) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w, b)
    return loss, dw, db


# -- greedy decoding with a data-dependent exit ------------------------------------------------
V, E_DIM, STEPS = 512, 256, 200
_rng = np.random.default_rng(2)
EMB = (_rng.standard_normal((V, E_DIM)) / 4).astype(np.float32)
WH = (_rng.standard_normal((E_DIM, E_DIM)) / 16).astype(np.float32)
WO = (_rng.standard_normal((E_DIM, V)) / 4).astype(np.float32)


def np_decode(start, eos):
    h = np.zeros(E_DIM, np.float32)
    tok, out = int(start), []
    for _ in range(STEPS):
        h = np.tanh(EMB[tok] + h @ WH)
        tok = int(np.argmax(h @ WO))
        out.append(tok)
        if tok == eos:
            break
    return np.array(out, np.int32)


def rt_decode(start, eos):
    emb, wh, wo = rt.constant(EMB), rt.constant(WH), rt.constant(WO)
    h = rt.zeros([1, E_DIM], rt.float32)
    tok = start
    out = []
    i = 0
    while i < STEPS and (i == 0 or tok != eos):
        h = rt.tanh(rt.gather(emb, rt.reshape(tok, [1])) + rt.matmul(h, wh))
        tok = rt.cast(rt.argmax(rt.matmul(h, wo)[0]), rt.int32)
        out.append(tok)
        i += 1
    return rt.stack(out)


def jax_decode(start, eos):
    emb, wh, wo = jnp.asarray(EMB), jnp.asarray(WH), jnp.asarray(WO)

    def going(state):
        i, tok, _, _ = state
        return (i < STEPS) & ((i == 0) | (tok != eos))

    def step(state):
        i, tok, h, out = state
        h = jnp.tanh(emb[tok] + h @ wh)
        tok = jnp.argmax(h @ wo).astype(jnp.int32)
        return i + 1, tok, h, out.at[i].set(tok)
    state = (0, start, jnp.zeros(E_DIM, jnp.float32), jnp.zeros(STEPS, jnp.int32))
    n, _, _, out = jax.lax.while_loop(going, step, state)
    return out, n


def _eos_near(step: int) -> int:
    """A token first produced at about `step`, so the decoding loop exits there."""
    tokens = list(np_decode(np.int32(1), -1))
    for k in range(step, len(tokens)):
        if tokens[k] not in tokens[:k]:
            return tokens[k]
    return tokens[-1]


def first_call_times(repeat: int = 3) -> tuple[float, float]:
    """Median seconds of a fresh function's first call (trace + lower + XLA compile): ours
    and jax.jit's, on GELU + softmax of a (256, 256) float32 array."""
    x = np.random.default_rng(3).standard_normal((256, 256)).astype(np.float32)
    ours, theirs = [], []
    for _ in range(repeat):
        def fresh_rt(x):
            return rt_gelu_softmax(x)

        def fresh_jax(x):
            return jax_gelu_softmax(x)
        start = CLOCK()
        np.asarray(rt.function(fresh_rt, jit_compile="xla")(x))
        ours.append(CLOCK() - start)
        start = CLOCK()
        np.asarray(jax.jit(fresh_jax)(x))
        theirs.append(CLOCK() - start)
    return float(np.median(ours)), float(np.median(theirs))


# -- training steps: variables updated by the XLA tier, parameters returned by jax.jit -------
MLP_IN, MLP_HID, MLP_OUT, MLP_BATCH = 784, 256, 10, 256


def _mlp_init(rng):
    return [(rng.standard_normal((MLP_IN, MLP_HID)) / 28).astype(np.float32),
            np.zeros(MLP_HID, np.float32),
            (rng.standard_normal((MLP_HID, MLP_OUT)) / 16).astype(np.float32),
            np.zeros(MLP_OUT, np.float32)]


def _mlp_batch(rng):
    x = rng.standard_normal((MLP_BATCH, MLP_IN)).astype(np.float32)
    y = np.eye(MLP_OUT, dtype=np.float32)[rng.integers(0, MLP_OUT, MLP_BATCH)]
    return x, y


def rt_mlp_steps(params, adam: bool):
    """The step of an MLP 784-256-10 (softmax cross-entropy) on the XLA tier: SGD or Adam,
    the weights and Adam's moments in variables."""
    ws = [rt.Variable(p) for p in params]
    ms = [rt.Variable(np.zeros_like(p)) for p in params]
    vs = [rt.Variable(np.zeros_like(p)) for p in params]
    t = rt.Variable(np.float32(0.0))

    @rt.function(jit_compile="xla")
    def step(x, y):
        with rt.GradientTape() as tape:
            h = rt.nn.relu(rt.matmul(x, ws[0]) + ws[1])
            logits = rt.matmul(h, ws[2]) + ws[3]
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(y, logits))
        grads = tape.gradient(loss, ws)
        if not adam:
            for w, g in zip(ws, grads):
                w.assign_sub(0.1 * g)
            return loss
        t.assign_add(1.0)
        lr = 1e-3 * rt.sqrt(1.0 - 0.999 ** t) / (1.0 - 0.9 ** t)
        for w, g, m, v in zip(ws, grads, ms, vs):
            m.assign(0.9 * m + 0.1 * g)
            v.assign(0.999 * v + 0.001 * g * g)
            w.assign_sub(lr * m / (rt.sqrt(v) + 1e-7))
        return loss
    return step, ws


def _jax_mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    logits = jax.nn.relu(x @ w1 + b1) @ w2 + b2
    return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits), axis=1))


@jax.jit
def jax_sgd_step(params, x, y):
    loss, grads = jax.value_and_grad(_jax_mlp_loss)(params, x, y)
    return [p - 0.1 * g for p, g in zip(params, grads)], loss


def _jax_adam(loss_fn):
    """A jax.jit step of Adam (Keras's update) on the parameters of `loss_fn(params, x, y)`:
    (params, ms, vs, t), x, y -> (the new state, the loss)."""
    @jax.jit
    def step(state, x, y):
        params, ms, vs, t = state
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        t = t + 1.0
        lr = 1e-3 * jnp.sqrt(1.0 - 0.999 ** t) / (1.0 - 0.9 ** t)
        ms = [0.9 * m + 0.1 * g for m, g in zip(ms, grads)]
        vs = [0.999 * v + 0.001 * g * g for v, g in zip(vs, grads)]
        params = [p - lr * m / (jnp.sqrt(v) + 1e-7) for p, m, v in zip(params, ms, vs)]
        return (params, ms, vs, t), loss
    return step


jax_adam_step = _jax_adam(_jax_mlp_loss)


def training_rows(rng) -> list:
    """(name, rt seconds, jax seconds) of the training steps, nested arguments and chained
    calls, each the best of several runs measured alternately in this process."""
    rows = []
    params = _mlp_init(rng)
    x, y = _mlp_batch(rng)
    for adam in (False, True):
        step, ws = rt_mlp_steps(params, adam)
        if adam:
            state = ([jnp.asarray(p) for p in params], [jnp.zeros_like(p) for p in params],
                     [jnp.zeros_like(p) for p in params], jnp.float32(0.0))
            jstep = jax_adam_step
        else:
            state, jstep = [jnp.asarray(p) for p in params], jax_sgd_step
        # the first steps agree with jax.jit's
        for _ in range(3):
            loss = step(x, y)
            state, jloss = jstep(state, x, y)
        np.testing.assert_allclose(float(loss), float(jloss), rtol=1e-4)
        t_rt, t_jax = interleaved(step, _Threaded(jstep, state), (x, y), number=20)
        rows.append((f"MLP 784-256-10 b256 {'Adam' if adam else 'SGD'} step", t_rt, t_jax))
    # nested arguments: a dict of a tensor and a tuple of two
    a, b, c = (rng.standard_normal(64).astype(np.float32) for _ in range(3))
    nested = rt.function(lambda d: d["a"] * d["bc"][0] + d["bc"][1], jit_compile="xla")
    jnested = jax.jit(lambda d: d["a"] * d["bc"][0] + d["bc"][1])
    arg = {"a": a, "bc": (b, c)}
    t_rt, t_jax = interleaved(nested, jnested, (arg,), number=2000)
    rows.append(("nested arguments {a, (b, c)}, 64 f32", t_rt, t_jax))
    # chained calls: the result of one call is the next call's input (stays on the device)
    chain = rt.function(rt_chain, jit_compile="xla")
    jchain = jax.jit(jax_chain)
    x6 = rng.standard_normal(1_000_000).astype(np.float32) * 0.1

    def rt_chained(x):
        for _ in range(4):
            x = chain(x)
        return x

    def jax_chained(x):
        for _ in range(4):
            x = jchain(x)
        return x
    t_rt, t_jax = interleaved(rt_chained, jax_chained, (x6,), number=3)
    rows.append(("4 chained calls of the 8-op chain, 1e6 f32", t_rt, t_jax))
    return rows


# -- LSTM text classifier: Embedding 10k x 64 -> LSTM 128 -> Dense 1, batch 64, 80 steps, SGD --
LV, LE, LH, LB, LT = 10_000, 64, 128, 64, 80


def lstm_classifier_rows(rng) -> list:
    """(name, rt seconds, jax seconds) of the classifier's training step (runtime.keras layers
    in an XLA-tier function; the same model written in JAX with lax.scan) and of the first
    call of each (trace and compile), from the same initial weights."""
    from runtime import keras

    x = rng.integers(0, LV, (LB, LT)).astype(np.int32)
    y = rng.integers(0, 2, (LB, 1)).astype(np.float32)
    model = keras.Sequential([keras.layers.Embedding(LV, LE), keras.layers.LSTM(LH),
                              keras.layers.Dense(1)])
    model.build((None, LT))
    opt = keras.optimizers.SGD(0.01)
    bce = keras.losses.BinaryCrossentropy(from_logits=True)

    @rt.function(jit_compile="xla")
    def step(x, y):
        with rt.GradientTape() as tape:
            loss = bce(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    emb, wx, wh, b, wd, bd = (jnp.asarray(w) for w in model.get_weights())
    params = {"emb": emb, "wx": wx, "wh": wh, "b": b, "wd": wd, "bd": bd}

    def loss_fn(p, x, y):
        e = jnp.transpose(p["emb"][x], (1, 0, 2))

        def cell(carry, xt):
            h, c = carry
            i, f, g, o = jnp.split(xt @ p["wx"] + h @ p["wh"] + p["b"], 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            return (jax.nn.sigmoid(o) * jnp.tanh(c), c), None
        zeros = jnp.zeros((LB, LH), jnp.float32)
        (h, _), _ = jax.lax.scan(cell, (zeros, zeros), e)
        z = h @ p["wd"] + p["bd"]
        return jnp.mean(jnp.maximum(z, 0) - z * y + jnp.log1p(jnp.exp(-jnp.abs(z))))

    @jax.jit
    def jstep(p, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g), loss

    threaded = _Threaded(jstep, params)
    first_rt, first_jax = _first_calls(lambda: step(x, y), lambda: threaded(x, y))
    t_rt, t_jax = interleaved(step, threaded, (x, y), number=2, repeat=5)
    return [("LSTM classifier first call (s)", first_rt, first_jax),
            ("LSTM classifier step 10k-64-128-1 b64 T80", t_rt, t_jax)]


def _first_calls(ours, theirs) -> tuple[float, float]:
    """CPU seconds of the first call of each step (trace, lower, compile, run; the loss read
    back), after checking that the two losses agree."""
    start = CLOCK()
    loss = float(ours())
    first_rt = CLOCK() - start
    start = CLOCK()
    jloss = float(theirs())
    first_jax = CLOCK() - start
    np.testing.assert_allclose(loss, jloss, rtol=1e-4)
    return first_rt, first_jax


class _Threaded:
    """A jax.jit step whose state (parameters, moments) passes from one call to the next."""

    def __init__(self, step, state):
        self.step, self.state = step, state

    def __call__(self, *args):
        self.state, out = self.step(self.state, *args)
        return out


def _wait(out) -> None:
    """Waits for a result (its first value, read as NumPy)."""
    np.asarray(out[0] if isinstance(out, (tuple, list)) else out)


def interleaved(f, g, args, number: int, repeat: int = 7) -> tuple[float, float]:
    """Best seconds per call of `f(*args)` and `g(*args)`, measured alternately."""
    for fn in (f, g):
        _wait(fn(*args))
    best_f = best_g = float("inf")
    for _ in range(repeat):
        for fn, which in ((f, 0), (g, 1)):
            start = CLOCK()
            for _ in range(number):
                out = fn(*args)
            _wait(out)
            elapsed = (CLOCK() - start) / number
            if which == 0:
                best_f = min(best_f, elapsed)
            else:
                best_g = min(best_g, elapsed)
    return best_f, best_g


# -- a small CNN: Conv2D 32 -> max pool -> Conv2D 64 -> max pool -> Dense 10, batch 64, Adam --
CNN_BATCH, CNN_CLASSES = 64, 10


def cnn_rows(rng) -> list:
    """(name, rt seconds, jax seconds) of the CNN's training step: runtime.keras layers and
    Adam in an XLA-tier function (benchmarks/bench_cnn_step.py's step), and the same model
    written in JAX (lax.conv_general_dilated, reduce_window, Adam as Keras's), from the same
    initial weights; and of its first call."""
    from bench_cnn_step import _initial_weights, build_step

    from runtime import keras

    x = rng.standard_normal((CNN_BATCH, 28, 28, 1)).astype(np.float32)
    y = rng.integers(0, CNN_CLASSES, CNN_BATCH).astype(np.int64)
    weights = _initial_weights(rng)
    model, step = build_step(rt, keras, "xla")
    model.set_weights(weights)
    xt, yt = rt.constant(x), rt.constant(y)
    dims = ("NHWC", "HWIO", "NHWC")

    def loss_fn(p, x, y):
        h = x
        for k in (0, 2):
            h = jax.lax.conv_general_dilated(h, p[k], (1, 1), "VALID", dimension_numbers=dims)
            h = jax.nn.relu(h + p[k + 1])
            h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1),
                                      "VALID")
        logits = h.reshape(h.shape[0], -1) @ p[4] + p[5]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1))

    jstep = _jax_adam(loss_fn)

    state = ([jnp.asarray(w) for w in weights], [jnp.zeros_like(w) for w in weights],
             [jnp.zeros_like(w) for w in weights], jnp.float32(0.0))
    threaded = _Threaded(jstep, state)
    first_rt, first_jax = _first_calls(lambda: step(xt, yt), lambda: threaded(x, y))
    for _ in range(2):  # the next steps agree too (Adam's moments in variables)
        np.testing.assert_allclose(float(step(xt, yt)), float(threaded(x, y)), rtol=1e-3)
    t_rt, t_jax = interleaved(lambda: step(xt, yt), lambda: threaded(x, y), (), number=3,
                              repeat=7)
    return [("CNN first call (s)", first_rt, first_jax),
            ("CNN step conv32-pool-conv64-pool-dense10 b64 Adam", t_rt, t_jax)]


def rows_section(rng) -> None:
    """The elementwise, reduction, loop and decoding cases against NumPy and jax.jit."""
    cases = [
        ("GELU(tanh)+softmax (4096,1024) f32", np_gelu_softmax, rt_gelu_softmax,
         jax_gelu_softmax, rng.standard_normal((4096, 1024)).astype(np.float32)),
        ("logsumexp (4096,1024) f32", np_lse, rt_lse, jax_lse,
         rng.standard_normal((4096, 1024)).astype(np.float32)),
        ("RK4 1000 steps dim 64 f64", np_rk4, rt_rk4, jax_rk4, rng.standard_normal(64)),
        ("8-op elementwise chain 1e6 f32", np_chain, rt_chain, jax_chain,
         rng.standard_normal(1_000_000).astype(np.float32)),
        ("12-op elementwise chain 1e7 f32", np_chain12, rt_chain12, jax_chain12,
         rng.standard_normal(10_000_000).astype(np.float32)),
    ]
    print(f"{'case':40s} {'numpy':>10s} {'rt xla':>10s} {'jax.jit':>10s} {'xla/np':>7s} "
          f"{'jax/np':>7s} {'xla/jax':>7s}")
    for name, np_fn, rt_fn, jax_fn, x in cases:
        t_np = best(np_fn, x)
        f = rt.function(rt_fn, jit_compile="xla", autograph=True)
        np.testing.assert_allclose(np.asarray(f(x)), np_fn(x), rtol=1e-4, atol=1e-4)
        t_rt, t_jax = interleaved(f, jax.jit(jax_fn), (x,), number=3, repeat=5)
        print(f"{name:40s} {t_np * 1e3:8.2f}ms {t_rt * 1e3:8.2f}ms {t_jax * 1e3:8.2f}ms "
              f"{t_rt / t_np:7.2f} {t_jax / t_np:7.2f} {t_rt / t_jax:7.2f}")
    # LSTM forward + gradients
    x = (rng.standard_normal((T, B, D)) / 2).astype(np.float32)
    w = (rng.standard_normal((D + H, 4 * H)) / 16).astype(np.float32)
    b = np.zeros(4 * H, np.float32)
    t_np = best(np_lstm, x, w, b, repeat=3, number=1)
    f = rt.function(rt_lstm, jit_compile="xla", autograph=True)
    for p, q in zip(f(x, w, b), np_lstm(x, w, b)):
        np.testing.assert_allclose(np.asarray(p), q, rtol=2e-3, atol=2e-4)
    t_rt, t_jax = interleaved(f, jax.jit(jax_lstm), (x, w, b), number=1, repeat=5)
    print(f"{'LSTM 64->128 b32 T100 fwd+grad f32':40s} {t_np * 1e3:8.2f}ms {t_rt * 1e3:8.2f}ms "
          f"{t_jax * 1e3:8.2f}ms {t_rt / t_np:7.2f} {t_jax / t_np:7.2f} {t_rt / t_jax:7.2f}")
    # greedy decoding, exit when the end token appears
    eos = np.int32(_eos_near(150))
    start = np.int32(1)
    want = np_decode(start, eos)
    t_np = best(np_decode, start, eos)
    f = rt.function(rt_decode, jit_compile="xla", autograph=True)
    np.testing.assert_array_equal(np.asarray(f(start, eos)), want)
    g = jax.jit(jax_decode)
    out, n = g(start, eos)
    np.testing.assert_array_equal(np.asarray(out)[:int(n)], want)
    t_rt, t_jax = interleaved(f, g, (start, eos), number=3, repeat=5)
    print(f"{f'greedy decoding ({len(want)} of {STEPS} steps)':40s} {t_np * 1e3:8.2f}ms "
          f"{t_rt * 1e3:8.2f}ms {t_jax * 1e3:8.2f}ms {t_rt / t_np:7.2f} {t_jax / t_np:7.2f} "
          f"{t_rt / t_jax:7.2f}")


def overhead_section(rng) -> None:
    """The first call of a fresh function, and the call overhead of a tiny one."""
    ours, theirs = first_call_times()
    print(f"first call (GELU+softmax 256x256): rt xla {ours * 1e3:.1f} ms, jax.jit "
          f"{theirs * 1e3:.1f} ms ({ours / theirs:.2f}x)")
    x = np.ones(3)
    f = rt.function(lambda x: x * 2.0 + 1.0, jit_compile="xla")
    g = jax.jit(lambda x: x * 2.0 + 1.0)
    t_rt, t_jax = interleaved(f, g, (x,), number=2000)
    print(f"call overhead, alternating: rt xla {t_rt * 1e6:.1f} us, jax.jit "
          f"{t_jax * 1e6:.1f} us ({t_rt / t_jax:.2f}x)")


def _print_rows(rows) -> None:
    for name, t_rt, t_jax in rows:
        print(f"{name:50s} rt xla {t_rt * 1e3:8.3f}ms jax.jit {t_jax * 1e3:8.3f}ms "
              f"({t_rt / t_jax:.2f}x)", flush=True)


SECTIONS = {"rows": rows_section, "overhead": overhead_section,
            "training": lambda rng: _print_rows(training_rows(rng)),
            "cnn": lambda rng: _print_rows(cnn_rows(rng)),
            "lstm": lambda rng: _print_rows(lstm_classifier_rows(rng))}


def main(sections=None) -> None:
    sections = list(sections or SECTIONS)
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        raise SystemExit(f"bench_xla.py: unknown sections {unknown}; choose from {list(SECTIONS)}")
    rng = np.random.default_rng(1)
    with jax.enable_x64(True):
        for name in sections:
            SECTIONS[name](rng)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main(sys.argv[1:])
