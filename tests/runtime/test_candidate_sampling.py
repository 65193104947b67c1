"""Candidate samplers, compute_accidental_hits, nce_loss and sampled_softmax_loss
(runtime/ops/candidate_sampling.py).

Oracles: values printed by TensorFlow 2.21 for the calls below (the losses and gradients with
given `sampled_values`, accidental hits, the all-candidate sampler, expected counts), the
samplers' documented distributions (frequencies of many draws within 5 standard deviations),
the expected-count formulas, and NumPy computations of the sampled logits."""

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

RNG = np.random.default_rng(0)
W = RNG.normal(size=(10, 4)).astype(np.float32)
B = RNG.normal(size=10).astype(np.float32)
X = RNG.normal(size=(3, 4)).astype(np.float32)
LABELS = np.array([[3, 1], [2, 5], [1, 1]], np.int64)
SAMPLED = (np.array([1, 3, 5, 7, 0], np.int64), np.full((3, 2), 0.4, np.float32),
           np.array([.3, .2, .5, .6, .7], np.float32))

# printed by TensorFlow 2.21
TF = {"nce_False": [9.154685974121094, 15.596869468688965, 14.32347297668457],
      "ssm_False": [2.1413965225219727, 3.5439789295196533, 5.596770763397217],
      "nce_True": [4.804782390594482, 14.251646995544434, 12.67414379119873],
      "ssm_True": [1.496259331703186, 3.530970573425293, 5.5918121337890625],
      "shards": [5.32899284362793, 6.077132701873779, 11.117258071899414],
      "shards3": [7.950524806976318, 13.584874153137207, 13.175239562988281],
      "grad_w": [[-0.5188174843788147, -0.4589982032775879, 0.046624258160591125,
                  0.22858281433582306],
                 [-1.8748328685760498, -1.3007616996765137, 0.5083427429199219,
                  1.5950994491577148],
                 [0.03680628538131714, -0.011287972331047058, -0.012280479073524475,
                  -0.019884735345840454],
                 [-3.801788568496704, -1.430410385131836, -0.2895802855491638,
                  -1.009722113609314], [0.0] * 4,
                 [-1.0441560745239258, -0.3645412027835846, 0.06349001824855804,
                  0.10547609627246857], [0.0] * 4,
                 [-2.046818971633911, -1.7246084213256836, -0.022514859214425087,
                  0.2877650856971741], [0.0] * 4, [0.0] * 4],
      "grad_x": [[-2.550218105316162, 0.9671690464019775, -0.006237387657165527,
                  0.8064993619918823],
                 [-4.33163595199585, 1.2128026485443115, -0.7633816003799438,
                  0.5085168480873108],
                 [-5.19729471206665, 0.4094081521034241, -3.1386189460754395,
                  -1.168332576751709]]}


@pytest.mark.parametrize("remove", [False, True])
def test_losses_with_given_samples_match_tensorflow(remove):
    nce = rt.nn.nce_loss(W, B, LABELS, X, 5, 10, num_true=2, sampled_values=SAMPLED,
                         remove_accidental_hits=remove)
    ssm = rt.nn.sampled_softmax_loss(W, B, LABELS, X, 5, 10, num_true=2,
                                     sampled_values=SAMPLED, remove_accidental_hits=remove)
    assert np.allclose(nce.numpy(), TF[f"nce_{remove}"], rtol=1e-5)
    assert np.allclose(ssm.numpy(), TF[f"ssm_{remove}"], rtol=1e-5)


def test_sharded_weights_are_looked_up_as_tensorflow_divides_them():
    got = rt.nn.sampled_softmax_loss([W[:6], W[6:]], B, LABELS[:, :1], X, 5, 10,
                                     sampled_values=SAMPLED)
    assert np.allclose(got.numpy(), TF["shards"], rtol=1e-5)
    got = rt.nn.nce_loss([W[:4], W[4:7], W[7:]], [B[:4], B[4:7], B[7:]], LABELS[:, :1], X, 5, 10,
                         sampled_values=SAMPLED)
    assert np.allclose(got.numpy(), TF["shards3"], rtol=1e-5)


def test_gradients_match_tensorflow_eagerly_and_staged():
    def total(w, x):
        return (rt.reduce_sum(rt.nn.sampled_softmax_loss(w, B, LABELS, x, 5, 10, num_true=2,
                                                         sampled_values=SAMPLED)) +
                rt.reduce_sum(rt.nn.nce_loss(w, B, LABELS, x, 5, 10, num_true=2,
                                             sampled_values=SAMPLED)))

    def grads(w, x):
        with rt.GradientTape() as tape:
            tape.watch([w, x])
            y = total(w, x)
        return tape.gradient(y, [w, x])
    for fn in (grads, rt.function(grads)):
        gw, gx = fn(rt.constant(W), rt.constant(X))
        assert np.allclose(rt.convert_to_tensor(gw).numpy(), TF["grad_w"], atol=1e-5)
        assert np.allclose(gx.numpy(), TF["grad_x"], atol=1e-5)


def test_sampled_softmax_is_the_softmax_over_true_and_sampled_logits():
    values = (SAMPLED[0], SAMPLED[1][:, :1], SAMPLED[2])
    got = rt.nn.sampled_softmax_loss(W, B, LABELS[:, :1], X, 5, 10, sampled_values=values,
                                     remove_accidental_hits=False).numpy()
    ids = np.concatenate([LABELS[:, :1], np.broadcast_to(SAMPLED[0], (3, 5))], axis=1)
    q = np.concatenate([SAMPLED[1][:, :1], np.broadcast_to(SAMPLED[2], (3, 5))], axis=1)
    logits = np.einsum("bd,bkd->bk", X.astype(np.float64), W[ids]) + B[ids] - np.log(q)
    want = -(logits[:, 0] - np.log(np.exp(logits).sum(axis=1)))
    assert np.allclose(got, want, rtol=1e-5)


def test_accidental_hits_match_tensorflow():
    rows, ids, weights = rt.nn.compute_accidental_hits(LABELS, [1, 3, 5, 1, 0], 2)
    assert rows.dtype == rt.int32 and ids.dtype == rt.int64 and weights.dtype == rt.float32
    assert rows.numpy().tolist() == [0, 0, 1, 2, 2]   # printed by TensorFlow 2.21
    assert ids.numpy().tolist() == [1, 3, 2, 3, 3]
    assert np.all(weights.numpy() == -np.finfo(np.float32).max)


def test_all_candidate_sampler():
    sampled, true_count, sampled_count = rt.random.all_candidate_sampler(LABELS, 2, 6, True)
    assert sampled.numpy().tolist() == list(range(6))
    assert np.all(true_count.numpy() == 1) and np.all(sampled_count.numpy() == 1)
    assert true_count.shape == (3, 2) and sampled_count.dtype == rt.float32
    with pytest.raises(InvalidArgumentError):
        rt.random.all_candidate_sampler(LABELS, 2, 4, True)


def _log_uniform(c, n):
    return (np.log(c + 2.0) - np.log(c + 1.0)) / np.log(n + 1.0)


def test_expected_counts():
    # without `unique`: num_sampled * p, as TensorFlow 2.21 printed 0.37223235, 0.67636836
    _, true_count, sampled_count = rt.random.log_uniform_candidate_sampler(
        LABELS, 2, 4, False, 10, seed=1)
    assert np.allclose(true_count.numpy()[0], [0.37223235, 0.67636836], rtol=1e-6)
    assert np.allclose(true_count.numpy(), 4 * _log_uniform(LABELS, 10), rtol=1e-6)
    # with `unique`: 1 - (1 - p) ** tries for the draws taken (tries >= num_sampled)
    sampled, true_count, sampled_count = rt.random.uniform_candidate_sampler(
        LABELS, 2, 6, True, 8, seed=2)
    values = sampled.numpy()
    assert len(set(values.tolist())) == 6 and values.min() >= 0 and values.max() < 8
    count = float(sampled_count.numpy()[0])
    assert np.allclose(true_count.numpy(), count) and np.allclose(sampled_count.numpy(), count)
    tries = np.log1p(-count) / np.log1p(-1 / 8) if count < 0.75 else 6
    assert count == pytest.approx(0.75) or abs(tries - round(tries)) < 1e-4 and tries >= 6


def _frequencies(sampler, n, draws, **kwargs):
    sampled, _, _ = sampler(np.zeros((1, 1), np.int64), 1, draws, False, n, seed=3, **kwargs)
    return np.bincount(sampled.numpy(), minlength=n) / draws


@pytest.mark.parametrize("kind", ["uniform", "log_uniform", "learned", "fixed"])
def test_draws_follow_the_documented_distribution(kind):
    n, draws = 8, 40000
    weights = np.array([0, 0, 1, 4, 2, 3, 5, 1.0]) ** 0.7   # 2 reserved ids, distortion 0.7
    sampler, kwargs, p = {
        "uniform": (rt.random.uniform_candidate_sampler, {}, np.full(n, 1 / n)),
        "log_uniform": (rt.nn.log_uniform_candidate_sampler, {}, _log_uniform(np.arange(n), n)),
        "learned": (rt.random.learned_unigram_candidate_sampler, {}, np.full(n, 1 / n)),
        "fixed": (rt.random.fixed_unigram_candidate_sampler,
                  {"unigrams": [1, 4, 2, 3, 5, 1], "num_reserved_ids": 2, "distortion": 0.7},
                  weights / weights.sum()),
    }[kind]
    got = _frequencies(sampler, n, draws, **kwargs)
    assert np.all(np.abs(got - p) <= 5 * np.sqrt(p * (1 - p) / draws) + 1e-12), (got, p)


def test_fixed_unigram_shards_and_vocab_file(tmp_path):
    got = _frequencies(rt.random.fixed_unigram_candidate_sampler, 6, 6000,
                       unigrams=[1, 2, 3, 4, 5, 6], num_shards=2, shard=1)
    assert np.all(got[::2] == 0) and np.all(got[1::2] > 0)
    path = tmp_path / "vocab.txt"
    path.write_text("a,1\nb,0\nc,3\n")
    got = _frequencies(rt.random.fixed_unigram_candidate_sampler, 3, 4000, vocab_file=str(path))
    assert got[1] == 0 and abs(got[0] - 0.25) < 0.04


def test_seeds_repeat_the_draws():
    def draw():
        return [rt.random.log_uniform_candidate_sampler(LABELS, 2, 5, True, 50, seed=7)[0]
                .numpy().tolist() for _ in range(2)]
    rt.random.set_seed(11)
    first = draw()
    rt.random.set_seed(11)
    assert draw() == first
    assert first[0] != first[1]   # the op's stream advances from call to call


def test_losses_draw_their_own_samples():
    rt.random.set_seed(3)
    loss = rt.nn.sampled_softmax_loss(W, B, LABELS[:, :1], X, 4, 10, seed=5)
    assert loss.shape == (3,) and np.all(np.isfinite(loss.numpy())) and np.all(loss.numpy() > 0)
    staged = rt.function(lambda x: rt.nn.nce_loss(W, B, LABELS[:, :1], x, 4, 10))
    assert np.all(np.isfinite(staged(X).numpy()))


def test_errors():
    with pytest.raises(InvalidArgumentError, match="int64"):
        rt.random.uniform_candidate_sampler(LABELS.astype(np.int32), 2, 4, True, 10)
    with pytest.raises(InvalidArgumentError, match="too small"):
        rt.random.uniform_candidate_sampler(LABELS, 2, 12, True, 10)
    with pytest.raises(InvalidArgumentError, match="num_true"):
        rt.random.uniform_candidate_sampler(LABELS, 3, 2, True, 10)
    with pytest.raises(InvalidArgumentError, match="range"):
        rt.random.fixed_unigram_candidate_sampler(LABELS, 2, 3, True, 7, unigrams=[1, 2, 3, 4],
                                                  num_reserved_ids=2)
    with pytest.raises(TypeError, match="sampled_values"):
        rt.nn.nce_loss(W, B, LABELS, X, 5, 10, num_true=2, sampled_values=SAMPLED[:2])
    with pytest.raises(TypeError):
        rt.nn.nce_loss(W, B, LABELS, X, 5, 10, num_tru=2)
