"""Conversion of live functions: the pipeline, the cache, `converted_call`, the
do-not-convert rules, error reporting and logging."""
