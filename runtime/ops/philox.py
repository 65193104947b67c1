"""TensorFlow's counter-based random numbers: Philox-4x32-10 and the conversions of its words
into uniform, normal and integer values, written once for NumPy and for jax.numpy (the XLA
tier's stateless draws).

A stream is a 64-bit key (two 32-bit words) and a 128-bit counter (four words); block i of the
stream is the Philox function of (counter + i, key): four 32-bit words. The conversions are
TensorFlow's, so a seed gives TensorFlow's numbers:

- a float32 in [0, 1) from one word (its low 23 bits as the mantissa of a number in [1, 2),
  minus one); float16 from 10 bits, bfloat16 from 7; a float64 from two words (52 bits);
- a normal pair by Box-Muller from two uniform words (float32) or four (float64); the float32
  log, sqrt, sin and cos are rounded from float64, which equals the C library's float
  functions except for about 1% of inputs, where they differ by one unit in the last place;
- a truncated normal keeps the Box-Muller values below 2 in magnitude, in order; each group of
  four outputs reads its own run of 256 blocks;
- an integer in [lo, hi) as lo + word % (hi - lo) (two words for 64-bit types).

A seed pair becomes a key and counter as TensorFlow's `StatelessRandomGetKeyCounter` makes
them: one Philox round trip of the pair under a fixed key.
"""

from __future__ import annotations

import numpy as np

_M0, _M1 = 0xD2511F53, 0xCD9E8D57          # the round multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85          # the key schedule's increments
_SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)   # the key that scrambles a seed pair
_U32 = np.uint32
_RESERVED_WORDS = 256                      # words a truncated-normal output may read


def _mulhilo(xp, a, m: int):
    """The high and low 32-bit words of a * m (a uint32 array, m a 32-bit constant)."""
    if xp is np:
        p = a.astype(np.uint64) * np.uint64(m)
        return (p >> np.uint64(32)).astype(_U32), p.astype(_U32)
    # without 64-bit integers: 16-bit halves, every partial product fits in 32 bits
    mask = xp.uint32(0xFFFF)
    a_hi, a_lo = a >> 16, a & mask
    m_hi, m_lo = xp.uint32(m >> 16), xp.uint32(m & 0xFFFF)
    lo_lo, hi_lo, lo_hi = a_lo * m_lo, a_hi * m_lo, a_lo * m_hi
    middle = (lo_lo >> 16) + (hi_lo & mask) + (lo_hi & mask)
    high = a_hi * m_hi + (hi_lo >> 16) + (lo_hi >> 16) + (middle >> 16)
    return high, a * xp.uint32(m)


# Array libraries that run the ten rounds as one loop of their own (`fori_loop(lower, upper,
# body, state)`): an unrolled round uses each word several times, and a compiler that fuses the
# rounds into their consumer may emit every use anew (XLA of jaxlib 0.6 never finishes
# compiling a few hundred blocks); a loop keeps each round's words computed once.
_ROUND_LOOPS: dict = {}


def run_rounds_as_loop(xp, fori_loop) -> None:
    """Have `rounds` of the array library `xp` run as `fori_loop(0, 10, body, state)`."""
    _ROUND_LOOPS[xp] = fori_loop


def _round(xp, state: tuple) -> tuple:
    c0, c1, c2, c3, k0, k1 = state
    hi0, lo0 = _mulhilo(xp, c0, _M0)
    hi1, lo1 = _mulhilo(xp, c2, _M1)
    return (hi1 ^ c1 ^ _word(xp, k0), lo1, hi0 ^ c3 ^ _word(xp, k1), lo0,
            _bumped(xp, k0, _W0), _bumped(xp, k1, _W1))


def rounds(xp, words: list, key: tuple) -> list:
    """Philox-4x32-10 of counters `words` (four uint32 arrays) under `key` (two ints, or two
    uint32 arrays when the key is a traced value)."""
    fori_loop = _ROUND_LOOPS.get(xp)
    if fori_loop is not None:
        shape = xp.broadcast_shapes(*(xp.shape(w) for w in words))
        state = (*(xp.broadcast_to(xp.asarray(w, dtype=_U32), shape) for w in words),
                 *(xp.asarray(k, dtype=_U32) for k in key))
        return list(fori_loop(0, 10, lambda _, s: _round(xp, s), state)[:4])
    state = (*words, *key)
    for _ in range(10):
        state = _round(xp, state)
    return list(state[:4])


def _word(xp, k):
    return xp.uint32(k) if isinstance(k, int) else k


def _bumped(xp, k, increment: int):
    if isinstance(k, int):
        return (k + increment) & 0xFFFFFFFF
    return k + xp.uint32(increment)  # a uint32 array: the addition wraps


def _halves(xp, value):
    """The low and high 32-bit words of int arrays (32-bit values sign-extended)."""
    if np.dtype(value.dtype).itemsize == 8:
        unsigned = value.astype(np.uint64)
        return unsigned.astype(_U32), (unsigned >> np.uint64(32)).astype(_U32)
    return value.astype(_U32), xp.where(value < 0, xp.uint32(0xFFFFFFFF), xp.uint32(0))


def traced_key_counter(xp, seed):
    """key_counter_of_seed (a [2] seed) or key_counter_of_state (a [3] state) of an int array
    whose values are known only when the program runs: uint32 arrays for the words."""
    low, high = _halves(xp, seed)
    if seed.shape[0] == 3:
        return (low[2], high[2]), (low[0], high[0], low[1], high[1])
    mixed = rounds(xp, [low[0], high[0], low[1], high[1]], _SCRAMBLE_KEY)
    return (mixed[0], mixed[1]), (xp.uint32(0), xp.uint32(0), mixed[2], mixed[3])


def key_counter_of_seed(seed) -> tuple[tuple[int, int], tuple[int, int, int, int]]:
    """The key and counter of a stateless draw from a seed pair (two ints, read as int64)."""
    s0, s1 = (int(v) & 0xFFFFFFFFFFFFFFFF for v in np.asarray(seed).astype(np.int64).ravel()[:2])
    words = [np.array([w], _U32) for w in (s0 & 0xFFFFFFFF, s0 >> 32, s1 & 0xFFFFFFFF, s1 >> 32)]
    mixed = [int(w[0]) for w in rounds(np, words, _SCRAMBLE_KEY)]
    return (mixed[0], mixed[1]), (0, 0, mixed[2], mixed[3])


def key_counter_of_state(state) -> tuple[tuple[int, int], tuple[int, int, int, int]]:
    """The key and counter of a generator state [counter low, counter high, key] (int64)."""
    lo, hi, key = (int(v) & 0xFFFFFFFFFFFFFFFF for v in np.asarray(state).astype(np.int64).ravel()[:3])
    return (key & 0xFFFFFFFF, key >> 32), (lo & 0xFFFFFFFF, lo >> 32, hi & 0xFFFFFFFF, hi >> 32)


def advanced(counter, count: int) -> tuple[int, int, int, int]:
    """The counter `count` blocks on (a 128-bit addition)."""
    value = sum(int(w) << (32 * i) for i, w in enumerate(counter)) + int(count)
    return tuple((value >> (32 * i)) & 0xFFFFFFFF for i in range(4))


def _counters(xp, counter, low, high) -> list:
    """The four uint32 words of `counter` + (high * 2**32 + low), a 128-bit addition (`low`
    and `high` uint32 arrays or scalars)."""
    c = [xp.asarray(w, dtype=_U32) for w in counter]
    w0 = c[0] + low
    carry = (w0 < low).astype(_U32) + high
    w1 = c[1] + carry
    carry = (w1 < carry).astype(_U32)
    w2 = c[2] + carry
    carry = (w2 < carry).astype(_U32)
    return [w0, w1, w2, c[3] + carry]


def blocks(xp, key, counter, start, count: int):
    """Blocks start .. start + count - 1 of a stream: uint32 of shape [count, 4]. `key` and
    `counter` hold words (ints, or uint32 scalars of xp); `start` is an int or uint32 array."""
    index = xp.arange(count, dtype=_U32) + xp.asarray(start, dtype=_U32)
    return xp.stack(rounds(xp, _counters(xp, counter, index, xp.uint32(0)), key), axis=-1)


def words(xp, key, counter, count: int):
    """The first `count` 32-bit words of a stream, in order."""
    return blocks(xp, key, counter, 0, -(-count // 4)).reshape(-1)[:count]


def first_unit_float64(seeds):
    """The first float64 in [0, 1) of the stateless stream of each seed pair (`seeds`: int
    array [n, 2], read as int64): words 0 and 1 of block 0 of every pair's key and counter,
    all at once."""
    low, high = _halves(np, np.asarray(seeds, np.int64))
    mixed = rounds(np, [low[:, 0], high[:, 0], low[:, 1], high[:, 1]], _SCRAMBLE_KEY)
    zero = np.zeros(len(low), _U32)
    block = rounds(np, [zero, zero, mixed[2], mixed[3]], (mixed[0], mixed[1]))
    return unit_float64(np, block[0], block[1])

# -- conversions -----------------------------------------------------------------------------

def unit_float32(xp, w):
    """Floats in [0, 1) from words: TensorFlow's 23 low bits as a mantissa."""
    bits = (w & xp.uint32(0x7FFFFF)) | xp.uint32(0x3F800000)
    return _bitcast(xp, bits, np.float32) - np.float32(1.0)


def unit_float64(xp, w0, w1):
    """Doubles in [0, 1) from word pairs (20 bits of the first, all of the second)."""
    if xp is np:
        mantissa = ((w0.astype(np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)) | w1
        return (mantissa | np.uint64(1023 << 52)).view(np.float64) - 1.0
    high = (w0 & xp.uint32(0xFFFFF)) | xp.uint32(1023 << 20)
    pair = xp.stack([w1, high], axis=-1)  # little-endian words of the double
    return _bitcast(xp, pair, np.float64)[..., 0] - 1.0


def unit_half(xp, w, dtype):
    """float16 (10 mantissa bits) or bfloat16 (7) values in [0, 1) from words."""
    if np.dtype(dtype) == np.float16:
        bits = ((w & xp.uint32(0x3FF)) | xp.uint32(15 << 10)).astype(np.uint16)
        return _bitcast(xp, bits, np.float16) - np.float16(1.0)
    bits = ((w & xp.uint32(0x7F)) | xp.uint32(127 << 7)) << 16  # bfloat16 widened to float32
    return _bitcast(xp, bits, np.float32) - np.float32(1.0)


def _bitcast(xp, bits, dtype):
    """The bits of `bits` read as `dtype` (NumPy's and JAX's array view)."""
    return bits.view(dtype)


def box_muller32(xp, w0, w1):
    """Two float32 normal values from two words each (TensorFlow's BoxMullerFloat)."""
    u1 = xp.maximum(unit_float32(xp, w0), np.float32(1e-7))
    angle = (2.0 * np.pi * unit_float32(xp, w1).astype(np.float64)).astype(np.float32)
    radius = xp.sqrt(np.float32(-2.0) * xp.log(u1.astype(np.float64)).astype(np.float32))
    angle64 = angle.astype(np.float64)
    return (xp.sin(angle64).astype(np.float32) * radius,
            xp.cos(angle64).astype(np.float32) * radius)


def box_muller64(xp, w0, w1, w2, w3):
    """Two float64 normal values from four words each (TensorFlow's BoxMullerDouble)."""
    u1 = xp.maximum(unit_float64(xp, w0, w1), 1e-7)
    angle = 2.0 * np.pi * unit_float64(xp, w2, w3)
    radius = xp.sqrt(-2.0 * xp.log(u1))
    return xp.sin(angle) * radius, xp.cos(angle) * radius


def _interleave(xp, first, second):
    return xp.stack([first, second], axis=-1).reshape(-1)


# -- draws -----------------------------------------------------------------------------------

def uniform(xp, key, counter, n: int, dtype):
    """n floats in [0, 1) of `dtype` (float16, bfloat16, float32 or float64)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        w = words(xp, key, counter, 2 * n)
        return unit_float64(xp, w[0::2], w[1::2])
    w = words(xp, key, counter, n)
    if dtype == np.float32:
        return unit_float32(xp, w)
    return unit_half(xp, w, dtype)


def normal_dtype(dtype) -> type:
    """The dtype a normal draw is made in: float64 for float64, float32 otherwise (float16
    and bfloat16 values are float32 draws rounded, as TensorFlow's)."""
    return np.float64 if np.dtype(dtype) == np.float64 else np.float32


def normal(xp, key, counter, n: int, dtype):
    """n standard normal values; float16/bfloat16 are float32 draws rounded."""
    if np.dtype(dtype) == np.float64:
        w = blocks(xp, key, counter, 0, -(-n // 2))
        return _interleave(xp, *box_muller64(xp, w[:, 0], w[:, 1], w[:, 2], w[:, 3]))[:n]
    w = words(xp, key, counter, 2 * (-(-n // 2)))
    return _interleave(xp, *box_muller32(xp, w[0::2], w[1::2]))[:n]


def truncated_normal(key, counter, n: int, dtype):
    """n standard normal values of magnitude below 2 (NumPy): each group of outputs (4
    float32, 2 float64) takes the accepted Box-Muller values of its own run of 256 words per
    output, in order."""
    wide = np.dtype(dtype) == np.float64
    size = 2 if wide else 4
    per_group = size * _RESERVED_WORDS // 4  # blocks
    groups = -(-n // size)
    out = np.empty((groups, size), np.float64 if wide else np.float32)
    filled = np.zeros(groups, np.int64)
    step = 2  # blocks read per group per pass: 8 candidates (16 for float32) cover almost all
    start = 0
    pending = np.arange(groups)
    while pending.size:
        base = pending.astype(np.uint64) * per_group + start
        w = _group_blocks(key, counter, base, step).reshape(pending.size, -1)
        if wide:
            a, b = box_muller64(np, w[:, 0::4], w[:, 1::4], w[:, 2::4], w[:, 3::4])
        else:
            a, b = box_muller32(np, w[:, 0::2], w[:, 1::2])
        candidates = np.stack([a, b], axis=-1).reshape(pending.size, -1)
        accepted = np.abs(candidates) < 2.0
        for row, group in enumerate(pending):
            keep = candidates[row][accepted[row]][:size - filled[group]]
            out[group, filled[group]:filled[group] + keep.size] = keep
            filled[group] += keep.size
        start += step
        pending = pending[filled[pending] < size]
        if start >= per_group and pending.size:
            raise RuntimeError("truncated_normal: a group's reserved words held too few values "
                               "below 2 (probability below 1e-300)")
    return out.reshape(-1)[:n]


def _group_blocks(key, counter, base, step: int):
    """blocks base[g] .. base[g] + step - 1 for every group g: [groups, step, 4]."""
    index = (base[:, None] + np.arange(step, dtype=np.uint64)[None, :]).reshape(-1)
    words = _counters(np, counter, index.astype(_U32), (index >> np.uint64(32)).astype(_U32))
    return np.stack(rounds(np, words, key), axis=-1).reshape(base.size, step, 4)


def integers(xp, key, counter, n: int, lo, hi, dtype):
    """n integers in [lo, hi) of `dtype` (32-bit types from one word, 64-bit from two); the
    span hi - lo is read as unsigned, as TensorFlow's. With jax.numpy the bounds may be
    traced scalars."""
    dtype = np.dtype(dtype)
    wide = dtype.itemsize == 8
    w = words(xp, key, counter, 2 * n if wide else n)
    if wide:
        value = w[0::2].astype(np.uint64) | (w[1::2].astype(np.uint64) << np.uint64(32))
    if xp is np:
        lo, hi = int(lo), int(hi)
        if wide:
            offset = value % np.uint64((hi - lo) & 0xFFFFFFFFFFFFFFFF) \
                + np.uint64(lo & 0xFFFFFFFFFFFFFFFF)  # wraps as TensorFlow's
            return offset.view(dtype)
        return (lo + (w % np.uint32((hi - lo) & 0xFFFFFFFF)).astype(np.int64)).astype(dtype)
    lo, hi = xp.asarray(lo, dtype), xp.asarray(hi, dtype)
    if wide:
        span = (hi - lo).astype(np.uint64)
        return _bitcast(xp, value % span + lo.astype(np.uint64), dtype)
    span = (hi - lo).astype(_U32)
    return (lo.astype(np.int64) + (w % span).astype(np.int64)).astype(dtype)


def full_range(xp, key, counter, n: int, dtype):
    """n integers over the whole range of `dtype` (its bits are the stream's words)."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:
        w = words(xp, key, counter, 2 * n)
        value = w[0::2].astype(np.uint64) | (w[1::2].astype(np.uint64) << np.uint64(32))
        return value.view(dtype) if xp is np else _bitcast(xp, value, dtype)
    w = words(xp, key, counter, n)
    return w.view(dtype) if xp is np else _bitcast(xp, w, dtype)
