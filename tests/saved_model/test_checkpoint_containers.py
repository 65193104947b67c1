"""Lists and dicts assigned to a Checkpoint are wrapped as TensorFlow wraps them (ListWrapper,
_DictWrapper): an item added after `restore` gets its saved value (the checkpoint guide's
example; the values are what TensorFlow 2.21 prints for the same program)."""

import pytest

import runtime as rt


@pytest.fixture
def saved(tmp_path):
    save = rt.train.Checkpoint()
    save.listed = [rt.Variable(1.0)]
    save.listed.append(rt.Variable(2.0))
    save.mapped = {"one": save.listed[0]}
    save.mapped["two"] = save.listed[1]
    return save.save(str(tmp_path / "tf_list_example"))


def test_an_item_appended_after_restore_is_restored(saved):
    restore = rt.train.Checkpoint()
    v2 = rt.Variable(0.0)
    restore.mapped = {"two": v2}
    restore.restore(saved)
    assert v2.numpy() == 2.0
    restore.listed = []
    assert repr(restore.listed) == "ListWrapper([])" and restore.listed == []
    v1 = rt.Variable(0.0)
    restore.listed.append(v1)       # restored from the restore() above
    assert v1.numpy() == 1.0
    extra = rt.Variable(0.0)
    restore.listed.append(extra)    # nothing saved under listed/1 is left: it stays
    assert extra.numpy() == 0.0
    again = rt.Variable(0.0)
    restore.mapped["one"] = again   # the saved value went to v1 already (one object, once)
    assert again.numpy() == 0.0


def test_a_dict_entry_set_after_restore_is_restored(saved):
    restore = rt.train.Checkpoint(mapped={})
    restore.restore(saved)
    late = rt.Variable(0.0)
    restore.mapped["two"] = late
    assert late.numpy() == 2.0
    assert repr(rt.train.Checkpoint(e={}).e) == "_DictWrapper({})"


def test_other_values_are_plain_attributes_as_in_tensorflow(tmp_path):
    ckpt = rt.train.Checkpoint(v=rt.Variable(3.0))
    ckpt.note = "not saved"
    ckpt.numbers = [1, 2]
    assert ckpt.note == "not saved" and type(ckpt.numbers).__name__ == "ListWrapper"
    path = ckpt.save(str(tmp_path / "c"))
    assert [key for key, _ in rt.train.list_variables(path)] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
        "v/.ATTRIBUTES/VARIABLE_VALUE"]
    with pytest.raises(ValueError, match="trackable"):
        rt.train.Checkpoint(a=5)    # TensorFlow refuses a non-trackable keyword argument
