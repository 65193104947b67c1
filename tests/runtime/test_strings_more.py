"""tf.strings.to_hash_bucket, to_hash_bucket_strong, ngrams, unsorted_segment_join,
unicode_transcode, unicode_decode_with_offsets, unicode_split_with_offsets and tf.fingerprint
(runtime/ops/strings_more.py).

Oracles: values recorded from TensorFlow 2.21 (printed with `.numpy().tolist()`), the examples
of TensorFlow's documentation of these functions, SipHash-2-4's published test vector, and
Python's own codecs and joins.
"""

import struct

import numpy as np
import pytest

import runtime as rt
from runtime.ops import strings_more
from runtime.ops.farmhash import fingerprint64

WORDS = ["Hello", "TensorFlow", "",
         "a longer string that goes past sixty four bytes so that the long path of hashes runs!!"]


def test_hash_buckets_are_tensorflows():
    # recorded from TensorFlow 2.21
    assert rt.strings.to_hash_bucket(WORDS, 1000).numpy().tolist() == [941, 232, 899, 613]
    assert rt.strings.to_hash_bucket_strong(WORDS, 1000, [1, 2]).numpy().tolist() == \
        [274, 926, 435, 913]
    assert rt.strings.to_hash_bucket_strong(WORDS, 2 ** 62, [123456789, 987654321]) \
        .numpy().tolist() == [2068730308552644806, 439785650566211537, 2687967955150315968,
                              1201843913356292229]
    got = rt.strings.to_hash_bucket(rt.constant([["a", "b"]]), 7)
    assert got.dtype == rt.int64 and got.shape == (1, 2)


def test_siphash_published_vector():
    # SipHash-2-4 (Aumasson and Bernstein 2012), appendix A: key 00..0f, message 00..0e
    key = bytes(range(16))
    k0, k1 = struct.unpack("<QQ", key)
    assert strings_more.siphash24(k0, k1, bytes(range(15))) == 0xA129CA6149BE45E5


def test_fingerprint_is_tensorflows():
    # recorded from TensorFlow 2.21
    assert rt.fingerprint(WORDS).numpy().tolist() == [
        [135, 32, 107, 50, 30, 124, 200, 213], [206, 130, 74, 168, 212, 165, 50, 59],
        [79, 64, 144, 47, 59, 106, 225, 154], [126, 131, 90, 230, 140, 183, 116, 22]]
    assert rt.fingerprint(rt.constant([[1, 2], [3, 4]], rt.int32)).numpy().tolist() == [
        [76, 18, 253, 133, 168, 204, 240, 10], [254, 162, 60, 240, 103, 244, 53, 255]]
    assert rt.fingerprint(rt.constant([1.5, 2.5])).numpy().tolist() == [
        [64, 181, 56, 72, 223, 224, 189, 72], [215, 206, 200, 229, 128, 42, 67, 207]]
    # a row of strings: the fingerprint of its strings' little-endian fingerprints
    got = rt.fingerprint(rt.constant([["ab", "c"]])).numpy()[0]
    joined = b"".join(struct.pack("<Q", fingerprint64(s)) for s in (b"ab", b"c"))
    assert got.tobytes() == struct.pack("<Q", fingerprint64(joined))
    with pytest.raises(ValueError, match="farmhash64"):
        rt.fingerprint(WORDS, method="md5")


def test_ngrams_documented_and_recorded():
    # TensorFlow's documentation
    np.testing.assert_array_equal(rt.strings.ngrams(["A", "B", "C", "D"], 2).numpy(),
                                  [b"A B", b"B C", b"C D"])
    np.testing.assert_array_equal(rt.strings.ngrams(["TF", "and", "keras"], 1).numpy(),
                                  [b"TF", b"and", b"keras"])
    # recorded from TensorFlow 2.21
    got = rt.strings.ngrams(rt.ragged.constant([["a", "b", "c"], ["d"]]), [1, 3], separator="|",
                            pad_values=("<", ">"), padding_width=1)
    assert got.to_list() == [[b"a", b"b", b"c", b"<|a|b", b"a|b|c", b"b|c|>"], [b"d", b"<|d|>"]]
    np.testing.assert_array_equal(
        rt.strings.ngrams(["a", "b", "c"], 3, pad_values="#", preserve_short_sequences=True),
        [b"# # a", b"# a b", b"a b c", b"b c #", b"c # #"])
    short = rt.ragged.constant([["a"], ["a", "b"], []])
    assert rt.strings.ngrams(short, [3, 4], pad_values="#", padding_width=1,
                             preserve_short_sequences=True).to_list() == \
        [[b"# a #"], [b"# a b", b"a b #", b"# a b #"], []]
    assert rt.strings.ngrams(short, 3, preserve_short_sequences=True).to_list() == \
        [[b"a"], [b"a b"], []]
    assert rt.strings.ngrams(short, [2, 3], pad_values=("L", "R"),
                             preserve_short_sequences=True).to_list() == [
        [b"L a", b"a R", b"L L a", b"L a R", b"a R R"],
        [b"L a", b"a b", b"b R", b"L L a", b"L a b", b"a b R", b"b R R"],
        [b"L R", b"L L R", b"L R R"]]
    np.testing.assert_array_equal(rt.strings.ngrams([["a", "b", "c"], ["d", "e", "f"]], 2),
                                  [[b"a b", b"b c"], [b"d e", b"e f"]])
    assert rt.strings.ngrams(["a", "b"], 3).shape == (0,)
    with pytest.raises(ValueError, match="pad_values"):
        rt.strings.ngrams(["a", "b"], 2, padding_width=1)
    with pytest.raises(ValueError, match="greater than 0"):
        rt.strings.ngrams(["a", "b"], 0)


def test_ngrams_staged_alike():
    f = rt.function(lambda x: rt.strings.ngrams(x, [1, 2], pad_values="#"))
    np.testing.assert_array_equal(f(rt.constant([["x", "y"], ["z", "w"]])).numpy(),
                                  rt.strings.ngrams([["x", "y"], ["z", "w"]], [1, 2],
                                                    pad_values="#").numpy())


def test_unsorted_segment_join():
    # TensorFlow's documentation
    got = rt.strings.unsorted_segment_join(["this", "is", "a", "test"], [0, 0, 1, 1], 2,
                                           separator=":")
    np.testing.assert_array_equal(got.numpy(), [b"this:is", b"a:test"])
    got = rt.strings.unsorted_segment_join([["Y", "q", "c"], ["Y", "6", "6"], ["p", "G", "a"]],
                                           [1, 0, 1], 3, separator=":")
    np.testing.assert_array_equal(got.numpy(), [[b"Y", b"6", b"6"], [b"Y:p", b"q:G", b"c:a"],
                                                [b"", b"", b""]])
    with pytest.raises(rt.errors.InvalidArgumentError, match="segment ids"):
        rt.strings.unsorted_segment_join(["a", "b"], [0, -1], 2)


def test_unicode_transcode():
    # TensorFlow's documentation
    got = rt.strings.unicode_transcode(["Hello", "TensorFlow", "2.x"], "UTF-8", "UTF-16-BE")
    assert got.numpy().tolist() == [s.encode("utf-16-be") for s in ("Hello", "TensorFlow", "2.x")]
    bad = rt.strings.unicode_transcode([b"a\xffb"], "UTF-8", "UTF-8", replacement_char=ord("?"))
    assert bad.numpy().tolist() == [b"a?b"]
    assert rt.strings.unicode_transcode([b"a\x01b"], "UTF-8", "UTF-8",
                                        replace_control_characters=True).numpy().tolist() == \
        ["a\ufffdb".encode()]
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.strings.unicode_transcode([b"a\xff"], "UTF-8", "UTF-16-BE", errors="strict")


def test_unicode_with_offsets():
    # TensorFlow's documentation
    codes, offsets = rt.strings.unicode_decode_with_offsets(["G\xf6\xf6dnight", "\U0001f60a"],
                                                            "UTF-8")
    assert codes.to_list() == [[71, 246, 246, 100, 110, 105, 103, 104, 116], [128522]]
    assert offsets.to_list() == [[0, 1, 3, 5, 6, 7, 8, 9, 10], [0]]
    chars, offsets = rt.strings.unicode_split_with_offsets(["G\xf6\xf6dnight", "\U0001f60a"],
                                                           "UTF-8")
    assert chars.to_list() == [[b"G", b"\xc3\xb6", b"\xc3\xb6", b"d", b"n", b"i", b"g", b"h",
                                b"t"], [b"\xf0\x9f\x98\x8a"]]
    assert offsets.to_list() == [[0, 1, 3, 5, 6, 7, 8, 9, 10], [0]]
    # recorded from TensorFlow 2.21: bad bytes replaced or dropped, UTF-16
    codes, offsets = rt.strings.unicode_decode_with_offsets(b"a\xffb\xc3", "UTF-8")
    assert codes.numpy().tolist() == [97, 65533, 98, 65533]
    assert offsets.numpy().tolist() == [0, 1, 2, 3] and offsets.dtype == rt.int64
    chars, offsets = rt.strings.unicode_split_with_offsets(b"a\xffb\xc3", "UTF-8", errors="ignore")
    assert chars.numpy().tolist() == [b"a", b"b"] and offsets.numpy().tolist() == [0, 2]
    codes, offsets = rt.strings.unicode_decode_with_offsets("\u00e9x".encode("utf-16-be"),
                                                            "UTF-16-BE")
    assert codes.numpy().tolist() == [233, 120] and offsets.numpy().tolist() == [0, 2]
