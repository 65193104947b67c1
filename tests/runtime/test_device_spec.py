"""rt.DeviceSpec: TensorFlow 2.21's parsing, writing, merging and equality of device names."""

import pytest

import runtime as rt


def test_device_spec_as_tensorflow():
    d = rt.DeviceSpec(job="ps", device_type="GPU", device_index=1)
    assert repr(d) == ("<DeviceSpec(job=ps, replica=None, task=None, device_type=GPU, "
                       "device_index=1)>")
    assert d.to_string() == "/job:ps/device:GPU:1"
    e = rt.DeviceSpec.from_string("/job:worker/replica:0/task:2/device:CPU:0")
    assert (e.job, e.replica, e.task, e.device_type, e.device_index) == ("worker", 0, 2, "CPU", 0)
    assert e.to_string() == "/job:worker/replica:0/task:2/device:CPU:0"
    assert rt.DeviceSpec.from_string("/cpu:0").to_string() == "/device:CPU:0"
    assert rt.DeviceSpec.from_string("/GPU:1").to_string() == "/device:GPU:1"
    assert rt.DeviceSpec.from_string("/job:a/task:3").to_string() == "/job:a/task:3"
    assert d.make_merged_spec(e).to_string() == "/job:worker/replica:0/task:2/device:CPU:0"
    assert e.make_merged_spec(d).to_string() == "/job:ps/replica:0/task:2/device:GPU:1"
    assert d.replace(job="chief").to_string() == "/job:chief/device:GPU:1"
    assert d == rt.DeviceSpec(job="ps", device_type="GPU", device_index=1)
    assert hash(d) == hash(rt.DeviceSpec(job="ps", device_type="GPU", device_index=1))
    assert rt.DeviceSpec(device_type="cpu").to_string() == "/device:CPU:*"
    assert rt.DeviceSpec(device_index=0).to_string() == ""
    assert rt.DeviceSpec.from_string("/job:w/device:CPU:*").device_index is None
    with pytest.raises(ValueError, match="Unknown attribute 'foo'"):
        rt.DeviceSpec.from_string("/foo:bar")
    with rt.device(d.to_string()):  # a name rt.device takes
        assert float(rt.constant(1.0) + 1) == 2.0
