"""rt.distribute's API: the default strategy, scopes and replica contexts, ReduceOp and
variable aggregation, reduce/gather/local results, and distributed datasets (each batch split
as TensorFlow 2.21 splits it; the expected splits were read off TensorFlow with two and four
logical CPUs)."""

import threading

import numpy as np
import pytest

import runtime as rt

D = rt.distribute


def _locals(strategy, value):
    return [np.asarray(v).tolist() for v in strategy.experimental_local_results(value)]


# -- the default strategy ------------------------------------------------------------------

def test_default_strategy_is_one_replica_outside_every_scope():
    strategy = D.get_strategy()
    assert strategy.num_replicas_in_sync == 1
    assert not D.has_strategy() and not D.in_cross_replica_context()
    replica = D.get_replica_context()
    assert replica is not None and int(replica.replica_id_in_sync_group) == 0
    assert float(replica.all_reduce("SUM", rt.constant(3.0))) == 3.0
    assert float(strategy.run(lambda x: x * 2, args=(rt.constant(4.0),))) == 8.0
    assert float(strategy.reduce("SUM", rt.constant(5.0), axis=None)) == 5.0
    dataset = rt.data.Dataset.range(4).batch(2)
    assert strategy.experimental_distribute_dataset(dataset) is dataset
    assert isinstance(rt.Variable(1.0), rt.Variable) and \
        type(rt.Variable(1.0)) is rt.Variable
    with strategy.scope():  # the default scope changes nothing
        assert not D.has_strategy()


def test_scope_and_replica_contexts(two_cpus):
    strategy = two_cpus
    with strategy.scope():
        assert D.get_strategy() is strategy and D.has_strategy()
        assert D.in_cross_replica_context() and D.get_replica_context() is None
        assert D.get_cross_replica_context() is strategy
        with pytest.raises(ValueError, match="Mixing"):
            with D.MirroredStrategy(["CPU:0"]).scope():
                pass

    def inside():
        assert not D.in_cross_replica_context() and D.get_strategy() is strategy
        assert D.get_cross_replica_context() is None
        return D.get_replica_context().replica_id_in_sync_group

    assert _locals(strategy, strategy.run(inside)) == [0, 1]
    assert not D.has_strategy()


def test_devices_are_the_logical_cpus(two_cpus):
    assert [d.name for d in rt.config.list_logical_devices("CPU")] == \
        ["/device:CPU:0", "/device:CPU:1"]
    assert two_cpus.extended.worker_devices == (
        "/job:localhost/replica:0/task:0/device:CPU:0",
        "/job:localhost/replica:0/task:0/device:CPU:1")
    assert D.MirroredStrategy().num_replicas_in_sync == 2  # every logical CPU, as TF 2.21
    with pytest.raises(ValueError, match="set_logical_device_configuration"):
        D.MirroredStrategy(["CPU:0", "CPU:7"])
    with pytest.raises(TypeError, match="cross_device_ops"):
        D.MirroredStrategy(["CPU:0"], cross_device_ops=object())
    # TensorFlow's guide: the reduction algorithms and CentralStorageStrategy are accepted;
    # the replicas reduce in memory either way
    assert D.MirroredStrategy(cross_device_ops=D.HierarchicalCopyAllReduce()
                              ).num_replicas_in_sync == 2
    assert D.experimental.CentralStorageStrategy().num_replicas_in_sync == 2
    options = D.experimental.CommunicationOptions(
        implementation=D.experimental.CommunicationImplementation.NCCL)
    assert D.MultiWorkerMirroredStrategy(communication_options=options
                                         ).num_replicas_in_sync == 1  # no cluster: one replica


def test_reduce_op_and_variable_aggregation_names():
    assert D.ReduceOp("SUM") is D.ReduceOp.SUM and D.ReduceOp.MEAN.value == "MEAN"
    assert D.ReduceOp.from_variable_aggregation(rt.VariableAggregation.MEAN) is D.ReduceOp.MEAN
    with pytest.raises(ValueError):
        D.ReduceOp.from_variable_aggregation(rt.VariableAggregation.ONLY_FIRST_REPLICA)
    assert [a.name for a in rt.VariableAggregation] == ["NONE", "SUM", "MEAN",
                                                        "ONLY_FIRST_REPLICA"]
    assert [s.name for s in rt.VariableSynchronization] == ["AUTO", "NONE", "ON_WRITE",
                                                            "ON_READ"]


# -- running, reducing, gathering ------------------------------------------------------------

def test_run_gives_each_replica_its_part_and_plain_values_to_all(two_cpus):
    strategy = two_cpus
    per_replica = D.PerReplica([rt.constant([1.0, 2.0]), rt.constant([3.0])])
    result = strategy.run(lambda x, scale: rt.reduce_sum(x) * scale,
                          args=(per_replica,), kwargs={"scale": 10.0})
    assert isinstance(result, D.PerReplica) and _locals(strategy, result) == [30.0, 30.0]


def test_replicas_run_at_the_same_time(two_cpus):
    meet = threading.Barrier(2, timeout=10)  # passes only when both replicas wait at once
    two_cpus.run(lambda: meet.wait())


def test_all_reduce_all_gather_and_merge_call(two_cpus):
    strategy = two_cpus

    def fn():
        ctx = D.get_replica_context()
        x = rt.cast(ctx.replica_id_in_sync_group, rt.float32) + 1.0  # 1 and 2
        total = ctx.all_reduce(D.ReduceOp.SUM, x)
        mean, doubled = ctx.all_reduce("mean", [x, 2 * x])
        gathered = ctx.all_gather(rt.reshape(x, [1]), axis=0)
        merged = ctx.merge_call(lambda s, v: s.reduce("SUM", v, axis=None) * 100, args=(x,))
        return total, mean, doubled, gathered, merged

    total, mean, doubled, gathered, merged = strategy.run(fn)
    assert _locals(strategy, total) == [3.0, 3.0]
    assert _locals(strategy, mean) == [1.5, 1.5] and _locals(strategy, doubled) == [3.0, 3.0]
    assert _locals(strategy, gathered) == [[1.0, 2.0], [1.0, 2.0]]
    assert _locals(strategy, merged) == [300.0, 300.0]


def test_reduce_and_gather_with_and_without_axis(two_cpus):
    strategy = two_cpus
    values = strategy.run(lambda: rt.cast(D.get_replica_context().replica_id_in_sync_group,
                                          rt.float32) * rt.ones([2, 3]))
    stacked = np.concatenate([np.zeros((2, 3)), np.ones((2, 3))])
    np.testing.assert_allclose(strategy.reduce("SUM", values, axis=None), np.ones((2, 3)))
    np.testing.assert_allclose(strategy.reduce("MEAN", values, axis=None), np.full((2, 3), 0.5))
    np.testing.assert_allclose(strategy.reduce("MEAN", values, axis=0), stacked.mean(axis=0))
    np.testing.assert_allclose(strategy.reduce("SUM", values, axis=1),
                               stacked.reshape(2, 2, 3).sum(axis=(0, 2)))
    np.testing.assert_allclose(strategy.gather(values, axis=0), stacked)
    np.testing.assert_allclose(strategy.gather(values, axis=1),
                               np.concatenate([np.zeros((2, 3)), np.ones((2, 3))], axis=1))
    with pytest.raises(ValueError, match="reduce_op"):
        strategy.reduce("MAX", values, axis=None)
    # a value that is not distributed: MEAN gives it back, SUM is refused (as TensorFlow)
    assert float(strategy.reduce("MEAN", rt.constant(1.0), axis=None)) == 1.0
    with pytest.raises(ValueError, match="non-DistributedValues"):
        strategy.reduce("SUM", rt.constant(1.0), axis=None)
    assert strategy.experimental_local_results(rt.constant(1.0))[0].numpy() == 1.0


def test_a_failing_replica_raises_its_error_and_frees_the_others(two_cpus):
    def fn():
        ctx = D.get_replica_context()
        if int(ctx.replica_id_in_sync_group) == 1:
            raise KeyError("replica one")
        return ctx.all_reduce("SUM", 1.0)  # replica 0 waits here for replica 1

    with pytest.raises(KeyError, match="replica one"):
        two_cpus.run(fn)


# -- mirrored variables: TensorFlow 2.21's results with two replicas ---------------------------

@pytest.mark.parametrize("aggregation, after_add, after_assign", [
    (rt.VariableAggregation.SUM, 4.0, 7.0), (rt.VariableAggregation.MEAN, 2.5, 3.5),
    (rt.VariableAggregation.ONLY_FIRST_REPLICA, 2.0, 3.0)])
def test_mirrored_variable_updates_are_aggregated(two_cpus, aggregation, after_add,
                                                  after_assign):
    strategy = two_cpus
    with strategy.scope():
        v = rt.Variable(1.0, aggregation=aggregation)
    assert isinstance(v, D.MirroredVariable) and v.aggregation is aggregation

    def replica_value():
        return rt.cast(D.get_replica_context().replica_id_in_sync_group, rt.float32)

    strategy.run(lambda: v.assign_add(replica_value() + 1.0))  # adds 1 and 2
    assert _locals(strategy, v) == [after_add, after_add]
    v.assign(1.0)  # outside the replicas: every copy
    assert _locals(strategy, v) == [1.0, 1.0]
    strategy.run(lambda: v.assign(replica_value() + 3.0))      # assigns 3 and 4
    assert _locals(strategy, v) == [after_assign, after_assign]


def test_mirrored_variable_without_aggregation_keeps_each_replicas_write(two_cpus):
    strategy = two_cpus
    with strategy.scope():
        v = rt.Variable(1.0)
    strategy.run(lambda: v.assign_add(
        rt.cast(D.get_replica_context().replica_id_in_sync_group, rt.float32) + 1.0))
    assert _locals(strategy, v) == [2.0, 3.0] and float(v.numpy()) == 2.0


def test_aggregated_writes_inside_a_compiled_replica_function(two_cpus):
    strategy = two_cpus
    with strategy.scope():
        v = rt.Variable(0.0, aggregation="sum")

    @rt.function
    def add(x):
        v.assign_add(x)
        return v.read_value()

    for _ in range(2):
        strategy.run(add, args=(D.PerReplica([rt.constant(1.0), rt.constant(2.0)]),))
    assert _locals(strategy, v) == [6.0, 6.0]


# -- losses ---------------------------------------------------------------------------------

def test_compute_average_loss_divides_by_the_global_batch(two_cpus):
    strategy = two_cpus
    losses = [1.0, 2.0, 3.0]
    assert float(rt.nn.compute_average_loss(losses)) == pytest.approx(2.0)
    per_replica = strategy.run(lambda: rt.nn.compute_average_loss(losses))
    assert _locals(strategy, per_replica) == pytest.approx([1.0, 1.0])  # 6 / (3 * 2)
    assert float(strategy.reduce("SUM", per_replica, axis=None)) == pytest.approx(2.0)
    scaled = strategy.run(lambda: rt.nn.scale_regularization_loss(4.0))
    assert _locals(strategy, scaled) == [2.0, 2.0]
    with strategy.scope():
        with pytest.raises(RuntimeError, match="cross replica context"):
            rt.nn.compute_average_loss(losses)


# -- datasets ---------------------------------------------------------------------------------

@pytest.mark.parametrize("n, batch, expected", [
    (10, 4, [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8], [9]]]),
    (7, 3, [[[0, 1], [2]], [[3, 4], [5]], [[6], []]]),
    (5, 5, [[[0, 1, 2], [3, 4]]]),
    (1, 4, [[[0], []]])])
def test_global_batches_split_as_tensorflow_splits_them(two_cpus, n, batch, expected):
    strategy = two_cpus
    dataset = strategy.experimental_distribute_dataset(rt.data.Dataset.range(n).batch(batch))
    assert [_locals(strategy, element) for element in dataset] == expected


@pytest.mark.parametrize("n, batch, sizes", [
    (12, 5, [[2, 2, 1, 0], [2, 2, 1, 0], [1, 1, 0, 0]]), (13, 8, [[2, 2, 2, 2], [2, 2, 1, 0]]),
    (11, 10, [[3, 3, 3, 1], [1, 0, 0, 0]]), (3, 3, [[1, 1, 1, 0]])])
def test_split_over_four_replicas(four_cpus, n, batch, sizes):
    strategy = four_cpus
    dataset = strategy.experimental_distribute_dataset(rt.data.Dataset.range(n).batch(batch))
    got = [[len(v) for v in strategy.experimental_local_results(e)] for e in dataset]
    assert got == sizes
    flat = [x for e in strategy.experimental_distribute_dataset(
        rt.data.Dataset.range(n).batch(batch)) for v in strategy.experimental_local_results(e)
        for x in np.asarray(v).tolist()]
    assert flat == list(range(n))  # every element once, in order


def test_structured_elements_and_the_iterator(two_cpus):
    strategy = two_cpus
    x, y = np.arange(8), np.arange(8) * 10
    dataset = rt.data.Dataset.from_tensor_slices(({"a": x}, y)).batch(4)
    iterator = iter(strategy.experimental_distribute_dataset(dataset))
    assert isinstance(iterator, D.DistributedIterator)
    features, labels = iterator.get_next()
    assert _locals(strategy, features["a"]) == [[0, 1], [2, 3]]
    assert _locals(strategy, labels) == [[0, 10], [20, 30]]
    next(iterator)
    with pytest.raises(rt.errors.OutOfRangeError):
        iterator.get_next()
    with pytest.raises(ValueError, match="batch"):
        next(iter(strategy.experimental_distribute_dataset(rt.data.Dataset.range(3))))


def test_datasets_from_function(two_cpus):
    strategy = two_cpus
    seen = []

    def dataset_fn(context):
        seen.append((context.num_input_pipelines, context.input_pipeline_id,
                     context.num_replicas_in_sync, context.get_per_replica_batch_size(8)))
        return rt.data.Dataset.range(8).batch(2)

    dataset = strategy.distribute_datasets_from_function(dataset_fn)
    assert seen == [(1, 0, 2, 4)]
    assert [_locals(strategy, e) for e in dataset] == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    with pytest.raises(ValueError, match="divisible"):
        D.InputContext(1, 0, 3).get_per_replica_batch_size(8)


def test_values_from_function(two_cpus):
    values = two_cpus.experimental_distribute_values_from_function(
        lambda ctx: rt.constant(float(ctx.replica_id_in_sync_group)))
    assert _locals(two_cpus, values) == [0.0, 1.0]


def test_element_spec_is_an_input_signature(two_cpus):
    strategy = two_cpus
    dataset = strategy.experimental_distribute_dataset(rt.data.Dataset.range(8).batch(4))
    spec = dataset.element_spec
    assert spec == D.PerReplica.Spec(values=(rt.TensorSpec([None], rt.int64),) * 2)

    @rt.function(input_signature=[spec])
    def doubled(per_replica_inputs):
        return strategy.run(lambda x: 2 * x, args=(per_replica_inputs,))

    outputs = [_locals(strategy, doubled(batch)) for batch in dataset]
    assert outputs == [[[0, 2], [4, 6]], [[8, 10], [12, 14]]]
    assert doubled.experimental_get_tracing_count() == 1


def test_auto_shard_policy_option_is_kept(two_cpus):
    options = rt.data.Options()
    assert options.experimental_distribute.auto_shard_policy is \
        rt.data.experimental.AutoShardPolicy.AUTO
    options.experimental_distribute.auto_shard_policy = rt.data.experimental.AutoShardPolicy.DATA
    dataset = rt.data.Dataset.range(4).batch(2).with_options(options)
    assert [_locals(two_cpus, e) for e in two_cpus.experimental_distribute_dataset(dataset)] \
        == [[[0], [1]], [[2], [3]]]
    with pytest.raises(ValueError, match="auto_shard_policy"):
        options.experimental_distribute.auto_shard_policy = "everything"
