"""parse_example on batches, read all records at once (the usual encoding) or record by
record (anything else): the values put in (plain Python) come back, records encoded by the
protobuf package (its own map order and field layout) too, and errors are the same either
way."""

import numpy as np
import pytest

import runtime as rt
from runtime import train_example
from runtime.ops import io_example

from .test_example_parsing import _field, _hand_varint
from .test_tfrecord import _protobuf_example_class

SPEC = {"img": rt.io.FixedLenFeature([], rt.string), "label": rt.io.FixedLenFeature([], rt.int64),
        "vec": rt.io.FixedLenFeature([3], rt.float32), "tags": rt.io.VarLenFeature(rt.int64),
        "words": rt.io.RaggedFeature(rt.string), "opt": rt.io.FixedLenFeature([2], rt.float32,
                                                                              default_value=[7, 8])}


def _random_rows(n, seed=0):
    """Plain Python values of n records: bytes of lengths around the varint steps, int64s
    of every varint width and sign, an optional feature, unwanted keys."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        row = {"img": rng.bytes(int(rng.choice([0, 1, 127, 128, 300, 16384]))),
               "label": int(rng.choice([0, 1, 127, 128, -1, 2**40, -(2**63), 2**63 - 1])),
               "vec": rng.standard_normal(3).astype(np.float32).tolist(),
               "tags": [int(v) for v in rng.integers(-300, 300, i % 5)],
               "words": [b"w%d" % j for j in range(i % 3)],
               "unwanted-" + "x" * (i % 40): [float(i)]}
        if i % 4:
            row["opt"] = [float(i), -float(i)]
        rows.append(row)
    return rows


def _kind(key):
    return {"img": "bytes_list", "words": "bytes_list", "label": "int64_list",
            "tags": "int64_list", "n": "int64_list", "a": "int64_list", "b": "int64_list"}.get(
        key, "float_list")


def _feature(key, value):
    value = [value] if isinstance(value, (bytes, int)) else value
    kind = _kind(key)
    lists = {"bytes_list": rt.train.BytesList, "float_list": rt.train.FloatList,
             "int64_list": rt.train.Int64List}
    return rt.train.Feature(**{kind: lists[kind](value=value)})


def _ours(rows):
    return [rt.train.Example(features=rt.train.Features(feature={
        k: _feature(k, v) for k, v in row.items()})).SerializeToString() for row in rows]


def _protobufs(rows):
    cls = _protobuf_example_class()
    out = []
    for row in rows:
        example = cls()
        for key, value in reversed(list(row.items())):
            feature = example.features.feature[key]
            value = [value] if isinstance(value, (bytes, int)) else value
            kind = getattr(feature, _kind(key))
            kind.value.extend(value)
            if not value:
                kind.SetInParent()
        out.append(example.SerializeToString())
    return out


def _check(out, rows):
    assert out["img"].numpy().tolist() == [r["img"] for r in rows]
    np.testing.assert_array_equal(out["label"].numpy(), np.array([r["label"] for r in rows], np.int64))
    np.testing.assert_array_equal(out["vec"].numpy(), np.array([r["vec"] for r in rows], np.float32))
    tags = out["tags"]
    assert tags.values.numpy().tolist() == [v for r in rows for v in r["tags"]]
    assert tags.indices.numpy().tolist() == [[i, j] for i, r in enumerate(rows)
                                             for j in range(len(r["tags"]))]
    assert tags.dense_shape.numpy().tolist() == [len(rows), max(len(r["tags"]) for r in rows)]
    assert out["words"].to_list() == [r["words"] for r in rows]
    np.testing.assert_array_equal(out["opt"].numpy(), [r.get("opt", [7.0, 8.0]) for r in rows])


@pytest.fixture(params=["at once", "record by record"])
def reading(request, monkeypatch):
    """Runs a test with batches read at once (from 1 record) and record by record."""
    monkeypatch.setattr(io_example, "_BATCH_AT_ONCE", 1 if request.param == "at once" else 10**9)
    return request.param


@pytest.mark.parametrize("encode", [_ours, _protobufs])
def test_a_batch_gives_back_the_values_put_in(reading, encode):
    rows = _random_rows(40)
    records = encode(rows)
    _check(rt.io.parse_example(records, SPEC), rows)
    _check(rt.io.parse_example(records[:1], SPEC), rows[:1])


def test_the_usual_encoding_is_read_at_once():
    rows = _random_rows(20)
    for records in (_ours(rows), _protobufs(rows)):
        batch = train_example.example_batch(records, list(SPEC))
        assert batch is not None
        assert batch.present.sum() == sum(len(set(SPEC) & set(r)) for r in rows)


def _entry(key, feature):
    return _field(1, _field(1, key) + _field(2, feature))


def test_other_encodings_in_a_batch_parse_as_protobuf_defines(reading):
    """Unpacked lists, a key given twice (the last counts), two `features` fields (merged),
    an entry with its value first, a key other than ASCII: each record beside usual ones."""
    usual = _ours([{"x": [1.0, 2.0], "n": [3]}])[0]
    unpacked = _field(1, _entry(b"x", _field(2, b"".join(b"\x0d" + np.float32(v).tobytes()
                                                         for v in (4.0, 5.0))))
                      + _entry(b"n", _field(3, b"\x08" + _hand_varint(-6))))
    twice = _field(1, _entry(b"x", _field(2, _field(1, np.float32([0, 0]).tobytes())))
                   + _entry(b"n", _field(3, _field(1, b"\x01")))
                   + _entry(b"x", _field(2, _field(1, np.float32([6, 7]).tobytes()))))
    merged = (_field(1, _entry(b"x", _field(2, _field(1, np.float32([8, 9]).tobytes()))))
              + _field(1, _entry(b"n", _field(3, _field(1, b"\x02\x03")))))
    value_first = _field(1, _field(1, _field(2, _field(2, _field(1, np.float32([1, 1]).tobytes())))
                                   + _field(1, b"x")) + _entry(b"n", _field(3, b"")))
    other_key = _field(1, _entry("é".encode(), _field(3, _field(1, b"\x05")))
                       + _entry(b"x", _field(2, _field(1, np.float32([2, 3]).tobytes()))))
    spec = {"x": rt.io.FixedLenFeature([2], rt.float32), "n": rt.io.VarLenFeature(rt.int64)}
    expected_x = {unpacked: [4, 5], twice: [6, 7], merged: [8, 9], value_first: [1, 1],
                  other_key: [2, 3]}
    expected_n = {unpacked: [-6], twice: [1], merged: [2, 3], value_first: [], other_key: []}
    for odd in expected_x:
        records = [usual] * 5 + [odd] + [usual] * 3
        out = rt.io.parse_example(records, spec)
        np.testing.assert_array_equal(out["x"].numpy(), [[1, 2]] * 5 + [expected_x[odd]]
                                      + [[1, 2]] * 3)
        assert out["n"].values.numpy().tolist() == [3] * 5 + expected_n[odd] + [3] * 3
    out = rt.io.parse_example([other_key] * 3, {"é": rt.io.VarLenFeature(rt.int64)})
    assert out["é"].values.numpy().tolist() == [5, 5, 5]


_FLOATS = _field(2, _field(1, np.float32([0.5]).tobytes()))
_INTS = _field(3, _field(1, b"\x01"))


@pytest.mark.parametrize("spec, entries, message", [
    ({"a": rt.io.VarLenFeature(rt.int64)}, [(b"a", _FLOATS)], "Key: a, Index: 3.  Data types"),
    ({"a": rt.io.VarLenFeature(rt.int64)}, [(b"a", _field(2, b""))],
     "Key: a, Index: 3.  Data types"),
    ({"a": rt.io.FixedLenFeature([], rt.int64)}, [(b"a", _field(1, _field(1, b"x")))],
     "Key: a, Index: 3.  Data types"),
    ({"a": rt.io.FixedLenFeature([2], rt.int64)}, [(b"a", _INTS)], "Values size: 1 but output"),
    ({"a": rt.io.FixedLenFeature([1], rt.int64)}, [(b"b", _INTS)], "Feature: a .* is required"),
])
def test_errors_in_a_batch_name_the_key_and_record(reading, spec, entries, message):
    """TensorFlow 2.21 raises these (an empty list of another kind too) for record 3."""
    usual = _field(1, _entry(b"a", _INTS) + _entry(b"b", _INTS))
    odd = _field(1, b"".join(_entry(k, f) for k, f in entries))
    with pytest.raises(rt.errors.InvalidArgumentError, match=message):
        rt.io.parse_example([usual] * 3 + [odd] + [usual] * 2, spec)


def test_a_malformed_record_in_a_batch_is_invalid_argument(reading):
    good = _ours([{"x": [1.0, 2.0]}])[0]
    spec = {"x": rt.io.FixedLenFeature([2], rt.float32)}
    for cut in range(len(good)):
        with pytest.raises(rt.errors.InvalidArgumentError):
            rt.io.parse_example([good] * 4 + [good[:cut]], spec)
    varint_cut = _field(1, _entry(b"n", _field(3, _field(1, b"\x81")))) + good[2:]
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.io.parse_example([good] * 4 + [varint_cut], {"n": rt.io.VarLenFeature(rt.int64)})


def _outcome(records, at_once, monkeypatch):
    monkeypatch.setattr(io_example, "_BATCH_AT_ONCE", 1 if at_once else 10**9)
    try:
        out = rt.io.parse_example(records, SPEC)
    except rt.errors.InvalidArgumentError as exc:
        return str(exc)
    return repr({k: v.to_list() if hasattr(v, "to_list") else
                 [t.numpy().tolist() for t in (v.indices, v.values, v.dense_shape)]
                 if hasattr(v, "indices") else v.numpy().tolist() for k, v in out.items()})


def test_damaged_records_read_at_once_as_record_by_record(monkeypatch):
    """A byte of one record changed, cut out or added, 150 times (seeded): reading the batch
    at once gives the record-by-record reader's values, or its error message."""
    rows = _random_rows(20, seed=3)
    for row in rows:
        row["img"] = row["img"][:3]  # the framing is most of each record
    rng = np.random.default_rng(7)
    errors = 0
    for records in (_ours(rows), _protobufs(rows)):
        for _ in range(75):
            damaged = list(records)
            i = int(rng.integers(len(damaged)))
            data = bytearray(damaged[i])
            at = int(rng.integers(len(data)))
            change = rng.integers(3)
            if change == 0:
                data[at] = int(rng.integers(256))
            elif change == 1:
                del data[at]
            else:
                data.insert(at, int(rng.integers(256)))
            damaged[i] = bytes(data)
            expected = _outcome(damaged, False, monkeypatch)
            assert _outcome(damaged, True, monkeypatch) == expected
            errors += not expected.startswith("{")
    assert errors > 30  # the damage reached the framing often
