"""rt.train.load_checkpoint: the reader of TensorFlow's checkpoint guide (keys, shapes, dtypes
and values as TensorFlow 2.21's CheckpointReader gives them, measured under TensorFlow)."""

import numpy as np
import pytest

import runtime as rt


@pytest.fixture
def saved(tmp_path):
    ckpt = rt.train.Checkpoint(v=rt.Variable([[1.0, 2.0]]), s=rt.Variable(3, dtype=rt.int64),
                               st=rt.Variable(b"x"))
    ckpt.save(str(tmp_path / "c"))
    return tmp_path


def test_maps_list_every_key_with_tensorflow_shapes_and_dtypes(saved):
    reader = rt.train.load_checkpoint(str(saved))     # a directory: its latest checkpoint
    # TensorFlow 2.21 prints these two maps for the same checkpoint
    assert reader.get_variable_to_shape_map() == {
        "v/.ATTRIBUTES/VARIABLE_VALUE": [1, 2], "st/.ATTRIBUTES/VARIABLE_VALUE": [],
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE": [], "s/.ATTRIBUTES/VARIABLE_VALUE": [],
        "_CHECKPOINTABLE_OBJECT_GRAPH": []}
    assert reader.get_variable_to_dtype_map() == {
        "v/.ATTRIBUTES/VARIABLE_VALUE": rt.float32, "st/.ATTRIBUTES/VARIABLE_VALUE": rt.string,
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE": rt.int64,
        "s/.ATTRIBUTES/VARIABLE_VALUE": rt.int64, "_CHECKPOINTABLE_OBJECT_GRAPH": rt.string}


def test_get_tensor_returns_numpy_values_as_tensorflow(saved):
    reader = rt.train.load_checkpoint(str(saved / "c-1"))   # a prefix
    kernel = reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE")
    assert kernel.dtype == np.float32 and kernel.tolist() == [[1.0, 2.0]]
    scalar = reader.get_tensor("s/.ATTRIBUTES/VARIABLE_VALUE")
    assert isinstance(scalar, np.int64) and scalar == 3
    assert reader.get_tensor("st/.ATTRIBUTES/VARIABLE_VALUE") == b"x"
    assert isinstance(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"), bytes)
    assert reader.has_tensor("v/.ATTRIBUTES/VARIABLE_VALUE")
    assert not reader.has_tensor("nope")


def test_missing_key_and_missing_checkpoint_are_not_found(saved):
    reader = rt.train.load_checkpoint(str(saved))
    with pytest.raises(rt.errors.NotFoundError, match="Key v/.ATTRIBUTES/VARIABLE_VALU not found"):
        reader.get_tensor("v/.ATTRIBUTES/VARIABLE_VALU")
    with pytest.raises(rt.errors.NotFoundError):
        rt.train.load_checkpoint(str(saved / "zz"))
    with pytest.raises(TypeError):
        reader.get_tensor(name="v/.ATTRIBUTES/VARIABLE_VALUE")
