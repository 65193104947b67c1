"""TensorFlow 2.21 names of tf.train, tf.saved_model, tf.summary, tf.types, tf.debugging,
tf.experimental and tf.config: expected values are TensorFlow's documented results (the
text format of its cluster messages, its fingerprint's repr, TensorBoard's audio encoding)
or closed forms (WAV bytes, BLAKE2b digests)."""

import gc
import hashlib
import inspect
import io
import os
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import debug_modes

CLUSTER_TEXT = """job {
  name: "worker"
  tasks {
    key: 0
    value: "localhost:2222"
  }
  tasks {
    key: 1
    value: "h:1"
  }
}
"""


# -- tf.train: cluster messages -------------------------------------------------------------------

def _cluster():
    cluster = rt.train.ClusterDef()
    job = cluster.job.add(name="worker")
    job.tasks[1] = "h:1"
    job.tasks[0] = "localhost:2222"
    return cluster


def test_cluster_def_text_format_and_equality():
    cluster = _cluster()
    assert repr(cluster) == str(cluster) == CLUSTER_TEXT  # map keys sorted, as protobuf
    assert cluster == rt.train.ClusterDef(
        job=[rt.train.JobDef(name="worker", tasks={0: "localhost:2222", 1: "h:1"})])
    assert cluster != rt.train.ClusterDef()
    assert str(rt.train.JobDef(name="ps", tasks={0: "a:1"})) == (
        'name: "ps"\ntasks {\n  key: 0\n  value: "a:1"\n}\n')
    assert repr(rt.train.ClusterDef()) == ""


def test_server_def_text_format_copy_and_errors():
    server = rt.train.ServerDef(cluster=_cluster(), job_name="worker", task_index=1,
                                protocol="grpc")
    expected = ("cluster {\n" + "".join("  " + line + "\n" for line in
                                        CLUSTER_TEXT.splitlines())
                + "}\n" + 'job_name: "worker"\ntask_index: 1\nprotocol: "grpc"\n')
    assert str(server) == expected
    copy = rt.train.ServerDef()
    copy.CopyFrom(server)
    assert copy == server and copy.cluster is not server.cluster
    copy.cluster.job[0].tasks[2] = "x:3"
    assert copy != server
    with pytest.raises(ValueError, match='has no "nam" field'):
        rt.train.JobDef(nam="x")
    with pytest.raises(TypeError, match="task_index must be an int"):
        rt.train.ServerDef(task_index="1")
    with pytest.raises(NotImplementedError, match="default_session_config"):
        rt.train.ServerDef(default_session_config=object())


# TensorFlow 2.21: ServerDef(cluster=..., job_name="worker", task_index=1,
# protocol="grpc").SerializeToString(), its cluster's worker tasks added as 1, then 0
SERVER_DEF_BYTES = (b"\n'\n%\n\x06worker\x12\x07\x08\x01\x12\x03h:1\x12\x12\x08\x00\x12"
                    b"\x0elocalhost:2222\x12\x06worker\x18\x01*\x04grpc")


def test_server_def_wire_format():
    cluster = rt.train.ClusterDef(
        job=[rt.train.JobDef(name="worker", tasks={1: "h:1", 0: "localhost:2222"})])
    server = rt.train.ServerDef(cluster=cluster, job_name="worker", task_index=1,
                                protocol="grpc")
    assert server.SerializeToString() == SERVER_DEF_BYTES
    assert rt.train.ServerDef.FromString(SERVER_DEF_BYTES) == server
    assert rt.train.ServerDef.FromString(SERVER_DEF_BYTES).cluster == _cluster()
    negative = rt.train.ServerDef(task_index=-1, port=2222)
    assert rt.train.ServerDef.FromString(negative.SerializeToString()) == negative
    assert rt.train.ClusterDef.FromString(b"") == rt.train.ClusterDef()
    with pytest.raises(ValueError, match="truncated"):
        rt.train.JobDef.FromString(b"\x0a\x05ab")


def test_cluster_spec_from_and_to_cluster_def():
    spec = rt.train.ClusterSpec(_cluster())
    assert spec.as_dict() == {"worker": ["localhost:2222", "h:1"]}
    assert rt.train.ClusterSpec({"worker": ["localhost:2222", "h:1"]}).as_cluster_def() \
        == _cluster()
    sparse = rt.train.ClusterSpec({"ps": {3: "p:1"}, "chief": ["c:0"]}).as_cluster_def()
    assert [job.name for job in sparse.job] == ["chief", "ps"]  # sorted, as TensorFlow's
    assert sparse.job[1].tasks == {3: "p:1"}


# -- tf.train: object graph views -----------------------------------------------------------------

class _Net(rt.Module):
    def __init__(self):
        super().__init__()
        self.b = rt.Variable(1.0)
        self.a = rt.Variable([1.0, 2.0])


def test_trackable_view_children_and_descendants():
    net = _Net()
    step = rt.Variable(3)
    ckpt = rt.train.Checkpoint(model=net, step=step)
    view = rt.train.TrackableView(ckpt)
    assert view.root is ckpt
    assert view.children(ckpt) == {"model": net, "step": step}
    assert view.children(net) == {"a": net.a, "b": net.b}
    assert view.children(step) == {}
    found = view.descendants()
    assert found[:3] == [ckpt, net, step] and len(found) == 5
    assert {id(v) for v in found[3:]} == {id(net.a), id(net.b)}
    assert rt.train.TrackableView(net).descendants()[0] is net
    with pytest.raises(NotImplementedError, match="save_type"):
        view.children(ckpt, save_type="savedmodel")


def test_checkpoint_view_children_match_diff(tmp_path):
    net = _Net()
    step = rt.Variable(3)
    ckpt = rt.train.Checkpoint(model=net, step=step)
    path = ckpt.save(str(tmp_path / "c"))
    view = rt.train.CheckpointView(path)
    # TensorFlow: {'model': 1, 'step': 2, 'save_counter': 3} and [0, 1, 2, 3, 4, 5]
    assert view.children(0) == {"model": 1, "step": 2, "save_counter": 3}
    assert view.descendants() == [0, 1, 2, 3, 4, 5]
    matched = view.match(ckpt)
    assert matched[0] is ckpt and matched[1] is net and matched[2] is step
    assert matched[3] is ckpt.save_counter and len(matched) == 6
    assert view.diff(ckpt)[1:] == ([], [])
    other = rt.Variable(2.0)
    fresh = rt.train.Checkpoint(model=rt.Module(), other=other)
    matched, saved_left, live_left = view.diff(fresh)
    assert sorted(matched) == [0, 1] and saved_left == [2, 3, 4, 5]
    assert live_left == [other]
    with pytest.raises(IndexError):
        view.children(99)
    assert rt.train.CheckpointView(str(tmp_path)).children(0) == view.children(0)


class _NumpyWrapper(rt.train.experimental.PythonState):
    def __init__(self, array):
        self.array = array

    def serialize(self):
        buffer = io.BytesIO()
        np.save(buffer, self.array, allow_pickle=False)
        return buffer.getvalue()

    def deserialize(self, string_value):
        self.array = np.load(io.BytesIO(string_value), allow_pickle=False)


def test_python_state_saved_and_restored(tmp_path):
    root = rt.train.Checkpoint(numpy=_NumpyWrapper(np.array([1.0])))
    path = root.save(str(tmp_path / "c"))
    root.numpy.array *= 2.0
    assert root.numpy.array.tolist() == [2.0]
    root.restore(path).assert_consumed()
    assert root.numpy.array.tolist() == [1.0]
    with pytest.raises(TypeError):
        rt.train.experimental.PythonState()


# -- tf.train.experimental: sharding --------------------------------------------------------------

def _shardable(key, value, device="/job:localhost/replica:0/task:0/device:CPU:0"):
    tensor = rt.constant(value)
    return rt.train.experimental.ShardableTensor(
        _tensor_save_spec=None, tensor=tensor, dtype=tensor.dtype, device=device, name=key,
        shape=tensor.shape, slice_spec="", checkpoint_key=key, trackable=None)


def test_sharding_policies():
    by_task = rt.train.experimental.ShardByTaskPolicy()
    assert by_task.description == "Split tensors into shards based on their device spec task."
    tensors = [_shardable("a", [1.0, 2.0]), _shardable("b", [3, 4, 5])]
    (shard,) = by_task(tensors)
    assert sorted(shard) == ["a", "b"] and list(shard["a"]) == [""]
    two_tasks = by_task([_shardable("a", 1.0), _shardable("b", 2.0, "/job:w/task:1")])
    assert len(two_tasks) == 2
    size = rt.train.experimental.MaxShardSizePolicy(12)
    assert size.description == "Split tensors into shards with a max shard size."
    shards = size([_shardable("a", [1.0, 2.0]), _shardable("b", [1, 2]),
                   _shardable("c", [1.0])])  # 8 + 8 bytes > 12: a; b and c (12 bytes)
    assert [sorted(s) for s in shards] == [["a"], ["b", "c"]]
    with pytest.raises(NotImplementedError, match="slices"):
        size([_shardable("big", np.zeros(4))])
    with pytest.raises(ValueError, match="max_shard_size"):
        rt.train.experimental.MaxShardSizePolicy(0)
    with pytest.raises(TypeError):
        rt.train.experimental.ShardingCallback()


def test_checkpoint_options_sharding(tmp_path):
    options = rt.train.CheckpointOptions(
        experimental_sharding_callback=rt.train.experimental.ShardByTaskPolicy())
    ckpt = rt.train.Checkpoint(v=rt.Variable(2.0))
    path = ckpt.save(str(tmp_path / "c"), options=options)
    assert rt.train.load_variable(path, "v/.ATTRIBUTES/VARIABLE_VALUE") == 2.0
    with pytest.raises(NotImplementedError, match="MaxShardSizePolicy"):
        rt.train.CheckpointOptions(
            experimental_sharding_callback=rt.train.experimental.MaxShardSizePolicy(100))
    with pytest.raises(TypeError, match="ShardingCallback"):
        rt.train.CheckpointOptions(experimental_sharding_callback=lambda tensors: [])


# -- tf.config: connecting to a cluster -----------------------------------------------------------

def test_connect_to_cluster_is_refused_by_name():
    spec = rt.train.ClusterSpec({"worker": ["w0:2222"]})
    with pytest.raises(NotImplementedError, match="remote eager execution.*w0:2222"):
        rt.config.experimental_connect_to_cluster(spec)
    with pytest.raises(ValueError, match="must be a `ClusterSpec` or a `ClusterResolver`"):
        rt.config.experimental_connect_to_cluster({"worker": ["w0:2222"]})
    with pytest.raises(ValueError, match="ClusterDeviceFilters"):
        rt.config.experimental_connect_to_cluster(spec, cluster_device_filters=["/job:ps"])
    with pytest.raises(ValueError, match="Must provide at least one remote_host"):
        rt.config.experimental_connect_to_host()
    with pytest.raises(NotImplementedError, match="experimental_connect_to_host.*h:1"):
        rt.config.experimental_connect_to_host("h:1")
    with pytest.raises(TypeError, match="job_nme"):
        rt.config.experimental_connect_to_cluster(spec, job_nme="x")

    @rt.function
    def inside():
        rt.config.experimental_connect_to_cluster(spec)
        return rt.constant(0)
    with pytest.raises(ValueError, match="only be called in eager mode"):
        inside()


def test_cluster_device_filters():
    filters = rt.config.experimental.ClusterDeviceFilters()
    filters.set_device_filters("worker", 0, ["/job:ps"])
    filters.set_device_filters("worker", 1, "/job:ps/task:0")
    assert str(filters._as_cluster_device_filters()) == (
        'jobs {\n  name: "worker"\n  tasks {\n    key: 0\n    value {\n'
        '      device_filters: "/job:ps"\n    }\n  }\n  tasks {\n    key: 1\n    value {\n'
        '      device_filters: "/job:ps/task:0"\n    }\n  }\n}\n')
    with pytest.raises(TypeError, match="task_index"):
        filters.set_device_filters("worker", "0", [])


# -- tf.saved_model -------------------------------------------------------------------------------

def test_fingerprint_repr_str_singleprint():
    fp = rt.saved_model.experimental.Fingerprint(1, 2, 3, 4, 5, 1)
    assert repr(fp) == "Fingerprint(1, 2, 3, 4, 5)"
    assert str(fp) == ("SavedModel Fingerprint\n  saved_model_checksum: 1\n  "
                       "graph_def_program_hash: 2\n  signature_def_hash: 3\n  "
                       "saved_object_graph_hash: 4\n  checkpoint_hash: 5")
    assert fp.singleprint() == "2/3/4/5"
    assert fp == rt.saved_model.experimental.Fingerprint(1, 2, 3, 4, 5, 7)  # version ignored
    assert fp != rt.saved_model.experimental.Fingerprint(1, 2, 3, 4, 6, 1)
    with pytest.raises(ValueError, match="invalid fingerprint values"):
        rt.saved_model.experimental.Fingerprint().singleprint()
    copy = rt.saved_model.experimental.Fingerprint.from_proto(fp)
    assert copy == fp and copy.version == 1
    with pytest.raises(ValueError, match="not a fingerprint"):
        rt.saved_model.experimental.Fingerprint.from_proto(object())


def _module():
    module = rt.Module()
    module.v = rt.Variable(1.0)
    module.f = rt.function(lambda x: x * module.v,
                           input_signature=[rt.TensorSpec([], rt.float32)])
    return module


def test_read_fingerprint(tmp_path):
    module = _module()
    rt.saved_model.save(module, str(tmp_path / "a"))
    rt.saved_model.save(module, str(tmp_path / "b"))
    first = rt.saved_model.experimental.read_fingerprint(str(tmp_path / "a"))
    with open(tmp_path / "a" / "saved_model.json", "rb") as f:
        digest = hashlib.blake2b(f.read(), digest_size=8).digest()
    assert first.saved_model_checksum == int.from_bytes(digest, "little")
    assert first.version == 1
    assert rt.saved_model.experimental.read_fingerprint(str(tmp_path / "b")) == first
    module.v.assign(2.0)
    rt.saved_model.save(module, str(tmp_path / "c"))
    changed = rt.saved_model.experimental.read_fingerprint(str(tmp_path / "c"))
    assert changed.checkpoint_hash != first.checkpoint_hash
    assert changed.graph_def_program_hash == first.graph_def_program_hash
    assert changed.signature_def_hash == first.signature_def_hash
    with pytest.raises(FileNotFoundError, match="Could not find"):
        rt.saved_model.experimental.read_fingerprint(str(tmp_path))


def test_asset_and_trackable_resource(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    asset = rt.saved_model.Asset(str(vocab))
    assert asset.asset_path.numpy() == str(vocab).encode()
    assert rt.io.read_file(asset.asset_path).numpy() == b"a\nb\n"
    module = _module()
    module.vocab = asset
    with pytest.raises(NotImplementedError, match="vocab is an rt.saved_model.Asset"):
        rt.saved_model.save(module, str(tmp_path / "m"))

    calls = []

    class Table(rt.saved_model.experimental.TrackableResource):
        def _create_resource(self):
            calls.append("create")
            return rt.constant(7)

        def _initialize(self):
            calls.append("init")

    table = Table()
    assert calls == []
    assert table.resource_handle.numpy() == 7
    assert table.resource_handle is table.resource_handle
    assert calls == ["create", "init"]
    with pytest.raises(NotImplementedError, match="_create_resource"):
        _ = rt.saved_model.experimental.TrackableResource().resource_handle

    destroyed = []

    class Freed(rt.saved_model.experimental.TrackableResource):
        def _create_resource(self):
            return rt.constant(1)

        def _destroy_resource(self):
            destroyed.append(True)

    freed = Freed()
    _ = freed.resource_handle
    del freed
    gc.collect()
    assert destroyed == [True]


# -- tf.summary -----------------------------------------------------------------------------------

def _events(logdir):
    event_accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator")
    acc = event_accumulator.EventAccumulator(str(logdir),
                                             size_guidance={"tensors": 0, "scalars": 0})
    acc.Reload()
    return acc


def _tensor(acc, tag):
    from tensorboard.util import tensor_util
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def _wav(samples, rate):
    """16-bit mono PCM WAV, by the RIFF layout."""
    body = np.asarray(samples, "<i2").tobytes()
    return struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(body), b"WAVE", b"fmt ", 16, 1, 1,
                       rate, rate * 2, 2, 16, b"data", len(body)) + body


def test_audio_summary(tmp_path):
    pytest.importorskip("tensorboardX")
    clips = np.array([[[0.0], [0.5], [-1.0], [1.0]], [[0.25], [0.0], [0.0], [0.0]]],
                     np.float32)
    writer = rt.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=3):
        assert rt.summary.audio("snd", clips, 8000, max_outputs=1) is True

        @rt.function
        def staged(x):
            rt.summary.audio("snd2", x, 16000)
        staged(rt.constant(clips))
    writer.close()
    acc = _events(tmp_path)
    ((step, table),) = _tensor(acc, "snd")
    assert step == 3 and table.shape == (1, 2)
    # TF's encode_wav: round(x * 32768), saturated to int16
    assert table[0, 0] == _wav([0, 16384, -32768, 32767], 8000) and table[0, 1] == b""
    ((_, staged_table),) = _tensor(acc, "snd2")
    assert staged_table.shape == (2, 2)
    assert staged_table[1, 0] == _wav([8192, 0, 0, 0], 16000)
    meta = acc.SummaryMetadata("snd")
    assert meta.plugin_data.plugin_name == "audio" and meta.data_class == 3
    from tensorboard.plugins.audio import plugin_data_pb2
    content = plugin_data_pb2.AudioPluginData.FromString(meta.plugin_data.content)
    assert content.encoding == plugin_data_pb2.AudioPluginData.WAV
    with pytest.raises(ValueError, match="Unknown encoding: 'mp3'"):
        rt.summary.audio("x", clips, 8000, step=0, encoding="mp3")
    with pytest.raises(TypeError, match="sample_rte"):
        rt.summary.audio("x", clips, step=0, sample_rte=8000)


def test_write_and_write_raw_pb(tmp_path):
    pytest.importorskip("tensorboardX")
    from tensorboard.compat.proto import summary_pb2
    writer = rt.summary.create_file_writer(str(tmp_path))
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="custom",
                                                           content=b"\x01"))
    raw = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="raw", simple_value=2.5)])
    with writer.as_default(step=4):
        assert rt.summary.write("ints", rt.constant([[1, 2]], rt.int64)) is True
        assert rt.summary.write("meta", 1.5, metadata=metadata, step=5) is True
        assert rt.summary.write("lazy", lambda: rt.constant(["a", "b"])) is True
        assert rt.summary.experimental.write_raw_pb(raw.SerializeToString()) is True

        @rt.function
        def staged(x, raw_bytes):
            rt.summary.write("doubled", x * 2.0, metadata=metadata.SerializeToString())
            rt.summary.experimental.write_raw_pb(raw_bytes, step=9)
        staged(rt.constant([1.0, 3.0]), rt.constant([raw.SerializeToString()]))
        with pytest.raises(rt.errors.InvalidArgumentError, match="failed to parse"):
            rt.summary.experimental.write_raw_pb(b"\xff\xff\xff")
    assert rt.summary.write("none", 1.0, step=0) is False  # no default writer
    writer.close()
    acc = _events(tmp_path)
    ((step, value),) = _tensor(acc, "ints")
    assert step == 4 and value.dtype == np.int64 and value.tolist() == [[1, 2]]
    assert _tensor(acc, "meta")[0][0] == 5
    assert acc.SummaryMetadata("meta").plugin_data.plugin_name == "custom"
    assert acc.SummaryMetadata("meta").plugin_data.content == b"\x01"
    assert _tensor(acc, "lazy")[0][1].tolist() == [b"a", b"b"]
    assert [(e.step, e.value) for e in acc.Scalars("raw")] == [(4, 2.5), (9, 2.5)]
    assert _tensor(acc, "doubled")[0][1].tolist() == [2.0, 6.0]
    assert acc.SummaryMetadata("doubled").plugin_data.plugin_name == "custom"


def test_saved_function_writes_audio_and_tensor_summaries(tmp_path):
    pytest.importorskip("tensorboardX")
    from tensorboard.compat.proto import summary_pb2
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="custom"))
    module = rt.Module()

    @rt.function(input_signature=[rt.TensorSpec([1, 2, 1], rt.float32)])
    def log(x):
        rt.summary.audio("snd", x, 8000, step=1)
        rt.summary.write("w", x, step=2, metadata=metadata)
        return x
    module.log = log
    rt.saved_model.save(module, str(tmp_path / "saved"))
    loaded = rt.saved_model.load(str(tmp_path / "saved"))
    writer = rt.summary.create_file_writer(str(tmp_path / "logs"))
    with writer.as_default():
        loaded.log(rt.constant([[[0.5], [-0.5]]]))
    writer.close()
    acc = _events(tmp_path / "logs")
    assert _tensor(acc, "snd")[0][1][0, 0] == _wav([16384, -16384], 8000)
    assert _tensor(acc, "w")[0][1].tolist() == [[[0.5], [-0.5]]]
    assert acc.SummaryMetadata("w").plugin_data.plugin_name == "custom"


def test_summary_scope():
    with rt.name_scope("outer"):
        with rt.summary.experimental.summary_scope("my op", "Def", []) as (tag, scope):
            assert (tag, scope) == ("outer/my op", "outer/myop/")
    with rt.summary.experimental.summary_scope(None, "Def") as (tag, scope):
        assert (tag, scope) == ("Def", "Def/")
    with rt.summary.experimental.summary_scope("??") as (tag, scope):
        assert (tag, scope) == ("??", "summary/")


# -- tf.types, tf.debugging, tf.experimental ------------------------------------------------------

def test_function_type_and_atomic_function():
    function_type = rt.types.experimental.FunctionType.from_callable(lambda a, b=1: 0)
    assert isinstance(function_type, rt.types.experimental.FunctionType)
    assert isinstance(function_type, inspect.Signature)
    assert str(function_type) == "(a, b=1)"
    assert function_type.bind(1).arguments == {"a": 1}
    with pytest.raises(TypeError):
        rt.types.experimental.AtomicFunction()

    class Doubler(rt.types.experimental.AtomicFunction):
        function_type = rt.types.experimental.FunctionType.from_callable(lambda x: x)

        def call_with_captures(self, args, kwargs, captures):
            return args[0] * 2 + sum(captures)
    assert Doubler()(3) == 6 and Doubler().call_with_captures((3,), {}, (1,)) == 7


def test_dump_debug_info_is_refused_by_name():
    with pytest.raises(NotImplementedError, match="Debugger V2"):
        rt.debugging.experimental.enable_dump_debug_info("/tmp/dump",
                                                         tensor_debug_mode="FULL_HEALTH")
    with pytest.raises(ValueError, match="Invalid value in tensor_debug_mode"):
        rt.debugging.experimental.enable_dump_debug_info("/tmp/dump", tensor_debug_mode="ALL")
    assert rt.debugging.experimental.disable_dump_debug_info() is None


def test_strict_mode_turns_deprecations_into_errors():
    with pytest.warns(DeprecationWarning, match="functions_run_eagerly"):
        rt.experimental_functions_run_eagerly()
    try:
        rt.experimental.enable_strict_mode()
        with pytest.raises(RuntimeError, match="deprecated.*strict mode"):
            rt.experimental_functions_run_eagerly()
    finally:
        debug_modes._STRICT[0] = False


class _Masked(rt.experimental.BatchableExtensionType):
    values: rt.Tensor
    mask: rt.Tensor
    shape: rt.TensorShape
    name: str = "x"


def _masked():
    return _Masked(rt.constant([1, 2]), rt.constant([True, False]), rt.TensorShape([2]))


def test_extension_type_spec_batch_encoder_and_as_dict():
    value = _masked()
    spec = rt.type_spec_from_value(value)
    assert isinstance(spec, rt.experimental.ExtensionTypeSpec)
    encoder = rt.experimental.ExtensionTypeBatchEncoder()
    batched = encoder.batch(spec, 4)  # TensorFlow: values (4, 2), mask (4, 2), shape [4, 2]
    assert batched.values == rt.TensorSpec([4, 2], rt.int32)
    assert batched.mask == rt.TensorSpec([4, 2], rt.bool)
    assert batched.shape == rt.TensorShape([4, 2]) and batched.name == "x"
    assert encoder.unbatch(batched) == spec
    assert encoder.batch(spec, None).values.shape.as_list() == [None, 2]
    encoded = encoder.encode(spec, value)
    assert [t.numpy().tolist() for t in encoded] == [[1, 2], [True, False]]
    assert encoder.encoding_specs(spec) == [rt.TensorSpec([2], rt.int32),
                                            rt.TensorSpec([2], rt.bool)]
    decoded = encoder.decode(spec, encoded)
    assert isinstance(decoded, _Masked) and decoded.name == "x"
    assert decoded.values.numpy().tolist() == [1, 2]
    fields = rt.experimental.extension_type.as_dict(value)
    assert list(fields) == ["values", "mask", "shape", "name"]
    assert fields["values"] is value.values and fields["name"] == "x"
    with pytest.raises(TypeError, match="ExtensionType"):
        rt.experimental.extension_type.as_dict(5)


def test_custom_batch_encoder_is_refused_and_user_spec_kept():
    class Custom(rt.experimental.ExtensionTypeBatchEncoder):
        def batch(self, spec, batch_size):
            return spec

    with pytest.raises(NotImplementedError, match="__batch_encoder__"):
        class Refused(rt.experimental.BatchableExtensionType):
            x: rt.Tensor
            __batch_encoder__ = Custom()

    class Plain(rt.experimental.BatchableExtensionType):
        x: rt.Tensor
        __batch_encoder__ = rt.experimental.ExtensionTypeBatchEncoder()

    class WithSpec(rt.experimental.ExtensionType):
        x: rt.Tensor

        class Spec(rt.experimental.ExtensionTypeSpec):
            def hello(self):
                return "hi"

    assert Plain(rt.constant(1)).x.numpy() == 1
    assert rt.type_spec_from_value(WithSpec(rt.constant(1))).hello() == "hi"


def test_dispatch_for_binary_elementwise_assert_apis():
    seen = []

    @rt.experimental.dispatch_for_binary_elementwise_assert_apis(_Masked, _Masked)
    def handler(assert_func, x, y):
        seen.append(x)
        return assert_func(x.values, y.values)

    try:
        value = _masked()
        assert rt.debugging.assert_equal(value, value) is None
        assert rt.debugging.assert_less_equal(value, value) is None
        with pytest.raises(rt.errors.InvalidArgumentError, match="x < y"):
            rt.debugging.assert_less(value, value)
        assert len(seen) == 3
    finally:
        rt.experimental.unregister_dispatch_for(handler)
    rt.debugging.assert_equal(rt.constant(1), rt.constant(1))  # plain tensors: the API itself
    assert len(seen) == 3


def test_async_scope_runs_synchronously():
    with rt.experimental.async_scope():
        x = rt.constant(1) + 1
        assert x.numpy() == 2  # the op ran at once
        with pytest.raises(rt.errors.InvalidArgumentError):
            rt.debugging.assert_equal(rt.constant(1), rt.constant(2))  # raised by the op
    assert rt.experimental.async_clear_error() is None
    assert os.path.basename(rt.experimental.extension_type.__file__) == "extension_type.py"
