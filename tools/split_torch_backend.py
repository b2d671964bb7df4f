"""Move torch.py's emulations into modules of their own, verbatim (methods keep their indentation inside mixins).

Run once on a tree whose torch.py still holds them: ``python tools/split_torch_backend.py <repo root>``; it redoes
commit "Move torch's emulations into modules of their own" after a merge that conflicts with it. Delete once merged.
"""
import ast, builtins, re, sys, pathlib

ROOT = pathlib.Path(sys.argv[1])
SRC = ROOT / "xbackend/_backends/torch.py"

GROUPS = {
    "_torch_uint": dict(
        cls="TorchUintMixin",
        doc='''"""uint16/uint32/uint64 on torch, which has (almost) no unsigned kernels wider than uint8.

Design constraint: bit-exact, and free for the dtypes that need none. uint16/uint32 compute exactly in
int64 and cast back; uint64 runs on its own bits viewed as int64 (add, subtract, multiply, the bitwise ops
and left shifts give the same bits in two's complement), is ordered through the sign-flip image
``bits ^ -2**63`` (comparisons, maximum/minimum/clip, sorting), shifts right logically by masking, raises
to powers by squaring and divides by the halve-divide-correct trick. :class:`TorchUintMixin` is part of
:class:`~xbackend._backends.torch.TorchBackend`; the kernels are built once per (op, dtype).
"""''',
        methods=["_uint_kernel", "_uint64_right_shift", "_signed_view", "_ordered", "_bits", "_wide", "_narrow",
                 "_sort_key"],
        funcs=["_u64_bits", "_u64_less", "_uint64_divmod", "_uint64_divmod_kernel", "_uint64_pow"],
        consts=["_UINT_WIDE", "_BITEXACT", "_SIGNED_OF", "_ORDERED", "_I64_MIN"],
        decl=["to_t: dict[DType, Any]  # xbackend dtype -> torch dtype",
              "def _plain_kernel(self, name: str, dt: DType) -> Callable[..., Any]: ...  # TorchBackend's"],
    ),
    "_torch_index": dict(
        cls="TorchIndexMixin",
        doc='''"""NumPy-style (the standard's) indexing rules on torch.

Design constraint: ``x[key]`` and ``x[key] = v`` mean the same on every backend. torch has no negative
steps (emulated with ``flip``), checks bounds of index tensors only on some paths, and treats an empty
Ellipsis between advanced indices differently; :class:`TorchIndexMixin` (part of
:class:`~xbackend._backends.torch.TorchBackend`) normalises keys, checks bounds and emulates the rest.
"""''',
        methods=["normalize_key", "_index_tensor", "_check_index", "_negative_steps", "getitem",
                 "_empty_ellipsis_separator", "setitem"],
        funcs=[], consts=[],
        decl=["_tensor: Any  # torch.Tensor", "@property\n        def _signed_view(self) -> dict[Any, Any]: ...  # uintN -> intN (TorchUintMixin)"],
    ),
    "_torch_linalg": dict(
        cls="TorchLinalgMixin",
        doc='''"""Linear algebra and FFT on torch, and exact integer matrix products where torch has none.

Design constraint: results as on NumPy. Integer inputs compute in the widest type and come back (torch's
linalg is floating-point only); CUDA has no integer GEMM, so integer ``matmul``/``tensordot`` there are a
broadcast multiply and an exact sum (device-independent code, tested on the CPU). :class:`TorchLinalgMixin`
is part of :class:`~xbackend._backends.torch.TorchBackend`.
"""''',
        methods=["linalg_errors", "_int_wide", "la_cholesky", "la_det", "la_slogdet", "la_eigh", "la_eigvalsh",
                 "la_eig", "la_eigvals", "la_inv", "la_solve", "la_qr", "la_svd", "la_svdvals", "la_matrix_power",
                 "la_pinv", "la_matrix_rank", "la_matrix_norm", "la_vector_norm", "la_cross", "la_tensordot",
                 "la_vecdot", "la_trace", "la_diagonal", "fft_1d", "fft_nd", "fft_shift"],
        funcs=["_int_matmul", "_int_matmul_by_sum", "_int_tensordot"], consts=[],
        decl=["to_t: dict[DType, Any]  # xbackend dtype -> torch dtype", "from_t: dict[Any, DType]"],
        extra=["from ._torch_uint import _UINT_WIDE"],
    ),
    "_torch_special": dict(
        cls="TorchSpecialCasesMixin",
        doc='''"""The standard's special cases where torch's kernels differ from it (and from NumPy).

Design constraint: one answer on every backend. Each ``_k_<name>(dt)`` builds the kernel of ``name`` for
dtype ``dt`` where torch needs a correction (integer division by zero gives 0; a zero remainder takes the
divisor's sign; complex ``+``/``-`` componentwise; ``pow`` at 0.5/-0.5 and complex ``pow`` as NumPy; ``sign``
of NaN; NaN ``clip`` bounds; ...); ``make_kernel`` finds them by name. :class:`TorchSpecialCasesMixin` is
part of :class:`~xbackend._backends.torch.TorchBackend`.
"""''',
        methods=["_int_div", "_complex_componentwise", "_rounding", "*_k_"],
        funcs=["_cmul", "_cpow_int"], consts=[],
        extra=["from ._torch_linalg import _int_matmul", "from .numpy import negative_integer_power"],
    ),
}


def span(node, lines):
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    end = node.end_lineno
    while end < len(lines) and lines[end].strip() == "":  # trailing blank lines go with it
        end += 1
    return start - 1, end  # 0-based [start, end)


def main():
    text = SRC.read_text()
    lines = text.split("\n")
    tree = ast.parse(text)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "TorchBackend")
    methods = {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    top = {}
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            top[n.name] = n
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            tg = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in tg:
                if isinstance(t, ast.Name):
                    top[t.id] = n
    remove = []
    new_modules = {}
    for mod, g in GROUPS.items():
        consts = [c for c in g["consts"] if c in top]
        funcs = [f for f in g["funcs"] if f in top]
        meths = []
        for m in g["methods"]:
            if m.startswith("*"):
                meths += [n for n in methods if n.startswith(m[1:])]
            elif m in methods:
                meths.append(m)
        g["methods"] = [m for m in g["methods"] if not m.startswith("*")]
        missing = set(g["methods"]) - set(meths) | set(g["funcs"]) - set(funcs)
        if missing:
            print("not found (skipped):", mod, sorted(missing))
        body_c = []
        for c in consts:
            a, b = span(top[c], lines)
            body_c.append("\n".join(lines[a:b]).rstrip("\n"))
            remove.append((a, b))
        body_m = []
        for m in meths:
            a, b = span(methods[m], lines)
            # a comment block directly above the method (not a section header) goes with it
            while a > 0 and lines[a - 1].strip().startswith("#") and not lines[a - 1].strip().startswith("# --"):
                a -= 1
            body_m.append("\n".join(lines[a:b]).rstrip("\n"))
            remove.append((a, b))
        body_f = []
        for f in funcs:
            a, b = span(top[f], lines)
            body_f.append("\n".join(lines[a:b]).rstrip("\n"))
            remove.append((a, b))
        new_modules[mod] = (g, body_c, body_m, body_f)
    keep = [True] * len(lines)
    for a, b in remove:
        for i in range(a, b):
            keep[i] = False
    rest = "\n".join(l for l, k in zip(lines, keep) if k)
    rest = re.sub(r"\n{4,}", "\n\n\n", rest)
    for mod, (g, body_c, body_m, body_f) in new_modules.items():
        out = [g["doc"], "", "from __future__ import annotations", "",
               "import functools", "import operator", "from typing import TYPE_CHECKING, Any, Callable", "",
               "import numpy as np", "",
               "from .. import _dtypes as D", "from .._backend import Backend", "from .._dtypes import DType",
               "from .._errors import IndexOutOfRangeError, UnsupportedDTypeError",
               "from ._keys import check_bounds, key_dims"] + g.get("extra", []) + ["",
               "torch: Any = None  # the torch module: bound by torch.py's _import_torch() before any backend runs",
               ""]
        if body_c:
            out += body_c + [""]
        out += ["", f"class {g['cls']}(Backend):",
                f'    """Part of :class:`~xbackend._backends.torch.TorchBackend`: see the module docstring."""', "",
                ] + ((["    if TYPE_CHECKING:  # defined by TorchBackend"] + ["        " + d for d in g["decl"]] + [""]) if g.get("decl") else [])
        out += [m + "\n" for m in body_m]
        out[-1] = out[-1].rstrip("\n")
        if body_f:
            out += ["", ""] + [f + "\n\n" for f in body_f]
        src = "\n".join(out).rstrip("\n") + "\n"
        used = {n.id for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Name)} | {
            n.value.id for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
        kept = []
        for line in src.split("\n"):
            m = re.match(r"^(?:from \S+ )?import (.+)$", line)
            if m and "__future__" not in line:
                names = [x.strip() for x in m.group(1).split(",")]
                alias = [x.split(" as ")[-1] for x in names]
                keep_names = [n for n, a in zip(names, alias) if a in used]
                if not keep_names:
                    continue
                line = line[: line.index("import ") + 7] + ", ".join(keep_names)
            kept.append(line)
        src = re.sub(r"\n{3,}(?=from|import)", "\n\n", "\n".join(kept))
        (ROOT / f"xbackend/_backends/{mod}.py").write_text(src)
    SRC.write_text(rest)


main()


def wire():
    text = SRC.read_text()
    mods = list(GROUPS)
    # 1. the mixins join TorchBackend's bases (first: Backend's defaults must not shadow them)
    bases = ", ".join(GROUPS[m]["cls"] for m in mods)
    text = text.replace("class TorchBackend(Backend):", f"class TorchBackend({bases}, Backend):", 1)
    # 2. torch.py imports the mixins and the moved names it still uses
    defined = {}
    for m in mods:
        tree = ast.parse((ROOT / f"xbackend/_backends/{m}.py").read_text())
        for n in tree.body:
            if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
                defined[n.name] = m
            elif isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Name) and t.id != "torch":
                        defined[t.id] = m
    used = {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
    lines = []
    for m in mods:
        names = sorted({GROUPS[m]["cls"]} | {k for k, v in defined.items() if v == m and k in used})
        lines.append(f"from . import {m}")
        lines.append(f"from .{m} import {', '.join(names)}")
    anchor = "from ._keys import check_bounds, key_dims\n"
    assert anchor in text
    text = text.replace(anchor, anchor + "\n".join(lines) + "\n", 1)
    # 3. _import_torch binds the moved code's ``torch`` too
    old = "        torch = _torch\n"
    assert old in text
    text = text.replace(old, old + "        # the moved emulations' global, too\n        " + " = ".join(f"{m}.torch" for m in mods) + " = _torch\n", 1)
    # 4. drop imports torch.py no longer uses
    tree = ast.parse(text)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    out = []
    for line in text.split("\n"):
        mm = re.match(r"^(from \S+ import )(.+)$", line)
        if mm and "__future__" not in line and "(" not in line:
            names = [x.strip() for x in mm.group(2).split(",")]
            keep = [n for n in names if n.split(" as ")[-1] in used or mm.group(1) == "from . import "]
            if not keep:
                continue
            line = mm.group(1) + ", ".join(keep)
        out.append(line)
    SRC.write_text("\n".join(out))


wire()
for t in ("tests/test_linalg.py", "tests/test_integer_matmul.py"):
    p = ROOT / t
    if p.exists():
        p.write_text(p.read_text().replace("from xbackend._backends.torch import _int_", "from xbackend._backends._torch_linalg import _int_"))
