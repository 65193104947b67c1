"""tf.nn.embedding_lookup_sparse, safe_embedding_lookup_sparse (runtime/ops/nn_embedding.py)
and embedding_lookup's shards and max_norm.

Oracles: values printed by TensorFlow 2.21 for the calls below, and NumPy computations of
the combiners."""

import numpy as np
import pytest

import runtime as rt

P = np.arange(12, dtype=np.float32).reshape(6, 2)
INDICES = [[0, 0], [0, 1], [2, 0], [2, 3]]
IDS = rt.sparse.SparseTensor(INDICES, rt.constant([1, 3, 0, 1], rt.int64), [4, 5])
WEIGHTS = rt.sparse.SparseTensor(INDICES, rt.constant([2.0, 1.0, 0.5, 1.0]), [4, 5])

# printed by TensorFlow 2.21: (weighted, unweighted) for each combiner
TF = {"sum": ([[10.0, 13.0], [0.0, 0.0], [2.0, 3.5]], [[8.0, 10.0], [0.0, 0.0], [2.0, 4.0]]),
      "mean": ([[3.3333332538604736, 4.333333492279053], [0.0, 0.0],
                [1.3333333730697632, 2.3333332538604736]],
               [[4.0, 5.0], [0.0, 0.0], [1.0, 2.0]]),
      "sqrtn": ([[4.4721360206604, 5.81377649307251], [0.0, 0.0],
                 [1.7888543605804443, 3.130495071411133]],
                [[5.656854152679443, 7.071067810058594], [0.0, 0.0],
                 [1.4142135381698608, 2.8284270763397217]])}


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_combiners_match_tensorflow(combiner):
    weighted = rt.nn.embedding_lookup_sparse(P, IDS, WEIGHTS, combiner=combiner)
    plain = rt.nn.embedding_lookup_sparse(P, IDS, None, combiner=combiner)
    assert np.allclose(weighted.numpy(), TF[combiner][0], rtol=1e-6)
    assert np.allclose(plain.numpy(), TF[combiner][1], rtol=1e-6)


def test_max_norm_and_shards_match_tensorflow():
    got = rt.nn.embedding_lookup_sparse(P, IDS, None, max_norm=3.0)
    assert np.allclose(got.numpy(), [[1.8082373142242432, 2.386960506439209], [0.0, 0.0],
                                     [0.8320503234863281, 1.7480754852294922]], rtol=1e-6)
    got = rt.nn.embedding_lookup_sparse([P[:3], P[3:]], IDS, None)
    assert np.allclose(got.numpy(), [[4.0, 5.0], [0.0, 0.0], [1.0, 2.0]])


def test_embedding_lookup_divides_uneven_shards_as_tensorflow():
    # 7 rows in 3 shards: TensorFlow's "div" reads ids 0-2, 3-4, 5-6 from shards 0, 1, 2
    table = np.arange(14, dtype=np.float32).reshape(7, 2)
    ids = np.array([6, 0, 3, 2, 5, 4])
    got = rt.nn.embedding_lookup([table[:3], table[3:5], table[5:]], ids)
    assert np.array_equal(got.numpy(), table[ids])
    clipped = rt.nn.embedding_lookup(table, ids, max_norm=5.0).numpy()
    norms = np.linalg.norm(table[ids], axis=1, keepdims=True)
    assert np.allclose(clipped, table[ids] * np.minimum(1.0, 5.0 / norms))


def test_safe_lookup_matches_tensorflow():
    ids = rt.sparse.SparseTensor(INDICES, rt.constant([1, -1, 0, 1], rt.int64), [4, 5])
    weights = rt.sparse.SparseTensor(INDICES, rt.constant([2.0, 1.0, 0.0, 1.0]), [4, 5])
    got = rt.nn.safe_embedding_lookup_sparse(P, ids, weights)
    assert np.allclose(got.numpy(), [[2.0, 3.0], [0.0, 0.0], [2.0, 3.0], [0.0, 0.0]])
    got = rt.nn.safe_embedding_lookup_sparse(P, ids, None, default_id=5, combiner="sum")
    assert np.allclose(got.numpy(), [[2.0, 3.0], [10.0, 11.0], [2.0, 4.0], [10.0, 11.0]])
    deep = rt.sparse.SparseTensor([[0, 0, 0], [0, 1, 1], [1, 1, 0]],
                                  rt.constant([1, 2, 3], rt.int64), [2, 3, 4])
    got = rt.nn.safe_embedding_lookup_sparse(P, deep)
    assert np.allclose(got.numpy(), [[[2.0, 3.0], [4.0, 5.0], [0.0, 0.0]],
                                     [[0.0, 0.0], [6.0, 7.0], [0.0, 0.0]]])


def test_gradients_flow_to_the_table_and_the_weights_and_the_call_stages():
    table = rt.Variable(P)

    def loss():
        return rt.reduce_sum(rt.nn.embedding_lookup_sparse(table, IDS, WEIGHTS, combiner="sum"))
    with rt.GradientTape() as tape:
        y = loss()
    grad = rt.convert_to_tensor(tape.gradient(y, table)).numpy()
    want = np.zeros_like(P)
    for i, w in zip([1, 3, 0, 1], [2.0, 1.0, 0.5, 1.0]):
        want[i] += w
    assert np.allclose(grad, want)
    assert np.allclose(rt.function(loss)().numpy(), y.numpy())


def test_errors():
    with pytest.raises(ValueError, match="combiner"):
        rt.nn.embedding_lookup_sparse(P, IDS, None, combiner="max")
    with pytest.raises(TypeError, match="SparseTensor"):
        rt.nn.embedding_lookup_sparse(P, np.array([[1, 2]]), None)
