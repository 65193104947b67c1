"""rt.types.experimental.distributed.PerReplica / Mirrored: the types TensorFlow's
distributed values are instances of (strategy.run's per-replica results, all-reduced values,
mirrored variables)."""

import runtime as rt

D = rt.types.experimental.distributed


def test_distributed_values_are_instances_of_the_types(two_cpus):
    strategy = two_cpus
    ctx_values = strategy.run(lambda: rt.distribute.get_replica_context().replica_id_in_sync_group)
    assert isinstance(ctx_values, D.PerReplica) and not isinstance(ctx_values, D.Mirrored)
    reduced = strategy.run(lambda: rt.distribute.get_replica_context().all_reduce(
        "sum", rt.constant(1.0)))
    assert isinstance(reduced, (D.Mirrored, D.PerReplica))
    with strategy.scope():
        variable = rt.Variable(1.0)
    assert isinstance(variable, D.Mirrored)
    assert isinstance(rt.distribute.PerReplica([rt.constant(1.0), rt.constant(2.0)]),
                      D.PerReplica)
    assert not isinstance(rt.constant(1.0), (D.PerReplica, D.Mirrored))
