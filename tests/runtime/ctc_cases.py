"""The CTC calls compared with TensorFlow 2.21 by tests/runtime/test_ctc.py: `cases(tf, keras,
backend)` runs them with either library; run this file with TensorFlow installed to record
tests/runtime/ctc_tf221.json (`python tests/runtime/ctc_cases.py`)."""

import json
import pathlib

import numpy as np

RECORD = pathlib.Path(__file__).with_name("ctc_tf221.json")


def _sparse(s):
    return [s.indices.numpy().tolist(), s.values.numpy().tolist(), s.dense_shape.numpy().tolist()]


def _attempt(fn):
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - the class TensorFlow raises is recorded
        return type(exc).__name__


def cases(tf, keras, backend) -> dict:
    """Name -> result (nested lists of numbers, or the exception class's name)."""
    rng = np.random.default_rng(37)
    out = {}
    # the loss and its gradient: dense and sparse labels, blank first, last and inside,
    # batch-major logits, sequences shorter than the logits, an impossible label
    for i, (frames, batch, classes, width) in enumerate([(6, 3, 5, 3), (9, 2, 4, 4),
                                                          (4, 2, 3, 2), (12, 4, 7, 5)]):
        logits = (rng.normal(size=(frames, batch, classes)) * 1.5).astype(np.float32)
        logit_length = rng.integers(max(1, frames - 3), frames + 1, size=batch).astype(np.int32)
        label_length = rng.integers(int(i == 0), width + 1, size=batch).astype(np.int32)
        for blank in (0, classes - 1, 1, -2):
            labels = rng.integers(0, classes - 1, size=(batch, width)).astype(np.int32)
            labels = np.where(labels >= blank % classes, labels + 1, labels)
            labels = np.where(np.arange(width)[None] < label_length[:, None], labels, 0)
            x = tf.constant(logits)
            for major in (True, False):
                arg = x if major else tf.transpose(x, [1, 0, 2])
                with tf.GradientTape() as tape:
                    tape.watch(arg)
                    loss = tf.nn.ctc_loss(labels, arg, label_length, logit_length,
                                          logits_time_major=major, blank_index=blank)
                out[f"dense_{i}_{blank}_{major}"] = [loss.numpy().tolist(),
                                                     tape.gradient(loss, arg).numpy().tolist()]

            def sparse(x=x, labels=labels, blank=blank, logit_length=logit_length):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    loss = tf.nn.ctc_loss(tf.sparse.from_dense(tf.constant(labels)), x, None,
                                          logit_length, blank_index=blank)
                return [loss.numpy().tolist(), tape.gradient(loss, x).numpy().tolist()]
            out[f"sparse_{i}_{blank}"] = _attempt(sparse)
    x = tf.constant(rng.normal(size=(4, 1, 3)).astype(np.float32))
    out["impossible_dense"] = tf.nn.ctc_loss([[1, 1, 1]], x, [3], [4]).numpy().tolist()
    out["impossible_sparse"] = tf.nn.ctc_loss(tf.sparse.from_dense(tf.constant([[1, 1, 1]])),
                                              x, None, [4], blank_index=0).numpy().tolist()
    out["too_long_sparse"] = _attempt(lambda: tf.nn.ctc_loss(
        tf.sparse.from_dense(tf.constant([[1, 2, 1, 2, 1]])), x, None, [4], blank_index=0))
    out["unique"] = [t.numpy().tolist() for t in tf.nn.ctc_unique_labels(
        tf.constant([[3, 4, 4, 3], [1, 1, 2, 0], [5, 5, 5, 5]]))]
    # decoders
    for i in range(30):
        frames, batch, classes = (int(v) for v in rng.integers([1, 1, 2], [9, 4, 6]))
        x = tf.constant((rng.normal(size=(frames, batch, classes)) * 2).astype(np.float32))
        lengths = rng.integers(0, frames + 1, size=batch).astype(np.int32)
        for merge in (True, False):
            decoded, score = tf.nn.ctc_greedy_decoder(x, lengths, merge_repeated=merge,
                                                      blank_index=None if merge else 0)
            out[f"greedy_{i}_{merge}"] = [_sparse(decoded[0]), score.numpy().tolist()]
        width = int(rng.integers(1, 6))
        paths = int(rng.integers(1, width + 1))

        def beam(x=x, lengths=lengths, width=width, paths=paths):
            decoded, logp = tf.nn.ctc_beam_search_decoder(x, lengths, beam_width=width,
                                                          top_paths=paths)
            return [[_sparse(s) for s in decoded], logp.numpy().tolist()]
        out[f"beam_{i}"] = _attempt(beam)
    # Keras 3
    logits = rng.normal(size=(3, 7, 5)).astype(np.float32)
    y = np.array([[1, 2, 2, 0], [3, 0, 0, 0], [4, 1, 3, 2]], np.int32)
    ops = keras.ops
    out["ops.ctc_loss"] = ops.ctc_loss(y, logits, np.array([3, 1, 4]), np.array([7, 5, 6])
                                       ).numpy().tolist()
    out["ops.nn.ctc_loss"] = ops.nn.ctc_loss(y, logits, np.array([3, 1, 4]), np.array([7, 5, 6]),
                                             mask_index=4).numpy().tolist()
    out["losses.ctc"] = keras.losses.ctc(y, logits).numpy().tolist()
    out["losses.CTC"] = float(keras.losses.CTC()(y, logits).numpy())
    decoded, score = ops.ctc_decode(logits, np.array([7, 5, 6]))
    out["ops.ctc_decode"] = [decoded.numpy().tolist(), score.numpy().tolist()]
    decoded, score = ops.nn.ctc_decode(logits, np.array([7, 5, 6]), strategy="beam_search",
                                       beam_width=4, top_paths=2, mask_index=2)
    out["ops.ctc_decode_beam"] = [decoded.numpy().tolist(), score.numpy().tolist()]
    probs = tf.nn.softmax(logits).numpy()
    out["backend.ctc_batch_cost"] = backend.ctc_batch_cost(
        np.minimum(y, 3), probs, np.array([[7], [5], [6]]), np.array([[3], [1], [4]])
    ).numpy().tolist()
    out["backend.ctc_label_dense_to_sparse"] = _sparse(backend.ctc_label_dense_to_sparse(
        y, np.array([3, 1, 4], np.int32)))
    for greedy in (True, False):
        decoded, logp = backend.ctc_decode(probs, np.array([7, 5, 6], np.int32), greedy=greedy,
                                           beam_width=5, top_paths=3)
        out[f"backend.ctc_decode_{greedy}"] = [[d.numpy().tolist() for d in decoded],
                                               logp.numpy().tolist()]
    return out


if __name__ == "__main__":
    import keras
    import tensorflow

    RECORD.write_text(json.dumps(cases(tensorflow, keras, tensorflow.keras.backend)))
