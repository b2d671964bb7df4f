"""docs/design.md's map of the layers against the real import graph: the list of rooms in "The layers" names every
room of the package once, from the top floor down, and every import points to a room named further down.

A room (see tests/test_import_graph.py) is a file of ``xbackend/`` or a folder counted as one; the map names it as
``name.py``, ``name/`` or ``xbackend/__init__.py`` (the package itself) at the start of a line of the ``text``
block, several rooms on one line separated by ", ", then two spaces and what the room holds. Lines that start with
a space continue the previous description.
"""

from __future__ import annotations

import pathlib
import re

import pytest

from test_import_graph import import_graph, rooms

DESIGN = pathlib.Path(__file__).resolve().parent.parent / "docs" / "design.md"


def map_rooms(text: str) -> list[str]:
    """The rooms named by the ``text`` block of the section "The layers", in reading order (module names)."""
    section = text.split("\n## The layers\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block, "docs/design.md's section 'The layers' has no ```text block"
    out = []
    for line in block.group(1).splitlines():
        if not line.strip() or line[0] == " ":
            continue
        names = re.split(r" {2,}", line, maxsplit=1)[0]
        for token in names.split(", "):
            token = token.strip()
            if token == "xbackend/__init__.py":
                out.append("xbackend")
            elif re.fullmatch(r"\w+\.py", token):
                out.append("xbackend." + token[:-3])
            elif re.fullmatch(r"\w+/", token):
                out.append("xbackend." + token[:-1])
            else:
                raise AssertionError(f"docs/design.md's layers: {token!r} on line {line!r} is not a room (name.py, "
                                     "name/ or xbackend/__init__.py)")  # fmt: skip
    return out


def drift(listed: list[str], graph: dict[str, set[str]]) -> list[str]:
    """What is wrong with the map ``listed`` for the room graph ``graph``: rooms named twice, rooms missing,
    rooms that do not exist, imports that point up (to a room named earlier, or on the same place)."""
    problems = []
    seen: dict[str, int] = {}
    for i, r in enumerate(listed):
        if r in seen:
            problems.append(f"{r} is named twice")
        seen.setdefault(r, i)
    problems += [f"{r} is missing from the map" for r in sorted(set(graph) - set(seen))]
    problems += [f"{r} is on the map but not in xbackend/" for r in sorted(set(seen) - set(graph))]
    for a in sorted(graph):
        for b in sorted(graph[a]):
            if a in seen and b in seen and seen[b] <= seen[a]:
                problems.append(f"{a} imports {b}, which the map puts above it")
    return problems


def test_the_map_of_the_layers_is_the_import_graph():
    listed = map_rooms(DESIGN.read_text(encoding="utf-8"))
    assert "xbackend._backends" in listed and "xbackend" in listed
    problems = drift(listed, rooms(import_graph()))
    assert not problems, "docs/design.md's layers and the code disagree:\n" + "\n".join(problems)


@pytest.mark.parametrize("plant, expected", [
    (lambda ls: ls[:-1], "xbackend._errors is missing from the map"),
    (lambda ls: ls + ["xbackend._gone"], "xbackend._gone is on the map but not in xbackend/"),
    (lambda ls: ls + ["xbackend._array"], "xbackend._array is named twice"),
    (lambda ls: [ls[-1]] + ls[:-1], "xbackend._array imports xbackend._errors, which the map puts above it"),
])  # fmt: skip
def test_a_planted_drift_is_found(plant, expected):
    listed = map_rooms(DESIGN.read_text(encoding="utf-8"))
    assert listed[-1] == "xbackend._errors"
    assert expected in drift(plant(listed), rooms(import_graph()))


def test_the_parser_reads_lines_and_continuations():
    text = ("intro\n## The layers\n\n```text\nxbackend/__init__.py    top\n_a.py, _b/   two rooms\n"
            "                        _c.py is only mentioned here\n```\n## Next\n")  # fmt: skip
    assert map_rooms(text) == ["xbackend", "xbackend._a", "xbackend._b"]
    with pytest.raises(AssertionError, match="is not a room"):
        map_rooms(text.replace("_a.py, _b/", "_a.py, the b"))
