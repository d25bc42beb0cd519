"""``mmsoc arena``: pairwise battles of responses, judged by people on a local web page or by a model,
rated with FastChat's Elo and Bradley-Terry formulas."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Optional

import typer

from mmsoc.commands import options
from mmsoc.core.cli import commands, note
from mmsoc.core.options import BatchSize, Device, Progress, Seed, option

app = commands()
arena_app = typer.Typer(
    help="Arena ratings: battles from eval runs, votes from people or a judge model, "
    "Elo and Bradley-Terry ratings with bootstrap intervals.",
    no_args_is_help=True,
)
app.add_typer(arena_app, name="arena")


def _split(value: str | None) -> list[str] | None:
    return None if value is None else [part.strip() for part in value.split(",") if part.strip()]


@arena_app.command("pair")
def pair(
    runs: list[Path] = option(..., "--runs", help="An eval run folder; repeat for each model (--runs A --runs B ...)."),
    out: Path = option(..., "--out", help="Battles file to write (JSONL)."),
    names: Optional[str] = option(
        None, "--names", help="Comma-separated model names for the runs, in order (default: each run's model)."
    ),
    task: Optional[str] = option(
        None, "--task", help="Comma-separated task ids (default: the free-text tasks the runs share)."
    ),
    per_pair: Optional[int] = option(
        None,
        "--per-pair",
        min=1,
        help="Battles per pair of models, a seeded sample of the shared items (default: every shared item).",
    ),
    seed: Seed = 0,
) -> None:
    """Build battles from eval runs over the same items: every pair of models, A/B sides drawn by seed."""
    from mmsoc.arena.pairing import load_run, make_battles
    from mmsoc.arena.records import write_battles
    from mmsoc.core.io import UsageError
    from mmsoc.core.names import given_name

    labels = None if names is None else [given_name(label, "--names name") for label in _split(names) or []]
    if labels is not None and len(labels) != len(runs):
        raise UsageError(f"--names gives {len(labels)} names for {len(runs)} runs")
    loaded = [load_run(path, labels[k] if labels else None) for k, path in enumerate(runs)]
    battles, notes = make_battles(loaded, seed=seed, per_pair=per_pair, tasks=_split(task))
    for line in notes:
        note(f"note: {line}")
    write_battles(out, battles)
    note(f"wrote {out} ({len(battles)} battles, {len(loaded)} models)")


@arena_app.command("invite")
def invite(
    db: Path = option(..., "--db", help="Vote database (SQLite) of 'mmsoc arena serve'; created if missing."),
    names: list[str] = option(..., "--name", help="Annotator to invite; repeat for each (--name A --name B)."),
    url: str = option(
        "http://127.0.0.1:8000", "--url", help="Address annotators open the vote page at (printed in the links)."
    ),
) -> None:
    """Invite annotators: print one secret link per name (stdout); only its sha256 is stored.

    Names are NFKC-normalised and must differ when case-folded (Alice and alice are one name)."""
    from mmsoc.arena.store import VoteStore

    tokens = VoteStore(db).invite(names)
    for name, token in tokens.items():
        typer.echo(f"{name}\t{url.rstrip('/')}/join/{token}")
    note(f"invited {len(tokens)} annotators in {db}; each link is that annotator's only way in: send it privately")


@arena_app.command("serve")
def serve(
    battles: Path = option(..., "--battles", help="Battles file (JSONL) to put to annotators."),
    db: Path = option(..., "--db", help="Vote database (SQLite); created if missing, resumed if not."),
    host: str = option("127.0.0.1", "--host", help="Address to listen on (default: this machine only)."),
    port: int = option(8000, "--port", min=1, max=65535, help="Port to listen on."),
    hostnames: list[str] = option(
        [],
        "--hostname",
        help="Another name annotators reach this server by (repeatable); requests naming any other Host "
        "than these, the --host address or localhost are refused.",
    ),
) -> None:
    """Serve the vote page to the annotators invited with 'mmsoc arena invite', one battle at a time."""
    import secrets

    from mmsoc.arena.media import check_media
    from mmsoc.arena.records import read_battles
    from mmsoc.arena.store import VoteStore
    from mmsoc.arena.web import LOOPBACK, Access

    loaded = read_battles(battles)
    check_media(loaded, battles)
    store = VoteStore(db)
    new = store.add_battles(loaded, battles)
    with_votes = sum(1 for battle in loaded if battle.votes)
    if with_votes:
        note(f"note: the votes already in {battles} ({with_votes} battles) are not imported; the page records its own")
    invited = len(store.annotators())
    if not invited:
        note(f"warning: nobody is invited yet: mmsoc arena invite --db {db} --name NAME (works while serving)")
    if host not in LOOPBACK:
        note(f"warning: listening on {host} over plain http: invite links and votes cross the network unencrypted")
    access = Access.of(host, port, hostnames, admin_token=secrets.token_urlsafe(24))
    where = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    note(f"{new} new battles stored in {db} ({store.count()} in all, {invited} invited); {where} (Ctrl-C stops)")
    note(f"progress with annotator names: {where}/progress?admin={access.admin_token}")
    import uvicorn

    from mmsoc.arena.web import create_app

    uvicorn.run(create_app(store, access), host=host, port=port, log_level="warning")


@arena_app.command("export")
def export(
    db: Path = option(..., "--db", help="Vote database written by 'mmsoc arena serve'."),
    out: Path = option(..., "--out", help="Votes file to write (the battles with their votes, JSONL)."),
) -> None:
    """Write every battle with its votes (in the order cast) as a votes file."""
    from mmsoc.arena.records import write_battles
    from mmsoc.arena.store import VoteStore

    battles = VoteStore(db, create=False).export()
    write_battles(out, battles)
    note(f"wrote {out} ({len(battles)} battles, {sum(len(b.votes) for b in battles)} votes)")


@arena_app.command("judge")
def judge(
    model: options.Model,
    battles: Path = option(..., "--battles", help="Battles file (JSONL) to judge."),
    out: Path = option(..., "--out", help="Votes file to write: the battles the judge voted on, one vote each."),
    run_dir: Optional[Path] = option(
        None,
        "--run-dir",
        help="Run folder of the judge's answers (default: "
        "OUT without .jsonl, plus .run). Rerunning the same command resumes it.",
    ),
    prompt_version: Optional[str] = option(
        None, "--prompt", help="Judge prompt version (default: the latest; see `mmsoc list prompts`)."
    ),
    name: Optional[str] = option(None, "--name", help="Annotator name of the judge's votes (default: judge:MODEL)."),
    limit: Optional[int] = option(None, "--limit", min=0, help="Judge only the first N battles."),
    batch_size: BatchSize = 8,
    max_new_tokens: int = option(512, "--max-new-tokens", min=1, help="Most tokens per answer."),
    dtype: options.WeightsDtype = "auto",
    device: Device = "auto",
    progress: Progress = True,
) -> None:
    """Ask a model to judge every battle in both orders; write its votes (disagreeing orders vote tie)."""
    from mmsoc.arena.judge import default_run_dir, judge_battles
    from mmsoc.arena.judge_prompts import judge_prompt
    from mmsoc.arena.pairing import model_name
    from mmsoc.arena.records import read_battles, write_battles
    from mmsoc.core.names import given_name
    from mmsoc.core.runfolder import RunFolder
    from mmsoc.models.base import GenerationSettings
    from mmsoc.models.registry import ModelOptions, make_model, modalities

    prompt = judge_prompt(prompt_version)
    todo = read_battles(battles)[:limit]
    reads = modalities(model)
    settings = GenerationSettings(greedy=True, max_new_tokens=max_new_tokens)
    config = {
        "command": "arena judge",
        "model": model,
        "prompt_version": prompt.version,
        "greedy": True,
        "max_new_tokens": max_new_tokens,
        "dtype": dtype,
        "modalities": sorted(reads),
    }
    folder = RunFolder(run_dir or default_run_dir(out), key_fields=("battle", "order", "digest"))
    annotator = given_name(name or f"judge:{model_name({'model': model})}", "--name")
    build = functools.partial(make_model, model, ModelOptions(dtype=dtype, device=device))
    outcome = judge_battles(
        todo, folder, config, prompt, build, settings, annotator, reads, batch_size=batch_size, progress=progress
    )
    write_battles(out, outcome.votes)
    s = outcome.summary
    note(
        f"wrote {out} ({s['voted']} of {s['battles']} battles voted; {s['unparseable']} unparseable answers, "
        f"listed in {folder.path / 'problems.jsonl'}; orders agreed on {_pct(s['order_consistency'])})"
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


@arena_app.command("rate")
def rate(
    votes: Path = option(..., "--votes", help="Votes file (battles with votes, JSONL)."),
    out: Path = option(..., "--out", help="Folder for ratings.json, analysis.json, leaderboard.md and report.html."),
    bootstrap: int = option(
        100, "--bootstrap", min=1, help="Bootstrap rounds for the intervals (FastChat's default: 100)."
    ),
    seed: Seed = 0,
    min_annotators: int = option(
        3,
        "--min-annotators",
        min=1,
        help="Votes a battle needs to be rated (SocialArena: 3; a judge's votes file has 1).",
    ),
    judges: list[Path] = option(
        [], "--judge", help="A judge's votes file to compare with the majority labels of --votes (repeatable)."
    ),
) -> None:
    """Majority labels, online Elo and Bradley-Terry ratings with bootstrap intervals, agreement and bias checks."""
    from mmsoc.arena.report import RateSettings
    from mmsoc.arena.report import rate as rate_votes
    from mmsoc.runners.console import print_whole

    result, extra = rate_votes(votes, out, RateSettings(bootstrap, seed, min_annotators), judges)
    rows = [
        (
            str(e["rank"]),
            e["model"],
            f"{e['rating']:.1f}",
            f"[{e['lower']:.1f}, {e['upper']:.1f}]",
            f"{result['elo'][e['model']]:.1f}",
            str(e["battles"]),
        )
        for e in result["models"]
    ]
    headers = ("rank", "model", "rating", "95% interval", "online Elo", "battles")
    print_whole(headers, rows, title="Bradley-Terry ratings (FastChat's formulas)", names=1)
    for warning in extra["warnings"]:
        note(f"warning: {warning}")
    note(
        f"wrote {out / 'ratings.json'}, analysis.json, leaderboard.md and report.html ({result['dropped']} "
        "battles dropped)"
    )
