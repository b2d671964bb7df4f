"""The results of tools/mutation.py: the table, the committed report, equivalent mutants, survivors' diffs.

Two families of mutants per module: mutmut's (its cache, ``.mutmut-cache``) and the swap mutants of
``tools/mutation_ops.py`` (``.mutation/swaps-<module>.json``, tools/mutation_swaps.py). Each row states how its
figure was made, from what the run recorded (``.mutation/meta-<module>.json``): how many mutants of how many were
tested, the sample rule and its seed, and the hypothesis examples per test (the profile's ``max_examples``).
"""

from __future__ import annotations

import json
import os

import mutation
from mutation import EQUIVALENTS, MODULES, ROOT, STATE, TABLE, _paths


def _equivalents() -> dict[tuple[str, int | str, str], str]:
    """(path, index, stripped line) -> reason; a swap mutant's index is ``swap-<n>`` (its index on the line)."""
    out: dict[tuple[str, int | str, str], str] = {}
    if os.path.exists(EQUIVALENTS):
        with open(EQUIVALENTS) as f:
            for raw in f:
                if not raw.strip() or raw.startswith("#"):
                    continue
                path, index, line, reason = raw.rstrip("\n").split("\t")
                out[(path, int(index) if index.isdigit() else index, line.strip())] = reason
    return out


def _statuses(mod: str) -> list[tuple[int, str, int, int, str, str]]:
    """(mutant id, path, line number, index, status, source line) from mutmut's cache."""
    import sqlite3

    if not os.path.exists(os.path.join(ROOT, ".mutmut-cache")):
        return []
    db = sqlite3.connect(os.path.join(ROOT, ".mutmut-cache"))
    rows = []
    for path in _paths(mod):
        rows += db.execute(
            "SELECT m.id, s.filename, l.line_number, m.\"index\", m.status, l.line FROM Mutant m "
            "JOIN Line l ON m.line = l.id JOIN SourceFile s ON l.sourcefile = s.id WHERE s.filename = ?", (path,)
        ).fetchall()
    return rows


def swap_results(mod: str) -> list[dict]:
    path = os.path.join(STATE, f"swaps-{mod}.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json.load(f)["mutants"]


def meta(mod: str) -> dict:
    path = os.path.join(STATE, f"meta-{mod}.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def _how(m: dict, total: int, tested: int) -> tuple[str, str]:
    """The 'sampled' and 'examples/test' cells of a row."""
    k = m.get("k")
    rule = "all" if k == 1 else (f"1 in ~{k}, seed {m.get('seed', '')!r}" if k else "sample not recorded")
    cap = f", {m['cap_s']:g} s" if "cap_s" in m else ""
    ex = f"{m['max_examples']} ({m['profile']}){cap}" if m.get("profile") else "not recorded"
    return f"{tested} of {total} ({rule})", ex


def _row(name: str, family: str, total: int, killed: int, timeout: int, survived: int, n_eq: int, m: dict) -> str:
    tested = killed + timeout + survived
    rate = 100.0 * (survived - n_eq) / max(1, tested - n_eq)
    sampled, ex = _how(m, total, tested)
    return (f"{name:<38} {family:<6} {total:>7} {tested:>6} {killed:>6} {timeout:>7} {survived:>8} {n_eq:>5} "
            f"{rate:>12.1f}%  {sampled:<30} {ex:<22} {m.get('date', '?')}")  # fmt: skip


def table(mods: list[str]) -> str:
    eq = _equivalents()
    head = (f"{'module':<38} {'family':<6} {'mutants':>7} {'tested':>6} {'killed':>6} {'timeout':>7} {'survived':>8} "
            f"{'equiv':>5} {'non-eq surv %':>13}  {'sampled (tested of all, rule)':<30} {'examples/test, cap':<22} run")
    out = [head, "-" * len(head)]
    for mod in mods:
        info = meta(mod)
        rows = _statuses(mod)
        if rows:
            st = [r[4] for r in rows]
            killed = st.count("ok_killed") + st.count("ok_suspicious")
            survived = [r for r in rows if r[4] == "bad_survived"]
            n_eq = sum((r[1], r[3], r[5].strip()) in eq for r in survived)
            m = info.get("mutmut", {"k": MODULES[mod][3]})
            timeout = st.count("bad_timeout")
            out.append(_row(MODULES[mod][0], "mutmut", len(rows), killed, timeout, len(survived), n_eq, m))
        swaps = swap_results(mod)
        if swaps:
            st = [r["status"] for r in swaps]
            surv = [r for r in swaps if r["status"] == "survived"]
            n_eq = sum((r["path"], f"swap-{r['index']}", r["line"]) in eq for r in surv)
            name = MODULES[mod][0] if not rows else ""
            out.append(_row(name, "swaps", len(swaps), st.count("killed"), st.count("timeout"), len(surv), n_eq,
                            info.get("swaps", {})))  # fmt: skip
    return "\n".join(out)


def _module_of(path: str) -> str | None:
    """The MODULES name whose file or folder holds ``path``."""
    for mod, (mpath, *_rest) in MODULES.items():
        if path == mpath or path.startswith(mpath.rstrip("/") + "/"):
            return mod
    return None


def committed(text: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The rows and the equivalent-mutant entries of a committed report, by module: what ``report`` keeps of the
    modules not run in this copy (each row states its own sample, examples, cap and date)."""
    lines = text.splitlines()
    rows: dict[str, list[str]] = {}
    eqs: dict[str, list[str]] = {}
    try:
        start = next(i for i, ln in enumerate(lines) if ln.startswith("module ")) + 2
    except StopIteration:
        return rows, eqs
    mod = None
    i = start
    while i < len(lines) and lines[i].strip():
        if not lines[i].startswith(" "):
            mod = _module_of(lines[i].split()[0])
        if mod is not None:
            rows.setdefault(mod, []).append(lines[i])
        i += 1
    mod = None
    for ln in lines[i:]:
        if ln.startswith("  ") and not ln.startswith("      "):
            mod = _module_of(ln.split()[0].rsplit(":", 1)[0])
        elif not ln.startswith("      "):
            mod = None
        if mod is not None:
            eqs.setdefault(mod, []).append(ln)
    return rows, eqs


def report() -> None:
    """benchmarks/results/mutation.txt: the table, how it was made, and the equivalent mutants with their reasons.
    Modules not run in this copy keep their rows and equivalents from the committed report (:func:`committed`),
    so copies that ran different modules side by side add up to one table."""
    import platform

    here = [m for m in MODULES if _statuses(m) or swap_results(m)]
    kept_rows, kept_eqs = ({}, {})
    if os.path.exists(TABLE):
        with open(TABLE) as f:
            kept_rows, kept_eqs = committed(f.read())
    mods = [m for m in MODULES if m in here or m in kept_rows]
    lines = [
        "Mutation testing of xbackend's core modules (tools/mutation.py; docs/contributing.md, \"Mutation testing\").",
        f"mutmut 2.5.1 and tools/mutation_ops.py, {platform.machine()} with {os.cpu_count()} cores shared with other "
        "jobs; each mutant ran the tests that executed its line (coverage map; a line run at import, or by two "
        "tests at most: the module's own test files too), fastest first, one per test function first, up to the row's "
        "cap of measured test time "
        "(XB_MUT_CAP_S).",
        "family: mutmut = mutmut's one-token mutants; swaps = tools/mutation_ops.py's (a paired name cos<->sin, "
        "exp<->expm1, min<->max, any<->all, ...; < <-> <=, > <-> >=; swapped operands of -, /, //, %, **, <<, >>, @; "
        "swapped neighbouring call arguments; swapped neighbouring elements of a list/tuple argument; a dropped "
        "modulo; a dropped field of a tuple used as a dict/cache key).",
        "mutants: all the family makes of the module; sampled: tested of all, and the rule (sha1(seed + "
        "'path|line|index') % k == 0; the rest are not run); killed: a test failed; timeout: the tests ran past "
        "10x their measured time; equiv: survivors that change nothing observable (listed below); non-eq surv % = "
        "(survived - equiv) / (tested - equiv); examples/test: hypothesis max_examples of the profile the run used "
        "(derandomised; a test with its own @settings(max_examples=...) keeps its own), and the cap of measured test "
        "seconds per mutant; run: the date of the run. Equivalent mutants whose reason says 'on a CPU-only machine' "
        "change something only where a second device or route exists (a GPU): no test here can see them.",
        "String mutations (\"a\" -> \"XXaXX\") are on where a module's strings are names with a meaning (_assign, "
        "_args, _coerce, _rules, _dtypes, _devices) and off where they are messages; in the former, a string mutant "
        "of a raise statement's message is skipped too (rows run from 2026-12-06 04:20 on).",
        "Rows of modules not run in the copy that wrote this file are kept from the report it replaced; each row "
        "states its own sample, examples per test, cap and run date.",
        "",
        table(here).splitlines()[0],
        table(here).splitlines()[1],
        *[ln for m in mods for ln in (table([m]).splitlines()[2:] if m in here else kept_rows[m])],
        "",
        "Equivalent mutants (tools/mutation_equivalents.txt): file:line, the mutated line, why nothing observable "
        "changes",
    ]
    eq = _equivalents()
    for mod in mods:
        if mod not in here:
            lines += kept_eqs.get(mod, [])
            continue
        for _mid, path, lineno, index, status, line in sorted(_statuses(mod), key=lambda r: (r[1], r[2], r[3])):
            reason = eq.get((path, index, line.strip()))
            if status == "bad_survived" and reason:
                lines.append(f"  {path}:{lineno + 1} (mutant {index} of the line) {line.strip()}")
                lines.append(f"      {reason}")
        for r in swap_results(mod):
            reason = eq.get((r["path"], f"swap-{r['index']}", r["line"]))
            if r["status"] == "survived" and reason:
                lines.append(f"  {r['path']}:{r['lineno']} (swap mutant {r['index']} of the line, {r['op']}: "
                             f"{r['old']!r} -> {r['new']!r}) {r['line']}")  # fmt: skip
                lines.append(f"      {reason}")
    os.makedirs(os.path.dirname(TABLE), exist_ok=True)
    with open(TABLE, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def mark(mid: int, reason: str) -> None:
    import sqlite3

    db = sqlite3.connect(os.path.join(ROOT, ".mutmut-cache"))
    path, index, line = db.execute(
        "SELECT s.filename, m.\"index\", l.line FROM Mutant m JOIN Line l ON m.line = l.id "
        "JOIN SourceFile s ON l.sourcefile = s.id WHERE m.id = ?", (mid,)).fetchone()
    _append(path, str(index), line, reason)


def mark_swap(mod: str, n: int, reason: str) -> None:
    """Record swap mutant ``n`` (its number in ``survivors``' listing) of ``mod`` as equivalent."""
    r = swap_results(mod)[n]
    _append(r["path"], f"swap-{r['index']}", r["line"], reason)


def _append(path: str, index: str, line: str, reason: str) -> None:
    assert reason and "\t" not in reason
    with open(EQUIVALENTS, "a") as f:
        f.write(f"{path}\t{index}\t{line.strip()}\t{reason}\n")


def survivors(mod: str, show_equivalent: bool = False) -> None:
    """Print each survivor's diff. Never ``mutmut show`` while a run is going: it re-reads the file being mutated
    and rewrites mutmut's line table from it (the run then fails with "Attribute Mutant.line is required")."""
    import difflib

    eq = _equivalents()
    rows = sorted(_statuses(mod), key=lambda r: (r[1], r[2], r[3]))
    if rows:
        from mutmut import Context, RelativeMutationID, mutate

    for mid, path, lineno, index, status, line in rows:
        if status != "bad_survived" or ((path, index, line.strip()) in eq and not show_equivalent):
            continue
        src_path = os.path.join(ROOT, path)
        with open(src_path + ".bak" if os.path.exists(src_path + ".bak") else src_path) as f:
            source = f.read()  # the pristine source (mutmut keeps it as .bak while a mutant is on disk)
        ctx = Context(source=source, mutation_id=RelativeMutationID(line, index, lineno), filename=path)
        mutated, _ = mutate(ctx)
        diff = difflib.unified_diff(source.splitlines(), mutated.splitlines(), lineterm="", n=0)
        body = [d for d in diff if d[:1] in "+-" and not d.startswith(("+++", "---"))]
        print(f"#{mid} {path}:{lineno + 1} index {index}")
        for d in body:
            print("   ", d)
    for n, r in enumerate(swap_results(mod)):
        if r["status"] != "survived" or ((r["path"], f"swap-{r['index']}", r["line"]) in eq and not show_equivalent):
            continue
        ran = f"{len(r['tests'])} tests" if r["tests"] else "no test executes the line"
        print(f"swap {n} ({mod}) {r['path']}:{r['lineno']} {r['op']}: {r['old']!r} -> {r['new']!r}  [{ran}]")
