"""Every string pattern of spec/ and the inputs that test it across regex dialects.

A pattern node is the schema object holding a ``pattern`` (with its ``not`` line-break guard, if
any). For each node: matching examples built from the pattern itself, the same examples with a
line break or carriage return around them (where Python's ``$`` differs from ECMA-262's and
Rust's), and worst-case inputs for backtracking engines: long runs of one or two characters of
the pattern's alphabet followed by a character that makes the match fail late.
"""

from __future__ import annotations

import glob
import json
import re
import re._constants as sre_c
import re._parser as sre_parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support import ROOT

SUFFIXES = ("!", "~", "\n", "\x00", " ", "/")
"""Characters appended to a long run so that the match fails at the very end."""

EXTRA_ALPHABET = "aA0/~-.:@>Tz "


@dataclass(frozen=True)
class PatternNode:
    """One ``pattern`` of a published schema, with its ``not`` guard (``None`` if none)."""

    pattern: str
    guard: str | None
    locations: tuple[str, ...] = field(compare=False)

    @property
    def schema(self) -> dict[str, Any]:
        """The node as a standalone schema (strings only)."""
        node: dict[str, Any] = {"type": "string", "pattern": self.pattern}
        if self.guard is not None:
            node["not"] = {"type": "string", "pattern": self.guard}
        return node

    def python_accepts(self, text: str) -> bool:
        """The verdict of a JSON Schema validator built on Python ``re`` (``re.search``)."""
        if re.search(self.pattern, text) is None:
            return False
        return self.guard is None or re.search(self.guard, text) is None


def pattern_nodes() -> list[PatternNode]:
    """Every distinct pattern node under spec/ (``patternProperties`` keys included)."""
    found: dict[tuple[str, str | None], list[str]] = {}

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            pattern = node.get("pattern")
            if isinstance(pattern, str):
                guard = node.get("not", {}).get("pattern") if "not" in node else None
                found.setdefault((pattern, guard), []).append(where)
            for key in node.get("patternProperties", {}) if isinstance(node, dict) else ():
                found.setdefault((key, None), []).append(where + "/patternProperties")
            for key, value in node.items():
                if key != "not":
                    walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}/{i}")

    for path in sorted(glob.glob(str(ROOT / "spec" / "**" / "*.schema.json"), recursive=True)):
        schema = json.loads(Path(path).read_text(encoding="utf-8"))
        walk(schema, f"{schema['$id']}#")
    return [PatternNode(p, g, tuple(w)) for (p, g), w in found.items()]


def _sample(items: Any, repeat: int) -> str:
    """A string matching the parsed regex ``items`` (each repetition taken ``repeat`` times,
    within its bounds; the first branch of an alternation; a fitting member of a class)."""
    out: list[str] = []
    for op, arg in items:
        if op is sre_c.LITERAL:
            out.append(chr(arg))
        elif op is sre_c.NOT_LITERAL:
            out.append("a" if chr(arg) != "a" else "b")
        elif op is sre_c.ANY:
            out.append("a")
        elif op is sre_c.IN:
            out.append(_member(arg))
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            low, high, sub = arg
            times = max(low, min(repeat, high))
            out.append("".join(_sample(sub, repeat) for _ in range(times)))
        elif op is sre_c.SUBPATTERN:
            out.append(_sample(arg[-1], repeat))
        elif op is sre_c.BRANCH:
            out.append(_sample(arg[1][0], repeat))
        elif op is sre_c.AT:
            continue
        else:
            raise ValueError(f"no sample for regex operator {op}")
    return "".join(out)


def _member(items: list[tuple[Any, Any]]) -> str:
    negate = any(op is sre_c.NEGATE for op, _ in items)
    if not negate:
        op, arg = items[0]
        if op is sre_c.LITERAL:
            return chr(arg)
        if op is sre_c.RANGE:
            return chr(arg[0])
        raise ValueError(f"no member for class item {op}")
    for candidate in "aZ5_ ":
        if not re.fullmatch(_rebuild_class(items), candidate):
            continue
        return candidate
    raise ValueError("no member for a negated class")


def _rebuild_class(items: list[tuple[Any, Any]]) -> str:
    parts = []
    for op, arg in items:
        if op is sre_c.NEGATE:
            parts.insert(0, "^")
        elif op is sre_c.LITERAL:
            parts.append(re.escape(chr(arg)))
        elif op is sre_c.RANGE:
            parts.append(f"{re.escape(chr(arg[0]))}-{re.escape(chr(arg[1]))}")
    return "[" + "".join(parts) + "]"


def examples(pattern: str) -> list[str]:
    """Strings that match ``pattern`` (built from its structure, deterministic)."""
    parsed = sre_parse.parse(pattern)
    return sorted({_sample(parsed, repeat) for repeat in (1, 2, 3)})


def dialect_cases(pattern: str) -> list[str]:
    """Inputs where regex dialects may disagree: examples with a line break or a carriage
    return before, after or inside them, and a lone line break."""
    out = {"", "\n", "\r\n"}
    for text in examples(pattern):
        out.update({text, text + "\n", "\n" + text, text + "\r", text + "\r\n"})
        out.add(text[: len(text) // 2] + "\n" + text[len(text) // 2 :])
    return sorted(out)


def alphabet(pattern: str) -> list[str]:
    """Characters that the pattern names, plus a few common ones."""
    literal = {c for c in pattern if c.isprintable() and c not in "^$()[]{}*+?|\\"}
    return sorted(literal | set(EXTRA_ALPHABET))


Input = tuple[str, str, int, str]
"""A compact input: ``(prefix, unit, count, suffix)`` stands for prefix + unit * count + suffix
(long inputs cross process boundaries in this form)."""


def expand(item: Input) -> str:
    """The string an :data:`Input` stands for."""
    prefix, unit, count, suffix = item
    return prefix + unit * count + suffix


def worst_cases(pattern: str, long: int = 20_000, short: int = 2_000) -> list[Input]:
    """Inputs that make backtracking engines work hardest, each failing (or matching) only at
    its very end: long runs of one character of the pattern's alphabet and of two alternating
    ones; every prefix of an example followed by a long run of the example's next character;
    the pattern's own structure with every repetition taken many times. Each is followed by
    every character of :data:`SUFFIXES`."""
    chars = alphabet(pattern)
    bases: list[tuple[str, str, int]] = []
    for a in chars:
        bases.append(("", a, long))
        bases.extend(("", a + b, short) for b in chars if a < b)
    for text in examples(pattern):
        bases.extend((text[:k], text[k], short) for k in range(len(text)))
    parsed = sre_parse.parse(pattern)
    for repeat in (1000, 100, 30):
        big = _sample(parsed, repeat)
        if len(big) <= 4 * long:
            bases.append((big, "", 0))
            break
    return sorted({(p, u, n, s) for p, u, n in bases for s in SUFFIXES})
