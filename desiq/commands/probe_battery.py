"""The shortcut battery of ``desiq probe``: ``--probe heuristics`` on its own, and the battery beside a trained
probe, judged with the probe's rows as one family (``desiq.probe_verdicts.judge_rows``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from mmsoc.core.cli import note
from mmsoc.core.provenance import append_record, record

if TYPE_CHECKING:
    from desiq.formats.mcqa_fields import Mapping
    from desiq.probe_table import Version
    from desiq.probes.heuristics import HeuristicReport
    from desiq.records import MCQAItem


@dataclass(frozen=True)
class ProbeFiles:
    """Where ``desiq probe`` reads its questions: the options as given on the command line."""

    data: Path | None
    split: str | None
    train: Path | None
    eval_file: Path | None
    mapping: Mapping | None
    format: str


@dataclass(frozen=True)
class Judging:
    """How a probe table's rows are judged, and the other versions of the eval file they are compared on."""

    seed: int
    min_clusters: int
    min_effect: float
    compare: list[Path]
    mapping: Mapping | None
    format: str

    def versions(self, eval_items: list[MCQAItem]) -> list[Version]:
        """The ``--compare`` files, read as the eval file is, their questions matched to its questions."""
        from desiq.formats import read_note, read_source
        from desiq.probe_table import Version
        from desiq.probe_verdicts import match_names
        from desiq.records import option_count
        from mmsoc.core.io import UsageError

        out: list[Version] = []
        for path in self.compare:
            if any(version.name == str(path) for version in out):
                raise UsageError(f"--compare {path} is given twice")
            reading = read_source(path, self.mapping, format=self.format)
            note(read_note(reading))
            items = reading.items
            if any(not item.labelled for item in items):
                raise UsageError(f"--compare {path}: questions without an answer key cannot be scored")
            if option_count(items) != option_count(eval_items):
                raise UsageError(
                    f"--compare {path}: {option_count(items)} options per question, the eval file "
                    f"{option_count(eval_items)}: a probe needs one count"
                )
            names = match_names(eval_items, items)
            note(f"--compare {path}: {len(names)} of {len(items)} questions matched to the eval file")
            out.append(Version(str(path), items, names))
        return out

    def judged(self, rows: Sequence[Any]) -> list[Any]:
        """``rows`` judged as one family (``desiq.probe_verdicts.judge_rows``)."""
        from desiq.probe_verdicts import judge_rows

        return judge_rows(rows, self.seed, self.min_clusters, self.min_effect)


def shortcut_battery(
    train: list[MCQAItem],
    eval_items: list[MCQAItem],
    names: tuple[str, str],
    inputs: str,
    debiased: bool,
    judging: Judging,
    versions: Sequence[Version] = (),
) -> HeuristicReport:
    """The shortcut battery beside a trained probe: the rules its inputs show, on the same eval questions,
    perturbations, rebuilds and compared versions, a learnt rule fitted on the same training file. Its rows
    are not judged yet: ``judge_together`` judges them with the probe's."""
    from desiq.probe_table import DEBIASED
    from desiq.probes.heuristics import run_heuristics

    variants = DEBIASED if debiased else ()
    return run_heuristics(eval_items, judging.seed, names[1], True, variants, train, inputs, names[0], versions)


def judge_together(probe_rows: list[Any], battery: HeuristicReport, judging: Judging) -> list[Any]:
    """The probe's rows and the battery's judged as one family; the battery's rows are set on ``battery``, the
    probe's returned."""
    judged = judging.judged([*probe_rows, *battery.results])
    battery.results = judged[len(probe_rows) :]
    return judged[: len(probe_rows)]


def heuristics_only(out: Path, files: ProbeFiles, inputs: str, judging: Judging, per_item: bool) -> None:
    """``--probe heuristics``: score the shortcut battery on one file, no training (``position_prior`` learnt
    from ``--train`` when given, else cross-fitted by video)."""
    from desiq.formats import read_note, read_source
    from desiq.inputs import InputSetting
    from desiq.probes.heuristics import heuristics_markdown, not_run, run_heuristics, write_heuristics
    from mmsoc.core.io import UsageError

    if InputSetting.parse(inputs).media:
        raise UsageError(
            f"--inputs {inputs}: the shortcuts read text only (the question and the options); "
            "give --inputs a or q+a with --probe heuristics"
        )
    train_items, train_name = None, None
    if files.train is not None:
        reading = read_source(files.train, files.mapping, format=files.format)
        train_items, train_name = reading.items, str(files.train)
        note(read_note(reading))
    items, name = _eval_items(files)
    for rule, why in not_run(inputs).items():
        note(f"note: {rule} is not run ({why}); --inputs q+a shows it")
    seed = judging.seed
    report = run_heuristics(
        items, seed, name, train=train_items, inputs=inputs, train_name=train_name, versions=judging.versions(items)
    )
    report.results = judging.judged(report.results)
    write_heuristics(report, out)
    append_record(out, record())
    if per_item:
        from desiq.per_item import per_item_outputs

        per_item_outputs(out, items, None, "heuristics", seed=seed)
    typer.echo(heuristics_markdown(report))
    note(f"wrote {out / 'probe.json'}, {out / 'probe.md'}")


def _eval_items(files: ProbeFiles) -> tuple[list[MCQAItem], str]:
    """The questions ``--probe heuristics`` scores: ``--eval``, ``--data`` or the bundled sample."""
    from desiq.data import qa_data
    from desiq.formats import read_note, read_source
    from desiq.sample import sample_items
    from mmsoc.core.io import UsageError

    if files.data is not None and files.eval_file is not None:
        raise UsageError("give --data (a Social-IQ folder or QA file) or --eval, not both")
    if files.split is not None and files.data is None:
        raise UsageError("--split picks the evaluation file of a Social-IQ folder given as --data")
    if files.eval_file is not None:
        reading = read_source(files.eval_file, files.mapping, format=files.format)
        note(read_note(reading))
        return reading.items, str(files.eval_file)
    if files.data is not None:
        default = "val" if files.data.is_dir() else None
        source = qa_data(files.data, files.split, default, mapping=files.mapping, format=files.format)
        reading = source.reading()
        note(read_note(reading))
        return reading.items, str(source.qa)
    return sample_items("val"), "sample val"
