"""mutmut 2.x hook (imported by mutmut when tools/ is on sys.path; tools/mutation.py puts it there).

Before each mutant: skip it when it falls outside the module's sample, else point mutmut's test command at
the tests that executed the mutated line (tools/mutation.py's coverage map), or at ``true`` when none did.
A mutant that does not compile (``def jit(fn, *, *, ...)`` in an ``@overload`` stub, whose body no test runs)
is killed by ``false``: every test imports xbackend, so every test would fail on it.
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutation  # noqa: E402
import mutation_ops  # noqa: E402

_SELECTOR: mutation.Selector | None = None


def in_sample(path: str, line: str, index: int, k: int) -> bool:
    """One rule for both families (tools/mutation_ops.py): sha1(seed + "path|line|index") % k == 0."""
    return mutation_ops.in_sample(path, line, index, k, mutation.SEED)


def _compiles(context) -> bool:  # noqa: ANN001
    import mutmut

    probe = mutmut.Context(source=context.source, mutation_id=context.mutation_id, filename=context.filename,
                           dict_synonyms=context.dict_synonyms, config=context.config)  # fmt: skip
    mutated, _ = mutmut.mutate(probe)
    try:
        compile(mutated, context.filename, "exec")
    except SyntaxError:
        return False
    return True


_RAISES: dict[str, list[tuple[int, int]]] = {}


def _in_raise(filename: str, lineno: int) -> bool:
    """Whether line ``lineno`` (1-based) lies inside a ``raise`` statement of ``filename``."""
    if filename not in _RAISES:
        import ast

        with open(filename, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        _RAISES[filename] = [(n.lineno, n.end_lineno or n.lineno) for n in ast.walk(tree) if isinstance(n, ast.Raise)]
    return any(a <= lineno <= b for a, b in _RAISES[filename])


def message_only(context) -> bool:  # noqa: ANN001
    """A string mutant (``"a"`` -> ``"XXaXX"``) of an error message: inside a ``raise`` statement, the mutated line
    equal to the original once its ``XX`` are removed. Modules whose strings are names (kinds, dtype names) have
    string mutations on; their messages are still messages (see MODULES' strings flag), so these are skipped."""
    import mutmut

    probe = mutmut.Context(source=context.source, mutation_id=context.mutation_id, filename=context.filename,
                           dict_synonyms=context.dict_synonyms, config=context.config)  # fmt: skip
    mutated, _ = mutmut.mutate(probe)
    n = context.mutation_id.line_number
    old, new = context.source.split("\n")[n], mutated.split("\n")[n]
    return new != old and new.replace("XX", "") == old.replace("XX", "") and _in_raise(context.filename, n + 1)


def pre_mutation(context) -> None:  # noqa: ANN001
    global _SELECTOR
    mod = os.environ["XB_MUT_MODULE"]
    mid = context.mutation_id
    if not in_sample(context.filename, mid.line, mid.index, mutation.sample(mod, "mutmut")):
        context.skip = True
        return
    if mutation.MODULES[mod][4] and message_only(context):
        context.skip = True
        return
    if not _compiles(context):
        context.config.test_command = "false"
        return
    if _SELECTOR is None:
        _SELECTOR = mutation.Selector(mod)
    ids = _SELECTOR.select(context.filename, mid.line_number + 1)
    if not ids:
        context.config.test_command = "true"
        return
    args_file = os.path.join(mutation.STATE, "mutant.json")
    with open(args_file, "w") as f:
        json.dump(ids, f)
    context.config.test_command = f"{sys.executable} -S {mutation.__file__} client {args_file}"
