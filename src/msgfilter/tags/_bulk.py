"""The consume-queue check over many tag codes at once, as one boolean mask.

numpy is needed (the mask is a numpy array); pyarrow only when the codes come as an Arrow
array. Both are imported on first use so that the per-message path never pays for them.

Measured on 1M int64 codes (benchmarks/bench_tags.py): `numpy.isin` picks its table or sort
method and takes 2-5 ms for two codes, against about 45 ms for a Python loop; one `==` pass
per code takes about 0.12 ms. So up to `CHAIN_MAX` codes we chain those passes; above that,
`pyarrow.compute.is_in` (a hash lookup, 5-12 ms whatever the number of codes) when pyarrow
is installed, else a binary search into the sorted codes (12-17 ms).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: Up to this many codes, one equality pass per code beats a hash or binary search.
CHAIN_MAX = 64


def codes_mask(
    codes: object,
    sorted_codes: tuple[int, ...],
    subscribe_all: bool,
    scalar: Callable[[Any], bool],
) -> NDArray[np.bool_]:
    """One bool per entry of `codes`: is it one of `sorted_codes` (or missing)?

    `codes` is a sequence or iterable of ints (None for a code the broker could not
    read), a numpy array, or a pyarrow Array / ChunkedArray (null for a missing code).
    Missing codes are admitted, as the broker admits them; with `subscribe_all` every
    entry is. Entries that are not numbers go through `scalar` one by one.
    """
    try:
        import numpy as np
    except ImportError as err:  # pragma: no cover - exercised only without numpy
        raise ImportError(
            "matches_codes needs numpy: pip install 'msgfilter[arrow]'"
        ) from err

    nulls: NDArray[np.bool_] | None = None
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(codes, pa.Array | pa.ChunkedArray):
        column: Any = codes
        if pa.types.is_null(column.type) or subscribe_all:
            return np.ones(len(column), dtype=bool)
        if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
            arr = np.asarray(column.to_pylist(), dtype=object)
        else:
            if column.null_count:
                nulls = np.asarray(column.is_null().to_numpy(zero_copy_only=False), dtype=bool)
                column = column.fill_null(0)
            arr = np.asarray(column.to_numpy(zero_copy_only=False))
    elif isinstance(codes, np.ndarray):
        arr = codes
    else:
        items = codes if isinstance(codes, Sequence) else list(codes)  # type: ignore[call-overload]
        arr = np.asarray(items)
        if arr.dtype.kind not in "biufO":
            # numpy turns a list mixing numbers and text into all text; keep the numbers.
            arr = np.asarray(items, dtype=object)

    if subscribe_all:
        mask = np.ones(arr.shape, dtype=bool)
    elif arr.dtype.kind in "biuf":
        mask = _numeric_mask(np, arr, sorted_codes)
    else:
        # Object arrays (None entries, mixed types): the scalar check, one entry at a time.
        mask = np.fromiter(map(scalar, arr.flat), dtype=bool, count=arr.size).reshape(arr.shape)
    if nulls is not None:
        mask |= nulls
    return mask


def _numeric_mask(np: Any, arr: Any, sorted_codes: tuple[int, ...]) -> Any:
    if arr.dtype.kind == "b":
        arr = arr.astype(np.uint8)
    values: Sequence[int] = sorted_codes
    dtype = np.float64
    if arr.dtype.kind in "iu":
        # A code the array's type cannot hold matches none of its entries; dropping it
        # also keeps the comparisons within the type (no float promotion for uint64).
        info = np.iinfo(arr.dtype)
        values = [v for v in sorted_codes if info.min <= v <= info.max]
        dtype = arr.dtype
    if not values:
        return np.zeros(arr.shape, dtype=bool)
    if len(values) <= CHAIN_MAX:
        mask = arr == values[0]
        if len(values) > 1:
            scratch = np.empty(arr.shape, dtype=bool)
            for value in values[1:]:
                np.equal(arr, value, out=scratch)
                mask |= scratch
        return mask
    table = np.asarray(values, dtype=dtype)
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        pass
    else:
        found = pc.is_in(pa.array(arr.ravel()), value_set=pa.array(table))
        return np.asarray(found.to_numpy(zero_copy_only=False), dtype=bool).reshape(arr.shape)
    index = np.searchsorted(table, arr)
    np.minimum(index, len(table) - 1, out=index)
    return table[index] == arr
