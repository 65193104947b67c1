"""Candidate sampling: `tf.random.*_candidate_sampler` (also in `tf.nn`),
`tf.nn.compute_accidental_hits` and the sampled losses `tf.nn.nce_loss` and
`tf.nn.sampled_softmax_loss`.

A sampler is one op drawing `num_sampled` classes from a distribution over [0, range_max)
(uniform, log-uniform (Zipfian), a fixed unigram table, or all classes in order) and giving
each true and sampled class its expected count among the draws: `p * num_sampled`, or, when
`unique` made it redraw duplicates, `1 - (1 - p) ** tries` for the number of draws taken, as
TensorFlow's samplers count them. The classes drawn are this runtime's (NumPy's generator at
the op's seed), not TensorFlow's numbers; a learned unigram sampler starts from uniform
weights and, as in a TensorFlow eager call, learns nothing across calls.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import BOOL, INT, OPT_INT, one_of
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import REGISTRY, Effect, define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_math as _math
from . import array_scatter as _scatter
from . import io_gfile
from . import linalg as _linalg
from . import nn as _nn
from . import nn_conv as _conv
from .core import apply, convert_to_tensor
from .random import generator

_FLOAT_MAX = float(np.finfo(np.float32).max)


def _probability(distribution, values, range_max, weights):
    values = np.asarray(values, np.float64)
    if distribution == "log_uniform":
        return (np.log(values + 2.0) - np.log(values + 1.0)) / np.log(range_max + 1.0)
    if distribution == "unigram":
        return weights[np.asarray(values, np.int64)] / weights.sum()
    return np.full(values.shape, 1.0 / range_max)


def _sample(distribution, gen, n, range_max, weights):
    if distribution == "log_uniform":
        return (np.exp(gen.random(n) * np.log(range_max + 1.0)) - 1.0).astype(np.int64) % \
            range_max
    if distribution == "unigram":
        return gen.choice(range_max, size=n, p=weights / weights.sum()).astype(np.int64)
    return gen.integers(0, range_max, size=n, dtype=np.int64)


def _sampler_infer(true_classes, weights, distribution, num_true, num_sampled, unique,
                   range_max, seed):
    dims = true_classes.shape.as_tuple()
    batch = None if dims is None else dims[0]
    return [(TensorShape([num_sampled]), _dtypes.int64),
            (TensorShape([batch, num_true]), _dtypes.float32),
            (TensorShape([num_sampled]), _dtypes.float32)]


def _sampler_kernel(true_classes, weights, distribution, num_true, num_sampled, unique,
                    range_max, seed):
    true_classes = np.asarray(true_classes)
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise InvalidArgumentError(f"true_classes must have num_true columns, expected: "
                                   f"{num_true} was: {list(true_classes.shape)}")
    if distribution == "all":
        if np.any((true_classes < 0) | (true_classes >= num_sampled)):
            raise InvalidArgumentError(f"`true_candidate` out of range [0, {num_sampled}), "
                                       f"received {true_classes.tolist()}")
        return (np.arange(num_sampled, dtype=np.int64),
                np.ones(true_classes.shape, np.float32), np.ones(num_sampled, np.float32))
    if np.any((true_classes < 0) | (true_classes >= range_max)):
        raise InvalidArgumentError(f"true classes must be in [0, range_max ({range_max})), got "
                                   f"{true_classes.tolist()}")
    weights = np.asarray(weights, np.float64)
    if unique and num_sampled > (np.count_nonzero(weights) if distribution == "unigram"
                                 else range_max):
        raise InvalidArgumentError("Sampler's range is too small: `unique` needs `num_sampled` "
                                   f"({num_sampled}) distinct classes.")
    gen = generator(seed)
    if not unique:
        sampled = _sample(distribution, gen, num_sampled, range_max, weights)
        tries = num_sampled
    else:
        seen: dict = {}
        tries = 0
        while len(seen) < num_sampled:
            for value in _sample(distribution, gen, 2 * (num_sampled - len(seen)) + 8,
                                 range_max, weights).tolist():
                tries += 1
                seen.setdefault(value, None)
                if len(seen) == num_sampled:
                    break
        sampled = np.fromiter(seen, np.int64, num_sampled)

    def expected(values):
        p = _probability(distribution, values, range_max, weights)
        if tries == num_sampled:
            return (p * num_sampled).astype(np.float32)
        return (-np.expm1(tries * np.log1p(-p))).astype(np.float32)
    return sampled, expected(true_classes), expected(sampled)


SAMPLER = define("CandidateSampler", _sampler_infer, _sampler_kernel, num_outputs=3,
                 effects=Effect.RANDOM, differentiable=False,
                 attrs={"distribution": one_of("uniform", "log_uniform", "unigram", "all"),
                        "num_true": INT, "num_sampled": INT, "unique": BOOL, "range_max": INT,
                        "seed": OPT_INT})


def _sampler(distribution, true_classes, num_true, num_sampled, unique, range_max, seed,
             weights=(), name=None):
    true_classes = convert_to_tensor(true_classes, dtype_hint=_dtypes.int64)
    if true_classes.dtype != _dtypes.int64:
        raise InvalidArgumentError(f"candidate sampler: `true_classes` must be int64, got "
                                   f"{true_classes.dtype.name}.")
    num_true, num_sampled = int(num_true), int(num_sampled)
    range_max = int(range_max)
    if num_sampled < 1 or num_true < 1 or range_max < 1:
        raise InvalidArgumentError(f"candidate sampler: `num_true`, `num_sampled` and "
                                   f"`range_max` must be positive, got {num_true}, "
                                   f"{num_sampled} and {range_max}.")
    return tuple(apply(SAMPLER, [true_classes, convert_to_tensor(np.asarray(weights,
                                                                             np.float64))],
                       {"distribution": distribution, "num_true": num_true,
                        "num_sampled": num_sampled, "unique": bool(unique),
                        "range_max": range_max, "seed": None if seed is None else int(seed)},
                       name=name))


@export("random.uniform_candidate_sampler", "nn.uniform_candidate_sampler")
def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None,
                              name=None) -> tuple[Tensor, Tensor, Tensor]:
    """`num_sampled` classes drawn uniformly from [0, range_max) (distinct with `unique`):
    (sampled_candidates int64, true_expected_count [batch, num_true], sampled_expected_count),
    the expected counts float32. `true_classes` int64 [batch, num_true]."""
    return _sampler("uniform", true_classes, num_true, num_sampled, unique, range_max, seed,
                    name=name)


@export("random.log_uniform_candidate_sampler", "nn.log_uniform_candidate_sampler")
def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None) -> tuple[Tensor, Tensor, Tensor]:
    """`uniform_candidate_sampler` drawing class c with probability
    log((c + 2) / (c + 1)) / log(range_max + 1) (Zipfian: classes sorted by decreasing
    frequency)."""
    return _sampler("log_uniform", true_classes, num_true, num_sampled, unique, range_max, seed,
                    name=name)


@export("random.learned_unigram_candidate_sampler", "nn.learned_unigram_candidate_sampler")
def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                      seed=None, name=None) -> tuple[Tensor, Tensor, Tensor]:
    """`uniform_candidate_sampler` from the unigram counts learned from the true classes; a
    call starts from equal counts (as each eager call in TensorFlow does), so it draws
    uniformly."""
    return _sampler("uniform", true_classes, num_true, num_sampled, unique, range_max, seed,
                    name=name)


def _unigram_weights(fn, range_max, vocab_file, distortion, num_reserved_ids, num_shards, shard,
                     unigrams):
    if vocab_file:
        with io_gfile.GFile(vocab_file, "r") as f:
            counts = [float(line.rstrip("\n").split(",")[-1]) for line in f if line.strip()]
    else:
        counts = [float(u) for u in unigrams]
    if not counts:
        raise ValueError(f"{fn}: give the unigram counts as `unigrams` or `vocab_file`.")
    if int(num_shards) < 1 or not 0 <= int(shard) < int(num_shards):
        raise InvalidArgumentError(f"{fn}: `shard` must be in [0, num_shards ({num_shards})), "
                                   f"got {shard}.")
    weights = np.concatenate([np.zeros(int(num_reserved_ids)),
                              np.asarray(counts, np.float64) ** float(distortion)])
    if int(num_shards) > 1:
        weights = np.where(np.arange(weights.size) % int(num_shards) == int(shard), weights, 0.0)
    if weights.size != int(range_max):
        raise InvalidArgumentError(f"{fn}: range is {range_max} must be equal to weights size "
                                   f"{weights.size} (num_reserved_ids + the unigram counts).")
    return weights


@export("random.fixed_unigram_candidate_sampler", "nn.fixed_unigram_candidate_sampler")
def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None,
                                    name=None) -> tuple[Tensor, Tensor, Tensor]:
    """`uniform_candidate_sampler` drawing class c with probability proportional to
    unigrams[c - num_reserved_ids] ** distortion (the reserved first ids never; with
    `num_shards` only the ids equal to `shard` modulo it). The counts come from `unigrams` or
    from `vocab_file`, one per line, the last comma-separated field."""
    weights = _unigram_weights("fixed_unigram_candidate_sampler", range_max, vocab_file,
                               distortion, num_reserved_ids, num_shards, shard, unigrams)
    return _sampler("unigram", true_classes, num_true, num_sampled, unique, range_max, seed,
                    weights, name=name)


@export("random.all_candidate_sampler", "nn.all_candidate_sampler")
def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None,
                          name=None) -> tuple[Tensor, Tensor, Tensor]:
    """Every class of [0, num_sampled), in order, each expected once (for testing)."""
    return _sampler("all", true_classes, num_true, num_sampled, unique, num_sampled, seed,
                    name=name)


@export("nn.compute_accidental_hits")
def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None,
                            name=None) -> tuple[Tensor, Tensor, Tensor]:
    """Where a sampled candidate is one of a row's true classes: (indices int32, the row;
    ids int64, the candidate's position in `sampled_candidates` (its last one when drawn
    twice); weights float32, -FLOAT_MAX, to add to those logits). One hit per true class, in
    the order of the rows and of their true classes."""
    true_classes = convert_to_tensor(true_classes, dtype_hint=_dtypes.int64)
    sampled = convert_to_tensor(sampled_candidates, dtype_hint=_dtypes.int64)
    if true_classes.shape.rank not in (None, 2) or (
            true_classes.shape.rank == 2 and true_classes.shape[1] not in (None, int(num_true))):
        raise InvalidArgumentError(f"compute_accidental_hits: `true_classes` must have shape "
                                   f"[batch, num_true ({num_true})], got {true_classes.shape}.")
    same = _math.equal(true_classes[:, :, None], _math.cast(sampled, true_classes.dtype))
    last = _math.shape(sampled, out_type=_dtypes.int64)[0] - 1 - _math.argmax(
        _math.cast(_math.reverse(same, [2]), _dtypes.int32), axis=2)
    where = _math.where(_math.reduce_any(same, axis=2))
    ids = _scatter.gather_nd(last, where)
    return (_math.cast(where[:, 0], _dtypes.int32), ids,
            _math.fill(_math.shape(ids), _math.cast(-_FLOAT_MAX, _dtypes.float32)))


def _stop_gradient(t):
    return apply(REGISTRY["StopGradient"], [t])  # tf.stop_gradient's op (runtime.gradients)


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                    sampled_values, subtract_log_q, remove_accidental_hits, seed, fn):
    """TensorFlow's sampled logits: the true classes' and the sampled classes' logits
    [batch, num_true + num_sampled] and their target probabilities."""
    labels = _math.cast(convert_to_tensor(labels), _dtypes.int64)
    inputs = convert_to_tensor(inputs)
    if labels.shape.rank not in (None, 2):
        raise ValueError(f"{fn}: `labels` must have shape [batch, num_true], got "
                         f"{labels.shape}.")
    flat = _math.reshape(labels, [-1])
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True,
                                                       num_classes, seed=seed)
    if not isinstance(sampled_values, (tuple, list)) or len(sampled_values) != 3:
        raise TypeError(f"{fn}: `sampled_values` must be the triple (sampled_candidates, "
                        f"true_expected_count, sampled_expected_count) a sampler returns.")
    sampled, true_expected, sampled_expected = (_stop_gradient(convert_to_tensor(v))
                                                for v in sampled_values)
    sampled = _math.cast(sampled, _dtypes.int64)
    all_ids = _math.concat([flat, sampled], 0)
    all_w = _conv.embedding_lookup(weights, all_ids)
    all_b = _conv.embedding_lookup(biases, all_ids)
    n_true = _math.shape(flat)[0]
    true_w, sampled_w = all_w[:n_true], all_w[n_true:]
    true_b, sampled_b = all_b[:n_true], all_b[n_true:]
    dim = _math.shape(true_w)[1:2]
    true_w = _math.reshape(true_w, _math.concat([[-1, int(num_true)], dim], 0))
    true_logits = _math.reduce_sum(inputs[:, None, :] * true_w, axis=2) + \
        _math.reshape(true_b, [-1, int(num_true)])
    sampled_logits = _linalg.matmul(inputs, sampled_w, transpose_b=True) + sampled_b
    if remove_accidental_hits:
        rows, ids, hit = compute_accidental_hits(labels, sampled, num_true)
        where = _math.stack([_math.cast(rows, _dtypes.int64), ids], 1)
        sampled_logits = sampled_logits + _scatter.tensor_scatter_nd_update(
            _math.zeros_like(sampled_logits), where, _math.cast(hit, sampled_logits.dtype))
    if subtract_log_q:
        true_logits = true_logits - _math.log(_math.cast(true_expected, true_logits.dtype))
        sampled_logits = sampled_logits - _math.log(_math.cast(sampled_expected,
                                                               sampled_logits.dtype))
    logits = _math.concat([true_logits, sampled_logits], 1)
    targets = _math.concat([_math.ones_like(true_logits) / float(num_true),
                            _math.zeros_like(sampled_logits)], 1)
    return logits, targets


@export("nn.nce_loss")
def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, name="nce_loss") -> Tensor:
    """The noise-contrastive estimation loss of each example, [batch]: the sigmoid
    cross-entropy of the true classes' logits (targets 1 / num_true) and of `num_sampled`
    classes' (targets 0), each logit `inputs @ weights[c] + biases[c] - log(expected count of
    c)`. The classes are drawn log-uniformly (unique) unless `sampled_values` gives them;
    `remove_accidental_hits` masks sampled classes that are true ones. `weights`
    [num_classes, dim] (or a list of shards of consecutive rows), `biases` [num_classes],
    `labels` int [batch, num_true], `inputs` [batch, dim]. For training only: evaluate with
    the full sigmoid cross-entropy."""
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                      num_true, sampled_values, True, remove_accidental_hits,
                                      None, "nce_loss")
    return _math.reduce_sum(_nn.sigmoid_cross_entropy_with_logits(labels=targets,
                                                                   logits=logits), axis=1)


@export("nn.sampled_softmax_loss")
def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True, seed=None,
                         name="sampled_softmax_loss") -> Tensor:
    """The softmax cross-entropy of each example over its true classes and `num_sampled`
    drawn ones, [batch]: logits `inputs @ weights[c] + biases[c] - log(expected count of
    c)`, sampled classes that are true ones masked out (`remove_accidental_hits`). The classes
    are drawn log-uniformly (unique, at `seed`) unless `sampled_values` gives them. Arguments
    as `nce_loss`'s. For training only: evaluate with the full softmax."""
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                                      num_true, sampled_values, True, remove_accidental_hits,
                                      seed, "sampled_softmax_loss")
    return _nn.softmax_cross_entropy_with_logits(labels=_stop_gradient(targets),
                                                 logits=logits)
