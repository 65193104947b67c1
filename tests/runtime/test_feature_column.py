"""rt.feature_column's column descriptions against TensorFlow 2.21's (names, bucket counts,
fields and refusals printed by TensorFlow for the same calls)."""

import numpy as np
import pytest

import runtime as rt
from runtime import feature_column as fc


def test_columns_carry_tensorflows_fields_names_and_buckets():
    age = fc.numeric_column("Age")
    assert (age.key, age.shape, age.default_value, age.dtype) == ("Age", (1,), None, rt.float32)
    buckets = fc.bucketized_column(age, boundaries=[1, 3, 5])
    kind = fc.categorical_column_with_vocabulary_list("Type", np.array(["Cat", "Dog"], object))
    assert kind.vocabulary_list == ("Cat", "Dog") and kind.dtype == rt.string
    assert (kind.default_value, kind.num_oov_buckets) == (-1, 0)
    hashed = fc.categorical_column_with_hash_bucket("Breed1", hash_bucket_size=10)
    crossed = fc.crossed_column([buckets, kind], hash_bucket_size=10)
    embedded = fc.embedding_column(kind, dimension=8)
    names = [c.name for c in (age, buckets, kind, fc.indicator_column(kind), embedded, hashed,
                              crossed)]
    assert names == ["Age", "Age_bucketized", "Type", "Type_indicator", "Type_embedding",
                     "Breed1", "Age_bucketized_X_Type"]
    assert [c.num_buckets for c in (buckets, kind, hashed, crossed)] == [4, 2, 10, 10]
    assert embedded.combiner == "mean" and embedded.dimension == 8
    assert repr(buckets).startswith("BucketizedColumn(source_column=NumericColumn(key='Age', "
                                    "shape=(1,), default_value=None, dtype=")
    assert fc.categorical_column_with_vocabulary_list("n", [1, 4]).dtype == rt.int64
    assert fc.categorical_column_with_identity("id", 5).num_buckets == 5


@pytest.mark.parametrize("make,message", [
    (lambda: fc.numeric_column("a", shape=0), "shape dimensions must be greater than 0"),
    (lambda: fc.bucketized_column(fc.numeric_column("a"), boundaries=[3, 1]),
     "boundaries must be a sorted list"),
    (lambda: fc.bucketized_column("a", [1]), "source_column must be a column generated"),
    (lambda: fc.categorical_column_with_hash_bucket("a", 0), "hash_bucket_size must be at least"),
    (lambda: fc.embedding_column(fc.categorical_column_with_identity("a", 3), dimension=0),
     "Invalid dimension 0"),
    (lambda: fc.crossed_column(["a"], 10), "keys must be a list with length > 1"),
    (lambda: fc.categorical_column_with_vocabulary_list("a", ["x", "x"]), "Duplicate keys"),
    (lambda: fc.indicator_column("a"), "Input must be a CategoricalColumn"),
    (lambda: fc.crossed_column([fc.categorical_column_with_hash_bucket("h", 3), "b"], 10),
     "not supported for crossing")])
def test_tensorflows_refusals(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_tf_feature_column_is_the_module():
    assert rt.feature_column is fc
