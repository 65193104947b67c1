"""FarmHash's 64-bit fingerprint (farmhashna's Hash64), which TensorFlow's
`to_hash_bucket_fast` and Keras's string hashing use, written here in Python from the
published algorithm."""

from __future__ import annotations

import struct

_MASK = (1 << 64) - 1
_K0, _K1, _K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F


def _rot(v: int, s: int) -> int:
    return v if s == 0 else ((v >> s) | (v << (64 - s))) & _MASK


def _f64(b: bytes, i: int) -> int:
    return struct.unpack_from("<Q", b, i)[0]


def _f32(b: bytes, i: int) -> int:
    return struct.unpack_from("<I", b, i)[0]


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _len16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _MASK
    a ^= a >> 47
    b = ((v ^ a) * mul) & _MASK
    b ^= b >> 47
    return (b * mul) & _MASK


def _len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_f64(s, 0) + _K2) & _MASK
        b = _f64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _MASK
        d = ((_rot(a, 25) + b) * mul) & _MASK
        return _len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _len16((n + (_f32(s, 0) << 3)) & _MASK, _f32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _MASK) * _K2) & _MASK
    return _K2


def _len17to32(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_f64(s, 0) * _K1) & _MASK
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _MASK
    d = (_f64(s, n - 16) * _K2) & _MASK
    return _len16((_rot((a + b) & _MASK, 43) + _rot(c, 30) + d) & _MASK,
                  (a + _rot((b + _K2) & _MASK, 18) + c) & _MASK, mul)


def _len33to64(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_f64(s, 0) * _K2) & _MASK
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _MASK
    d = (_f64(s, n - 16) * _K2) & _MASK
    y = (_rot((a + b) & _MASK, 43) + _rot(c, 30) + d) & _MASK
    z = _len16(y, (a + _rot((b + _K2) & _MASK, 18) + c) & _MASK, mul)
    e = (_f64(s, 16) * mul) & _MASK
    f = _f64(s, 24)
    g = ((y + _f64(s, n - 32)) * mul) & _MASK
    h = ((z + _f64(s, n - 24)) * mul) & _MASK
    return _len16((_rot((e + f) & _MASK, 43) + _rot(g, 30) + h) & _MASK,
                  (e + _rot((f + a) & _MASK, 18) + g) & _MASK, mul)


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = _f64(s, i), _f64(s, i + 8), _f64(s, i + 16), _f64(s, i + 24)
    a = (a + w) & _MASK
    b = _rot((b + a + z) & _MASK, 21)
    c = a
    a = (a + x + y) & _MASK
    b = (b + _rot(a, 44)) & _MASK
    return (a + z) & _MASK, (b + c) & _MASK


def fingerprint64(s: bytes) -> int:
    """FarmHash's Fingerprint64 of `s` (what TensorFlow's string hashing uses)."""
    n = len(s)
    if n <= 16:
        return _len0to16(s)
    if n <= 32:
        return _len17to32(s)
    if n <= 64:
        return _len33to64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _MASK
    z = (_shift_mix((y * _K2 + 113) & _MASK) * _K2) & _MASK
    v, w = (0, 0), (0, 0)
    x = (x * _K2 + _f64(s, 0)) & _MASK
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v[0] + _f64(s, i + 8)) & _MASK, 37) * _K1) & _MASK
        y = (_rot((y + v[1] + _f64(s, i + 48)) & _MASK, 42) * _K1) & _MASK
        x ^= w[1]
        y = (y + v[0] + _f64(s, i + 40)) & _MASK
        z = (_rot((z + w[0]) & _MASK, 33) * _K1) & _MASK
        v = _weak32(s, i, (v[1] * _K1) & _MASK, (x + w[0]) & _MASK)
        w = _weak32(s, i + 32, (z + w[1]) & _MASK, (y + _f64(s, i + 16)) & _MASK)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w = ((w[0] + ((n - 1) & 63)) & _MASK, w[1])
    v = ((v[0] + w[0]) & _MASK, v[1])
    w = ((w[0] + v[0]) & _MASK, w[1])
    x = (_rot((x + y + v[0] + _f64(s, i + 8)) & _MASK, 37) * mul) & _MASK
    y = (_rot((y + v[1] + _f64(s, i + 48)) & _MASK, 42) * mul) & _MASK
    x ^= (w[1] * 9) & _MASK
    y = (y + v[0] * 9 + _f64(s, i + 40)) & _MASK
    z = (_rot((z + w[0]) & _MASK, 33) * mul) & _MASK
    v = _weak32(s, i, (v[1] * mul) & _MASK, (x + w[0]) & _MASK)
    w = _weak32(s, i + 32, (z + w[1]) & _MASK, (y + _f64(s, i + 16)) & _MASK)
    z, x = x, z
    return _len16((_len16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _MASK,
                  (_len16(v[1], w[1], mul) + x) & _MASK, mul)
