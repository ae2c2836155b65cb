"""A chunk's Parquet bytes read back as the very values and types that were written, whatever
encoding each column was given (store._encoding), by pyarrow and by polars (what reports read)."""

import io
from types import SimpleNamespace

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from safari_sim.run import store


def outcome(rng, n, p):
    return SimpleNamespace(
        score=rng.integers(-40, 90, (n, p)).astype(np.float64),
        rank=rng.integers(1, p + 1, (n, p)).astype(np.int16),
        win=rng.choice([0.0, 1 / 3, 0.5, 1.0], (n, p)),
        turns=rng.integers(5, 400, n).astype(np.int32),
        stats={
            "counter": rng.integers(0, 7, (n, p)).astype(np.int32),
            "negative": rng.integers(-3000, 3000, (n, p)).astype(np.int32),
            "big": rng.integers(-2**40, 2**40, (n, p)).astype(np.int64),
            "small": rng.integers(-100, 100, (n, p)).astype(np.int8),
            "constant": np.full(n, 4, np.int32),
            "margin": rng.normal(0, 5, n),
        })


def test_a_chunk_reads_back_as_written():
    rng = np.random.default_rng(3)
    n, p = 5000, 3
    out = outcome(rng, n, p)
    seating = rng.integers(0, 2, (n, p)).astype(np.int8)
    table = store.chunk_table("rules.x=1", 2, 10_000, ["a", "b"], seating, out, {"k": 1},
                              deals=np.arange(n) // 3 + 7)
    data = store.parquet_bytes(table)
    back = pq.read_table(io.BytesIO(data))
    assert back.column_names == table.column_names
    for name in table.column_names:
        assert back.schema.field(name).type == table.schema.field(name).type, name
        assert back.column(name).to_pylist() == table.column(name).to_pylist(), name
    # the encodings differ by column (else the round trip above proves little)
    meta = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0)
    used = {meta.column(i).path_in_schema: set(meta.column(i).encodings)
            for i in range(meta.num_columns)}
    assert "DELTA_BINARY_PACKED" in used["game"] and "BYTE_STREAM_SPLIT" in used["negative"]
    assert "BYTE_STREAM_SPLIT" not in used["constant"]
    df = pl.read_parquet(io.BytesIO(data))
    for name in ("game", "deal", "seat", "score", "rank", "win", "turns", "counter", "negative",
                 "big", "small", "constant", "margin"):
        assert df[name].to_list() == table.column(name).to_pylist(), name
    assert df["strategy"].to_list() == [["a", "b"][i] for i in seating.reshape(-1)]
    assert df["deal"].to_list()[:6] == [7, 7, 7, 7, 7, 7]
