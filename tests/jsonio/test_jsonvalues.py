"""Reading parsed JSON of any shape: the helpers of ``jsonio.jsonvalues``."""

from __future__ import annotations

from atif_spec.jsonio.jsonvalues import lone_surrogates, plain_text


def test_lone_surrogates_in_document_order_with_printable_pointers() -> None:
    doc = {"a": ["ok", "x\ud800"], "b\udc00": {"c": "\udfff", "d": "é"}, "e": 1}
    assert list(lone_surrogates(doc)) == [
        ("/a/1", "string", "\ud800"),
        ("/b\\udc00", "key", "\udc00"),
        ("/b\\udc00/c", "string", "\udfff"),
    ]


def test_lone_surrogates_ignores_paired_ones_and_goes_any_depth() -> None:
    deep: object = "\ud83d\ude00".encode("utf-16", "surrogatepass").decode("utf-16")  # 😀
    for _ in range(5000):
        deep = [deep]
    assert list(lone_surrogates(deep)) == []
    assert list(lone_surrogates(["\ud83d"])) == [("/0", "string", "\ud83d")]


def test_plain_text_joins_text_parts() -> None:
    parts = [
        {"type": "text", "text": "a"},
        {"type": "image", "source": {"media_type": "image/png", "path": "x.png"}},
        {"type": "text", "text": "b"},
    ]
    assert plain_text(parts) == "a\nb"
    assert plain_text("as is") == "as is"
