"""Swap mutants: the slips a reviewer plants by hand and mutmut 2.x never makes (stdlib only).

mutmut changes one token at a time (``+`` -> ``-``, ``1`` -> ``2``, ``x`` -> ``None``); it never swaps two
names or two operands, and never drops part of an expression. The slips that survived a whole suite by hand
(issue 33) were of those kinds: ``r * cos(t)`` and ``r * sin(t)`` exchanged, a retry drawn at the wrong
counter, ``step % 2**64`` written ``step``, a cache keyed without one of its fields. Operators:

``name``     a paired name (a call or an attribute): ``cos`` <-> ``sin``, ``exp`` <-> ``expm1``, ``log`` <->
             ``log1p``, ``floor`` <-> ``ceil``, ``min`` <-> ``max``, ``any`` <-> ``all``, ... (:data:`PAIRS`).
             A bare name is swapped only when its partner is bound in the module (or a builtin): a NameError
             would be a kill that says nothing.
``compare``  ``<`` <-> ``<=``, ``>`` <-> ``>=`` (mutmut makes these as well, in its own sample).
``operands`` the operands of a binary operator that does not commute (``a - b`` -> ``b - a``; ``-``, ``/``,
             ``//``, ``%``, ``**``, ``<<``, ``>>``, ``@``).
``args``     two neighbouring positional arguments of a call (``f(a, b, c)`` -> ``f(b, a, c)``, ``f(a, c, b)``).
``elements`` two neighbouring elements of a list or tuple literal passed to a call (``stack([r * cos(t),
             r * sin(t)])`` -> ``stack([r * sin(t), r * cos(t)])``: the Box-Muller slip of issue 33).
``mod``      a dropped modulo: ``a % b`` -> ``a`` (not ``"%s" % x``: string formatting).
``keyfield`` one field dropped from a tuple used as a dict or cache key: a tuple assigned to a name with
             ``key`` or ``token`` in it, the first argument of ``.get``/``.setdefault``/``.pop``, a tuple
             subscript of a name with ``cache`` in it or of a module-level dict.

Each mutant is an exact text replacement at a character span of the source (``Mutant.apply``), numbered
``index`` 0, 1, ... among the swap mutants of its line in source order, like mutmut's ids; a mutant whose
source does not compile is dropped. ``tools/mutation_swaps.py`` runs them; ``tests/test_mutation_tool.py``
pins each operator down on small sources.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
from dataclasses import dataclass

__all__ = ["Mutant", "PAIRS", "OPERATORS", "mutants", "in_sample"]

_PAIRED = [("cos", "sin"), ("cosh", "sinh"), ("acos", "asin"), ("arccos", "arcsin"), ("exp", "expm1"),
           ("log", "log1p"), ("floor", "ceil"), ("min", "max"), ("minimum", "maximum"), ("amin", "amax"),
           ("argmin", "argmax"), ("nanmin", "nanmax"), ("any", "all"), ("isinf", "isnan"),
           ("floor_divide", "true_divide"), ("real", "imag")]  # fmt: skip
#: name -> its partner
PAIRS: dict[str, str] = {**{a: b for a, b in _PAIRED}, **{b: a for a, b in _PAIRED}}
OPERATORS = ("name", "compare", "operands", "args", "elements", "mod", "keyfield")

_NONCOMMUTATIVE = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift, ast.MatMult)
_COMPARE = {ast.Lt: ("<", "<="), ast.LtE: ("<=", "<"), ast.Gt: (">", ">="), ast.GtE: (">=", ">")}
_ATOMS = (ast.Name, ast.Constant, ast.Attribute, ast.Call, ast.Subscript, ast.Tuple, ast.List, ast.Dict, ast.Set)


@dataclass(frozen=True)
class Mutant:
    op: str  # one of OPERATORS
    lineno: int  # 1-based line where the replaced text starts
    index: int  # among the swap mutants of that line, in source order
    line: str  # that source line, stripped (with the path and index: the key of an equivalent)
    start: int  # character offsets of the replaced text in the source
    end: int
    old: str
    new: str

    def apply(self, source: str) -> str:
        assert source[self.start : self.end] == self.old, "the source changed since the mutant was made"
        return source[: self.start] + self.new + source[self.end :]

    def describe(self) -> str:
        return f"{self.op}: {self.old!r} -> {self.new!r}"


def in_sample(path: str, line: str, index: int, k: int, seed: str = "") -> bool:
    """The sample rule of tools/mutmut_config.py: ``sha1(seed + "path|line|index") % k == 0``."""
    if k <= 1:
        return True
    h = hashlib.sha1(f"{seed}{path}|{line.strip()}|{index}".encode()).digest()
    return int.from_bytes(h[:4], "big") % k == 0


class _Source:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for ln in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(ln))
        self.lines = text.splitlines()

    def off(self, lineno: int, col_bytes: int) -> int:
        """Character offset of (line, UTF-8 byte column) - ast's columns count bytes."""
        line = self.lines[lineno - 1] if lineno - 1 < len(self.lines) else ""
        return self.starts[lineno - 1] + len(line.encode()[:col_bytes].decode(errors="ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.off(node.lineno, node.col_offset), self.off(node.end_lineno, node.end_col_offset)

    def seg(self, node: ast.AST) -> str:
        a, b = self.span(node)
        return self.text[a:b]

    def lineno_of(self, offset: int) -> int:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi - 1:
            mid = (lo + hi) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid
        return lo + 1


def _wrapped(src: _Source, node: ast.AST) -> str:
    text = src.seg(node)
    return text if isinstance(node, _ATOMS) else f"({text})"


def _bound_names(tree: ast.Module) -> set[str]:
    out = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
    return out


def _dict_names(tree: ast.Module) -> set[str]:
    """Module-level names bound to a dict (a literal, ``dict(...)``, or annotated ``dict[...]``)."""
    out = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value, ann = node.targets, node.value, None
        elif isinstance(node, ast.AnnAssign):
            targets, value, ann = [node.target], node.value, node.annotation
        else:
            continue
        is_dict = isinstance(value, (ast.Dict, ast.DictComp)) or (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id in ("dict", "OrderedDict")
        ) or (ann is not None and "dict" in ast.unparse(ann).lower())  # fmt: skip
        if is_dict:
            out |= {t.id for t in targets if isinstance(t, ast.Name)}
    return out


def _name_of(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _operator_span(src: _Source, left_end: int, right_start: int, op: str) -> tuple[int, int] | None:
    """Where the operator ``op`` lies between two operands (skipping parentheses, spaces and comments)."""
    text = src.text
    i = left_end
    while i < right_start:
        c = text[i]
        if c == "#":
            while i < right_start and text[i] != "\n":
                i += 1
            continue
        if text.startswith(op, i):
            return i, i + len(op)
        i += 1
    return None


def _raw(src: _Source, tree: ast.Module) -> list[tuple[str, int, int, str, str]]:
    """(operator, start, end, old text, new text) of every candidate, unordered."""
    out: list[tuple[str, int, int, str, str]] = []
    bound = _bound_names(tree)
    dicts = _dict_names(tree)
    keyed: set[int] = set()  # id() of tuples used as keys

    def keyfield(t: ast.Tuple) -> None:
        if id(t) in keyed or len(t.elts) < 2 or any(isinstance(e, ast.Starred) for e in t.elts):
            return
        keyed.add(id(t))
        a, b = src.off(t.elts[0].lineno, t.elts[0].col_offset), src.span(t.elts[-1])[1]
        parts = [src.seg(e) for e in t.elts]
        for i in range(len(parts)):
            rest = parts[:i] + parts[i + 1 :]
            out.append(("keyfield", a, b, src.text[a:b], ", ".join(rest) + ("," if len(rest) == 1 else "")))

    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in PAIRS:
            if PAIRS[node.id] in bound:
                a, b = src.span(node)
                out.append(("name", a, b, node.id, PAIRS[node.id]))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and node.attr in PAIRS:
            b = src.span(node)[1]
            a = b - len(node.attr)
            if src.text[a:b] == node.attr:
                out.append(("name", a, b, node.attr, PAIRS[node.attr]))
        elif isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                if type(op) in _COMPARE:
                    old, new = _COMPARE[type(op)]
                    sp = _operator_span(src, src.span(left)[1], src.span(right)[0], old)
                    if sp is not None:
                        out.append(("compare", sp[0], sp[1], old, new))
                left = right
            if (isinstance(node.left, ast.Tuple) and len(node.ops) == 1 and type(node.ops[0]) in (ast.In, ast.NotIn)
                    and _is_dictish(node.comparators[0], dicts)):  # fmt: skip
                keyfield(node.left)
        elif isinstance(node, ast.BinOp):
            a, b = src.span(node)
            la, lb = src.span(node.left)
            ra, rb = src.span(node.right)
            if isinstance(node.op, _NONCOMMUTATIVE):
                new = (src.text[a:la] + _wrapped(src, node.right) + src.text[lb:ra] + _wrapped(src, node.left)
                       + src.text[rb:b])
                out.append(("operands", a, b, src.text[a:b], new))
            fmt = isinstance(node.left, ast.JoinedStr) or (
                isinstance(node.left, ast.Constant) and isinstance(node.left.value, (str, bytes)))
            if isinstance(node.op, ast.Mod) and not fmt:  # "%s" % x formats
                out.append(("mod", a, b, src.text[a:b], _wrapped(src, node.left)))
        elif isinstance(node, ast.Call):
            args = node.args
            if not any(isinstance(x, ast.Starred) for x in args):
                out += _neighbours(src, args, "args")
            for arg in args:
                if isinstance(arg, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in arg.elts):
                    out += _neighbours(src, arg.elts, "elements")
            if (isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "setdefault", "pop") and args
                    and isinstance(args[0], ast.Tuple)):  # fmt: skip
                keyfield(args[0])
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Tuple):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and ("key" in t.id.lower() or "token" in t.id.lower()) for t in targets):
                keyfield(node.value)
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and _is_dictish(node.value, dicts):
            keyfield(node.slice)
    return out


def _neighbours(src: _Source, nodes: list[ast.expr], op: str) -> list[tuple[str, int, int, str, str]]:
    """``op`` mutants that exchange each two neighbouring ``nodes`` (the text between them kept)."""
    out = []
    for i in range(len(nodes) - 1):
        (a, ae), (bs, b) = src.span(nodes[i]), src.span(nodes[i + 1])
        x, y = src.text[a:ae], src.text[bs:b]
        if x != y:
            out.append((op, a, b, src.text[a:b], y + src.text[ae:bs] + x))
    return out


def _is_dictish(node: ast.AST, dicts: set[str]) -> bool:
    name = _name_of(node)
    return bool(name) and (name in dicts or "cache" in name.lower())


def mutants(source: str, ops: tuple[str, ...] = OPERATORS) -> list[Mutant]:
    """Every swap mutant of ``source`` (operators ``ops``) that compiles, in source order."""
    src = _Source(source)
    tree = ast.parse(source)
    found = dict.fromkeys(r for r in _raw(src, tree) if r[0] in ops and r[3] != r[4])  # deterministic: ast.walk's order
    raw = sorted(found, key=lambda r: (r[1], r[2], r[0]))  # stable: the fields of one key stay in order
    out: list[Mutant] = []
    per_line: dict[int, int] = {}
    for op, a, b, old, new in raw:
        mutated = source[:a] + new + source[b:]
        try:
            compile(mutated, "<mutant>", "exec")
        except SyntaxError:
            continue
        lineno = src.lineno_of(a)
        idx = per_line.get(lineno, 0)
        per_line[lineno] = idx + 1
        out.append(Mutant(op, lineno, idx, src.lines[lineno - 1].strip(), a, b, old, new))
    return out
