"""The inspection API (__array_namespace_info__) tells the truth for each backend and device."""

from __future__ import annotations

import pytest

import xbackend as xb
from xbackend.testing import available_targets

STANDARD = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
            "complex64", "complex128"}  # fmt: skip
KINDS = {
    "bool": {"bool"}, "signed integer": {"int8", "int16", "int32", "int64"},
    "unsigned integer": {"uint8", "uint16", "uint32", "uint64"},
    "integral": {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"},
    "real floating": {"float32", "float64"}, "complex floating": {"complex64", "complex128"},
}  # fmt: skip
KINDS["numeric"] = KINDS["integral"] | KINDS["real floating"] | KINDS["complex floating"]


def info_for(t):
    with xb.using(backend=t.backend):
        return xb.__array_namespace_info__()


def test_namespace_exposes_info():
    assert callable(xb.__array_namespace_info__)
    xp = xb.asarray([1]).__array_namespace__()  # bound to numpy: its info defaults to numpy's device
    assert xp.__array_namespace_info__().default_device() is xb.Device("numpy", "cpu")
    for method in ("capabilities", "default_device", "default_dtypes", "devices", "dtypes"):
        assert callable(getattr(xb.__array_namespace_info__(), method))


def test_capabilities(xb_target):
    caps = info_for(xb_target).capabilities()
    assert set(caps) >= {"boolean indexing", "data-dependent shapes", "max dimensions"}
    assert isinstance(caps["boolean indexing"], bool) and isinstance(caps["data-dependent shapes"], bool)
    m = caps["max dimensions"]
    assert m is None or (isinstance(m, int) and m >= 8)
    if m is not None:  # the claim is true: an Array with that many dimensions can be made
        x = xb.ones((1,) * m, backend=xb_target.backend, device=xb_target.device)
        assert x.ndim == m
    # the claims are true: boolean indexing and data-dependent shapes work where claimed (every backend but Cubed,
    # which plans every shape first), and are refused with a typed error where not
    x = xb.asarray([1.0, -2.0, 3.0], backend=xb_target.backend, device=xb_target.device)
    if caps["boolean indexing"] and caps["data-dependent shapes"]:
        assert x[x > 0].tolist() == [1.0, 3.0]
    else:
        with pytest.raises(xb.ShapeError, match="Fix:"):
            x[x > 0]
    assert caps["boolean indexing"] or xb_target.backend == "cubed"  # the standard's: every other backend has them


def test_devices_and_default_device(xb_target):
    info = info_for(xb_target)
    devs = info.devices()
    assert isinstance(devs, tuple) and all(isinstance(d, xb.Device) for d in devs)
    assert xb.Device(xb_target.backend, xb_target.device) in devs
    assert info.default_device() in devs
    for d in devs:  # every listed device is a valid device= argument
        assert xb.zeros(1, backend=xb_target.backend, device=d).device is d
    with xb.using(backend=xb_target.backend, device=xb_target.device):
        assert xb.__array_namespace_info__().default_device() is xb.Device(xb_target.backend, xb_target.device)


def test_devices_concatenate_with_a_list_as_in_2023_12(xb_target):
    """2025.12 made devices() a tuple; consumers written for 2023.12's list (SciPy's ``devices`` test fixture
    writes ``info.devices() + [None]``) keep working, and tuple concatenation stays a tuple."""
    devs = info_for(xb_target).devices()
    assert devs + [None] == [*devs, None] and type(devs + [None]) is list
    assert [None] + devs == [None, *devs] and type([None] + devs) is list
    assert devs + (None,) == (*devs, None) and type(devs + (None,)) is tuple
    for d in devs + [None]:  # what SciPy's test_device cases then do with each
        x = xb.asarray([1.0], backend=xb_target.backend, device=d)
        assert x.device is (d if d is not None else info_for(xb_target).default_device())


def test_default_dtypes_follow_configuration(xb_target):
    info = info_for(xb_target)
    assert info.default_dtypes(device=xb_target.device) == {
        "real floating": xb.float64, "complex floating": xb.complex128, "integral": xb.int64, "indexing": xb.int64,
    }  # fmt: skip
    with xb.using(default_float=xb.float32, default_int=xb.int32):
        d = info.default_dtypes()
        assert (d["real floating"], d["complex floating"], d["integral"]) == (xb.float32, xb.complex64, xb.int32)
        # ... and they are what creation functions really produce
        assert xb.ones(1, backend=xb_target.backend, device=xb_target.device).dtype is d["real floating"]
        assert xb.arange(2, backend=xb_target.backend, device=xb_target.device).dtype is d["integral"]


@pytest.mark.parametrize("kind", sorted(KINDS) + [None, ("bool", "complex floating")])
def test_dtypes_are_true(xb_target, kind):
    info = info_for(xb_target)
    got = info.dtypes(device=xb_target.device, kind=kind)
    if kind is None:
        wanted = STANDARD
    elif isinstance(kind, tuple):
        wanted = set().union(*(KINDS[k] for k in kind))
    else:
        wanted = KINDS[kind]
    assert set(got) <= wanted and set(got) <= STANDARD  # only canonical names; never bfloat16/float16
    assert all(v is xb.dtype(k) for k, v in got.items())
    for name, dt in got.items():  # every listed dtype can be held on that device
        assert xb.zeros(2, dtype=dt, backend=xb_target.backend, device=xb_target.device).dtype is dt
    if xb_target.backend in ("numpy", "cupy", "torch"):  # all three hold every standard dtype (torch >= 2.3)
        assert set(got) == wanted


def test_errors():
    info = xb.__array_namespace_info__(backend="numpy")
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="floating")
    with pytest.raises(xb.UnknownDeviceError):
        info.dtypes(device="cuda:0")


def test_backend_argument_and_context_agree():
    for t in available_targets():
        a = xb.__array_namespace_info__(backend=t.backend)
        b = info_for(t)
        assert a.devices() == b.devices() and a.dtypes() == b.dtypes()
