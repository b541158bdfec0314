"""The interop report: every peer implementation against the suite, against what atif-spec
writes, and against each other (``nox -s interop``; conformance/INTEROP.md).

    python -m atif_spec.conformance.interop --envs .nox/interop-envs [--peer NAME ...]

For each ``[[peer]]`` of ``conformance/adapters/peers.toml`` (already installed by nox in
``ENVS/<name>``): validators run the suite, consumers read the suite and every document
atif-spec writes (:mod:`~atif_spec.conformance.written`), producers convert the native logs of
``conformance/native`` (:mod:`~atif_spec.conformance.producing`). Every difference must be
explained in ``conformance/known-differences/<name>.toml``, or the file the peer's
``differences`` names (:mod:`~atif_spec.conformance.differences`). Writes
``conformance/interop.json`` (the data the site's interop page shows) and the generated region
of ``conformance/INTEROP.md``; exits 1 on an unexplained difference, a stale explanation, a
document we write that we call invalid, or a peer that does not start.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from atif_spec.conformance import differences, spantrees
from atif_spec.conformance.grading import ERRORED, FAILED, PASSED, SKIPPED, CaseResult
from atif_spec.conformance.lensing import RoundTrip
from atif_spec.conformance.producing import Produced, cross_check, native_inputs, run_producer
from atif_spec.conformance.runner import RunOptions, run_suite
from atif_spec.conformance.suite import load_suite
from atif_spec.conformance.written import Written, write_all
from atif_spec.formats import detect
from atif_spec.jsonio import jsontext
from atif_spec.jsonio.atomic import write_atomic

BEGIN = "<!-- BEGIN GENERATED: interop (nox -s interop) -->"
END = "<!-- END GENERATED: interop -->"
BAD = (FAILED, ERRORED, "invalid")


def _item(peer: str, role: str, kind: str, target: str, item_id: str, outcome: str,
          reason: str | None, detail: list[str]) -> dict[str, Any]:  # fmt: skip
    return {
        "implementation": peer,
        "role": role,
        "kind": kind,
        "target": target,
        "id": item_id,
        "outcome": outcome,
        "reason": reason,
        "detail": detail[:5],
        "group": None,
    }


def _from_case(peer: str, role: str, kind: str, r: CaseResult) -> dict[str, Any]:
    detail = r.mismatches + r.messages
    return _item(peer, role, kind, r.case.suite_target, r.case.id, r.outcome, r.reason, detail)


def _from_produced(p: Produced, writes: str) -> dict[str, Any]:
    item_id = f"produce:{p.input}"
    return _item(p.producer, "producer", "native", writes, item_id, p.outcome, p.reason, p.findings)


def _from_lens(p: Produced, r: RoundTrip) -> dict[str, Any]:
    outcome = {"passed": PASSED, "refused": SKIPPED}.get(r.outcome, FAILED)
    item_id = f"lens:{p.input}>{r.target}"
    return _item(p.producer, "producer", "lens", r.target, item_id, outcome, r.detail, [])


def run_peer(
    peer: dict[str, Any], python: Path, root: Path, suite: list[Any], written: list[Written],
    inputs: list[tuple[str, Path]],
) -> tuple[dict[str, Any], list[dict[str, Any]], list[Produced]]:  # fmt: skip
    """Run one peer in every role it claims; returns its start answer, items and products."""
    command = [str(python), str(root / "conformance" / "adapters" / peer["adapter"])]
    name = peer["name"]
    items: list[dict[str, Any]] = []
    run = run_suite(suite, command, RunOptions(timeout=60.0, start_timeout=120.0))
    caps = run.capabilities
    if caps is None:
        return {"started": False, "error": run.start_error}, items, []
    role = "validator" if "validator" in caps.roles else "consumer"
    items += [_from_case(name, role, "suite", r) for r in run.results]
    if "consumer" in caps.roles:
        readable = [w.case for w in written if not w.invalid]
        reads = run_suite(readable, command, RunOptions(timeout=60.0, mode="read"))
        items += [_from_case(name, "consumer", "written", r) for r in reads.results]
    info: dict[str, Any] = {"started": True, "start": caps.raw}
    if peer.get("span_trees"):
        compared = spantrees.compare_results(run.results)
        for case, view, detail in compared.rows:
            outcome = PASSED if detail is None else FAILED
            item_id = f"otel:{case}:{view}"
            items.append(_item(name, "consumer", "span-tree", spantrees.TARGET, item_id, outcome,
                               detail, []))  # fmt: skip
        info["span_trees"] = compared.summary()
    products: list[Produced] = []
    if "producer" in caps.roles:
        _, products = run_producer(name, command, inputs, root / "conformance" / "native")
        writes = ", ".join(caps.raw.get("writes", []))
        items += [_from_produced(p, writes) for p in products]
        items += [_from_lens(p, r) for p in products for r in p.lenses]
    return info, items, products


def _shape(pointer: str) -> str:
    return re.sub(r"/\d+(?=/|$)", "/*", pointer)


def _format(document: Any) -> str | None:
    """The format a produced document is in (``atif``, ``tao``, ...), None when none is."""
    found = detect(document)
    return found[0] if found is not None else None


def cross_checks(products: list[Produced], root: Path) -> list[dict[str, Any]]:
    """The same native log through every pair of producers, compared field by field (the
    repository's path, which producers copy into notes, shown as ``<repo>``)."""
    by_input: dict[str, list[Produced]] = {}
    for p in products:
        if p.documents:
            by_input.setdefault(p.input, []).append(p)
    out = []
    for log, made in sorted(by_input.items()):
        for a, b in itertools.combinations(made, 2):
            if _format(a.documents[0]) != _format(b.documents[0]):
                continue  # an ATIF trajectory and a TAO record share no pointers
            diffs = cross_check(a.documents[0], b.documents[0])
            fields = Counter(_shape(d[0]) for d in diffs)
            example = {
                _shape(d[0]): orjson.loads(
                    jsontext.dumps([d[1], d[2]]).decode().replace(str(root), "<repo>")
                )
                for d in reversed(diffs)
            }
            out.append(
                {
                    "input": log,
                    "producers": [a.producer, b.producer],
                    "differing_leaves": len(diffs),
                    "fields": [
                        {"field": f, "count": n, "example": example[f]}
                        for f, n in sorted(fields.items())
                    ],
                }
            )
    return out


def produced(products: list[Produced], items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per native log through one producer: outcome, parser, steps, explanation."""
    group = {(it["implementation"], it["id"]): it["group"] for it in items}
    return [
        {
            "producer": p.producer,
            "input": p.input,
            "outcome": p.outcome,
            "parser": "; ".join(p.messages) or None,
            "steps": [len(d.get("steps") or []) for d in p.documents if isinstance(d, dict)],
            "reason": p.reason,
            "warnings": dict(sorted(Counter(w.split()[0] for w in p.warnings).items())),
            "lenses": {r.target: r.outcome for r in p.lenses},
            "group": group.get((p.producer, f"produce:{p.input}")),
        }
        for p in products
    ]


def matrix(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Counts per implementation, target, role and kind (rows where something ran)."""
    rows: dict[tuple[str, str, str, str], Counter[str]] = {}
    for it in items:
        key = (it["implementation"], it["target"], it["role"], it["kind"])
        outcome = it["outcome"]
        if outcome in BAD and it["group"]:
            outcome = "explained"
        rows.setdefault(key, Counter())[outcome] += 1
    return [
        {"implementation": k[0], "target": k[1], "role": k[2], "kind": k[3], **dict(c)}
        for k, c in rows.items()
        if sum(c.values()) > c["skipped"]
    ]


def _cell(text: str) -> str:
    """``text`` as one Markdown table cell: on one line (a traceback's lines joined), ``|``
    escaped."""
    return " ".join(text.split()).replace("|", "\\|")


COLUMNS = ("passed", "failed", "errored", "explained", "informational", "invalid", "valid",
           "skipped")  # fmt: skip


def render_markdown(data: dict[str, Any]) -> str:
    """The generated region of INTEROP.md."""
    out = [BEGIN, ""]
    out.append("### Implementations\n")
    out.append("| Implementation | Package | Roles | Reads / validates | Started |")
    out.append("|---|---|---|---|---|")
    for name, peer in data["peers"].items():
        start = peer.get("start") or {}
        roles = ", ".join(start.get("roles", [])) or "-"
        claims = ", ".join(start.get("reads", start.get("formats", []))) or "-"
        if start.get("sources"):
            claims += f"; converts {', '.join(start['sources'])} → {', '.join(start['writes'])}"
        ok = "yes" if peer["started"] else f"no: {peer.get('error')}"
        out.append(f"| {name} | `{peer['package']}` | {roles} | {claims} | {ok} |")
    out.append("\n### Not run\n")
    out.append("| Package | Roles | Why |")
    out.append("|---|---|---|")
    for x in data["listed"]:
        out.append(f"| `{x['package']}` | {x['roles']} | {x['reason']} |")
    out.append("\n### Matrix\n")
    out.append(
        "Suite = the conformance cases; written = documents atif-spec writes (each valid case "
        "migrated and converted to every target it reaches); native = native logs through a "
        "producer, its outputs validated by atif-spec. *Explained* = a difference listed in "
        "`known-differences/<implementation>.toml` (or the file the peer shares).\n"
    )
    out.append("| Implementation | Target | Role | Items | " + " | ".join(COLUMNS) + " |")
    out.append("|---|---|---|---|" + "---|" * len(COLUMNS))
    for row in data["matrix"]:
        cells = " | ".join(str(row.get(c, 0) or "") for c in COLUMNS)
        out.append(
            f"| {row['implementation']} | {row['target']} | {row['role']} | {row['kind']} | "
            f"{cells} |"
        )
    out.append("\n### Explained differences\n")
    out.append("| Implementation | Group | Side | RFC | Items | Where |")
    out.append("|---|---|---|---|---|---|")
    for g in data["groups"]:
        where = f"`{g['source']}`" if g["source"] else f"`{g['fixture']}`"
        out.append(
            f"| {g['implementation']} | [{g['name']}](known-differences/{g['file']}) | "
            f"{g['side']} | {g['rfc']} | {g['items']} | {where} |"
        )
    out.append("\n### Producers on native logs\n")
    out.append(
        "*Lenses*: each valid document to every other format atif-spec writes and back, "
        "the same JSON value (RFC.md §4.6) and valid (`lens:` items; a refusal by design is "
        "not counted).\n"
    )
    out.append(
        "| Producer | Native log | Outcome | Parser | Steps | Warnings | Lenses | Explained by |"
    )
    out.append("|---|---|---|---|---|---|---|---|")
    for r in data.get("produced", []):
        outcome = r["outcome"] if not r["reason"] else f"{r['outcome']}: {_cell(r['reason'])}"
        steps = ", ".join(map(str, r["steps"])) or "-"
        lenses = r.get("lenses") or {}
        passed = sum(1 for v in lenses.values() if v == "passed")
        bad = [t for t, v in lenses.items() if v == "failed"]
        lens = f"{passed}/{len(lenses)}" + (f" ({', '.join(bad)} failed)" if bad else "")
        warned = ", ".join(f"{c} ({n})" for c, n in (r.get("warnings") or {}).items())
        out.append(
            f"| {r['producer']} | `{r['input']}` | {outcome} | {r['parser'] or '-'} | {steps} | "
            f"{warned or '-'} | {lens if lenses else '-'} | {r['group'] or '-'} |"
        )
    out.append("\n### Cross-checks (the same native log through two producers)\n")
    for c in data["cross_checks"]:
        a, b = c["producers"]
        out.append(f"- `{c['input']}`, {a} vs {b}: {c['differing_leaves']} differing leaves")
        for f in c["fields"][:12]:
            ex = jsontext.dumps(f["example"]).decode()[:100]
            out.append(f"  - `{f['field']}` ({f['count']}): `{ex}`")
    out += spantrees.render(data)
    written = data["written"]
    out.append(
        f"\n### What atif-spec writes\n\n{written['documents']} documents written from "
        f"{written['sources']} valid cases ({written['refused']} conversions refused by design); "
        f"{len(written['invalid'])} rejected by atif-spec itself."
    )
    for w in written["invalid"][:20]:
        out.append(f"- `{w}`")
    problems = data["problems"]
    out.append("\n### Result\n")
    out.append("PASS" if not problems else "FAIL:")
    out.extend(f"- {p}" for p in problems[:50])
    out.append("")
    out.append(END)
    return "\n".join(out)


def _peers(root: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = tomllib.loads(
        (root / "conformance" / "adapters" / "peers.toml").read_text(encoding="utf-8")
    )
    return loaded


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--envs", type=Path, required=True, help="folder of the peers' venvs")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository")
    parser.add_argument("--out", type=Path, default=None, help="work folder (written docs)")
    parser.add_argument("--peer", action="append", default=[], help="run only these peers")
    args = parser.parse_args(argv)
    began = time.monotonic()
    root: Path = args.root.resolve()
    out: Path = (args.out or root / ".nox" / "interop-work").resolve()
    conf = _peers(root)
    suite = load_suite(root / "conformance")
    written, refused = write_all(suite, out / "written")
    print(f"interop: {len(written)} documents written ({refused} refused)", file=sys.stderr)
    inputs = native_inputs(root / "conformance" / "native")
    peers: dict[str, Any] = {}
    items: list[dict[str, Any]] = []
    products: list[Produced] = []
    problems = [f"atif-spec rejects what it wrote: {w.case.id}" for w in written if w.invalid]
    groups_out: list[dict[str, Any]] = []
    for peer in conf["peer"]:
        name = peer["name"]
        if args.peer and name not in args.peer:
            continue
        python = args.envs / name / "bin" / "python"
        t0 = time.monotonic()
        info, got, made = run_peer(peer, python.absolute(), root, suite, written, inputs)
        took = time.monotonic() - t0
        print(f"interop: {name}: {len(got)} items in {took:.1f} s", file=sys.stderr)
        kd_file = peer.get("differences", f"{name}.toml")
        peers[name] = {"package": peer["package"], "differences": kd_file, **info}
        if not info["started"]:
            problems.append(f"{name} did not start: {info.get('error')}")
        kd_path = root / "conformance" / "known-differences" / kd_file
        groups = differences.load(kd_path, root, peer=name)
        differing = [it["id"] for it in got if it["outcome"] in BAD]
        by_item, unexplained, stale = differences.explain(groups, differing)
        counts = Counter(by_item.values())
        for it in got:
            it["group"] = by_item.get(it["id"])
        problems += [f"{name}: unexplained difference {i}" for i in unexplained]
        problems += [f"{name}: stale explanation {g}" for g in stale]
        groups_out += [
            {
                "implementation": name,
                "file": kd_file,
                "name": g.name,
                "side": g.side,
                "rfc": g.rfc,
                "fixture": g.fixture,
                "source": g.source,
                "items": counts[g.name],
            }
            for g in groups
        ]
        items += got
        products += made
    data = {
        "peers": peers,
        "listed": conf.get("listed", []),
        "matrix": matrix(items),
        "groups": groups_out,
        "produced": produced(products, items),
        "cross_checks": cross_checks(products, root),
        "written": {
            "documents": len(written),
            "sources": len({w.source for w in written}),
            "refused": refused,
            "invalid": [f"{w.case.id}: {'; '.join(w.invalid)}" for w in written if w.invalid],
        },
        "problems": problems,
        "items": [it for it in items if it["outcome"] in BAD],
    }
    write_atomic(
        root / "conformance" / "interop.json",
        jsontext.dumps(data, indent=True, sort_keys=True) + b"\n",
    )
    doc = root / "conformance" / "INTEROP.md"
    text = doc.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    write_atomic(doc, (text[:start] + render_markdown(data) + text[end:]).encode())
    for p in problems:
        print(f"interop: {p}", file=sys.stderr)
    verdict = "FAIL" if problems else "PASS"
    print(f"interop: {verdict} ({len(peers)} implementations, {len(problems)} problems) "
          f"in {time.monotonic() - began:.1f} s")  # fmt: skip
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
