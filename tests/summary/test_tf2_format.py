"""rt.summary writes TF 2's tensor summaries: TensorBoard's EventAccumulator finds the same tags,
steps, tensors and plugin metadata in our event file as in the one TensorFlow 2.21 wrote for
the same calls (tests/summary/data/tf2_summaries.py made tf2_events/)."""

import io
import os

import numpy as np
import pytest

import runtime as rt
from tests.summary.data import tf2_summaries

pytest.importorskip("tensorboardX")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
event_file_loader = pytest.importorskip("tensorboard.backend.event_processing.event_file_loader")

TF_EVENTS = os.path.join(os.path.dirname(__file__), "data", "tf2_events")


def accumulator(logdir):
    acc = event_accumulator.EventAccumulator(str(logdir), size_guidance={"tensors": 0})
    acc.Reload()
    return acc


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    path = tmp_path_factory.mktemp("ours")
    tf2_summaries.write(rt, str(path))
    return path


@pytest.fixture(scope="module")
def both(logdir):
    return accumulator(logdir), accumulator(TF_EVENTS)


def raw_metadata(logdir):
    """{tag: the SummaryMetadata of its first event} as written in the file (the accumulator
    drops data_class)."""
    found = {}
    for name in sorted(os.listdir(logdir)):
        for event in event_file_loader.EventFileLoader(os.path.join(logdir, name)).Load():
            for value in event.summary.value:
                found.setdefault(value.tag, value.metadata)
    return found


@pytest.fixture(scope="module")
def metadata(logdir):
    return raw_metadata(logdir), raw_metadata(TF_EVENTS)


def _decoded(acc, tag):
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def test_the_same_tags_and_no_legacy_records(both):
    ours, tf = both
    assert ours.Tags() == tf.Tags()
    assert sorted(ours.Tags()["tensors"]) == ["constant", "count", "empty", "first", "gray",
                                              "loss", "note", "pictures", "spread", "spread4",
                                              "table"]
    assert ours.Tags()["scalars"] == [] and ours.Tags()["histograms"] == []


@pytest.mark.parametrize("tag", ["loss", "count", "spread", "spread4", "constant", "empty",
                                 "note", "table"])
def test_steps_values_and_metadata_as_tensorflow(both, metadata, tag):
    ours, tf = both
    got, want = _decoded(ours, tag), _decoded(tf, tag)
    assert [s for s, _ in got] == [s for s, _ in want]
    for (_, a), (_, b) in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(a, b)
    assert metadata[0][tag] == metadata[1][tag]


def test_scalars_and_histograms_read_by_the_plugins_data_class(both, metadata):
    ours, _ = both
    meta = metadata[0]["loss"]
    assert meta.plugin_data.plugin_name == "scalars" and meta.data_class == 1  # SCALAR
    assert ours.SummaryMetadata("loss").summary_description == ""  # the first event's
    assert ours.SummaryMetadata("spread").plugin_data.plugin_name == "histograms"
    assert ours.SummaryMetadata("note").plugin_data.plugin_name == "text"
    assert [(s, float(v)) for s, v in _decoded(ours, "loss")] == [(3, 0.5), (4, 0.25)]


@pytest.mark.parametrize("tag", ["pictures", "first", "gray"])
def test_images_decode_to_tensorflows_pixels(both, metadata, tag):
    pil = pytest.importorskip("PIL.Image")
    ours, tf = both
    assert metadata[0][tag] == metadata[1][tag]
    assert metadata[0][tag].plugin_data.plugin_name == "images"
    ((step, got),), ((tf_step, want),) = _decoded(ours, tag), _decoded(tf, tag)
    assert step == tf_step and got.shape == want.shape
    assert list(got[:2]) == list(want[:2])  # width, height
    for a, b in zip(got[2:], want[2:]):
        np.testing.assert_array_equal(np.asarray(pil.open(io.BytesIO(a))),
                                      np.asarray(pil.open(io.BytesIO(b))))
