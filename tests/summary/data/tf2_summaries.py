"""The summaries of tests/summary/test_tf2_format.py, written by `write(tf, logdir)` with either
module: the test calls it with `runtime`; `tf2_events/` holds what TensorFlow 2.21 (with
TensorBoard 2.21) wrote for the same calls, made with

    python tests/summary/data/tf2_summaries.py tests/summary/data/tf2_events
"""

import sys

import numpy as np


def data():
    """Deterministic values (no random generator, so any NumPy gives the same)."""
    spread = np.sin(np.arange(200, dtype=np.float32) * 0.37) * 3.0
    pictures = (np.cos(np.arange(2 * 4 * 5 * 3, dtype=np.float32)) * 0.6 + 0.5).reshape(2, 4, 5, 3)
    gray = (np.arange(4 * 6, dtype=np.uint8) * 10).reshape(1, 4, 6, 1)
    return spread, pictures, gray


def write(tf, logdir):
    spread, pictures, gray = data()
    writer = tf.summary.create_file_writer(logdir)
    with writer.as_default(step=3):
        tf.summary.scalar("loss", 0.5)
        tf.summary.scalar("loss", 0.25, step=4, description="the loss")
        tf.summary.scalar("count", 7, step=5)
        tf.summary.histogram("spread", spread, step=6)
        tf.summary.histogram("spread4", spread, step=6, buckets=4)
        tf.summary.histogram("constant", np.ones([5], np.float32), step=6)
        tf.summary.histogram("empty", np.zeros([0], np.float32), step=6)
        tf.summary.text("note", "hello", step=7)
        tf.summary.text("table", [["a", "b"], ["c", "d"]], step=7)
        tf.summary.image("pictures", pictures, step=8, max_outputs=2)
        tf.summary.image("first", pictures, step=8, max_outputs=1)
        tf.summary.image("gray", gray, step=8)
    writer.close()


if __name__ == "__main__":
    import tensorflow
    write(tensorflow, sys.argv[1])
