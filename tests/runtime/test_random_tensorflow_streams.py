"""The random streams are TensorFlow's: the same seeds give the same numbers.

The expected values were recorded from TensorFlow 2.21 (CPU) with the calls each test makes
(`.numpy().tolist()`). Uniform and integer draws and every float64 draw are bit-identical; a
float32 normal value may differ by a few units in the last place (the C library's float sin,
cos and log against float64 ones rounded), so those are compared to 4 ulp.
"""

import numpy as np
import pytest

import runtime as rt

RECORDED = {'default_graph_seed': [0.45490562915802, 0.31397736072540283],
            'from_seed': {'-1': [-1, -1, -1], '1': [1, 0, 0], '18446744073709551615': [-1, 0, 0]},
            'from_seed_lists': [[0, 1, 2], [1, 2, 3]],
            'gen_carry': [[0.7178122997283936, 0.7014750242233276], [511, 7, 7]],
            'gen_normal_f64': [[0.34405020398530156, 0.06952662335162424, 0.4810318644701479],
                               [2305, 0, 0]],
            'gen_uniform': [[0.7874951362609863, 0.3906511068344116, 0.29263055324554443,
                             0.9921692609786987, 0.9581042528152466, 0.5562331676483154],
                            [1537, 0, 0]],
            'op_seed_int': [6, 2, -1, 6],
            'op_seed_uniform': [[0.19560599327087402, 0.029860854148864746, 0.3649308681488037],
                                [0.4430607557296753, 0.8878122568130493]],
            'set_seed_uniform': [[0.1651308536529541, 0.9014812707901001, 0.6309741735458374],
                                 [0.5101070404052734, 0.44353175163269043, 0.40853309631347656]],
            'stateless_full_i64': [-6914749377162718899, 3936589988564917842],
            'stateless_normal_f32': [0.544110119342804, 0.20738030970096588, 0.0735643208026886,
                                     0.04643455147743225],
            'stateless_normal_f64': [1.500618235495574, -0.31391614093101555, 0.24596962168515377,
                                     -0.4937472981485387, -1.139804236660631],
            'stateless_truncated_f64': [1.500618235495574, -0.31391614093101555, -0.49658556318584135,
                                        0.2737944496365392, -0.3601550482983316],
            'stateless_uniform_f32': [0.8440604209899902, 0.19204533100128174, 0.9962232112884521,
                                      0.16038739681243896, 0.27199018001556396, 0.6493459939956665],
            'stateless_uniform_f64': [0.5217126152711182, 0.1533239755242266, 0.6906659727685966],
            'stateless_uniform_i32': [910, 990, 268, 731, 779],
            'stateless_uniform_i64': [8, 539, 830]}


def _same(got, key, dtype=None):
    want = np.asarray(RECORDED[key], dtype=dtype)
    np.testing.assert_array_equal(np.asarray(got), want, err_msg=key)


def test_stateless_draws():
    _same(rt.random.stateless_uniform([6], seed=[1, 2]), "stateless_uniform_f32", np.float32)
    _same(rt.random.stateless_uniform([3], seed=[-5, 2**40], dtype=rt.float64),
          "stateless_uniform_f64")
    _same(rt.random.stateless_uniform([5], seed=[7, 11], minval=3, maxval=1000, dtype=rt.int32),
          "stateless_uniform_i32")
    _same(rt.random.stateless_uniform([3], seed=[7, 11], minval=-3, maxval=1000,
                                      dtype=rt.int64), "stateless_uniform_i64")
    _same(rt.random.stateless_uniform([2], seed=[7, 11], minval=None, maxval=None,
                                      dtype=rt.int64), "stateless_full_i64")
    _same(rt.random.stateless_normal([5], seed=[4, 5], dtype=rt.float64), "stateless_normal_f64")
    _same(rt.random.stateless_truncated_normal([5], seed=[4, 5], dtype=rt.float64),
          "stateless_truncated_f64")
    got = rt.random.stateless_normal([4], seed=[1, 2]).numpy()
    np.testing.assert_array_max_ulp(got, np.asarray(RECORDED["stateless_normal_f32"], np.float32),
                                    maxulp=4)


def test_stateless_draws_are_the_same_staged():
    f = rt.function(lambda s: rt.random.stateless_uniform([6], seed=s))
    _same(f(rt.constant([1, 2], rt.int64)), "stateless_uniform_f32", np.float32)


def test_stateful_draws_follow_the_global_and_op_seeds():
    try:
        rt.random.set_seed(1)
        first, second = RECORDED["set_seed_uniform"]
        np.testing.assert_array_equal(rt.random.uniform([3]).numpy(), np.float32(first))
        np.testing.assert_array_equal(rt.random.uniform([3]).numpy(), np.float32(second))
        # an op seed keeps one stream: the second draw continues where the first stopped
        a, b = RECORDED["op_seed_uniform"]
        np.testing.assert_array_equal(rt.random.uniform([3], seed=5).numpy(), np.float32(a))
        np.testing.assert_array_equal(rt.random.uniform([2], seed=5).numpy(), np.float32(b))
        _same(rt.random.uniform([4], minval=-3, maxval=7, dtype=rt.int32, seed=2), "op_seed_int")
        rt.random.set_seed(None)  # an op seed alone: TensorFlow's default global seed
        _same(rt.random.uniform([2], seed=9), "default_graph_seed", np.float32)
    finally:
        rt.random.set_seed(None)


def test_generators_states_and_draws():
    g = rt.random.Generator.from_seed(1)
    values, state = RECORDED["gen_uniform"]
    np.testing.assert_array_equal(g.uniform([6]).numpy(), np.float32(values))
    np.testing.assert_array_equal(g.state.numpy(), state)
    values, state = RECORDED["gen_normal_f64"]
    np.testing.assert_array_equal(g.normal([3], dtype=rt.float64).numpy(), values)
    np.testing.assert_array_equal(g.state.numpy(), state)
    g2 = rt.random.Generator.from_state([-1, 6, 7], alg="philox")  # the counter carries
    values, state = RECORDED["gen_carry"]
    np.testing.assert_array_equal(g2.uniform([2]).numpy(), np.float32(values))
    np.testing.assert_array_equal(g2.state.numpy(), state)


@pytest.mark.parametrize("seed", [1, -1, 2**64 - 1])
def test_from_seed_states(seed):
    np.testing.assert_array_equal(rt.random.Generator.from_seed(seed).state.numpy(),
                                  RECORDED["from_seed"][str(seed)])


def test_from_seed_sequences():
    short, long = RECORDED["from_seed_lists"]
    np.testing.assert_array_equal(rt.random.Generator.from_seed([1, 2]).state.numpy(), short)
    np.testing.assert_array_equal(rt.random.Generator.from_seed([1, 2, 3, 4]).state.numpy(), long)
