"""str() of tf.train messages is protocol buffers' text format, as TensorFlow prints an
Example (the TFRecord tutorial prints them). The expected texts are TensorFlow 2.21's output
for the same messages."""

import numpy as np
import pytest

import runtime as rt

EXAMPLE_TEXT = r"""features {
  feature {
    key: "width"
    value {
      int64_list {
        value: 320
        value: -2
      }
    }
  }
  feature {
    key: "raw"
    value {
      bytes_list {
        value: "ab\000\377\"\'\n\\\\ok\t\r"
      }
    }
  }
  feature {
    key: "f"
    value {
      float_list {
        value: 0.498356164
        value: 1.25
        value: 1e-10
        value: 3e+20
        value: inf
        value: -inf
        value: nan
        value: 2
        value: 0.1
        value: -7.3
        value: 123456792
      }
    }
  }
  feature {
    key: "empty"
    value {
    }
  }
}
"""

SEQUENCE_TEXT = r"""context {
  feature {
    key: "a"
    value {
      int64_list {
        value: 1
      }
    }
  }
}
feature_lists {
  feature_list {
    key: "seq"
    value {
      feature {
        bytes_list {
          value: "x"
        }
      }
      feature {
        int64_list {
          value: 2
          value: 3
        }
      }
    }
  }
}
"""


def _example():
    feature = {
        "width": rt.train.Feature(int64_list=rt.train.Int64List(value=[320, -2])),
        "raw": rt.train.Feature(bytes_list=rt.train.BytesList(
            value=[b"ab\x00\xff\"'\n\\\\ok\t\r"])),
        "f": rt.train.Feature(float_list=rt.train.FloatList(value=[
            0.4983561635017395, 1.25, 1e-10, 3e20, float("inf"), float("-inf"), float("nan"),
            2.0, 0.1, -7.3, 123456789.0])),
        "empty": rt.train.Feature()}
    return rt.train.Example(features=rt.train.Features(feature=feature))


def test_an_example_prints_as_tensorflow_prints_it():
    example = _example()
    assert str(example) == EXAMPLE_TEXT
    assert str(rt.train.Example.FromString(example.SerializeToString())) == EXAMPLE_TEXT


def test_empty_messages_and_a_lone_feature():
    assert str(rt.train.Example()) == ""
    assert str(rt.train.Feature(float_list=rt.train.FloatList(value=[0.1]))) == \
        "float_list {\n  value: 0.1\n}\n"


def test_a_sequence_example_prints_its_context_and_feature_lists():
    context = rt.train.Features(feature={
        "a": rt.train.Feature(int64_list=rt.train.Int64List(value=[1]))})
    steps = rt.train.FeatureList(feature=[
        rt.train.Feature(bytes_list=rt.train.BytesList(value=[b"x"])),
        rt.train.Feature(int64_list=rt.train.Int64List(value=[2, 3]))])
    sequence = rt.train.SequenceExample(
        context=context, feature_lists=rt.train.FeatureLists(feature_list={"seq": steps}))
    assert str(sequence) == SEQUENCE_TEXT


def test_value_lists_take_what_protobuf_takes():
    # TensorFlow 2.21's protobuf: the TFRecord tutorial's _int64_feature(True) is refused
    cases = [(True, "Field tensorflow.Int64List.value: Expected an int, got a boolean."),
             (np.bool_(True), "'numpy.bool' object cannot be interpreted as an integer"),
             (1.5, "'float' object cannot be interpreted as an integer"),
             ("3", "'str' object cannot be interpreted as an integer")]
    for value, message in cases:
        with pytest.raises(TypeError) as err:
            rt.train.Int64List(value=[value])
        assert str(err.value) == message
    assert rt.train.Int64List(value=[np.int64(3), np.uint8(4)]).value == [3, 4]
    assert rt.train.FloatList(value=[True, 1, np.float64(2.5)]).value == [1.0, 1.0, 2.5]
    with pytest.raises(TypeError, match="must be real number, not str"):
        rt.train.FloatList(value=["1.0"])


def test_text_format_parses_into_examples():
    # the ragged tensor guide builds its Examples with google.protobuf.text_format.Merge;
    # the oracle is protobuf's own message of the same schema parsing the same text
    text_format = pytest.importorskip("google.protobuf.text_format")
    from runtime import train_example
    text = r'''
        features {
          feature {key: "colors" value {bytes_list {value: ["red", "blue"]} } }
          feature {key: "lengths" value {int64_list {value: [1, 3]} } }
          feature {key: "empty" value {int64_list {value: []} } }
          feature {key: "f" value {float_list {value: [0.5, -2]} } } }'''
    ours = text_format.Merge(text, rt.train.Example())
    assert isinstance(ours, rt.train.Example)
    theirs = text_format.Merge(text, train_example.protobuf_class("Example")())
    assert train_example.protobuf_class("Example").FromString(ours.SerializeToString()) == theirs
    assert ours == rt.train.Example.FromString(theirs.SerializeToString())
    assert list(ours.features.feature["colors"].bytes_list.value) == [b"red", b"blue"]
    assert ours.features.feature["empty"].WhichOneof("kind") == "int64_list"
    parsed = rt.io.parse_example([ours.SerializeToString()],
                                 {"lengths": rt.io.RaggedFeature(rt.int64)})
    assert parsed["lengths"].to_list() == [[1, 3]]
    sequence = text_format.Merge(
        'context { feature { key: "a" value { float_list { value: [1.5] } } } } '
        'feature_lists { feature_list { key: "t" value { feature { int64_list { value: [1, 2] } } '
        'feature { int64_list { value: [3] } } } } }', rt.train.SequenceExample())
    assert [list(f.int64_list.value) for f in sequence.feature_lists.feature_list["t"].feature] \
        == [[1, 2], [3]]
    assert list(sequence.context.feature["a"].float_list.value) == [1.5]


def test_printed_maps_follow_protobufs_order_as_tensorflow_prints_them():
    # TensorFlow 2.21 prints this Example's features in this order (upb's map order, recorded
    # by running the same construction with tf.train under TensorFlow), not insertion order
    import runtime as rt

    def ints(v):
        return rt.train.Feature(int64_list=rt.train.Int64List(value=[v]))
    feature = {"height": ints(213), "width": ints(320), "depth": ints(3), "label": ints(0),
               "image_raw": rt.train.Feature(bytes_list=rt.train.BytesList(value=[b"xx"]))}
    text = str(rt.train.Example(features=rt.train.Features(feature=feature)))
    keys = [line.strip() for line in text.splitlines() if line.strip().startswith("key:")]
    assert keys == ['key: "width"', 'key: "label"', 'key: "image_raw"', 'key: "height"',
                    'key: "depth"']
