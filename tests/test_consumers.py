"""Real consumers of the Array API standard run unchanged on every target (issue 9).

scikit-learn with ``array_api_dispatch=True`` and SciPy with ``SCIPY_ARRAY_API=1`` (set in
tests/conftest.py before either is imported) get the namespace from the Array and create with
``device=x.device``; every result must be an xbackend Array on the input's backend and device, and
equal what the same library computes from plain NumPy arrays, to float64 tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest

import xbackend as xb
from xbackend.testing import assert_close

sklearn = pytest.importorskip("sklearn")
scipy = pytest.importorskip("scipy")

RTOL, ATOL = 1e-9, 1e-11  # float64, allowing for different LAPACK/BLAS paths (torch vs NumPy)


@pytest.fixture(scope="module", autouse=True)
def _scipy_array_api():
    from scipy._lib import _array_api

    if not _array_api.SCIPY_ARRAY_API:
        pytest.fail("SciPy was imported before tests/conftest.py could set SCIPY_ARRAY_API=1, so its Array API "
                    "support is off. Fix: run with SCIPY_ARRAY_API=1 in the environment")  # fmt: skip


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1234)
    X = rng.normal(size=(60, 6)) * np.array([1.0, 2.0, 0.5, 3.0, 1.0, 0.1]) + np.array([0, 1, 2, 3, 4, 5])
    coef = rng.normal(size=6)
    y = X @ coef + 0.1 * rng.normal(size=60)
    labels = (X[:, 0] + X[:, 1] > 1.0).astype(np.int64) + (X[:, 2] > 2.0)
    return X, y, labels


def _on_target(r, t):
    """``r`` is an xbackend Array on target ``t`` (backend and device), float64."""
    assert type(r) is xb.Array, type(r)
    assert r.backend == t.backend and r.device is t.xb_device, (r.backend, r.device)


def _same(r, expected, t):
    _on_target(r, t)
    assert_close(r, np.asarray(expected), rtol=RTOL, atol=ATOL)


# -- scikit-learn ---------------------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # sklearn's own 0/0, see below
def test_pca(xb_target, data):
    from sklearn.decomposition import PCA

    X, _, _ = data
    ref = PCA(n_components=3, svd_solver="full").fit(X)
    with sklearn.config_context(array_api_dispatch=True):
        pca = PCA(n_components=3, svd_solver="full").fit(xb_target.asarray(X))
        Z = pca.transform(xb_target.asarray(X))
        back = pca.inverse_transform(Z)
    _same(Z, ref.transform(X), xb_target)  # svd_flip makes the signs deterministic on every backend
    _same(pca.components_, ref.components_, xb_target)
    _same(pca.explained_variance_, ref.explained_variance_, xb_target)
    _same(pca.mean_, ref.mean_, xb_target)
    _same(back, ref.inverse_transform(ref.transform(X)), xb_target)


def test_linear_discriminant_analysis(xb_target, data):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as LDA

    X, _, labels = data
    ref = LDA().fit(X, labels)
    with sklearn.config_context(array_api_dispatch=True):
        lda = LDA().fit(xb_target.asarray(X), xb_target.asarray(labels))
        proba = lda.predict_proba(xb_target.asarray(X))
        pred = lda.predict(xb_target.asarray(X))
        Z = lda.transform(xb_target.asarray(X))
    _same(proba, ref.predict_proba(X), xb_target)
    _on_target(pred, xb_target)
    np.testing.assert_array_equal(pred.numpy(), ref.predict(X))
    _same(lda.coef_, ref.coef_, xb_target)
    # LDA's projection comes from an SVD that sklearn does not sign-normalise (no svd_flip there), and
    # singular vectors are defined up to sign: LAPACK in NumPy and in torch may pick either
    _on_target(Z, xb_target)
    expected = ref.transform(X)
    z = Z.numpy()
    flip = np.sign(np.sum(z * expected, axis=0))
    assert np.all(flip != 0)
    assert_close(z * flip, expected, rtol=RTOL, atol=ATOL)


# StandardScaler's incremental variance divides 0/0 on purpose and silences NumPy only for the NumPy
# namespace (sklearn.utils.extmath._incremental_mean_and_var): an xbackend Array on NumPy warns.
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_standard_scaler_ridge_r2(xb_target, data):
    from sklearn.linear_model import Ridge
    from sklearn.metrics import r2_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y, _ = data
    ref = make_pipeline(StandardScaler(), Ridge(alpha=0.5, solver="svd")).fit(X, y)
    ref_pred = ref.predict(X)
    with sklearn.config_context(array_api_dispatch=True):
        model = make_pipeline(StandardScaler(), Ridge(alpha=0.5, solver="svd"))
        model.fit(xb_target.asarray(X), xb_target.asarray(y))
        scaled = model[0].transform(xb_target.asarray(X))
        pred = model.predict(xb_target.asarray(X))
        r2 = r2_score(xb_target.asarray(y), pred)
    _same(scaled, ref[0].transform(X), xb_target)
    _same(model[0].scale_, ref[0].scale_, xb_target)
    _same(model[1].coef_, ref[1].coef_, xb_target)
    _same(pred, ref_pred, xb_target)
    assert isinstance(r2, float) and r2 == pytest.approx(r2_score(y, ref_pred), rel=RTOL)


# -- SciPy ------------------------------------------------------------------------------------------------
def _special_rows(X):
    """X plus rows that need care: huge values (overflow without the max shift), and -inf entries."""
    extra = np.array([[1000.0, 999.0, -5, 0, 1, 2], [-np.inf, 0.0, 1.0, -np.inf, 2.0, 3.0]])
    return np.concatenate([X, extra])


def test_logsumexp(xb_target, data):
    from scipy.special import logsumexp

    X = _special_rows(data[0])
    x = xb_target.asarray(X)
    _same(logsumexp(x, axis=1), logsumexp(X, axis=1), xb_target)
    _same(logsumexp(x, axis=0, keepdims=True), logsumexp(X, axis=0, keepdims=True), xb_target)
    _same(logsumexp(x[:-1]), logsumexp(X[:-1]), xb_target)  # a 0-d Array
    w = np.abs(data[0][:5, :]) + 0.5
    _same(logsumexp(x[:5], axis=1, b=xb_target.asarray(w)), logsumexp(X[:5], axis=1, b=w), xb_target)
    r, sign = logsumexp(x[:5], axis=1, b=xb_target.asarray(w - 1.0), return_sign=True)
    rr, rsign = logsumexp(X[:5], axis=1, b=w - 1.0, return_sign=True)
    _same(r, rr, xb_target)
    _same(sign, rsign, xb_target)


def test_softmax(xb_target, data):
    from scipy.special import log_softmax, softmax

    X = _special_rows(data[0])
    x = xb_target.asarray(X)
    for axis in (0, 1):
        _same(softmax(x, axis=axis), softmax(X, axis=axis), xb_target)
    _same(log_softmax(x[:-1], axis=1), log_softmax(X[:-1], axis=1), xb_target)


def test_zscore(xb_target, data):
    from scipy.stats import zscore

    X = data[0]
    x = xb_target.asarray(X)
    _same(zscore(x, axis=0), zscore(X, axis=0), xb_target)
    _same(zscore(x, axis=1, ddof=1), zscore(X, axis=1, ddof=1), xb_target)
    _same(zscore(x, axis=None), zscore(X, axis=None), xb_target)
