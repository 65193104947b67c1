"""More of tf.strings: `to_hash_bucket` (TensorFlow's Hash64, a MurmurHash64A seeded
0xDECAFCAFFE), `to_hash_bucket_strong` (SipHash-2-4 keyed by two ints), `tf.fingerprint`
(FarmHash's Fingerprint64 of each row's bytes), `unsorted_segment_join`, `unicode_transcode`,
`unicode_decode_with_offsets` and `unicode_split_with_offsets`. The hashes are written here
from the published algorithms and give TensorFlow's values.
"""

from __future__ import annotations

import struct

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import BOOL, INT, INTS, STR, one_of
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_math as _math
from . import ragged_ops  # noqa: F401  (fills ragged.OPS: the vector forms stack their rows)
from . import strings as _strings
from .core import apply, convert_to_tensor
from .farmhash import fingerprint64
from .ragged import RaggedTensor

_MASK = (1 << 64) - 1


# -- hashes ---------------------------------------------------------------------------------------

def hash64(data: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TensorFlow's Hash64: MurmurHash64A over 8-byte little-endian words."""
    m, r = 0xC6A4A7935BD1E995, 47
    n = len(data)
    h = (seed ^ (n * m)) & _MASK
    full = n - n % 8
    for (k,) in struct.iter_unpack("<Q", data[:full]):
        k = (k * m) & _MASK
        k ^= k >> r
        k = (k * m) & _MASK
        h ^= k
        h = (h * m) & _MASK
    tail = data[full:]
    if tail:
        h ^= int.from_bytes(tail, "little")
        h = (h * m) & _MASK
    h ^= h >> r
    h = (h * m) & _MASK
    return h ^ (h >> r)


def _rotl(v: int, s: int) -> int:
    return ((v << s) | (v >> (64 - s))) & _MASK


def siphash24(k0: int, k1: int, data: bytes) -> int:
    """SipHash-2-4 of `data` under the 128-bit key (k0, k1)."""
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573

    def rounds(count, v0, v1, v2, v3):
        for _ in range(count):
            v0 = (v0 + v1) & _MASK
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _MASK
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _MASK
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _MASK
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        return v0, v1, v2, v3

    n = len(data)
    full = n - n % 8
    for (m,) in struct.iter_unpack("<Q", data[:full]):
        v3 ^= m
        v0, v1, v2, v3 = rounds(2, v0, v1, v2, v3)
        v0 ^= m
    last = ((n & 0xFF) << 56) | int.from_bytes(data[full:], "little")
    v3 ^= last
    v0, v1, v2, v3 = rounds(2, v0, v1, v2, v3)
    v0 ^= last
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(4, v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def _num_buckets(num_buckets, fn) -> int:
    n = _strings._int(num_buckets, fn, "num_buckets")
    if n < 1:
        raise ValueError(f"{fn}: num_buckets must be >= 1, got {n}.")
    return n


STRING_TO_HASH_BUCKET = _strings._define_string(
    "StringToHashBucket", _strings._elementwise("StringToHashBucket", _dtypes.int64),
    lambda x, num_buckets: _strings._map(lambda s: hash64(s) % num_buckets, x, np.int64),
    differentiable=False, attrs={"num_buckets": INT})


@export("strings.to_hash_bucket")
def to_hash_bucket(input, num_buckets: int, name: str | None = None) -> Tensor:  # noqa: A002
    """Each string hashed to a bucket in [0, num_buckets) (int64) by TensorFlow's Hash64
    (`to_hash_bucket_fast` is faster and spreads as well)."""
    x = _strings._strings(input, "strings.to_hash_bucket", "input")
    n = _num_buckets(num_buckets, "strings.to_hash_bucket")
    return apply(STRING_TO_HASH_BUCKET, [x], {"num_buckets": n}, name=name)


STRING_TO_HASH_BUCKET_STRONG = _strings._define_string(
    "StringToHashBucketStrong", _strings._elementwise("StringToHashBucketStrong", _dtypes.int64),
    lambda x, num_buckets, key: _strings._map(
        lambda s: siphash24(key[0], key[1], s) % num_buckets, x, np.int64),
    differentiable=False, attrs={"num_buckets": INT, "key": INTS})


@export("strings.to_hash_bucket_strong")
def to_hash_bucket_strong(input, num_buckets: int, key, name: str | None = None) -> Tensor:  # noqa: A002
    """Each string hashed to a bucket in [0, num_buckets) (int64) by SipHash-2-4 under `key`
    (two ints): buckets an adversary cannot steer without the key."""
    fn = "strings.to_hash_bucket_strong"
    x = _strings._strings(input, fn, "input")
    n = _num_buckets(num_buckets, fn)
    try:
        words = [int(k) for k in key]
    except TypeError:
        raise ValueError(f"{fn}: key must be a list of two ints, got {key!r}.") from None
    if len(words) != 2:
        raise ValueError(f"{fn}: key must be a list of two ints, got {key!r}.")
    return apply(STRING_TO_HASH_BUCKET_STRONG, [x],
                 {"num_buckets": n, "key": tuple(w & _MASK for w in words)}, name=name)


# -- fingerprint ---------------------------------------------------------------------------------

def _fingerprint_kernel(data, method):
    data = np.asarray(data)
    if data.ndim < 1:
        raise InvalidArgumentError("fingerprint: `data` must have rank 1 or more.")
    rows = data.reshape(data.shape[0], -1)
    out = np.zeros((data.shape[0], 8), np.uint8)
    for i, row in enumerate(rows):
        if data.dtype == object:
            if row.size == 1:
                value = fingerprint64(bytes(row[0]))
            else:  # the row's strings' fingerprints, concatenated, fingerprinted
                value = fingerprint64(b"".join(struct.pack("<Q", fingerprint64(bytes(s)))
                                               for s in row))
        else:
            value = fingerprint64(np.ascontiguousarray(row).tobytes())
        out[i] = np.frombuffer(struct.pack("<Q", value), np.uint8)
    return out


def _fingerprint_infer(data, method):
    if data.shape.rank == 0:
        raise InvalidArgumentError("fingerprint: `data` must have rank 1 or more.")
    first = None if data.shape.rank is None else data.shape.as_list()[0]
    return TensorShape([first, 8]), _dtypes.uint8


FINGERPRINT = _strings._define_string("Fingerprint", _fingerprint_infer, _fingerprint_kernel,
                                      differentiable=False,
                                      attrs={"method": one_of("farmhash64")})


@export("fingerprint")
def fingerprint(data, method="farmhash64", name=None) -> Tensor:
    """A fingerprint (uint8 [rows, 8], FarmHash's Fingerprint64, little-endian) of each row
    (slice along the first axis) of `data`: of its bytes for numbers, of its string for one
    string a row, of its strings' fingerprints for several."""
    if method != "farmhash64":
        raise ValueError(f"fingerprint: method must be 'farmhash64', got {method!r}.")
    data = convert_to_tensor(data)
    return apply(FINGERPRINT, [data], {"method": method}, name=name)


# -- unsorted_segment_join -----------------------------------------------------------------------

def _segment_join_kernel(inputs, segment_ids, num_segments, separator):
    inputs, ids = np.asarray(inputs, object), np.asarray(segment_ids)
    n = int(num_segments)
    if ids.shape != inputs.shape[:ids.ndim]:
        raise InvalidArgumentError(f"unsorted_segment_join: `segment_ids` of shape "
                                   f"{list(ids.shape)} must be a prefix of the inputs' shape "
                                   f"{list(inputs.shape)}.")
    if ids.size and (ids.max() >= n or ids.min() < 0):
        raise InvalidArgumentError(f"unsorted_segment_join: segment ids must be in [0, "
                                   f"num_segments = {n}), got {ids.min()} to {ids.max()}.")
    tail = inputs.shape[ids.ndim:]
    flat = inputs.reshape((-1,) + tail)
    parts = [[[] for _ in range(int(np.prod(tail, dtype=np.int64)))] for _ in range(n)]
    for k, seg in enumerate(ids.ravel().tolist()):
        for j, s in enumerate(np.asarray(flat[k], object).ravel().tolist()):
            parts[seg][j].append(s)
    sep = _strings._b(separator)
    out = np.empty(n * len(parts[0]) if n else 0, object)
    out[:] = [sep.join(p) for seg in parts for p in seg]
    return out.reshape((n,) + tail)


def _segment_join_infer(inputs, segment_ids, num_segments, separator):
    _strings._check_string("UnsortedSegmentJoin", inputs)
    if not segment_ids.dtype.is_integer:
        raise TypeError("unsorted_segment_join: `segment_ids` must be ints.")
    n = constant_value(num_segments)
    dims = inputs.shape.as_tuple()
    rank = segment_ids.shape.rank
    tail = None if dims is None or rank is None else list(dims[rank:])
    return TensorShape(None if tail is None else [None if n is None else int(n)] + tail), \
        _dtypes.string


UNSORTED_SEGMENT_JOIN = _strings._define_string(
    "UnsortedSegmentJoin", _segment_join_infer, _segment_join_kernel, differentiable=False,
    attrs={"separator": STR})


@export("strings.unsorted_segment_join")
def unsorted_segment_join(inputs, segment_ids, num_segments, separator="",
                          name=None) -> Tensor:
    """The strings of `inputs` joined by segment: out[i] joins (with `separator`, in their
    order) the entries whose `segment_ids` (a prefix of the inputs' shape) are i; an empty
    segment gives "", an id outside [0, num_segments) raises InvalidArgumentError. Shape
    [num_segments] + the rest of the inputs' shape."""
    fn = "strings.unsorted_segment_join"
    x = _strings._strings(inputs, fn, "inputs")
    ids = convert_to_tensor(segment_ids, dtype_hint=_dtypes.int32)
    n = convert_to_tensor(num_segments, dtype_hint=_dtypes.int32)
    if not n.dtype.is_integer or n.shape.rank not in (None, 0):
        raise TypeError(f"{fn}: num_segments must be an int scalar, got {n.dtype.name} of "
                        f"shape {n.shape}.")
    return apply(UNSORTED_SEGMENT_JOIN, [x, ids, n],
                 {"separator": _strings._text(separator, fn, "separator")}, name=name)


# -- unicode -----------------------------------------------------------------------------------------

def _transcode_kernel(x, input_encoding, output_encoding, errors, replacement_char,
                      replace_control_characters):
    codec = _strings._ENCODINGS[output_encoding]

    def one(data):
        points = _strings._decode(data, input_encoding, errors, replacement_char)
        if replace_control_characters:
            points = [replacement_char if c < 0x20 or 0x7F <= c < 0xA0 else c for c in points]
        return "".join(map(chr, points)).encode(codec, "surrogatepass")
    return _strings._map(one, x)


UNICODE_TRANSCODE = _strings._define_string(
    "UnicodeTranscode", _strings._elementwise("UnicodeTranscode"), _transcode_kernel,
    differentiable=False,
    attrs={"input_encoding": _strings._ENCODING, "output_encoding": _strings._ENCODING,
           **_strings._UNICODE, "replace_control_characters": BOOL})


@export("strings.unicode_transcode")
def unicode_transcode(input, input_encoding, output_encoding, errors="replace",  # noqa: A002
                      replacement_char=65533, replace_control_characters=False,
                      name=None) -> Tensor:
    """Each string decoded from `input_encoding` and encoded in `output_encoding` ('UTF-8',
    'UTF-16-BE', 'UTF-32-BE'); invalid sequences become `replacement_char`
    (errors='replace'), are dropped ('ignore') or raise InvalidArgumentError ('strict'), and
    with `replace_control_characters` so do C0 and C1 control characters."""
    fn = "strings.unicode_transcode"
    x = _strings._strings(input, fn, "input")
    attrs = _strings._unicode_args(fn, input_encoding, errors, replacement_char,
                                   "input_encoding")
    attrs["output_encoding"] = _strings._encoding(output_encoding, fn, "output_encoding")
    attrs["replace_control_characters"] = _strings._bool(replace_control_characters, fn,
                                                         "replace_control_characters")
    return apply(UNICODE_TRANSCODE, [x], attrs, name=name)


def _decode_offsets(data: bytes, input_encoding: str, errors: str, replacement_char: int):
    """(code points, the byte offset where each starts)."""
    unit = {"UTF-8": 1, "UTF-16-BE": 2, "UTF-32-BE": 4}[input_encoding]
    points, offsets, i = [], [], 0
    codec = _strings._ENCODINGS[input_encoding]
    while i < len(data):
        step = unit
        if unit == 1:
            lead = data[i]
            step = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        elif unit == 2 and 0xD8 <= data[i] <= 0xDB:
            step = 4
        chunk = data[i:i + step]
        try:
            text = chunk.decode(codec)
            if len(text) != 1:
                raise UnicodeDecodeError(codec, chunk, 0, len(chunk), "not one character")
            points.append(ord(text))
            offsets.append(i)
            i += step
        except UnicodeDecodeError:
            if errors == "strict":
                raise InvalidArgumentError(f"strings.unicode_decode_with_offsets: the string "
                                           f"{data!r} is not valid {input_encoding}.") from None
            if errors == "replace":
                points.append(replacement_char)
                offsets.append(i)
            i += unit
    return points, offsets


def _with_offsets(fn, input, input_encoding, errors, replacement_char, split: bool):  # noqa: A002
    x = _strings._strings(input, fn, "input")
    attrs = _strings._unicode_args(fn, input_encoding, errors, replacement_char,
                                   "input_encoding")
    if split:
        chars = _strings.unicode_split(x, **attrs)
    else:
        chars = _strings.unicode_decode(x, **attrs)
    offsets = _strings._per_element(fn, x, lambda s: apply(UNICODE_OFFSETS, [s], attrs))
    return chars, offsets


def _offsets_infer(x, **attrs):
    _strings._to_vector("UnicodeDecodeOffsets")(x)
    return TensorShape([None]), _dtypes.int64


UNICODE_OFFSETS = _strings._define_string(
    "UnicodeDecodeOffsets", _offsets_infer,
    lambda x, **attrs: np.array(_decode_offsets(_strings._objects(x)[()], **attrs)[1], np.int64),
    differentiable=False, attrs={"input_encoding": _strings._ENCODING, **_strings._UNICODE})


@export("strings.unicode_decode_with_offsets")
def unicode_decode_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                                replacement_char=65533, replace_control_characters=False,
                                name=None) -> tuple[Tensor | RaggedTensor, Tensor | RaggedTensor]:
    """(`unicode_decode`'s code points, the byte offset (int64) in the string where each
    character starts)."""
    if replace_control_characters:
        raise NotImplementedError("strings.unicode_decode_with_offsets: "
                                  "replace_control_characters=True is not implemented.")
    return _with_offsets("strings.unicode_decode_with_offsets", input, input_encoding, errors,
                         replacement_char, split=False)


@export("strings.unicode_split_with_offsets")
def unicode_split_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                               replacement_char=65533,
                               name=None) -> tuple[Tensor | RaggedTensor, Tensor | RaggedTensor]:
    """(`unicode_split`'s characters, the byte offset (int64) in the string where each
    starts)."""
    return _with_offsets("strings.unicode_split_with_offsets", input, input_encoding, errors,
                         replacement_char, split=True)



# -- ngrams ---------------------------------------------------------------------------------------

def _ngrams_kernel(data, splits, separator, ngram_widths, left_pad, right_pad, pad_width,
                   preserve_short_sequences):
    data, splits = np.asarray(data, object).tolist(), np.asarray(splits).tolist()
    sep, left, right = _strings._b(separator), _strings._b(left_pad), _strings._b(right_pad)

    def pads(width):
        return min(pad_width, width - 1) if pad_width >= 0 else width - 1

    def grams(row, width, pad):
        padded = [left] * pad + row + [right] * pad
        return [sep.join(padded[k:k + width]) for k in range(len(padded) - width + 1)]

    out, out_splits = [], [0]
    for start, end in zip(splits[:-1], splits[1:]):
        row = data[start:end]
        made = [g for width in ngram_widths for g in grams(row, width, pads(width))]
        if preserve_short_sequences and not made and row:
            pad = max(pad_width, 0)
            made = grams(row, len(row) + 2 * pad, pad)
        out.extend(made)
        out_splits.append(len(out))
    values = np.empty(len(out), object)
    values[:] = out
    return values, np.asarray(out_splits, np.int64)


def _ngrams_infer(data, splits, **attrs):
    _strings._check_string("StringNGrams", data)
    return [(TensorShape([None]), _dtypes.string), (TensorShape([None]), _dtypes.int64)]


STRING_NGRAMS = _strings._define_string(
    "StringNGrams", _ngrams_infer, _ngrams_kernel, num_outputs=2, differentiable=False,
    attrs={"separator": STR, "ngram_widths": INTS, "left_pad": STR, "right_pad": STR,
           "pad_width": INT, "preserve_short_sequences": BOOL})


@export("strings.ngrams")
def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None) -> Tensor | RaggedTensor:
    """The n-grams of the strings along the last axis of `data` (a tensor or a RaggedTensor):
    windows of each width in `ngram_width` joined with `separator`, every width's in turn.
    `pad_values` (one string, or a (left, right) pair) pads each sequence by `padding_width`
    (default: width - 1, at most width - 1) on both ends; `preserve_short_sequences` makes one
    n-gram of a (padded) sequence too short for any. A dense input gives a dense result (its
    rows are all one length), a ragged input a RaggedTensor."""
    fn = "strings.ngrams"
    widths = [ngram_width] if isinstance(ngram_width, (int, np.integer)) else list(ngram_width)
    if not widths or any(int(w) <= 0 for w in widths):
        raise ValueError(f"{fn}: all ngram widths must be greater than 0, got {ngram_width!r}.")
    if pad_values is None:
        if padding_width is not None:
            raise ValueError(f"{fn}: pad_values must be given when padding_width is set.")
        left = right = ""
        pad = 0
    else:
        if isinstance(pad_values, (tuple, list)):
            if len(pad_values) != 2:
                raise ValueError(f"{fn}: pad_values must be a string or a (left, right) pair.")
            left, right = (_strings._text(v, fn, "pad_values") for v in pad_values)
        else:
            left = right = _strings._text(pad_values, fn, "pad_values")
        if padding_width is not None and int(padding_width) < 1:
            raise ValueError(f"{fn}: padding_width must be at least 1, got {padding_width}.")
        pad = -1 if padding_width is None else int(padding_width)
    attrs = {"separator": _strings._text(separator, fn, "separator"),
             "ngram_widths": tuple(int(w) for w in widths), "left_pad": left, "right_pad": right,
             "pad_width": pad, "preserve_short_sequences": bool(preserve_short_sequences)}
    if isinstance(data, RaggedTensor):
        if data.ragged_rank != 1:
            return data.with_values(ngrams(data.values, ngram_width, separator, pad_values,
                                           padding_width, preserve_short_sequences, name))
        _strings._check_string(fn, data.values)
        values, splits = apply(STRING_NGRAMS, [data.values, data.row_splits], attrs, name=name)
        return RaggedTensor.from_row_splits(values, splits, validate=False)
    x = _strings._strings(data, fn, "data")
    if x.shape.rank == 0:
        raise ValueError(f"{fn}: data must have rank 1 or more, got a scalar.")
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None or dims[-1] is None:
        raise ValueError(f"{fn}: a dense `data` needs its last axis known when traced, got "
                         f"shape {x.shape}.")
    rows = _math.reshape(x, [-1, dims[-1]])
    count = _math.shape(rows, out_type=_dtypes.int64)[0]
    splits = _math.range(0, count + 1, dtype=_dtypes.int64) * dims[-1]
    values, _ = apply(STRING_NGRAMS, [_math.reshape(rows, [-1]), splits], attrs, name=name)
    per_row = _ngram_count(dims[-1], attrs)
    return _math.reshape(values, _math.concat(
        [_math.shape(x)[:-1], _math.int_vector([per_row])], 0))


def _ngram_count(length: int, attrs) -> int:
    pad = attrs["pad_width"]
    total = sum(max(0, length + 2 * (min(pad, w - 1) if pad >= 0 else w - 1) - w + 1)
                for w in attrs["ngram_widths"])
    if total == 0 and attrs["preserve_short_sequences"] and length > 0:
        return 1
    return total
