"""rt.strings against Python's bytes/str methods and `re`: eagerly and staged in rt.function
(the NumPy tier), on scalars, vectors and matrices, with UTF-8 text and argument errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

S = rt.strings
WORDS = ["Hello World", "  héllo\twörld  ", "", "a,b,,c", "ÀÉÎ ñ", "x\x00y", "日本語 テキスト"]
MATRIX = [["ab", "Çd e"], ["", "  x  "], ["1,2", "ß"]]


def _bytes(value):
    """Nested lists of str as nested lists of UTF-8 bytes."""
    if isinstance(value, list):
        return [_bytes(v) for v in value]
    return value.encode() if isinstance(value, str) else value


def _oracle(fn, value, dtype=object):
    """`fn` over the UTF-8 bytes of each item of `value` (a str or nested lists of str)."""
    data = np.empty(np.shape(value), dtype=object)
    flat = data.reshape(-1)
    flat[:] = [fn(b) for b in np.asarray(_bytes(value), dtype=object).reshape(-1).tolist()]
    return data.astype(dtype)


def _run(fn, *args):
    """`fn(*args)` eagerly and staged (tensor arguments become graph inputs): both results."""
    tensors = [rt.constant(a) if isinstance(a, (list, str, bytes)) else a for a in args]
    return fn(*tensors), rt.function(fn)(*tensors)


def _check(fn, args, expected):
    for got in _run(fn, *args):
        assert got.dtype == (rt.string if np.asarray(expected).dtype == object else got.dtype)
        assert got.shape == np.shape(expected)
        np.testing.assert_array_equal(got.numpy(), expected)


# -- elementwise ops: length, upper, lower, strip ------------------------------------------------

@pytest.mark.parametrize("value", [WORDS, MATRIX, "héllo", ["a"]])
def test_length_in_bytes_and_in_characters(value):
    _check(lambda x: S.length(x), [value], _oracle(len, value, np.int32))
    _check(lambda x: S.length(x, unit="UTF8_CHAR"), [value],
           _oracle(lambda b: len(b.decode()), value, np.int32))
    assert S.length(rt.constant(WORDS)).dtype == rt.int32


def test_length_in_characters_counts_bytes_that_start_one():
    bad = rt.constant([b"\xff\xfe", b"a\x80", b"\xc3"])  # not UTF-8
    np.testing.assert_array_equal(S.length(bad, unit="UTF8_CHAR"), [2, 1, 1])


@pytest.mark.parametrize("value", [WORDS, MATRIX, "ÀbÇ"])
def test_upper_lower_strip_as_python(value):
    _check(lambda x: S.upper(x), [value], _oracle(bytes.upper, value))  # ASCII only
    _check(lambda x: S.lower(x), [value], _oracle(bytes.lower, value))
    _check(lambda x: S.upper(x, encoding="utf-8"), [value],
           _oracle(lambda b: b.decode().upper().encode(), value))
    _check(lambda x: S.lower(x, encoding="utf-8"), [value],
           _oracle(lambda b: b.decode().lower().encode(), value))
    _check(lambda x: S.strip(x), [value], _oracle(bytes.strip, value))


def test_ops_keep_bytes_that_are_not_utf8():
    x = rt.constant([b"\xffAb\x00", b"\xc3("])
    assert S.upper(x, encoding="utf-8").numpy().tolist() == [b"\xffAB\x00", b"\xc3("]
    assert S.regex_replace(x, "A", "z").numpy().tolist() == [b"\xffzb\x00", b"\xc3("]
    assert S.join([x, b"\xfe"]).numpy().tolist() == [b"\xffAb\x00\xfe", b"\xc3(\xfe"]
    assert S.length(x).numpy().tolist() == [4, 2]


# -- join, reduce_join ---------------------------------------------------------------------------

def test_join_broadcasts_like_numpy():
    a = [["a", "b", "c"], ["d", "e", "f"]]
    expected = [[f"{x}-{y}-!" for x, y in zip(row, ["1", "2", "3"])] for row in a]
    _check(lambda x, y: S.join([x, y, "!"], separator="-"), [a, ["1", "2", "3"]],
           np.array(_bytes(expected), dtype=object))
    _check(lambda x: S.join([x]), [WORDS], np.array(_bytes(WORDS), dtype=object))
    _check(lambda x: S.join(["é", x], separator="·"), ["x"], np.array("é·x".encode(), object))


@pytest.mark.parametrize("axis,keepdims", [(None, False), (None, True), (0, False), (1, True),
                                           (-1, False), ([0, 1], False)])
def test_reduce_join_as_python_join(axis, keepdims):
    data = np.array(_bytes(MATRIX), dtype=object)
    axes = (0, 1) if axis is None else tuple(np.atleast_1d(axis) % 2)
    kept = [d for d in range(2) if d not in axes]
    moved = np.transpose(data, kept + list(axes)).reshape([data.shape[d] for d in kept] + [-1])
    expected = np.empty(moved.shape[:-1], object)
    for index in np.ndindex(expected.shape):
        expected[index] = b"|".join(moved[index])
    if keepdims:
        expected = expected.reshape([1 if d in axes else data.shape[d] for d in range(2)])
    _check(lambda x: S.reduce_join(x, axis=axis, keepdims=keepdims, separator="|"), [MATRIX],
           expected)


def test_reduce_join_of_nothing_is_empty():
    empty = rt.constant(np.empty((0, 3), dtype=object), dtype=rt.string)
    np.testing.assert_array_equal(S.reduce_join(empty, axis=0), [b"", b"", b""])
    assert S.reduce_join(empty).numpy() == b""


# -- split, bytes_split, unicode_split -----------------------------------------------------------

@pytest.mark.parametrize("sep,maxsplit", [(None, -1), (",", -1), (",", 1), ("", -1),
                                          (" ", 2), ("ll", -1)])
def test_split_as_bytes_split(sep, maxsplit):
    for text in WORDS:
        expected = text.encode().split(sep.encode() if sep else None, maxsplit)
        for got in _run(lambda x: S.split(x, sep=sep, maxsplit=maxsplit), text):
            assert got.dtype == rt.string and got.shape.rank == 1
            assert got.numpy().tolist() == expected


def test_split_of_a_vector_is_a_ragged_tensor():
    for result in _run(lambda x: S.split(x, ","), ["a,b", "", "c,,d"]):
        assert isinstance(result, rt.RaggedTensor) and result.shape.as_list() == [3, None]
        assert result.to_list() == [s.encode().split(b",") for s in ["a,b", "", "c,,d"]]


def test_split_staged_has_an_unknown_length():
    f = rt.function(lambda x: S.split(x))
    graph = f.get_concrete_function(rt.TensorSpec([], rt.string)).graph
    assert graph.outputs[0].shape.as_list() == [None]
    np.testing.assert_array_equal(f(rt.constant("a b  c ")), [b"a", b"b", b"c"])


def test_bytes_and_unicode_split():
    for text in WORDS:
        data = text.encode()
        for got in _run(lambda x: S.bytes_split(x), text):
            assert got.numpy().tolist() == [data[i:i + 1] for i in range(len(data))]
        for got in _run(lambda x: S.unicode_split(x, "UTF-8"), text):
            assert got.numpy().tolist() == [c.encode() for c in text]
    rows = S.unicode_split(rt.constant(["ab", "é"]), "UTF-8")
    assert [r.numpy().tolist() for r in rows] == [[b"a", b"b"], ["é".encode()]]


# -- unicode_decode, unicode_encode --------------------------------------------------------------

@pytest.mark.parametrize("encoding,codec", [("UTF-8", "utf-8"), ("UTF-16-BE", "utf-16-be"),
                                            ("UTF-32-BE", "utf-32-be")])
def test_unicode_decode_and_encode_round_trip(encoding, codec):
    for text in WORDS + ["😀 emoji"]:
        points = [ord(c) for c in text]
        for got in _run(lambda x: S.unicode_decode(x, encoding), text.encode(codec)):
            assert got.dtype == rt.int32
            assert got.numpy().tolist() == points
        if points:
            for got in _run(lambda p: S.unicode_encode(p, encoding),
                            rt.constant(points, rt.int32)):
                assert got.numpy() == text.encode(codec)


def test_unicode_encode_of_a_matrix_encodes_each_row():
    points = np.array([[104, 105], [233, 0x1F600]], np.int32)
    _check(lambda p: S.unicode_encode(p, "UTF-8"), [rt.constant(points)],
           np.array([b"hi", "é😀".encode()], dtype=object))


def test_unicode_errors_replace_ignore_or_raise():
    bad = b"a\xffb\xe2\x82"
    assert S.unicode_decode(bad, "UTF-8").numpy().tolist() == [97, 0xFFFD, 98, 0xFFFD]
    assert S.unicode_decode(bad, "UTF-8", replacement_char=63).numpy().tolist() == [97, 63, 98, 63]
    assert S.unicode_decode(bad, "UTF-8", errors="ignore").numpy().tolist() == [97, 98]
    with pytest.raises(InvalidArgumentError, match=r"b'a\\xffb\\xe2\\x82' is not valid UTF-8"):
        S.unicode_decode(bad, "UTF-8", errors="strict")
    f = rt.function(lambda x: S.unicode_decode(x, "UTF-8", errors="strict"))
    with pytest.raises(InvalidArgumentError, match="not valid UTF-8"):
        f(rt.constant(bad))
    points = rt.constant([104, -1, 0xD800, 0x110000, 105])
    assert S.unicode_encode(points, "UTF-8").numpy() == "h\ufffd\ufffd\ufffdi".encode()
    assert S.unicode_encode(points, "UTF-8", errors="ignore").numpy() == b"hi"
    with pytest.raises(InvalidArgumentError, match="-1 is not a Unicode code point"):
        S.unicode_encode(points, "UTF-8", errors="strict")


# -- format, as_string, to_number ----------------------------------------------------------------

def test_format_prints_values_as_rt_print(capsys):
    a, b = rt.constant([[1.5, 2.0], [3.0, 4.0]]), rt.constant("text")
    rt.print(a, b)
    printed = capsys.readouterr().out.rstrip("\n")
    for got in _run(lambda x, y: S.format("{} {}", [x, y]), a, b):
        assert got.shape == [] and got.numpy() == printed.encode()
    got = S.format("n={}!", rt.constant(7))
    assert got.numpy() == b"n=7!"
    assert S.format("no placeholders", []).numpy() == b"no placeholders"
    assert S.format("<>:<>", [1, "é"], placeholder="<>").numpy() == "1:é".encode()


def test_format_summarizes_long_axes():
    x = rt.constant(np.arange(10))
    assert S.format("{}", x).numpy() == b"[0 1 2 ... 7 8 9]"
    assert S.format("{}", x, summarize=2).numpy() == b"[0 1 ... 8 9]"
    assert S.format("{}", x, summarize=-1).numpy() == str(np.arange(10)).encode()
    assert S.format("{}", rt.constant([1, 2])).numpy() == b"[1 2]"


@pytest.mark.parametrize("kwargs,fmt", [({}, "%f"), ({"precision": 2}, "%.2f"),
                                        ({"scientific": True}, "%e"), ({"shortest": True}, "%g"),
                                        ({"width": 12, "precision": 3}, "%12.3f"),
                                        ({"width": 10, "fill": "0"}, "%010f"),
                                        ({"width": 10, "fill": "-"}, "%-10f")])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_as_string_of_floats_as_printf(kwargs, fmt, dtype):
    values = np.array([[0.1, -2.5], [1e10, 3.0]], dtype)
    expected = np.array([[(fmt % float(v)).encode() for v in row] for row in values], object)
    _check(lambda x: rt.as_string(x, **kwargs), [rt.constant(values)], expected)


def test_as_string_of_ints_bools_complex_and_strings():
    ints = rt.constant([3, -42, 0], rt.int64)
    np.testing.assert_array_equal(rt.as_string(ints), [b"3", b"-42", b"0"])
    np.testing.assert_array_equal(rt.strings.as_string(ints, width=4, fill="0"),
                                  [b"0003", b"-042", b"0000"])
    np.testing.assert_array_equal(rt.as_string(ints, width=4), [b"   3", b" -42", b"   0"])
    np.testing.assert_array_equal(rt.as_string([True, False]), [b"true", b"false"])
    np.testing.assert_array_equal(rt.as_string(rt.constant([1 + 2j], rt.complex64), precision=1),
                                  [b"(1.0,2.0)"])
    np.testing.assert_array_equal(rt.as_string(rt.constant(["ab"]), width=4), [b"  ab"])
    assert rt.as_string(np.float32(np.nan)).numpy() == b"nan"


@pytest.mark.parametrize("out_type", [rt.float32, rt.float64, rt.int32, rt.int64])
def test_to_number_as_python_float_and_int(out_type):
    texts = ["12", " -7 ", "+3", "0"] if out_type.is_integer else ["1.5", "-2e3", " 7 ", "inf",
                                                                   ".25", "1E-3"]
    parse = int if out_type.is_integer else float
    expected = np.array([parse(t) for t in texts], out_type.as_numpy_dtype)
    for got in _run(lambda x: S.to_number(x, out_type=out_type), texts):
        assert got.dtype == out_type
        np.testing.assert_array_equal(got, expected)
    assert S.to_number("2.5").dtype == rt.float32  # the default


@pytest.mark.parametrize("text,out_type", [("abc", rt.float32), ("1.5", rt.int32), ("", rt.float64),
                                           ("1_000", rt.int64), ("3000000000", rt.int32),
                                           ("١٢", rt.int32)])
def test_to_number_raises_naming_the_string(text, out_type):
    with pytest.raises(InvalidArgumentError, match=re.escape(repr(text.encode()))):
        S.to_number(["1", text], out_type=out_type)
    f = rt.function(lambda x: S.to_number(x, out_type=out_type))
    with pytest.raises(InvalidArgumentError, match=re.escape(repr(text.encode()))):
        f(rt.constant(["1", text]))


# -- regular expressions --------------------------------------------------------------------------

@pytest.mark.parametrize("pattern,rewrite,python_rewrite", [
    (r"o", "0", "0"), (r"(\w+) (\w+)", r"\2 \1", r"\2 \1"), (r"l+", r"<\0>", r"<\g<0>>"),
    (r"\s+", " ", " "), (r"^", ">", ">"), (r"[éö]", "e", "e"), (r"(a)|b", r"[\1]", r"[\1]"),
    (r"\\", r"\\\\", r"\\\\"), (r"\d", "#", "#")])
@pytest.mark.parametrize("replace_global", [True, False])
def test_regex_replace_as_re_sub(pattern, rewrite, python_rewrite, replace_global):
    regex, count = re.compile(pattern, re.ASCII), 0 if replace_global else 1
    words = WORDS + ["a\\b 1"]
    expected = _oracle(lambda b: regex.sub(python_rewrite, b.decode(), count=count).encode(), words)
    _check(lambda x: S.regex_replace(x, pattern, rewrite, replace_global=replace_global), [words],
           expected)


@pytest.mark.parametrize("pattern", [r"\w+ \w+", r".*o.*", r"", r"[^,]*(,[^,]*)*", r"\S+", "..."])
def test_regex_full_match_as_re_fullmatch(pattern):
    regex = re.compile(pattern, re.ASCII)
    for value in (WORDS, MATRIX):
        _check(lambda x: S.regex_full_match(x, pattern), [value],
               _oracle(lambda b: regex.fullmatch(b.decode()) is not None, value, bool))


def test_regex_dot_is_one_character_and_re2_spellings():
    np.testing.assert_array_equal(S.regex_full_match(["é", "ab"], "."), [True, False])
    assert S.regex_replace("ab\nab", r"b\z", "!").numpy() == b"ab\na!"
    assert S.regex_replace("é", r"\x{e9}", "e").numpy() == b"e"


def test_regex_errors_name_the_pattern_or_rewrite():
    with pytest.raises(InvalidArgumentError, match=r"invalid pattern '\('"):
        S.regex_replace("a", "(", "")
    with pytest.raises(InvalidArgumentError, match=r"invalid pattern '\['"):
        S.regex_full_match("a", "[")
    with pytest.raises(InvalidArgumentError, match="refers to group"):
        S.regex_replace("a", "(a)", r"\2")
    with pytest.raises(InvalidArgumentError, match="invalid rewrite"):
        S.regex_replace("a", "a", r"\n")


# -- substr ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("pos,length", [(0, 3), (2, 100), (1, 0), (-3, 2), (0, -1), (-1, 5)])
def test_substr_as_slicing(pos, length):
    words = ["Hello", "héllo wörld", "abc"]

    def cut(seq):
        start = pos + len(seq) if pos < 0 else pos
        return seq[start:] if length < 0 else seq[start:start + length]
    _check(lambda x: S.substr(x, pos, length), [words], _oracle(cut, words))
    _check(lambda x: S.substr(x, pos, length, unit="UTF8_CHAR"), [words],
           _oracle(lambda b: cut(b.decode()).encode(), words))


def test_substr_broadcasts_positions_and_raises_out_of_range():
    got = S.substr(rt.constant(["abcd", "efgh"]), rt.constant([0, 2]), 2)
    np.testing.assert_array_equal(got, [b"ab", b"gh"])
    got = S.substr(rt.constant("abcdef"), rt.constant([[0], [3]]), rt.constant([1, 2]))
    np.testing.assert_array_equal(got, [[b"a", b"ab"], [b"d", b"de"]])
    assert S.substr("abc", 3, 1).numpy() == b""
    with pytest.raises(InvalidArgumentError, match=r"pos 4 is out of range for the string b'abc'"):
        S.substr(["abc"], 4, 1)
    f = rt.function(lambda x: S.substr(x, -5, 1))
    with pytest.raises(InvalidArgumentError, match="pos -5 is out of range"):
        f(rt.constant(["abc"]))
    with pytest.raises(InvalidArgumentError, match="not valid UTF-8"):
        S.substr([b"\xff"], 0, 1, unit="UTF8_CHAR")


# -- hashing ----------------------------------------------------------------------------------------

def test_to_hash_bucket_fast_is_stable_and_in_range():
    for got in _run(lambda x: S.to_hash_bucket_fast(x, 7), MATRIX):
        assert got.dtype == rt.int64 and got.shape == [3, 2]
        assert ((got.numpy() >= 0) & (got.numpy() < 7)).all()
    a, b = S.to_hash_bucket_fast(["x", "y", "x"], 1000).numpy()[[0, 2]], None
    assert a[0] == a[1] and b is None
    assert S.to_hash_bucket_fast("anything", 1).numpy() == 0


# -- staging, saving, errors ------------------------------------------------------------------------

def test_staged_ops_record_their_attributes_and_shapes():
    def f(x):
        return S.regex_replace(S.lower(x), "a", "b"), S.length(x), S.reduce_join(x, axis=1)
    graph = rt.function(f).get_concrete_function(rt.TensorSpec([None, 2], rt.string)).graph
    types = [op.type for op in graph.operations]
    assert {"StringLower", "StaticRegexReplace", "StringLength", "ReduceJoin"} <= set(types)
    assert [t.shape.as_list() for t in graph.outputs] == [[None, 2], [None, 2], [None]]
    assert [t.dtype for t in graph.outputs] == [rt.string, rt.int32, rt.string]


def test_string_functions_and_constants_round_trip_in_saved_models(tmp_path):
    class M(rt.Module):
        @rt.function(input_signature=[rt.TensorSpec([None], rt.string)])
        def f(self, x):
            words = S.split(S.reduce_join(x, separator=" "))
            return (S.join([S.upper(x, encoding="utf-8"), "é\xff", b"\x00\xfe"], separator="|"),
                    S.length(x, unit="UTF8_CHAR"), S.regex_replace(x, r"(\w)", r"<\1>", False),
                    S.to_number(S.join(["1", S.regex_replace(x, "[^0-9]", "0")]), rt.int64), words,
                    rt.as_string(S.length(x), width=3, fill="0"), S.substr(x, 0, 2),
                    S.format("{}", words), S.unicode_decode(x[0], "UTF-8"),
                    S.regex_full_match(x, r"\w+"), S.to_hash_bucket_fast(x, 9))
    m = M()
    rt.saved_model.save(m, str(tmp_path / "m"))
    loaded = rt.saved_model.load(str(tmp_path / "m"))
    x = rt.constant(["abé1", "x y", ""])
    for a, b in zip(loaded.f(x), m.f(x)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("call,arg", [
    (lambda v: S.length(v), "input"), (lambda v: S.upper(v), "input"),
    (lambda v: S.lower(v), "input"), (lambda v: S.strip(v), "input"),
    (lambda v: S.join(["a", v]), r"inputs\[1\]"), (lambda v: S.reduce_join(v), "inputs"),
    (lambda v: S.split(v), "input"), (lambda v: S.to_number(v), "string_tensor"),
    (lambda v: S.regex_replace(v, "a", "b"), "input"),
    (lambda v: S.regex_full_match(v, "a"), "input"), (lambda v: S.substr(v, 0, 1), "input"),
    (lambda v: S.unicode_decode(v, "UTF-8"), "input"), (lambda v: S.bytes_split(v), "input"),
    (lambda v: S.unicode_split(v, "UTF-8"), "input"),
    (lambda v: S.to_hash_bucket_fast(v, 3), "input")])
def test_numbers_where_strings_belong_raise_type_error_naming_the_argument(call, arg):
    with pytest.raises(TypeError, match=rf"{arg} must be a string tensor, got .*int32"):
        call(rt.constant([1, 2]))
    f = rt.function(call)
    with pytest.raises(TypeError, match=rf"{arg} must be a string tensor"):
        f(rt.constant([1.0]))


def test_argument_errors_are_clear():
    with pytest.raises(ValueError, match="unit must be one of"):
        S.length("a", unit="CHAR")
    with pytest.raises(TypeError, match="unexpected keyword argument 'seperator'"):
        S.join(["a"], seperator="-")
    with pytest.raises(TypeError, match="inputs must be a list"):
        S.join("ab")
    with pytest.raises(ValueError, match="at least one"):
        S.join([])
    with pytest.raises(ValueError, match="2 placeholder"):
        S.format("{} {}", [1])
    with pytest.raises(ValueError, match="summarize must be positive or -1"):
        S.format("{}", [1], summarize=0)
    with pytest.raises(TypeError, match="out_type must be one of"):
        S.to_number("1", out_type=rt.bool)
    with pytest.raises(ValueError, match="precision applies to floating-point"):
        rt.as_string(1, precision=2)
    with pytest.raises(ValueError, match="scientific and shortest"):
        rt.as_string(1.0, scientific=True, shortest=True)
    with pytest.raises(ValueError, match="fill must be one of"):
        rt.as_string(1.0, width=3, fill="ab")
    with pytest.raises(ValueError, match="input_encoding must be one of"):
        S.unicode_decode("a", "latin-1")
    with pytest.raises(ValueError, match="errors must be one of"):
        S.unicode_decode("a", "UTF-8", errors="bad")
    with pytest.raises(ValueError, match="replacement_char must be a Unicode code point"):
        S.unicode_encode([65], "UTF-8", replacement_char=0xD800)
    with pytest.raises(TypeError, match="input must be integer code points"):
        S.unicode_encode([1.5], "UTF-8")
    with pytest.raises(ValueError, match="rank >= 1"):
        S.unicode_encode(65, "UTF-8")
    with pytest.raises(ValueError, match="scalar or a vector"):
        S.split([["a b"]])
    with pytest.raises(TypeError, match="pos must be integers"):
        S.substr("abc", 0.5, 1)
    with pytest.raises(ValueError, match="num_buckets must be >= 1"):
        S.to_hash_bucket_fast("a", 0)
    with pytest.raises(TypeError, match="pattern must be a str"):
        S.regex_full_match("a", 3)
    f = rt.function(lambda x, p: S.regex_full_match(x, p))
    with pytest.raises(TypeError, match="pattern must be a str, bytes or a scalar string tensor"):
        f(rt.constant("a"), rt.constant("a"))
    assert S.regex_full_match("ab", rt.constant("a.")).numpy()  # an eager pattern is known
    with pytest.raises(ValueError, match="needs a length known"):
        rt.function(lambda x: S.split(x)).get_concrete_function(rt.TensorSpec([None], rt.string))


def test_the_namespace_has_the_documented_names():
    names = {"length", "join", "reduce_join", "split", "upper", "lower", "strip", "format",
             "as_string", "to_number", "regex_replace", "regex_full_match", "substr",
             "unicode_decode", "unicode_encode", "unicode_split", "bytes_split",
             "to_hash_bucket_fast"}
    assert names <= set(vars(rt.strings))
    assert rt.as_string is rt.strings.as_string
    for name in names:
        assert getattr(rt.strings, name).__doc__
