"""One definition of printable text for every human-readable output (render and the CLI)."""

from __future__ import annotations

import pytest

from atif_spec.cli import terminal
from atif_spec.jsonio.textsafety import escape, has_unsafe
from atif_spec.stepsubstep.render import escape as render_escape


@pytest.mark.parametrize(
    ("char", "written"),
    [
        ("\x1b", "\\x1b"),
        ("\r", "\\r"),
        ("\x9b", "\\x9b"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
        ("\u202e", "\\u202e"),
        ("\u2067", "\\u2067"),
        ("\u200f", "\\u200f"),
        ("\u00ad", "\\xad"),
        ("\u200b", "\\u200b"),
        ("\ufeff", "\\ufeff"),
    ],
)
def test_render_and_the_cli_escape_the_same_characters(char: str, written: str) -> None:
    text = f"a{char}b"
    assert has_unsafe(text)
    assert terminal.clean(text) == render_escape(text) == f"a{written}b"


def test_ordinary_text_tabs_newlines_and_emoji_sequences() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # joined by zero-width joiners
    for text in ("plain ascii \\ backslash", "caf\u00e9 \u4e2d\u6587", family):
        assert escape(text) == text and not has_unsafe(text)
    assert render_escape("a\tb\nc") == "a\tb\\nc"
    assert render_escape("a\nb", keep_newlines=True) == "a\nb"
    assert terminal.clean("a\tb\nc") == "a\\tb\\nc"
    assert terminal.name("x\u2028y.json") == "'x\\u2028y.json'"
