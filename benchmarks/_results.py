"""Read the benchmark result files back as records (for ``plots.py`` and the ``--json`` options).

Two formats are read: the fixed-width tables of ``overhead.py`` (``target op n raw µs xb µs ...``; any further
``<name> µs`` columns, such as peers a later version adds, are kept) and the Markdown tables of
``interchange.py`` (``### title`` followed by ``| a | b |`` rows).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

_ROW = re.compile(r"^(?P<target>\S+)\s{2,}(?P<op>\S.*?)\s{2,}(?P<n>\d+)\s+(?P<rest>\S.*)$")


def _num(s: str) -> float | None:
    try:
        return float(s)
    except ValueError:
        return None


def _key(column: str) -> str:
    """``"raw µs"`` -> ``"raw_us"``, ``"added µs"`` -> ``"added_us"``, ``"ratio"`` -> ``"ratio"``."""
    return re.sub(r"\W+", "_", column.replace("µs", "us").strip()).strip("_").lower()


def parse_overhead(text: str) -> list[dict[str, Any]]:
    """Records ``{"target", "op", "n", "raw_us", "xb_us", ...}`` of an ``overhead.py`` table.

    The header line (the one starting with ``target``) names the numeric columns after ``n``; columns are
    separated by two or more spaces in the header. Lines that are not table rows (versions, import times,
    comments) are skipped.
    """
    columns: list[str] = []
    out: list[dict[str, Any]] = []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        if line.split()[:2] == ["target", "op"]:
            after_n = re.split(r"\s{2,}", line.split(" n ", 1)[1].strip()) if " n " in line else []
            columns = [_key(c) for c in after_n]
            continue
        m = _ROW.match(line)
        if not m or not columns:
            continue
        values = m.group("rest").split()
        rec: dict[str, Any] = {"target": m.group("target"), "op": m.group("op").strip(), "n": int(m.group("n"))}
        for col, val in zip(columns, values):
            rec[col] = _num(val)
        out.append(rec)
    return out


def parse_markdown_tables(text: str) -> dict[str, list[dict[str, str]]]:
    """``{section title: [row dicts]}`` for every ``### title`` followed by a Markdown table."""
    tables: dict[str, list[dict[str, str]]] = {}
    title, header = None, None
    for line in text.splitlines():
        if line.startswith("### "):
            title, header = line[4:].strip(), None
            continue
        if title is None or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            tables[title] = []
        elif set("".join(cells)) <= set("-: "):
            continue
        else:
            tables[title].append(dict(zip(header, cells)))
    return tables


_UNITS = {"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}


def size_bytes(s: str) -> int:
    """``"1 KB"`` -> 1024, ``"256 MB"`` -> 268435456."""
    number, unit = s.split()
    return int(float(number) * _UNITS[unit])


def read(path: Path) -> str:
    return Path(path).read_text(encoding="utf-8")
