"""Every op declares its attributes where it is defined, and the saved-model schema is those
declarations: the operations that programs stage carry exactly the declared names, each value
of its declared kind, for every savable builtin op; and loading checks a file against them.

The oracle is the traced graphs themselves (what `apply` really stores on each operation) and
the values the programs compute before and after a save and load.
"""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime.attr_kinds import FLOAT
from runtime.gradients.while_grad import saving_stacks
from runtime.opdef import REGISTRY, builtin_ops
from runtime.ops.array_math import IndexSlot
from runtime.ops.core import apply, define
from runtime.ops.summary import saved_attrs
from runtime.saved_model import schema

from .. import op_programs as programs
from ..jit import test_every_op as every_op
from ..op_programs import F32, F64, x_values

# builtin ops no program below stages, and why
NOT_STAGED = {
    "Placeholder": "a graph input: never saved (savable=False)",
    "PartitionedCall": "a tape record of an eager call: never saved (savable=False)",
    "AccumulatorSource": "a tape's stand-in for a loop's saved values, never in a graph",
    # rt.distribute's all-reduces, registered once rt.distribute loads: staged only inside a
    # strategy's replicas (tests/distribute stages and runs them)
    "CollectiveReduce": "a replicas' all-reduce, staged by MirroredStrategy.run only",
    "WorkerAllReduce": "a Dask workers' all-reduce, staged by MultiWorkerMirroredStrategy.run only",
}


def _strings(s):
    """Every string op, and decode_raw, on a vector of strings."""
    words = rt.strings.split(s[0], " ")
    return (rt.strings.length(s), rt.strings.length(s, unit="UTF8_CHAR"),
            rt.strings.join([s, s], separator="-"), rt.strings.reduce_join(s, axis=0, separator=","),
            words, rt.strings.strip(s), rt.strings.upper(s), rt.strings.lower(s),
            rt.strings.format("{} and {}", [s, rt.strings.length(s)]),
            rt.strings.as_string(rt.constant([1.5, 2.25]), precision=2),
            rt.strings.to_number(rt.constant(["1.5", "2"])),
            rt.strings.regex_replace(s, "b+", "c"), rt.strings.regex_full_match(s, "a.*"),
            rt.strings.substr(s, 0, 2), rt.strings.unicode_decode(s[0], "UTF-8"),
            rt.strings.unicode_split(s[0], "UTF-8"),
            rt.strings.unicode_encode(rt.constant([104, 105]), "UTF-8"),
            rt.strings.bytes_split(s[0]), rt.strings.to_hash_bucket_fast(s, 7),
            rt.io.decode_raw(rt.constant([b"abcd"]), rt.int16),
            rt.strings.to_hash_bucket(s, 7), rt.strings.to_hash_bucket_strong(s, 7, [1, 2]),
            rt.fingerprint(s), rt.strings.unsorted_segment_join(s, [1, 0], 2, separator="|"),
            rt.strings.unicode_transcode(s, "UTF-8", "UTF-16-BE", replacement_char=63),
            rt.strings.unicode_decode_with_offsets(s[0], "UTF-8")[1],
            rt.strings.ngrams(s, [1, 2], pad_values=("<", ">"), padding_width=1))


def _codecs(s, image, audio):
    """The image and audio codecs (traced only: the bytes need not be a file)."""
    return (rt.io.decode_png(s, channels=3, dtype=rt.uint16), rt.io.decode_jpeg(s, ratio=2),
            rt.io.decode_bmp(s, channels=4), rt.io.decode_gif(s),
            rt.io.decode_image(s, expand_animations=False), rt.io.encode_png(image),
            rt.io.encode_jpeg(image, quality=80), rt.audio.decode_wav(s, desired_channels=1),
            rt.audio.encode_wav(audio, 8000), rt.io.encode_base64(s, pad=True),
            rt.io.decode_base64(s))


_VARIABLE = rt.Variable([1.0, 2.0])


def _variables(x):
    """Reads and every kind of assignment, a variable created in the trace, print, assert."""
    _VARIABLE.assign(x)
    _VARIABLE.assign_add(x)
    _VARIABLE.assign_sub(x * 0.5)
    if not hasattr(_variables, "made"):
        _variables.made = rt.Variable(x * 2.0)  # created once, when first traced
    rt.print("x:", x, {"v": x}, output_stream="stdout", sep="|")
    rt.debugging.Assert(rt.reduce_all(x > -10.0), ["x too small", x])
    return _VARIABLE.read_value() + _variables.made


def _summaries(x, step, keep):
    with rt.summary.record_if(keep):
        rt.summary.scalar("x", rt.reduce_sum(x), step=step, description="a sum")
        rt.summary.histogram("h", x, step=step, buckets=4)
        rt.summary.text("t", "constant text", step=0)
        rt.summary.image("i", rt.reshape(x, [1, 1, 2, 1]), step=step, max_outputs=1)
    return x


def _unknown_shape_gradients(x, idx, mask):
    """Gradients whose shapes are known only when the graph runs (a `shape` attr of None)."""
    with rt.GradientTape() as tape:
        tape.watch(x)
        ta = rt.TensorArray(x.dtype, size=0, dynamic_size=True).unstack(x)
        tb = rt.TensorArray(x.dtype, size=0, dynamic_size=True)
        tb = tb.write(0, x[0] * 2.0)
        y = (rt.reduce_sum(rt.gather(x, idx, axis=1)) + rt.reduce_sum(rt.gather_nd(x, [[0, 1]]))
             + rt.reduce_sum(rt.boolean_mask(x, mask)) + rt.reduce_sum(x[:, 1:] ** 2.0)
             + rt.reduce_sum(ta.read(1)) + rt.reduce_sum(tb.stack())
             + rt.reduce_sum(rt.gather(x, rt.argsort(x, axis=1)[:, :2], batch_dims=1, axis=1))
             + rt.reduce_sum(rt.gather_nd(x, rt.argsort(x, axis=1)[:, :1], batch_dims=1))
             + rt.reduce_sum(rt.sort(x, axis=1) * rt.sort(x, axis=1)))
    return y, tape.gradient(y, x)


def _host_objects(x, ds):
    """Ops that hold Python objects: a dataset loop, py_function and numpy_function, a
    staged raise."""
    s = rt.constant(0, rt.int64)
    for v in ds:
        s += v
    y = rt.py_function(lambda a: a * 2.0, [x], rt.float32)
    z = rt.numpy_function(lambda a: a + 1.0, [x], rt.float32)
    if rt.reduce_sum(x) < -100.0:
        raise ValueError("x is far too small")
    return s, y, z


def _tensor_array_second_order(x):
    """Second-order gradients through TensorArrays (the gradient's own TensorArray ops)."""
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as tape:
            tape.watch(x)
            ta = rt.TensorArray(x.dtype, size=3).unstack(x)
            tb = rt.TensorArray(x.dtype, size=0, dynamic_size=True)
            for i in rt.range(3):
                tb = tb.write(i, ta.read(i) * ta.read(i))
            y = (rt.reduce_sum(tb.stack() ** 2) + rt.reduce_sum(tb.gather([1]) ** 2)
                 + rt.reduce_sum(rt.sin(tb.concat())) + rt.reduce_sum(tb.read(2) ** 2))
        g = tape.gradient(y, x)
        z = rt.reduce_sum(g * g)
    return g, outer.gradient(z, x)


def _loop_save_stacks(x):
    """A loop's gradient in the differentiable-again form (as built for nested tapes around a
    call): the forward pushes the saved values on stacks, the backward pops them."""
    with saving_stacks():
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, rt.sin(y) * x), (0, x))[1]
        return tape.gradient(y, x)


_UNKNOWN = [rt.TensorSpec([None, None]), rt.TensorSpec([None], rt.int32),
            rt.TensorSpec([None, None], rt.bool)]
_GRAD_ARGS = (x_values(F32, (3, 4)), np.array([2, 0], np.int32), x_values(F32, (3, 4)) > 0.4)

# programs beyond the Numba tier's groups: name -> (fn, [argument tuples], options)
PROGRAMS = {
    **{f"numba:{name}": group for name, group in every_op.GROUPS.items()},
    "random": (every_op._random, [(x_values(F32),)], {}),
    "gamma_poisson": (lambda x: (rt.random.gamma([2], x, seed=3), rt.random.poisson(
        [2], x, dtype=rt.int32, seed=4), rt.image.sample_distorted_bounding_box(
            [30, 40, 3], [[[0.1, 0.1, 0.5, 0.5]]], seed=5), rt.image.extract_glimpse(
            rt.reshape(x, [1, 3, 4, 1]), [2, 2], [[0.1, 0.2]], noise="zero")),
        [(x_values(F32),)], {}),
    "candidate_sampling": (lambda x: rt.random.fixed_unigram_candidate_sampler(
        rt.cast(x[:, :1] * 3.0, rt.int64), 1, 2, True, 4, unigrams=[1, 2, 3, 4], seed=5),
        [(x_values(F32),)], {}),
    "value_shaped": (programs.value_shaped, [(x_values(F32),)], {}),
    "axes_from_shapes": (programs.axes_from_shapes, [(x_values(F32),)], {}),
    "decompositions_full_rank": (lambda x: programs.decompositions(x, full_rank=True),
                                 [(x_values(F64, (3, 4), -1, 1.5),)], {}),
    "strings": (_strings, [(np.array([b"ab bb", b"abc"], object),)], {}),
    "codecs": (_codecs, [(np.array(b"x", object), np.zeros((2, 2, 3), np.uint8),
                          np.zeros((2, 1), np.float32))], {}),
    "variables": (_variables, [(np.array([1.0, 2.0], np.float32),)], {}),
    "summaries": (_summaries, [(np.array([1.0, 2.0], np.float32), np.int64(3), True)], {}),
    "unknown_shape_gradients": (_unknown_shape_gradients, [_GRAD_ARGS],
                                {"input_signature": _UNKNOWN}),
    "host_objects": (_host_objects, [(np.array([1.0, 2.0], np.float32), rt.data.Dataset.range(3))],
                     {}),
    "tensor_array_second_order": (_tensor_array_second_order, [(x_values(F32),)], {}),
    "loop_save_stacks": (_loop_save_stacks, [(x_values(F32),)], {}),
}

_staged: dict = {}


def _walk(graph, found: dict) -> None:
    for op in graph.operations:
        found.setdefault(op.type, []).append(op)
        for sub in op.subgraphs:
            _walk(sub, found)


def staged() -> dict:
    """Op type -> the operations of that type in the programs' traced graphs (traced once)."""
    if not _staged:
        for fn, arg_tuples, options in PROGRAMS.values():
            function = rt.function(fn, **options)
            for args in arg_tuples:
                _walk(function.get_concrete_function(*args).graph, _staged)
    return _staged


def _saved_form(op) -> dict:
    """The attrs a saved op holds (a summary's writer, a host object, is dropped)."""
    return saved_attrs(op.attrs, op.name) if op.opdef is REGISTRY["WriteSummary"] else op.attrs


@pytest.mark.parametrize("op_type", sorted(builtin_ops()))
def test_staged_operations_carry_exactly_the_declared_attributes(op_type):
    opdef = REGISTRY[op_type]
    if op_type in NOT_STAGED:
        assert op_type not in staged(), f"{op_type} is staged: take it off NOT_STAGED"
        return
    assert op_type in staged(), f"no program stages a {op_type} op"
    if not opdef.savable:
        return
    for op in staged()[op_type]:
        attrs = _saved_form(op)
        assert sorted(attrs) == sorted(opdef.attrs), (op.name, sorted(attrs))
        ctx = schema.AttrContext(len(op.inputs), rt.Variable, IndexSlot)
        assert schema.attr_errors(op_type, attrs, ctx) == [], op.name


def test_ops_that_hold_python_objects_are_not_savable():
    unsavable = {name for name, op in builtin_ops().items() if not op.savable}
    # a replicas' all-reduce holds no Python object but means nothing outside its replicas
    replicas_only = {"CollectiveReduce"} & set(REGISTRY)
    assert unsavable == {"Placeholder", "CustomGradient", "PartitionedCall", "EagerPyFunc",
                         "PyFunc", "RaiseUnless", "DatasetIteratorOpen",
                         "DatasetIteratorGetNext"} | replicas_only
    for name in unsavable:
        assert name in replicas_only or not REGISTRY[name].attrs, name
        with pytest.raises(ValueError, match=name):
            schema.attr_kinds(name)


def test_the_schema_is_the_ops_declarations_not_a_table_of_names():
    assert not hasattr(schema, "OP_ATTRS") and not hasattr(schema, "UNSAVABLE")
    for name, opdef in REGISTRY.items():
        if opdef.savable:
            assert schema.attr_kinds(name) is opdef.attrs
    with pytest.raises(ValueError, match="NoSuchOp"):
        schema.attr_kinds("NoSuchOp")
    ctx = schema.AttrContext(0, rt.Variable, IndexSlot)
    assert schema.attr_errors("NoSuchOp", {}, ctx) == [
        "op type 'NoSuchOp' is not a registered op that can be saved"]


def test_declared_attributes_must_be_kinds():
    with pytest.raises(TypeError, match="AttrKind"):
        define("AttrSchemaTestBadKind", lambda x, factor: (x.shape, x.dtype),
               attrs={"factor": float})
    assert "AttrSchemaTestBadKind" not in REGISTRY


# -- an op a program defines is saved and loaded under its own declarations -------------------

SCALE = define("AttrSchemaTestScale", lambda x, factor: (x.shape, x.dtype),
               lambda x, factor: x * np.asarray(factor, x.dtype), attrs={"factor": FLOAT},
               differentiable=False)


@rt.function(input_signature=[rt.TensorSpec([None])])
def _scaled(x):
    return apply(SCALE, [x], {"factor": 2.5}) + 1.0


def _file_ops(graph):
    for op in graph["ops"]:
        yield op
        for sub in op["subgraphs"]:
            yield from _file_ops(sub)


def _edited(data: bytes, op_type: str, change) -> bytes:
    """The saved bytes with `change(op entry)` applied to the first op of `op_type`."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = {name: z.read(name) for name in z.namelist()}
    doc = json.loads(members["saved_model.json"])
    found = [op for f in doc["functions"] for op in _file_ops(f["graph"]) if op["type"] == op_type]
    assert found, op_type
    change(found[0])
    members["saved_model.json"] = json.dumps(doc).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, content in members.items():
            z.writestr(name, content)
    return out.getvalue()


def test_a_program_defined_op_is_checked_against_its_declared_attributes():
    data = rt.saved_model.dumps(_scaled)
    x = np.array([1.0, -2.0], np.float32)
    np.testing.assert_array_equal(np.asarray(rt.saved_model.loads(data)(x)), x * 2.5 + 1.0)
    wrong = _edited(data, "AttrSchemaTestScale", lambda op: op["attrs"].update(factor="2.5"))
    with pytest.raises(ValueError, match="attribute 'factor' must be a float"):
        rt.saved_model.loads(wrong)
    extra = _edited(data, "AttrSchemaTestScale", lambda op: op["attrs"].update(evil=1))
    with pytest.raises(ValueError, match="unknown attribute 'evil'"):
        rt.saved_model.loads(extra)
    missing = _edited(data, "AttrSchemaTestScale", lambda op: op["attrs"].pop("factor"))
    with pytest.raises(ValueError, match="missing attribute 'factor'"):
        rt.saved_model.loads(missing)


def test_gradients_of_unknown_shapes_round_trip(tmp_path):
    """Gradient ops with a `shape` attr of None (the shape read from an input when the graph
    runs) are saved and loaded, and give the traced function's values."""
    fn = rt.function(_unknown_shape_gradients, input_signature=_UNKNOWN)
    rt.saved_model.save(fn, str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    for rows in (3, 5):
        args = (x_values(F32, (rows, 4)), np.array([2, 0], np.int32),
                x_values(F32, (rows, 4)) > 0.4)
        for a, b in zip(rt.nest.flatten(loaded(*args)), rt.nest.flatten(fn(*args))):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("op_type", ["ScatterAddAxis", "ScatterNdAdd", "MaskScatter",
                                     "StridedSliceGrad", "BatchGatherGrad", "ScatterAlongAxis",
                                     "TensorArrayWriteGrad", "TensorArrayScatterGrad"])
def test_a_shape_of_none_needs_the_input_the_shape_is_read_from(op_type):
    fn = rt.function(_unknown_shape_gradients, input_signature=_UNKNOWN)
    data = rt.saved_model.dumps(fn)

    def drop_the_shape_input(op):
        assert op["attrs"]["shape"] is None
        op["inputs"].pop()
    with pytest.raises(ValueError, match="inputs and attributes do not fit together"):
        rt.saved_model.loads(_edited(data, op_type, drop_the_shape_input))
