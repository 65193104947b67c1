"""The compiler tiers against hand-written NumPy on six workloads.

For each workload: the hand-written NumPy time, the NumPy tier (`jit_compile=False`), the
Numba tier (`jit_compile=True`) and, when JAX is installed, the XLA tier
(`jit_compile="xla"`), each as a ratio to NumPy, and Numba tier / NumPy tier, which should be
at most 1.0 (the checked figure; the XLA tier's own targets are in bench_xla.py). All
float32, one BLAS thread, steady state (after the first call), best of interleaved batches in
one process, as CPU time of the process (the machine's other load does not count; pin one
core with `taskset -c 1`). A tier whose result differs from NumPy is not timed; a graph a tier refuses is
printed as `REFUSED: <message>`.

1. GELU (tanh approximation), then a row softmax, (4096, 1024).
2. Numerically stable logsumexp over rows, (4096, 1024).
3. RK4, 1,000 steps of dy/dt = tanh(W @ y) - 0.1 * y, state 64, a staged loop.
4. LSTM 64 -> 128, batch 32, 100 steps, scalar loss: forward and weight gradients, with
   `rt.GradientTape` around the compiled call (NumPy: forward and BPTT by hand); and, for
   comparison, the same forward without a tape.
5. Greedy decoding: `while i < 200 and token != 0`, vocabulary 64, hidden 64, tokens appended
   to a list (the data runs all 200 steps; a second data set exits at step 20, checked only).
6. Batch-1 MLP 64-256-256-10 with relu: per-call overhead.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import importlib.util  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved  # noqa: E402

import runtime as rt  # noqa: E402

# the steady state of the kernel: a jit_compile=True function's first call compiles it, instead
# of its calls running on the NumPy tier until a background compile ends (docs/jit.md)
rt.config.experimental.set_jit_wait_for_compile(True)

LIMIT = 1.0  # Numba tier time / NumPy tier time
HAS_JAX = importlib.util.find_spec("jax") is not None
TIERS = ("NumPy tier", "Numba tier") + (("XLA tier",) if HAS_JAX else ())
F32 = np.float32
GELU_C = float(np.sqrt(2.0 / np.pi))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def compare(name, numpy_fn, calls, check, number, rounds, unit="ms"):
    """Checks each tier's call (`calls`, in TIERS order) against `numpy_fn`, times the ones
    that agree and prints one line.

    `check(result, expected)` asserts a tier's result matches. Returns Numba tier / NumPy tier,
    or None when either tier could not be timed.
    """
    expected = numpy_fn()
    fns, labels, failed = [numpy_fn], ["NumPy"], {}
    for label, call in zip(TIERS, calls):
        try:
            check(call(), expected)
        except AssertionError as exc:
            failed[label] = "MISMATCH: " + " ".join(str(exc).split())[:200]
        except Exception as exc:  # a refused graph: report it and go on
            failed[label] = "REFUSED: " + _first_line(exc)
        else:
            fns.append(call)
            labels.append(label)
    times = dict(zip(labels, interleaved(fns, number=number, rounds=rounds,
                                         timer=time.process_time)))
    scale = 1e6 if unit == "us" else 1e3
    base = times["NumPy"]
    parts = [f"NumPy {base * scale:.2f} {unit}"]
    for label in TIERS:
        if label in failed:
            parts.append(f"{label} {failed[label]}")
        else:
            parts.append(f"{label} {times[label] * scale:.2f} {unit} "
                         f"({times[label] / base:.2f}x NumPy)")
    ratio = None
    if "NumPy tier" not in failed and "Numba tier" not in failed:
        ratio = times["Numba tier"] / times["NumPy tier"]
        status = "OK" if ratio <= LIMIT else "OVER LIMIT"
        parts.append(f"Numba/NumPy tier {ratio:.2f} (limit {LIMIT}) {status}")
    else:
        parts.append("Numba/NumPy tier n/a")
    print(f"tiers {name}: " + ", ".join(parts), flush=True)
    return ratio


def _tiers(fn):
    """`fn` compiled by each tier of TIERS."""
    modes = {"NumPy tier": False, "Numba tier": True, "XLA tier": "xla"}
    return [rt.function(fn, jit_compile=modes[label]) for label in TIERS]


def _close(rtol, atol):
    def check(result, expected):
        np.testing.assert_allclose(np.asarray(result), expected, rtol=rtol, atol=atol)
    return check


# -- 1. GELU + row softmax ------------------------------------------------------------------

def gelu_softmax(x):
    g = 0.5 * x * (1.0 + rt.tanh(GELU_C * (x + 0.044715 * x * x * x)))
    return rt.nn.softmax(g, axis=-1)


def gelu_softmax_numpy(x):
    g = F32(0.5) * x * (F32(1.0) + np.tanh(F32(GELU_C) * (x + F32(0.044715) * x * x * x)))
    e = np.exp(g - g.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# -- 2. logsumexp over rows -----------------------------------------------------------------

def logsumexp_rows(x):
    m = rt.reduce_max(x, axis=1, keepdims=True)
    return rt.squeeze(m, 1) + rt.math.log(rt.reduce_sum(rt.exp(x - m), axis=1))


def logsumexp_rows_numpy(x):
    m = x.max(axis=1, keepdims=True)
    return m[:, 0] + np.log(np.exp(x - m).sum(axis=1))


def run_rowwise(rng):
    x = rng.standard_normal((4096, 1024), dtype=F32)
    xt = rt.constant(x)
    ratios = []
    for name, fn, ref in (("GELU + row softmax, 4096x1024", gelu_softmax, gelu_softmax_numpy),
                          ("logsumexp over rows, 4096x1024", logsumexp_rows, logsumexp_rows_numpy)):
        calls = [lambda f=f: f(xt) for f in _tiers(fn)]
        ratios.append(compare(name, lambda ref=ref: ref(x), calls, _close(1e-4, 1e-7),
                              number=2, rounds=5))
    return ratios


# -- 3. RK4 ----------------------------------------------------------------------------------

RK4_STEPS, RK4_DT = 1000, 0.01


def rk4(w, y):
    h = RK4_DT
    for _ in rt.range(RK4_STEPS):
        k1 = rt.tanh(rt.matmul(w, y)) - 0.1 * y
        y2 = y + 0.5 * h * k1
        k2 = rt.tanh(rt.matmul(w, y2)) - 0.1 * y2
        y3 = y + 0.5 * h * k2
        k3 = rt.tanh(rt.matmul(w, y3)) - 0.1 * y3
        y4 = y + h * k3
        k4 = rt.tanh(rt.matmul(w, y4)) - 0.1 * y4
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y


def rk4_numpy(w, y):
    h, half, tenth = F32(RK4_DT), F32(0.5 * RK4_DT), F32(0.1)
    sixth, two = F32(RK4_DT / 6.0), F32(2.0)
    for _ in range(RK4_STEPS):
        k1 = np.tanh(w @ y) - tenth * y
        y2 = y + half * k1
        k2 = np.tanh(w @ y2) - tenth * y2
        y3 = y + half * k2
        k3 = np.tanh(w @ y3) - tenth * y3
        y4 = y + h * k3
        k4 = np.tanh(w @ y4) - tenth * y4
        y = y + sixth * (k1 + two * k2 + two * k3 + k4)
    return y


def run_rk4(rng):
    w = (rng.standard_normal((64, 64)) / 8).astype(F32)
    y = rng.standard_normal((64, 1)).astype(F32)
    wt, yt = rt.constant(w), rt.constant(y)
    calls = [lambda f=f: f(wt, yt) for f in _tiers(rk4)]
    return compare(f"RK4 {RK4_STEPS} steps, state 64", lambda: rk4_numpy(w, y), calls,
                   _close(1e-4, 1e-5), number=2, rounds=7)


# -- 4. LSTM forward + gradients --------------------------------------------------------------

T, BATCH, N_IN, N_HID = 100, 32, 64, 128


def _sigmoid(z):
    return F32(1.0) / (F32(1.0) + np.exp(-z))


def lstm_numpy(x, wx, wh, b, with_gradients=True):
    """Forward (the loss is the sum over steps of mean(h * h)) and, by hand, BPTT."""
    h = np.zeros((BATCH, N_HID), F32)
    c = np.zeros((BATCH, N_HID), F32)
    loss = F32(0.0)
    saved = []
    for t in range(T):
        z = x[t] @ wx + h @ wh + b
        i, f, g, o = (_sigmoid(z[:, :N_HID]), _sigmoid(z[:, N_HID:2 * N_HID]),
                      np.tanh(z[:, 2 * N_HID:3 * N_HID]), _sigmoid(z[:, 3 * N_HID:]))
        c_prev, h_prev = c, h
        c = f * c + i * g
        tc = np.tanh(c)
        h = o * tc
        loss += np.mean(h * h)
        saved.append((h_prev, c_prev, i, f, g, o, tc, h))
    if not with_gradients:
        return loss
    one, scale = F32(1.0), F32(2.0 / (BATCH * N_HID))
    dwx, dwh, db = np.zeros_like(wx), np.zeros_like(wh), np.zeros_like(b)
    dh_next = np.zeros((BATCH, N_HID), F32)
    dc_next = np.zeros((BATCH, N_HID), F32)
    dz = np.empty((BATCH, 4 * N_HID), F32)
    for t in reversed(range(T)):
        h_prev, c_prev, i, f, g, o, tc, h = saved[t]
        dh = dh_next + scale * h
        dc = dc_next + dh * o * (one - tc * tc)
        dz[:, :N_HID] = dc * g * i * (one - i)
        dz[:, N_HID:2 * N_HID] = dc * c_prev * f * (one - f)
        dz[:, 2 * N_HID:3 * N_HID] = dc * i * (one - g * g)
        dz[:, 3 * N_HID:] = dh * tc * o * (one - o)
        dwx += x[t].T @ dz
        dwh += h_prev.T @ dz
        db += dz.sum(axis=0)
        dh_next = dz @ wh.T
        dc_next = dc * f
    return loss, [dwx, dwh, db]


def make_lstm(wx, wh, b):
    def lstm(x):
        h = rt.zeros([BATCH, N_HID])
        c = rt.zeros([BATCH, N_HID])
        loss = 0.0
        for t in rt.range(T):
            z = rt.matmul(x[t], wx) + rt.matmul(h, wh) + b
            i, f, g, o = rt.split(z, 4, axis=1)
            c = rt.sigmoid(f) * c + rt.sigmoid(i) * rt.tanh(g)
            h = rt.sigmoid(o) * rt.tanh(c)
            loss += rt.reduce_mean(h * h)
        return loss
    return lstm


def run_lstm(rng):
    x = rng.standard_normal((T, BATCH, N_IN)).astype(F32)
    weights = [(rng.standard_normal((N_IN, 4 * N_HID)) / 8).astype(F32),
               (rng.standard_normal((N_HID, 4 * N_HID)) / 11).astype(F32),
               (rng.standard_normal(4 * N_HID) / 10).astype(F32)]
    variables = [rt.Variable(w) for w in weights]
    compiled = _tiers(make_lstm(*variables))
    xt = rt.constant(x)

    def taped(fn):
        def step():
            with rt.GradientTape() as tape:
                loss = fn(xt)
            return loss, tape.gradient(loss, variables)
        return step

    def check_gradients(result, expected):
        loss, grads = result
        np.testing.assert_allclose(float(loss), expected[0], rtol=1e-4)
        for got, want in zip(grads, expected[1]):
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-3, atol=1e-5)

    name = f"LSTM {N_IN}->{N_HID}, batch {BATCH}, T={T}"
    ratios = [compare(name + ", loss + weight gradients (tape outside)",
                      lambda: lstm_numpy(x, *weights), [taped(f) for f in compiled],
                      check_gradients, number=1, rounds=7)]
    ratios.append(compare(name + ", forward only (no tape)",
                          lambda: lstm_numpy(x, *weights, with_gradients=False),
                          [lambda f=f: f(xt) for f in compiled], _close(1e-4, 0), number=2,
                          rounds=7))
    return ratios


# -- 5. Greedy decoding -------------------------------------------------------------------------

VOCAB, HIDDEN, MAX_STEPS = 64, 64, 200


def greedy(w_h, emb, w_o, h, token):
    i = 0
    tokens = []
    while i < MAX_STEPS and token != 0:
        h = rt.tanh(rt.matmul(w_h, h) + rt.reshape(emb[token], (HIDDEN, 1)))
        token = rt.cast(rt.argmax(rt.reshape(rt.matmul(w_o, h), (VOCAB,))), rt.int32)
        tokens.append(token)
        i += 1
    return rt.stack(tokens)


def greedy_numpy(w_h, emb, w_o, h, token):
    h = h[:, 0]
    tokens = []
    i = 0
    while i < MAX_STEPS and token != 0:
        h = np.tanh(w_h @ h + emb[token])
        token = int(np.argmax(w_o @ h))
        tokens.append(token)
        i += 1
    return np.array(tokens, np.int32)


def _greedy_data(seed):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((HIDDEN, HIDDEN)) / 8).astype(F32),
            rng.standard_normal((VOCAB, HIDDEN)).astype(F32),
            rng.standard_normal((VOCAB, HIDDEN)).astype(F32),
            np.zeros((HIDDEN, 1), F32), np.int32(1)]


def run_greedy():
    compiled = _tiers(greedy)

    def check(result, expected):
        np.testing.assert_array_equal(np.asarray(result), expected)

    early = _greedy_data(0)  # token 0 comes out at step 20: the data-dependent exit
    assert len(greedy_numpy(*early)) == 20
    early_t = [rt.constant(a) for a in early]
    for fn in compiled:
        try:
            check(fn(*early_t), greedy_numpy(*early))
        except AssertionError:
            raise
        except Exception:  # compare() below reports the refusal
            pass
    data = _greedy_data(1)  # never emits token 0: runs all 200 steps
    assert len(greedy_numpy(*data)) == MAX_STEPS
    args = [rt.constant(a) for a in data]
    return compare(f"greedy decoding, {MAX_STEPS} steps, vocab {VOCAB}, hidden {HIDDEN}",
                   lambda: greedy_numpy(*data), [lambda f=f: f(*args) for f in compiled],
                   check, number=20, rounds=9)


# -- 6. Batch-1 MLP ---------------------------------------------------------------------------

def run_mlp(rng):
    sizes = [64, 256, 256, 10]
    weights = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        weights += [(rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(F32),
                    (rng.standard_normal(n_out) / 10).astype(F32)]
    w1, b1, w2, b2, w3, b3 = [rt.Variable(w) for w in weights]

    def mlp(x):
        h = rt.nn.relu(rt.matmul(x, w1) + b1)
        h = rt.nn.relu(rt.matmul(h, w2) + b2)
        return rt.matmul(h, w3) + b3

    nw1, nb1, nw2, nb2, nw3, nb3 = weights

    def mlp_numpy(x):
        h = np.maximum(x @ nw1 + nb1, F32(0))
        h = np.maximum(h @ nw2 + nb2, F32(0))
        return h @ nw3 + nb3

    x = rng.standard_normal((1, 64)).astype(F32)
    xt = rt.constant(x)
    return compare("batch-1 MLP 64-256-256-10, per call", lambda: mlp_numpy(x),
                   [lambda f=f: f(xt) for f in _tiers(mlp)], _close(1e-4, 1e-6), number=2000,
                   rounds=9, unit="us")


def main() -> float:
    rng = np.random.default_rng(0)
    ratios = run_rowwise(rng)
    ratios.append(run_rk4(rng))
    ratios += run_lstm(rng)
    ratios.append(run_greedy())
    ratios.append(run_mlp(rng))
    timed = [r for r in ratios if r is not None]
    worst = max(timed) if timed else float("nan")
    print(f"tiers: Numba tier within {LIMIT}x of the NumPy tier on "
          f"{sum(r <= LIMIT for r in timed)}/{len(ratios)} workloads "
          f"({len(ratios) - len(timed)} not timed), worst Numba/NumPy tier {worst:.2f}")
    return worst


if __name__ == "__main__":
    main()
