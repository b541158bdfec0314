"""Writes conformance/atof/v0.1 with nvidia-nat-atif 1.9.0's own models and writer.

The valid streams are nat's ``write_jsonl`` output; the invalid and warning ones are those lines
edited (nat's models refuse to build them). Run in an environment with ``nvidia-nat-atif``:
``python conformance/adapters/atof_fixtures.py conformance/atof/v0.1`` writes the files;
``--check`` (``nox -s atof``) writes them to a temporary folder and fails if any differs.
The manifest is kept by hand.
"""

import filecmp
import json
import sys
import tempfile
from pathlib import Path

from nat.atof import MarkEvent, ScopeEvent, write_jsonl
from nat.atof.io import _reorder_for_wire

T0 = 1767225600_000000  # 2026-01-01T00:00:00Z in microseconds


def iso(sec):
    return f"2026-01-01T00:00:{sec:02d}Z"


def scope(phase, category, uuid, t, name, parent=None, **kw):
    return ScopeEvent(
        scope_category=phase,
        category=category,
        uuid=uuid,
        parent_uuid=parent,
        timestamp=t,
        name=name,
        **kw,
    )


def tool_agent():
    sysmsg = {"role": "system", "content": "You are a helpful weather assistant."}
    user = {"role": "user", "content": "What is the weather in Paris?"}
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    return [
        scope(
            "start",
            "agent",
            "agent-1",
            iso(0),
            "weather_agent",
            data={"query": "What is the weather in Paris?"},
            metadata={"session_id": "sess-1", "version": "2.0.0"},
        ),
        scope(
            "start",
            "llm",
            "llm-1",
            iso(1),
            "gpt-4o",
            "agent-1",
            category_profile={"model_name": "gpt-4o"},
            data={"messages": [sysmsg, user]},
        ),
        scope(
            "end",
            "llm",
            "llm-1",
            iso(2),
            "gpt-4o",
            "agent-1",
            category_profile={"model_name": "gpt-4o"},
            data={
                "choices": [
                    {"message": {"role": "assistant", "content": "", "tool_calls": [call]}}
                ],
                "usage": {"prompt_tokens": 40, "completion_tokens": 12},
            },
        ),
        scope(
            "start",
            "tool",
            "tool-1",
            iso(3),
            "get_weather",
            "agent-1",
            category_profile={"tool_call_id": "call_1"},
            data={"city": "Paris"},
            attributes=["remote"],
        ),
        scope(
            "end",
            "tool",
            "tool-1",
            iso(4),
            "get_weather",
            "agent-1",
            category_profile={"tool_call_id": "call_1"},
            data={"result": "18 C, cloudy"},
            attributes=["remote"],
        ),
        scope(
            "start",
            "llm",
            "llm-2",
            iso(5),
            "gpt-4o",
            "agent-1",
            category_profile={"model_name": "gpt-4o"},
            data={
                "messages": [
                    sysmsg,
                    user,
                    {"role": "assistant", "content": "", "tool_calls": [call]},
                    {"role": "tool", "tool_call_id": "call_1", "content": "18 C, cloudy"},
                ]
            },
        ),
        scope(
            "end",
            "llm",
            "llm-2",
            iso(6),
            "gpt-4o",
            "agent-1",
            category_profile={"model_name": "gpt-4o"},
            data={
                "choices": [
                    {"message": {"role": "assistant", "content": "It is 18 C and cloudy in Paris."}}
                ],
                "usage": {"prompt_tokens": 70, "completion_tokens": 9},
            },
        ),
        scope(
            "end",
            "agent",
            "agent-1",
            iso(7),
            "weather_agent",
            data={"result": "It is 18 C and cloudy in Paris."},
            metadata={"session_id": "sess-1", "version": "2.0.0"},
        ),
    ]


def two_tools():
    user = {"role": "user", "content": "Compare Paris and Rome."}
    calls = [
        {
            "id": f"call_{c}",
            "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": c})},
        }
        for c in ("paris", "rome")
    ]
    ev = [
        scope("start", "agent", "a", T0, "compare_agent", data={"query": user["content"]}),
        scope(
            "start",
            "llm",
            "l1",
            T0 + 1000,
            "claude",
            "a",
            category_profile={"model_name": "claude-sonnet"},
            data={"messages": [user]},
            attributes=["streaming"],
        ),
        scope(
            "end",
            "llm",
            "l1",
            T0 + 2000,
            "claude",
            "a",
            category_profile={"model_name": "claude-sonnet"},
            data={
                "content": "Let me look both up.",
                "tool_calls": [
                    {"id": c["id"], "name": "get_weather", "arguments": c["function"]["arguments"]}
                    for c in calls
                ],
            },
            attributes=["streaming"],
        ),
    ]
    for i, c in enumerate(("paris", "rome")):
        ev.append(
            scope(
                "start",
                "tool",
                f"t{i}",
                T0 + 3000 + i,
                "get_weather",
                "a",
                category_profile={"tool_call_id": f"call_{c}"},
                data={"city": c},
                attributes=["parallel", "remote"],
            )
        )
    for i, (c, r) in enumerate((("paris", "18 C"), ("rome", "24 C"))):
        ev.append(
            scope(
                "end",
                "tool",
                f"t{i}",
                T0 + 4000 + i,
                "get_weather",
                "a",
                category_profile={"tool_call_id": f"call_{c}"},
                data={"result": r},
                attributes=["parallel", "remote"],
            )
        )
    ev += [
        MarkEvent(
            uuid="m1",
            parent_uuid="a",
            timestamp=T0 + 4500,
            name="checkpoint",
            data={"note": "both results in"},
        ),
        scope(
            "start",
            "llm",
            "l2",
            T0 + 5000,
            "claude",
            "a",
            category_profile={"model_name": "claude-sonnet"},
            data={"messages": [user, {"role": "user", "content": "Answer in one line."}]},
            attributes=["streaming"],
        ),
        scope(
            "end",
            "llm",
            "l2",
            T0 + 6000,
            "claude",
            "a",
            category_profile={"model_name": "claude-sonnet"},
            data={"content": "Rome is warmer (24 C vs 18 C)."},
            attributes=["streaming"],
        ),
        scope(
            "end",
            "agent",
            "a",
            T0 + 7000,
            "compare_agent",
            data={"result": "Rome is warmer (24 C vs 18 C)."},
        ),
    ]
    return ev


def opaque_function():
    return [
        scope("start", "function", "f1", iso(0), "summarize", data="Summarize the report"),
        MarkEvent(
            uuid="m1",
            parent_uuid="f1",
            timestamp=iso(1),
            name="user_turn",
            data={"role": "user", "content": "Keep it short."},
        ),
        MarkEvent(
            uuid="m2",
            parent_uuid="f1",
            timestamp=iso(1),
            name="budget",
            category="custom",
            category_profile={"subtype": "acme.budget"},
        ),
        scope(
            "start",
            "custom",
            "c1",
            iso(2),
            "cache_lookup",
            "f1",
            category_profile={"subtype": "acme.cache"},
            data={"key": "report"},
            attributes=["acme.warm", "relocatable"],
        ),
        scope(
            "end",
            "custom",
            "c1",
            iso(3),
            "cache_lookup",
            "f1",
            category_profile={"subtype": "acme.cache"},
            data={"hit": False},
            attributes=["acme.warm", "relocatable"],
        ),
        scope("start", "retriever", "r1", iso(4), "search", "f1", data={"q": "report"}),
        scope("end", "retriever", "r1", iso(5), "search", "f1", data={"docs": ["a", "b"]}),
        scope("end", "function", "f1", iso(6), "summarize", data={"summary": "Short summary."}),
    ]


def minimal():
    return [MarkEvent(uuid="0190-mark", timestamp=iso(0), name="started")]


_OUT: list[Path] = []


def build(OUT: Path) -> None:
    _OUT[:] = [OUT]
    FIXTURES = {
        "valid/tool-calling-agent.jsonl": tool_agent(),
        "valid/parallel-tools-int-timestamps.jsonl": two_tools(),
        "valid/opaque-function-with-marks.jsonl": opaque_function(),
        "valid/single-mark.jsonl": minimal(),
    }
    for rel, events in FIXTURES.items():
        write_jsonl(events, OUT / rel)

    # invalid and warning fixtures: the valid stream's lines, edited (nat's writer refuses them)
    def wire(events):
        return [
            _reorder_for_wire(e.model_dump(exclude={"ts_micros"}, mode="json", by_alias=True))
            for e in events
        ]

    def write(rel, lines):
        (OUT / rel).write_text(
            "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
        )

    base = wire(tool_agent())

    def edit(fn):
        lines = json.loads(json.dumps(base))
        fn(lines)
        return lines

    write("invalid/missing-uuid.jsonl", edit(lambda L: L[1].pop("uuid")))
    write("invalid/end-without-start.jsonl", edit(lambda L: L.pop(3)))
    write("invalid/repeated-start.jsonl", edit(lambda L: L.insert(2, dict(L[1]))))
    write(
        "invalid/end-before-start.jsonl",
        edit(lambda L: L[4].update(timestamp="2026-01-01T00:00:02Z")),
    )
    write("invalid/unknown-atof-version.jsonl", edit(lambda L: L[0].update(atof_version="0.2")))
    write(
        "invalid/custom-without-subtype.jsonl",
        edit(
            lambda L: (
                L[3].update(category="custom", category_profile={"tool_call_id": "call_1"}),
                L[4].update(category="custom", category_profile={"tool_call_id": "call_1"}),
            )
        ),
    )
    write(
        "invalid/mark-with-scope-category.jsonl",
        edit(
            lambda L: L.insert(
                5,
                {
                    **wire(
                        [
                            MarkEvent(
                                uuid="m",
                                parent_uuid="agent-1",
                                timestamp="2026-01-01T00:00:04Z",
                                name="m",
                            )
                        ]
                    )[0],
                    "scope_category": "start",
                },
            )
        ),
    )
    write(
        "invalid/timestamp-without-offset.jsonl",
        edit(lambda L: L[2].update(timestamp="2026-01-01T00:00:02")),
    )
    write("invalid/unknown-kind.jsonl", edit(lambda L: L[5].update(kind="span")))
    write("warning/unclosed-scope.jsonl", edit(lambda L: L.pop()))
    write(
        "warning/unknown-parent.jsonl",
        edit(lambda L: (L[3].update(parent_uuid="agent-9"), L[4].update(parent_uuid="agent-9"))),
    )
    write(
        "warning/outside-parent-scope.jsonl",
        edit(
            lambda L: L.append(
                {
                    **wire(
                        [
                            MarkEvent(
                                uuid="late",
                                parent_uuid="agent-1",
                                timestamp="2026-01-01T00:00:09Z",
                                name="late_mark",
                            )
                        ]
                    )[0]
                }
            )
        ),
    )
    write(
        "warning/attributes-not-canonical.jsonl",
        edit(
            lambda L: (
                L[3].update(attributes=["remote", "parallel"]),
                L[4].update(attributes=["remote", "parallel"]),
            )
        ),
    )
    write(
        "warning/end-disagrees-with-start.jsonl", edit(lambda L: L[4].update(name="weather_lookup"))
    )
    write(
        "warning/category-outside-vocabulary.jsonl",
        edit(lambda L: (L[3].update(category="context"), L[4].update(category="context"))),
    )

    def minimal_mark():
        return {
            "kind": "mark",
            "uuid": "0190-mark",
            "timestamp": "2026-01-01T00:00:00Z",
            "name": "started",
        }

    (OUT / "valid/single-mark.jsonl").write_text(json.dumps(minimal_mark()) + "\n")
    write("invalid/event-without-kind.jsonl", edit(lambda L: L[1].pop("kind")))
    write(
        "invalid/mark-missing-required.jsonl",
        edit(lambda L: L.insert(5, {"kind": "mark", "parent_uuid": "agent-1", "data": None})),
    )
    write(
        "invalid/scope-missing-required.jsonl",
        edit(lambda L: [L[3].pop(k) for k in ("category", "name", "scope_category", "timestamp")]),
    )
    write(
        "invalid/custom-without-profile.jsonl",
        edit(
            lambda L: [
                (L[i].update(category="custom"), L[i].pop("category_profile")) for i in (3, 4)
            ]
        ),
    )
    write(
        "invalid/custom-mark-without-subtype.jsonl",
        edit(
            lambda L: (
                L.insert(
                    5,
                    {
                        **wire(
                            [
                                MarkEvent(
                                    uuid="m1",
                                    parent_uuid="agent-1",
                                    timestamp="2026-01-01T00:00:04Z",
                                    name="m",
                                )
                            ]
                        )[0],
                        "category": "custom",
                        "category_profile": {"note": "x"},
                    },
                ),
                L.insert(
                    6,
                    {
                        k: v
                        for k, v in wire(
                            [
                                MarkEvent(
                                    uuid="m2",
                                    parent_uuid="agent-1",
                                    timestamp="2026-01-01T00:00:04Z",
                                    name="m",
                                )
                            ]
                        )[0].items()
                        if k != "category_profile"
                    }
                    | {"category": "custom"},
                ),
            )
        ),
    )


def main(argv: list[str]) -> int:
    check = "--check" in argv
    target = Path(next(a for a in argv if a != "--check"))
    if not check:
        build(target)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for category in ("valid", "invalid", "warning"):
            (Path(tmp) / category).mkdir()
        build(Path(tmp))
        written = sorted(p.relative_to(tmp) for p in Path(tmp).glob("*/*.jsonl"))
        kept = sorted(p.relative_to(target) for p in target.glob("*/*.jsonl"))
        differ = [
            str(p) for p in written if not filecmp.cmp(Path(tmp) / p, target / p, shallow=False)
        ]
    if written != kept or differ:
        print(f"fixtures differ from nat's: {differ or sorted(set(written) ^ set(kept))}")
        return 1
    print(f"{len(written)} ATOF fixtures are as nvidia-nat-atif writes them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
