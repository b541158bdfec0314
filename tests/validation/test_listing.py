"""The one listing of every command's inputs: folder walks, Harbor job folders, --include,
--exclude, .atifignore, and what was skipped."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from atif_spec.validation.listing import IGNORE_FILE, Filters, list_inputs
from atif_spec.validation.reader import UnreadablePath
from tests.support.documents import minimal_atif
from tests.support.harbor import harbor_job


def names(paths: list[Path]) -> list[str]:
    return sorted(str(p) for p in paths)


def test_a_harbor_job_lists_its_trajectories_and_counts_the_rest(tmp_path: Path) -> None:
    """Was: every *.json of the job (config, result, lock, reward, manifest, settings) and the
    Claude Code session were read as documents, and failed."""
    job = harbor_job(tmp_path)
    listing = list_inputs([str(job.root)])
    assert listing.files == names(job.trajectories)
    assert sorted(f for f, _ in listing.skipped) == names(job.others)
    assert {reason for _, reason in listing.skipped} == {"harbor"}
    note = listing.note()
    assert note is not None
    assert note.startswith(f"skipped {len(job.others)} file(s): {len(job.others)} Harbor job")
    assert "config.json 6" in note


def test_a_folder_of_jobs_and_one_trial_folder(tmp_path: Path) -> None:
    first = harbor_job(tmp_path / "jobs", "a")
    second = harbor_job(tmp_path / "jobs", "b")
    listing = list_inputs([str(tmp_path / "jobs")])
    assert listing.files == names(first.trajectories + second.trajectories)
    trial = first.root / "hello-world__Kq9Lm2x"
    inside = [p for p in first.trajectories if trial in p.parents]
    assert len(inside) == 4  # the trajectory and its three summarization subagents
    assert list_inputs([str(trial)]).files == names(inside)


def test_named_files_are_never_skipped(tmp_path: Path) -> None:
    job = harbor_job(tmp_path)
    config = str(job.root / "config.json")
    listing = list_inputs([config, str(job.root)])
    assert listing.files[0] == config and listing.roots[config] == config


def test_exclude_and_include(tmp_path: Path) -> None:
    job = harbor_job(tmp_path)
    excluded = list_inputs([str(job.root)], Filters.parse(exclude=["steps/"]))
    steps = [p for p in job.trajectories if "steps" in p.parts]
    assert len(steps) == 2
    assert excluded.files == names([p for p in job.trajectories if p not in steps])
    under_steps = [p for p in job.trajectories + job.others if "steps" in p.parts]
    assert sorted(f for f, r in excluded.skipped if r == "excluded") == names(under_steps)

    # --include replaces the layout rule: it says which files are documents
    included = list_inputs([str(job.root)], Filters.parse(include=["**/verifier/reward.json"]))
    rewards = [p for p in job.others if p.parts[-2:] == ("verifier", "reward.json")]
    assert included.files == names(rewards)
    assert {r for _, r in included.skipped} == {"not-included"}


def test_ignore_files_apply_below_their_folder(tmp_path: Path) -> None:
    for name in ("a.json", "old/b.json", "keep/c.json", "keep/drafts/d.json", "keep/e.jsonl"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps(minimal_atif("v1.7")))
    (tmp_path / IGNORE_FILE).write_text("# old runs\nold/\n")
    (tmp_path / "keep" / IGNORE_FILE).write_text("drafts\n*.jsonl\n")
    listing = list_inputs([str(tmp_path)])
    assert listing.files == [str(tmp_path / "a.json"), str(tmp_path / "keep/c.json")]
    assert {(Path(f).name, r) for f, r in listing.skipped} == {
        ("b.json", "ignored"),
        ("d.json", "ignored"),
        ("e.jsonl", "ignored"),
    }
    assert "3 matching .atifignore" in (listing.note() or "")
    # the ignore file of a folder above the one walked does not apply
    assert list_inputs([str(tmp_path / "old")]).files == [str(tmp_path / "old/b.json")]


def test_a_bad_ignore_file_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / IGNORE_FILE).write_text("run-[0-9.json\n")
    with pytest.raises(UnreadablePath, match=r"\.atifignore: unclosed"):
        list_inputs([str(tmp_path)])


def test_nothing_left_says_what_was_skipped(tmp_path: Path) -> None:
    job = harbor_job(tmp_path)
    with pytest.raises(UnreadablePath, match=r"no document files in .*not matching --include"):
        list_inputs([str(job.root)], Filters.parse(include=["*.parquet"]))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_an_unreadable_file_of_a_folder_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text("{}")
    path.chmod(0)
    with pytest.raises(UnreadablePath, match="permission denied"):
        list_inputs([str(tmp_path)])


def test_each_trajectory_of_a_job_names_its_trial(tmp_path: Path) -> None:
    job = harbor_job(tmp_path)
    listing = list_inputs([str(job.root)])
    assert set(listing.trials) == set(listing.files)
    for name, trial in listing.trials.items():
        assert Path(name).is_relative_to(trial) and (Path(trial) / "result.json").is_file()
    steps = [t for f, t in listing.trials.items() if "/steps/" in f]
    assert {Path(t).name for t in steps} == {"build-and-test__Pp1Qr4s"}
    # --include picks the files; the layout still says whose they are.
    included = list_inputs([str(job.root)], Filters.parse(include=["**/trajectory.json"]))
    assert set(included.trials) == set(included.files)
    assert list_inputs([str(job.root / "config.json")]).trials == {}  # named: no trial's


def test_a_walk_tells_regular_files_without_a_stat_of_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: a ``stat`` of every file to tell it from a FIFO or a dangling link (issue 35 item
    15: the parent's listing is the serial part of a ``--jobs`` run); the folder entries' types
    tell it, and only links are looked up."""
    for i in range(20):
        (tmp_path / f"t{i:02d}.json").write_text("{}")
    os.mkfifo(tmp_path / "pipe.json")
    (tmp_path / "dangling.json").symlink_to(tmp_path / "gone.json")
    (tmp_path / "link.json").symlink_to(tmp_path / "t00.json")
    stats: list[str] = []
    real = os.stat

    def counted(path: object, *args: object, **kwargs: object) -> os.stat_result:
        stats.append(str(path))
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", counted)
    listing = list_inputs([str(tmp_path)])
    assert listing.files == sorted(
        [str(tmp_path / f"t{i:02d}.json") for i in range(20)] + [str(tmp_path / "link.json")]
    )
    assert not [s for s in stats if s.endswith(".json")]
