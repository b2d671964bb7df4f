"""Known differences of a backend from the NumPy oracle, as data (xfail; a fix shows up as an XPASS).

Each entry: (backend, test node id without the parameter part, or with it) -> (reason, strict[, run]).
``strict=False`` only for hypothesis tests whose failing examples depend on the draw; ``run=False`` where
hypothesis would spend half a minute shrinking a refusal (those tests' Dask coverage is in test_dask.py).
Every Dask entry is a deliberate refusal or laziness listed in docs/behaviour.md ("Dask"); the
array-api-strict and JAX entries are limits of those libraries (docs/behaviour.md, "Generic Array-API backends");
the Cubed entries (an opt-in target: ``--xb-backends cubed``) are its refusals and laziness (docs/behaviour.md,
"Cubed").
"""

_LAZY_ERRORS = ("Dask is lazy: an error that depends on values (out-of-bounds index Arrays, singular matrices, "
                "negative integer exponents in an Array) is raised when the result is computed, not when the "
                "operation is written")  # fmt: skip
_NO_VIEWS = "Dask Arrays have no views: writes into x are not seen by an earlier x[1] (docs/behaviour.md, Dask)"
_NESTED = ("Dask indexes one index Array per key (several, or one with 2+ dims, raise ChunkingError with the fix); "
           "ints next to an index Array place axes differently from NumPy")  # fmt: skip

_STRICT_OPS = ("array_api_strict's own operators raise TypeError for an operand they do not know (an xbackend Array) "
               "instead of returning NotImplemented, so `native + Array` never reaches Array.__radd__; `Array + native` "
               "and xb.asarray(native) work")  # fmt: skip
_JAX_NO_VIEWS = "JAX arrays are immutable: a write builds a new array, so an earlier view or copy.copy never sees it"
_XLA_COMPLEX = ("XLA's complex kernels (JAX) miss some of the standard's special values at infinities and NaNs "
                "(e.g. tanh(0+inf j), abs(inf+nan j)); not emulated yet")  # fmt: skip
_UNKNOWN_SIZES = ("scikit-learn needs concrete sizes where Dask has unknown ones (None in shape after unique_values "
                  "or a boolean mask inside the estimator, the standard's rule); fit on x.to(backend=\"numpy\") for now")

_CUBED_NO_VIEWS = "Cubed arrays are immutable: a write builds a new array, so an earlier view or copy.copy never sees it"
_CUBED_SHAPES = ("Cubed plans every shape before it computes: nonzero, unique_* and boolean-mask indexing (a shape "
                 "that depends on values) raise ShapeError with the fix (compute first, or backend='dask')")
_CUBED_LAZY = ("Cubed is lazy: an error that depends on values (a singular matrix) is raised when the result is "
               "computed, not when the operation is written")  # fmt: skip
_CUBED_EMPTY = ("Cubed (0.27) cannot plan some selections of empty arrays (its chunking of a 0-size axis); xbackend "
                "answers empty basic selections itself, not yet those through index Arrays")  # fmt: skip

_CUBED_STORE = ("scikit-learn indexes with a Cubed index Array, which Cubed computes while planning; at times that "
                "compute writes a Zarr path of Cubed's work directory that exists already (ContainsArrayError); not "
                "reproduced outside scikit-learn yet, so not strict")  # fmt: skip

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
        "Dask: a 0-d bool Array next to other keys (x[..., m]) and as a setitem mask is refused; x[m] alone and "
        "Python bools work", True),
    ("dask", "tests/test_indexing.py::test_setitem_scalar"): (_NESTED + "; None next to a mask in a setitem key "
                                                               "is refused", False, False),
    ("dask", "tests/test_indexing.py::test_setitem_array_value"): (_NESTED, False, False),
    ("dask", "tests/test_indexing.py::test_getitem_advanced"): (_NESTED, False, False),
    ("dask", "tests/test_manipulation.py::test_reshape_errors"): (
        "Dask has no memory layout: reshape(copy=False) never needs a copy, so it never raises", True),
    ("dask", "tests/test_manipulation.py::test_repeat"): (
        "repeat() with an Array of counts is refused on Dask (the shape depends on values); ints work", False,
        False),
    # Consumers (issue 9) on Dask: left for a later change; each is listed in the issue 10 closing note.
    ("dask", "tests/test_consumers.py::test_linear_discriminant_analysis"): (_UNKNOWN_SIZES, True),
    ("dask", "tests/test_consumers.py::test_standard_scaler_ridge_r2"): (_UNKNOWN_SIZES, True),
    ("dask", "tests/test_pickle.py::test_fitted_estimators_pickle_and_joblib_dump"): (_UNKNOWN_SIZES, True),
    # array-api-strict (a default target since issue 10): only what its own Array class refuses
    ("array_api_strict", "tests/test_array.py::test_native_operand_of_the_same_backend_is_accepted"): (_STRICT_OPS, True),
    ("array_api_strict", "tests/test_array.py::test_matmul_operators"): (_STRICT_OPS, True),
    # JAX (tested when installed): immutable arrays, no raising on values, XLA's complex special values
    ("jax", "tests/test_array.py::test_inplace_operators"): (_JAX_NO_VIEWS, True),
    ("jax", "tests/test_pickle.py::test_copy_shares_and_deepcopy_does_not"): (_JAX_NO_VIEWS, True),
    ("jax", "tests/test_manipulation.py::test_reshape"): (_JAX_NO_VIEWS + "; reshape(copy=False) copies", False),
    ("jax", "tests/test_manipulation.py::test_reshape_errors"): (
        "JAX has no memory layout: reshape(copy=False) never needs a copy, so it never raises (as Dask)", True),
    ("jax", "tests/test_linalg.py::test_singular_input"): (
        "JAX returns inf/NaN for a singular matrix instead of raising (checking would mean a sync per call)", True),
    ("jax", "tests/test_conformance.py::test_uint64_pow_and_division_exact[jax-cpu-pow]"): (
        "XLA's uint64 integer power loses bits above 2**53 for large results", True),
    ("jax", "tests/test_elementwise.py::test_binary_special_cases[jax-cpu-remainder]"): (
        "XLA's float16 remainder gives -0.0 where the standard (and NumPy) give +0.0", True),
    ("jax", "tests/test_jit.py::test_jit_matches_eager_per_target"): (
        "jax.jit fuses the chain and XLA's fused float64 results differ from eager ones at ~4e-7 relative, beyond "
        "the float64 tolerance; not traced yet", True),
    ("jax", "tests/test_elementwise.py::test_complex_special_grid_is_the_same_on_every_target"): (_XLA_COMPLEX, True),
    **{("jax", f"tests/test_conformance.py::test_complex_special_cases_of_the_standard[jax-cpu-{d}-tanh]"): (
        _XLA_COMPLEX, True) for d in ("complex64", "complex128")},
    **{("jax", f"tests/test_elementwise.py::test_complex_special_cases[jax-cpu-{n}]"): (_XLA_COMPLEX, True)
       for n in ("abs", "acos", "acosh", "log", "log1p", "sqrt")},  # (acosh(0 + nan j): nan + nan j, issue 28)
    # Cubed (opt-in target): no views, laziness, shapes that depend on values, gaps of Cubed 0.27
    ("cubed", "tests/test_array.py::test_inplace_operators"): (_CUBED_NO_VIEWS, True),
    ("cubed", "tests/test_pickle.py::test_copy_shares_and_deepcopy_does_not"): (_CUBED_NO_VIEWS, True),
    ("cubed", "tests/test_array.py::test_repr_shows_backend_device_dtype"): (
        "repr() of a Cubed Array shows its plan (shape, chunks), never values: printing must not compute", True),
    ("cubed", "tests/test_array.py::test_array_protocol_on_the_cpu"): (
        "np.asarray(cubed Array) raises HostTransferError: it would compute silently; x.numpy() is the way", True),
    ("cubed", "tests/test_manipulation.py::test_reshape_errors"): (
        "Cubed has no memory layout: reshape(copy=False) never needs a copy, so it never raises (as Dask)", True),
    ("cubed", "tests/test_linalg.py::test_singular_input"): (_CUBED_LAZY, True),
    ("cubed", "tests/test_indexing.py::test_negative_steps_with_index_arrays"): (
        "Cubed refuses a negative-step slice next to an index Array (InvalidIndexError naming xb.flip)", True),
    ("cubed", "tests/test_manipulation.py::test_repeat"): (
        "repeat() with an Array of counts is refused on Cubed (the shape depends on values); ints work", False, False),
    ("cubed", "tests/test_indexing.py::test_take"): (_CUBED_EMPTY, False),
    ("cubed", "tests/test_indexing.py::test_setitem_scalar"): (_CUBED_EMPTY + "; " + _CUBED_SHAPES, False, False),
    ("cubed", "tests/test_indexing.py::test_setitem_array_value"): (_CUBED_EMPTY + "; " + _CUBED_SHAPES, False,
                                                                     False),
    **{("cubed", t): (_CUBED_SHAPES, True) for t in (
        "tests/test_array.py::test_index_with_arrays_and_ellipsis",
        "tests/test_array.py::test_wide_unsigned_operators_indexing_in_place",
        "tests/test_indexing.py::test_uint8_index_is_an_index_not_a_mask",
        "tests/test_indexing.py::test_zero_d_bool_masks",
        "tests/test_indexing.py::test_out_of_bounds_raise_index_error",
        "tests/test_boundary_diagnosis.py::test_an_index_out_of_range_is_named_with_its_axis",
        "tests/test_conformance.py::test_every_function_every_required_dtype_like_numpy",
        "tests/test_searching.py::test_nonzero",
        "tests/test_searching.py::test_default_int_is_the_index_dtype",
        "tests/test_set.py::test_unique_family_matches_the_oracle",
        "tests/test_set.py::test_each_nan_is_distinct_and_signed_zeros_merge",
        "tests/test_set.py::test_zero_d_and_empty",
        "tests/test_set.py::test_wide_unsigned_extremes",
        "tests/test_set.py::test_index_dtype_follows_default_int",
        "tests/test_reference_defects.py::test_issue_example_mask2d_then_index_array",
        "tests/test_consumers.py::test_linear_discriminant_analysis",
        "tests/test_consumers.py::test_standard_scaler_ridge_r2",
    )},
    ("cubed", "tests/test_reference_defects.py::test_a_wide_mask_beside_an_index_gives_numpys_result_everywhere"): (
        _CUBED_SHAPES, False, False),
    **{("cubed", t): (_CUBED_STORE, False)
       for t in ("tests/test_pickle.py::test_fitted_estimators_pickle_and_joblib_dump", "tests/test_consumers.py::test_pca")},
    ("dask", "tests/test_consumers.py::test_zscore"): (
        "scipy.stats.zscore on a Dask Array raises IndexError ('Too many indices') inside SciPy's array-API "
        "path; not yet traced to its cause", True),
}


def known_failure(backend: str, nodeid: str) -> tuple[str, bool, bool] | None:
    """The (reason, strict, run) for this test on ``backend``, if it is a known difference."""
    base = nodeid.split("[", 1)[0]
    hit = KNOWN_FAILURES.get((backend, nodeid)) or KNOWN_FAILURES.get((backend, base))
    return None if hit is None else (hit[0], hit[1], hit[2] if len(hit) > 2 else True)
