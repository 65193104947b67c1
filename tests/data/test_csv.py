"""CSV: `rt.io.decode_csv`, `rt.data.experimental.CsvDataset` and `make_csv_dataset`.

Expected values, dtypes, orders and error words are TensorFlow 2.21's (recorded from runs of
the same programs under TensorFlow); quoting is also checked against Python's `csv` module and
block reading against NumPy."""

import collections
import csv
import gzip
import io
import random
import re
import zlib

import numpy as np
import pytest

import runtime as rt

I32 = rt.constant([], rt.int32)
F32 = rt.constant([], rt.float32)
S = rt.constant([], rt.string)


def _columns(tensors):
    return [(t.dtype.name, t.numpy().tolist()) for t in tensors]


# ------------------------------------------------------------------------------ decode_csv

@pytest.mark.parametrize("records, defaults, kwargs, expected", [
    (["1,2.5,a", "3,,b"], [I32, [0.0], [""]], {},
     [("int32", [1, 3]), ("float32", [2.5, 0.0]), ("string", [b"a", b"b"])]),
    ([" 12 , 3.5 "], [I32, F32], {}, [("int32", [12]), ("float32", [3.5])]),
    (["+5,+1.5"], [[0], [0.0]], {}, [("int32", [5]), ("float32", [1.5])]),
    (["-0,007"], [[0], [0]], {}, [("int32", [0]), ("int32", [7])]),
    (["1e40,0x10"], [[0.0], [0.0]], {}, [("float32", [np.inf]), ("float32", [16.0])]),
    (["1e-320"], [rt.constant([0.0], rt.float64)], {}, [("float64", [1e-320])]),
    (["9223372036854775807"], [rt.constant([0], rt.int64)], {},
     [("int64", [9223372036854775807])]),
    (['"a,b","c""d",e'], [[""]] * 3, {},
     [("string", [b"a,b"]), ("string", [b'c"d']), ("string", [b"e"])]),
    (['"a\nb",2'], [[""], [0]], {}, [("string", [b"a\nb"]), ("int32", [2])]),
    (['"a,b",c'], [[""]] * 3, {"use_quote_delim": False},
     [("string", [b'"a']), ("string", [b'b"']), ("string", [b"c"])]),
    (["NA,2"], [[7], [0]], {"na_value": "NA"}, [("int32", [7]), ("int32", [2])]),
    (['"NA"'], [[5]], {"na_value": "NA"}, [("int32", [5])]),
    (["1,2,3"], [[0], [0]], {"select_cols": [0, 2]}, [("int32", [1]), ("int32", [3])]),
    (["1;2"], [[0], [0]], {"field_delim": ";"}, [("int32", [1]), ("int32", [2])]),
    (["1\t2"], [[0], [0]], {"field_delim": "\t"}, [("int32", [1]), ("int32", [2])]),
    (["1,"], [[0], [9]], {}, [("int32", [1]), ("int32", [9])]),
    ([" a ,b"], [[""], [""]], {}, [("string", [b" a "]), ("string", [b"b"])]),
    (["é,ü"], [[""], [""]], {}, [("string", ["é".encode()]), ("string", ["ü".encode()])]),
    (['"12"'], [[0]], {}, [("int32", [12])]),
    (["1"], [0], {}, [("int32", [1])]),
])
def test_decode_csv_gives_tensorflows_columns(records, defaults, kwargs, expected):
    assert _columns(rt.io.decode_csv(records, defaults, **kwargs)) == expected


def test_decode_csv_keeps_the_shape_of_records():
    assert _columns(rt.io.decode_csv("1,2", [[0], [0]])) == [("int32", 1), ("int32", 2)]
    out = rt.io.decode_csv([["1,2"], ["3,4"]], [[0], [0]])
    assert _columns(out) == [("int32", [[1], [3]]), ("int32", [[2], [4]])]
    empty = rt.io.decode_csv(rt.constant([], rt.string), [[0]])
    assert _columns(empty) == [("int32", [])]


@pytest.mark.parametrize("records, defaults, kwargs, error, words", [
    (["1,,a"], [I32, F32, [""]], {}, rt.errors.InvalidArgumentError,
     "Field 1 is required but missing in record 0!"),
    (["1,NA,a"], [I32, F32, [""]], {"na_value": "NA"}, rt.errors.InvalidArgumentError,
     "Field 1 is required but missing in record 0!"),
    (['"",1'], [S, [0]], {}, rt.errors.InvalidArgumentError,
     "Field 0 is required but missing in record 0!"),
    (["1,2"], [I32, F32, [""]], {}, rt.errors.InvalidArgumentError,
     "Expect 3 fields but have 2 in record 0"),
    (["1,2,3,4"], [I32, F32, [""]], {}, rt.errors.InvalidArgumentError,
     "Expect 3 fields but have 4 in record 0"),
    ([""], [[0]], {}, rt.errors.InvalidArgumentError, "Expect 1 fields but have 0 in record 0"),
    (["1,2"], [[0]], {"select_cols": [5]}, rt.errors.InvalidArgumentError,
     "Expect 1 fields but have 0 in record 0"),
    (["x,2,a"], [I32, F32, [""]], {}, rt.errors.InvalidArgumentError,
     "Field 0 in record 0 is not a valid int32: x"),
    (["9999999999"], [I32], {}, rt.errors.InvalidArgumentError,
     "Field 0 in record 0 is not a valid int32: 9999999999"),
    (["1.0"], [[0]], {}, rt.errors.InvalidArgumentError,
     "Field 0 in record 0 is not a valid int32: 1.0"),
    (["1_0"], [[0]], {}, rt.errors.InvalidArgumentError,
     "Field 0 in record 0 is not a valid int32: 1_0"),
    (["1.5f"], [[0.0]], {}, rt.errors.InvalidArgumentError,
     "Field 0 in record 0 is not a valid float: 1.5f"),
    (["1,2\r\n"], [[0], [0]], {}, rt.errors.InvalidArgumentError,
     "Unquoted fields cannot have quotes/CRLFs inside"),
    (['a"b,c'], [[""]] * 2, {}, rt.errors.InvalidArgumentError,
     "Unquoted fields cannot have quotes/CRLFs inside"),
    (['"a"b,c'], [[""]] * 2, {}, rt.errors.InvalidArgumentError,
     "Quote inside a string has to be escaped by another quote"),
    (['"a'], [[""]], {}, rt.errors.InvalidArgumentError,
     "Quoted field has to end with quote followed by delim or end"),
    (["1;2"], [[0], [0]], {"field_delim": ";;"}, rt.errors.InvalidArgumentError,
     "field_delim should be only 1 char"),
    (["5"], [[1, 2]], {}, rt.errors.InvalidArgumentError,
     "There should only be 1 default per field but field 0 has 2"),
    (["1"], [[[0]]], {}, rt.errors.InvalidArgumentError,
     "Each record default should be at most rank 1"),
    (["1"], [[True]], {}, rt.errors.InvalidArgumentError, "float32, float64, int32, int64, string"),
    (["1,2,3"], [[0], [0]], {"select_cols": [2, 0]}, ValueError,
     "select_cols is not strictly increasing"),
    (["1,2,3"], [[0]], {"select_cols": [0, 2]}, ValueError,
     "Length of select_cols and record_defaults do not match"),
    (["1"], [rt.int32], {}, TypeError, "rt.constant([], rt.int32)"),
])
def test_decode_csv_errors_in_tensorflows_words(records, defaults, kwargs, error, words):
    with pytest.raises(error, match=re.escape(words)):
        rt.io.decode_csv(records, defaults, **kwargs)


@pytest.mark.parametrize("records, words", [
    (["1,x", "y,2"], "Field 1 in record 0 is not a valid int32: x"),
    (["x,1", "1,2,3"], "Field 0 in record 0 is not a valid int32: x"),
    (["1,1", "1,2,3", "x,1"], "Expect 2 fields but have 3 in record 1"),
    (["1,", ",x"], "Field 1 in record 1 is not a valid int32: x"),
])
def test_decode_csv_reports_the_first_bad_record_as_tensorflow(records, words):
    with pytest.raises(rt.errors.InvalidArgumentError, match=re.escape(words)):
        rt.io.decode_csv(records, [[0], [0]])


def test_make_csv_dataset_ignore_errors_drops_only_bad_rows(files):
    rows = [f"{i},{i * 0.5},s{i}" for i in range(3000)]
    rows[5], rows[1500], rows[2999] = "x,1,a", "7,y,b", "8,,"
    path = files("many.csv", "a,b,c\n" + "\n".join(rows) + "\n")
    ds = rt.data.experimental.make_csv_dataset(path, batch_size=4000, num_epochs=1, shuffle=False,
                                               ignore_errors=True,
                                               column_defaults=[rt.int32, [0.0], [""]])
    (batch, _), = _batches(ds)
    kept = [i for i in range(2999) if i not in (5, 1500)]
    assert batch["a"] == kept + [8]
    assert batch["b"] == [i * 0.5 for i in kept] + [0.0]
    assert batch["c"] == [f"s{i}".encode() for i in kept] + [b""]


def test_decode_csv_staged_in_a_function_and_a_dataset_map():
    defaults = [[0], [""], [1.5]]

    @rt.function
    def parse(lines):
        return rt.io.decode_csv(lines, defaults)

    lines = ["1,a,2", "2,,"]
    expected = _columns(rt.io.decode_csv(lines, defaults))
    assert expected == [("int32", [1, 2]), ("string", [b"a", b""]), ("float32", [2.0, 1.5])]
    assert _columns(parse(rt.constant(lines))) == expected
    spec = parse.get_concrete_function(rt.TensorSpec([None], rt.string)).structured_outputs
    assert [(t.dtype, t.shape.as_list()) for t in spec] == \
        [(rt.int32, [None]), (rt.string, [None]), (rt.float32, [None])]
    with pytest.raises(rt.errors.InvalidArgumentError, match="Expect 3 fields but have 4"):
        parse(rt.constant(["1,a,2,3"]))
    ds = rt.data.Dataset.from_tensor_slices(lines).map(lambda line: rt.io.decode_csv(line, defaults))
    assert ds.element_spec == (rt.TensorSpec([], rt.int32), rt.TensorSpec([], rt.string),
                               rt.TensorSpec([], rt.float32))
    assert [tuple(v.tolist() if hasattr(v, "tolist") else v for v in e)
            for e in ds.as_numpy_iterator()] == [(1, b"a", 2.0), (2, b"", 1.5)]


def test_decode_csv_takes_defaults_computed_in_the_function():
    @rt.function
    def parse(lines, default):
        return rt.io.decode_csv(lines, [default * 2, rt.constant([], rt.float32)])

    assert _columns(parse(rt.constant([",1.5", "4,2"]), rt.constant([3]))) == \
        [("int32", [6, 4]), ("float32", [1.5, 2.0])]
    with pytest.raises(rt.errors.InvalidArgumentError, match="Field 0 is required but missing"):
        parse(rt.constant([",1.5"]), rt.constant([], rt.int32))
    with pytest.raises(rt.errors.InvalidArgumentError, match="There should only be 1 default"):
        parse(rt.constant(["1,1.5"]), rt.constant([1, 2]))


def test_decode_csv_reads_what_pythons_csv_module_writes():
    rng = random.Random(3)
    alphabet = 'ab ,"\n;x'
    rows = [["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))) for _ in range(4)]
            for _ in range(200)]
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\x00").writerows(rows)
    records = out.getvalue().split("\x00")[:-1]
    columns = rt.io.decode_csv(records, [[""]] * 4)
    got = [[c.numpy()[i].decode() for c in columns] for i in range(len(rows))]
    assert got == rows


def test_decode_csv_rejects_misspelt_keywords():
    with pytest.raises(TypeError, match="field_delim"):
        rt.io.decode_csv(["1"], [[0]], field_delimiter=";")


# ------------------------------------------------------------------------------ CsvDataset

def _rows(ds):
    return [tuple(v.tolist() if hasattr(v, "tolist") else v for v in e) for e in ds.as_numpy_iterator()]


@pytest.fixture
def files(tmp_path):
    def write(name, content, opener=None):
        path = tmp_path / name
        data = content.encode() if isinstance(content, str) else content
        path.write_bytes(opener(data) if opener else data)
        return str(path)
    return write


def test_csv_dataset_reads_records_as_tensorflow(files):
    a = files("a.csv", 'x,y,z\n1,2.5,a\n3,,"b,c"\n')
    ds = rt.data.experimental.CsvDataset(a, [rt.int32, [0.0], [""]], header=True)
    assert ds.element_spec == (rt.TensorSpec([], rt.int32), rt.TensorSpec([], rt.float32),
                               rt.TensorSpec([], rt.string))
    assert int(ds.cardinality()) == rt.data.UNKNOWN_CARDINALITY
    assert _rows(ds) == [(1, 2.5, b"a"), (3, 0.0, b"b,c")]
    assert _rows(rt.data.experimental.CsvDataset([a, a], [rt.int32, [0.0], [""]], header=True)) \
        == [(1, 2.5, b"a"), (3, 0.0, b"b,c")] * 2
    assert _rows(rt.data.experimental.CsvDataset(a, [[0.0], [""]], header=True,
                                                 select_cols=[1, 2])) == [(2.5, b"a"), (0.0, b"b,c")]
    assert _rows(rt.data.experimental.CsvDataset(a, [rt.int32, [""]], header=True,
                                                 exclude_cols=[1])) == [(1, b"a"), (3, b"b,c")]
    assert rt.data.experimental.CsvDataset(a, [np.float64(1.5)]).element_spec == \
        (rt.TensorSpec([], rt.float64),)


def test_csv_dataset_line_endings_quotes_and_compression(files):
    two = [rt.int32, rt.int32]
    assert _rows(rt.data.experimental.CsvDataset(files("crlf.csv", b"1,2\r\n3,4\r\n"), two)) == \
        [(1, 2), (3, 4)]
    assert _rows(rt.data.experimental.CsvDataset(files("noeol.csv", "1,2\n3,4"), two)) == \
        [(1, 2), (3, 4)]
    quoted = files("q.csv", '"a\nb",1\nc,2\n')
    assert _rows(rt.data.experimental.CsvDataset(quoted, [rt.string, rt.int32])) == \
        [(b"a\nb", 1), (b"c", 2)]
    gz = files("a.csv.gz", "1,2\n3,4\n", gzip.compress)
    assert _rows(rt.data.experimental.CsvDataset(gz, two, compression_type="GZIP")) == [(1, 2), (3, 4)]
    zl = files("a.csv.z", "1,2\n3,4\n", zlib.compress)
    assert _rows(rt.data.experimental.CsvDataset(zl, two, compression_type="ZLIB")) == [(1, 2), (3, 4)]
    assert _rows(rt.data.experimental.CsvDataset(files("e.csv", ""), two)) == []
    na = files("na.csv", "1,2\nx,4\n")
    assert _rows(rt.data.experimental.CsvDataset(na, [[-1], rt.int32], na_value="x")) == [(1, 2), (-1, 4)]


@pytest.mark.parametrize("content, defaults, kwargs, error, words", [
    ("1,2\n\n3,4\n", [[7], [8]], {}, rt.errors.InvalidArgumentError,
     r"Expect 2 fields but have 1 in record \(.*blank.csv, line 2\)"),
    ("1,2\nx,4\n", [rt.int32, rt.int32], {}, rt.errors.InvalidArgumentError,
     r"Field 0 in record is not a valid int32: x \(.*blank.csv, line 2\)"),
    ('"a\nb",1\n', [rt.string, rt.string], {"use_quote_delim": False},
     rt.errors.InvalidArgumentError, "Expect 2 fields but have 1 in record"),
    ("", [rt.int32], {"header": True}, rt.errors.InvalidArgumentError, "Can't read header of file"),
    ("x,y,z\n1,2,3\n", [rt.int32], {"header": True, "exclude_cols": [1]},
     rt.errors.InvalidArgumentError, "Expect 1 fields but have 2 in record"),
])
def test_csv_dataset_errors_name_the_file_and_line(files, content, defaults, kwargs, error, words):
    ds = rt.data.experimental.CsvDataset(files("blank.csv", content), defaults, **kwargs)
    with pytest.raises(error, match=words):
        _rows(ds)


def test_csv_dataset_argument_errors(files):
    a = files("a.csv", "1\n")
    with pytest.raises(rt.errors.InvalidArgumentError, match="field_delim should be only 1 char"):
        rt.data.experimental.CsvDataset(a, [[0]], field_delim=";;")
    with pytest.raises(rt.errors.InvalidArgumentError, match="Unsupported compression_type"):
        rt.data.experimental.CsvDataset(a, [[0]], compression_type="BZ2")
    with pytest.raises(rt.errors.InvalidArgumentError, match="at most one of select_cols"):
        rt.data.experimental.CsvDataset(a, [[0]], select_cols=[0], exclude_cols=[1])
    with pytest.raises(ValueError, match="strictly increasing"):
        rt.data.experimental.CsvDataset(a, [[0], [0]], select_cols=[1, 0])
    with pytest.raises(TypeError, match="header"):
        rt.data.experimental.CsvDataset(a, [[0]], headers=True)


def test_csv_dataset_under_ignore_errors_skips_bad_records(files, caplog):
    bad_value = files("bad.csv", "1,2\nx,4\n5,6\n")
    ds = rt.data.experimental.CsvDataset(bad_value, [rt.int32, rt.int32]).ignore_errors(log_warning=True)
    assert _rows(ds) == [(1, 2), (5, 6)]  # TensorFlow's rows
    assert "not a valid int32: x" in caplog.text and "line 2" in caplog.text
    short = files("short.csv", "1,2\n3\n5,6\n")
    assert _rows(rt.data.experimental.CsvDataset(short, [rt.int32, rt.int32]).ignore_errors()) == \
        [(1, 2), (5, 6)]


def test_csv_dataset_corrupted_compressed_file_is_a_data_loss(files):
    broken = files("broken.csv.gz", gzip.compress("".join(f"{i},{i * 7}\n" for i in range(500)).encode())[:-12])
    with pytest.raises(rt.errors.DataLossError, match="broken.csv.gz: corrupted GZIP stream"):
        _rows(rt.data.experimental.CsvDataset(broken, [rt.int32, rt.int32], compression_type="GZIP"))
    plain = files("plain.csv", "1,2\n")
    with pytest.raises(rt.errors.DataLossError, match="corrupted ZLIB stream"):
        _rows(rt.data.experimental.CsvDataset(plain, [rt.int32, rt.int32], compression_type="ZLIB"))


def test_csv_dataset_missing_file_fails_when_iterated(tmp_path):
    ds = rt.data.experimental.CsvDataset(str(tmp_path / "nope.csv"), [rt.int32])
    with pytest.raises(rt.errors.NotFoundError, match="nope.csv; No such file or directory"):
        _rows(ds)


@pytest.mark.parametrize("buffer_size", [5, 64, None])
def test_csv_dataset_reads_what_pythons_csv_module_writes(files, buffer_size):
    rng = random.Random(5)
    rows = [[str(i), "".join(rng.choice('ab ,"\n') for _ in range(rng.randint(0, 8))),
             f"{rng.uniform(-5, 5):.3f}"] for i in range(1500)]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    path = files("written.csv", out.getvalue())
    ds = rt.data.experimental.CsvDataset(path, [rt.int64, [""], rt.float64], buffer_size=buffer_size)
    got = [[str(a), b.decode(), f"{c:.3f}"] for a, b, c in ds.as_numpy_iterator()]
    assert got == list(csv.reader(io.StringIO(out.getvalue())))


def test_csv_dataset_blocks_agree_with_numpy_and_keep_rows_before_an_error(files):
    rng = np.random.default_rng(0)
    ints = rng.integers(-1000, 1000, size=2500)
    floats = rng.standard_normal(2500).astype(np.float32)
    text = "".join(f"{i},{f!r}\n" for i, f in zip(ints.tolist(), floats.tolist()))
    path = files("big.csv", text + "oops,1\n" + "5,5\n")
    ds = rt.data.experimental.CsvDataset(path, [rt.int64, rt.float32])
    got = []
    with pytest.raises(rt.errors.InvalidArgumentError, match="line 2501"):
        for a, b in ds:
            got.append((int(a), float(b)))
    assert got == list(zip(ints.tolist(), floats.tolist()))
    batches = list(rt.data.experimental.CsvDataset(path, [rt.int64, rt.float32]).take(2000)
                   .batch(1000).as_numpy_iterator())
    np.testing.assert_array_equal(np.concatenate([b[0] for b in batches]), ints[:2000])
    np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]), floats[:2000])


# ------------------------------------------------------------------------------ make_csv_dataset

TITANIC = ("survived,sex,age,fare,class\n0,male,22.0,7.25,Third\n1,female,38.0,71.2833,First\n"
           "1,female,,7.925,Third\n0,male,35,8.05,Third\n")


def _batches(ds, n=20):
    out = []
    for element in ds.take(n):
        features, label = element if isinstance(element, tuple) else (element, None)
        assert type(features) is collections.OrderedDict
        out.append(({k: v.numpy().tolist() for k, v in features.items()},
                    None if label is None else label.numpy().tolist()))
    return out


def test_make_csv_dataset_batches_features_and_label(files):
    path = files("titanic.csv", TITANIC)
    ds = rt.data.experimental.make_csv_dataset(path, batch_size=2, label_name="survived",
                                               num_epochs=1, shuffle=False)
    features, label = ds.element_spec
    assert list(features) == ["sex", "age", "fare", "class"]
    assert [s.dtype for s in features.values()] == [rt.string, rt.float32, rt.float32, rt.string]
    assert label == rt.TensorSpec([None], rt.int32)
    assert _batches(ds) == [
        ({"sex": [b"male", b"female"], "age": [22.0, 38.0], "fare": [7.25, float(np.float32(71.2833))],
          "class": [b"Third", b"First"]}, [0, 1]),
        ({"sex": [b"female", b"male"], "age": [0.0, 35.0], "fare": [float(np.float32(7.925)), float(np.float32(8.05))],
          "class": [b"Third", b"Third"]}, [1, 0])]


def test_make_csv_dataset_epochs_select_columns_and_defaults(files):
    path = files("titanic.csv", TITANIC)
    ds = rt.data.experimental.make_csv_dataset(path, batch_size=3, num_epochs=2, shuffle=False,
                                               select_columns=["class", "age"])
    assert list(ds.element_spec) == ["age", "class"] and int(ds.cardinality()) == -2
    assert _batches(ds) == [
        ({"age": [22.0, 38.0, 0.0], "class": [b"Third", b"First", b"Third"]}, None),
        ({"age": [35.0, 22.0, 38.0], "class": [b"Third", b"Third", b"First"]}, None),
        ({"age": [0.0, 35.0], "class": [b"Third", b"Third"]}, None)]
    forever = rt.data.experimental.make_csv_dataset(path, batch_size=3, shuffle=False)
    assert int(forever.cardinality()) == rt.data.INFINITE_CARDINALITY
    assert forever.element_spec["fare"] == rt.TensorSpec([3], rt.float32)
    assert len(_batches(forever, 7)) == 7
    required = rt.data.experimental.make_csv_dataset(
        path, batch_size=3, shuffle=False, num_epochs=1,
        column_defaults=[rt.int64, rt.string, rt.float64, rt.float32, rt.string])
    assert required.element_spec["age"].dtype == rt.float64
    with pytest.raises(rt.errors.InvalidArgumentError, match="Field 2 is required but missing"):
        _batches(required)


def test_make_csv_dataset_infers_types_as_tensorflow(files):
    a = files("n.csv", "a,b,c,d\n1,x,nan,7\n2.5,y,1,\n3e2,,2,9\n")
    spec = rt.data.experimental.make_csv_dataset(a, batch_size=3, num_epochs=1).element_spec
    assert [(k, s.dtype) for k, s in spec.items()] == \
        [("a", rt.float32), ("b", rt.string), ("c", rt.string), ("d", rt.int32)]
    b = files("big.csv", "a,b,c\n3000000000,1e39,x\n")
    spec = rt.data.experimental.make_csv_dataset(b, batch_size=3, num_epochs=1).element_spec
    assert [s.dtype for s in spec.values()] == [rt.int64, rt.float64, rt.string]
    header_only = files("h.csv", "a,b\n")
    spec = rt.data.experimental.make_csv_dataset(header_only, batch_size=3, num_epochs=1).element_spec
    assert [s.dtype for s in spec.values()] == [rt.string, rt.string]


def test_make_csv_dataset_interleaves_files_as_tensorflow(files):
    for i, n in enumerate([3, 1, 2]):
        files(f"p{i}.csv", "v,w\n" + "".join(f"{10 * i + j},{j}\n" for j in range(n)))
    pattern = files("p0.csv", "v,w\n0,0\n1,1\n2,2\n").replace("p0.csv", "p*.csv")
    two = rt.data.experimental.make_csv_dataset(pattern, batch_size=1, num_epochs=1,
                                                shuffle=False, num_parallel_reads=2)
    assert [b[0]["v"][0] for b in _batches(two)] == [0, 10, 1, 2, 20, 21]
    one = rt.data.experimental.make_csv_dataset(pattern, batch_size=2, num_epochs=1,
                                                shuffle=False, label_name="w")
    assert [(b[0]["v"], b[1]) for b in _batches(one)] == [([0, 1], [0, 1]), ([2, 10], [2, 0]),
                                                         ([20, 21], [0, 1])]
    shuffled = rt.data.experimental.make_csv_dataset(pattern, batch_size=2, num_epochs=2,
                                                     shuffle_seed=3)
    values = sorted(v for b in _batches(shuffled) for v in b[0]["v"])
    assert values == sorted([0, 1, 2, 10, 20, 21] * 2)


def test_make_csv_dataset_ignore_errors_and_headerless_files(files):
    bad = files("bad.csv", "a,b\n1,2\nx,4\n5,6\n")
    ds = rt.data.experimental.make_csv_dataset(bad, batch_size=5, num_epochs=1, shuffle=False,
                                               ignore_errors=True,
                                               column_defaults=[rt.int32, rt.int32])
    assert _batches(ds) == [({"a": [1, 5], "b": [2, 6]}, None)]
    plain = files("plain.csv", b"1,2\r\n3,4\r\n")
    ds = rt.data.experimental.make_csv_dataset(plain, batch_size=2, header=False, num_epochs=1,
                                               column_names=["p", "q"], shuffle=False)
    assert _batches(ds) == [({"p": [1, 3], "q": [2, 4]}, None)]


@pytest.mark.parametrize("kwargs, words", [
    ({"label_name": "x"}, r"`label_name` provided must be one of the columns: \['survived'"),
    ({"header": False}, "Expected `column_names` or `header` arguments"),
    ({"column_names": ["a", "a", "b", "c", "d"]}, r"duplicate column names: \['a'\]"),
    ({"select_columns": ["zz"]}, "Column 'zz' specified in `select_columns` must be one of"),
    ({"select_columns": [9]}, "Column index 9 specified in `select_columns`"),
    ({"select_columns": ["age", 2]}, "contains duplicate columns"),
    ({"select_columns": [1, 2], "column_defaults": [0]}, "`column_defaults` has length 1"),
])
def test_make_csv_dataset_argument_errors(files, kwargs, words):
    path = files("titanic.csv", TITANIC)
    with pytest.raises(ValueError, match=words):
        rt.data.experimental.make_csv_dataset(path, batch_size=3, **kwargs)


def test_make_csv_dataset_file_errors(files, tmp_path):
    with pytest.raises(ValueError, match="No files match `file_pattern`"):
        rt.data.experimental.make_csv_dataset(str(tmp_path / "none*.csv"), batch_size=3)
    with pytest.raises(ValueError, match="Failed when reading the header line of .*empty.csv"):
        rt.data.experimental.make_csv_dataset(files("empty.csv", ""), batch_size=3)
    with pytest.raises(ValueError, match="CSV row 2 of .*rag.csv has 2 number of fields. Expected: 3"):
        rt.data.experimental.make_csv_dataset(files("rag.csv", "a,b,c\n1,2\n"), batch_size=3)
    with pytest.raises(TypeError, match="batch_size"):
        rt.data.experimental.make_csv_dataset(files("t.csv", TITANIC), batchsize=3)


def test_csv_dataset_of_a_directory_fails_when_iterated_as_tensorflow(tmp_path):
    # TensorFlow 2.21: FailedPreconditionError "<dir>; Is a directory" from the iterator
    dataset = rt.data.experimental.CsvDataset(str(tmp_path), [rt.float32])
    with pytest.raises(rt.errors.FailedPreconditionError, match="Is a directory"):
        list(dataset)
