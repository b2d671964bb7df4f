"""Known differences of a backend from the NumPy oracle, as data (xfail; a fix shows up as an XPASS).

Each entry: (backend, test node id without the parameter part, or with it) -> (reason, strict[, run]).
``strict=False`` only for hypothesis tests whose failing examples depend on the draw; ``run=False`` where
hypothesis would spend half a minute shrinking a refusal (those tests' Dask coverage is in test_dask.py).
Every Dask entry is a deliberate refusal or laziness listed in docs/behaviour.md ("Dask").
"""

_LAZY_ERRORS = ("Dask is lazy: an error that depends on values (out-of-bounds index Arrays, singular matrices, "
                "negative integer exponents in an Array) is raised when the result is computed, not when the "
                "operation is written")  # fmt: skip
_NO_VIEWS = "Dask Arrays have no views: writes into x are not seen by an earlier x[1] (docs/behaviour.md, Dask)"
_NESTED = ("Dask indexes one index Array per key (several, or one with 2+ dims, raise ChunkingError with the fix); "
           "ints next to an index Array place axes differently from NumPy")  # fmt: skip

KNOWN_FAILURES: dict[tuple[str, str], tuple] = {
    ("dask", "tests/test_array.py::test_inplace_operators"): (_NO_VIEWS, True),
    ("dask", "tests/test_array.py::test_repr_shows_backend_device_dtype"): (
        "repr() of a Dask Array shows its graph (shape, chunks), never values: printing must not compute", True),
    ("dask", "tests/test_array.py::test_array_protocol_on_the_cpu"): (
        "np.asarray(dask Array) raises HostTransferError: it would compute silently; x.numpy() is the way", True),
    ("dask", "tests/test_elementwise.py::test_negative_integer_power_raises"): (_LAZY_ERRORS, True),
    ("dask", "tests/test_linalg.py::test_singular_input"): (_LAZY_ERRORS, True),
    ("dask", "tests/test_indexing.py::test_out_of_bounds_raise_index_error"): (_LAZY_ERRORS, True),
    ("dask", "tests/test_indexing.py::test_take_errors"): (_LAZY_ERRORS, True),
    ("dask", "tests/test_indexing.py::test_negative_steps_with_index_arrays"): (_NESTED, True),
    ("dask", "tests/test_indexing.py::test_ints_next_to_index_arrays_follow_numpy"): (_NESTED, True),
    ("dask", "tests/test_indexing.py::test_zero_d_bool_masks"): (
        "Dask: a 0-d bool Array as a mask is a data-dependent new axis (refused); Python bools work", True),
    ("dask", "tests/test_indexing.py::test_setitem_scalar"): (_NESTED + "; None next to a mask in a setitem key "
                                                               "is refused", False, False),
    ("dask", "tests/test_indexing.py::test_setitem_array_value"): (_NESTED, False, False),
    ("dask", "tests/test_indexing.py::test_getitem_advanced"): (_NESTED, False, False),
    ("dask", "tests/test_manipulation.py::test_reshape_errors"): (
        "Dask has no memory layout: reshape(copy=False) never needs a copy, so it never raises", True),
    ("dask", "tests/test_manipulation.py::test_repeat"): (
        "repeat() with an Array of counts is refused on Dask (the shape depends on values); ints work", False,
        False),
}


def known_failure(backend: str, nodeid: str) -> tuple[str, bool, bool] | None:
    """The (reason, strict, run) for this test on ``backend``, if it is a known difference."""
    base = nodeid.split("[", 1)[0]
    hit = KNOWN_FAILURES.get((backend, nodeid)) or KNOWN_FAILURES.get((backend, base))
    return None if hit is None else (hit[0], hit[1], hit[2] if len(hit) > 2 else True)
