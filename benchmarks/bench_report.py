"""The table and ratios bench_harness.py prints (medians over rounds, CPU and wall time side by side)."""

from __future__ import annotations

import os
import statistics
from collections import defaultdict
from typing import Any

NAMES = {"cpu": "CPU", "wall": "wall"}
TARGETS = {"whole": ">= 3", "per_item": ">= 20", "overhead": "<= 1.15", "startup": "<= 0.6"}


class Report:
    def __init__(
        self, items: int, batch_size: int, max_new_tokens: int, threads: int, rounds: int, model: str, device: str
    ):
        self.items, self.batch_size, self.max_new_tokens = items, batch_size, max_new_tokens
        self.threads, self.rounds, self.model, self.device = threads, rounds, model, device
        self.primary = "cpu" if device == "cpu" else "wall"
        """The figure each ratio leads with: on a GPU, CPU time leaves out the accelerator's work."""
        self.runs: dict[tuple[str, int], list[Any]] = defaultdict(list)
        self.inproc: dict[str, list[list[list[float]]]] = defaultdict(list)
        self.api_runs: list[tuple[int, Any, float]] = []
        self.pairs: dict[str, list[Any]] = defaultdict(list)

    def add(self, tool: str, limit: int, run: Any) -> None:
        self.runs[tool, limit].append(run)

    def in_process(self, tool: str, timings: list[list[float]]) -> None:
        """[cpu, wall] of a one-item and an N-item evaluation run one after the other in one process."""
        self.inproc[tool].append(timings)

    def startup_pair(self, tool: str, run: Any) -> None:
        """One more one-item run of ``tool``, taken in turn with the other tools' (pair k = k-th of each)."""
        self.pairs[tool].append(run)

    def api(self, concurrency: int, run: Any, server_cpu: float) -> None:
        self.api_runs.append((concurrency, run, server_cpu))

    def _median(self, tool: str, limit: int, field: str) -> float:
        return statistics.median(getattr(run, field) for run in self.runs[tool, limit])

    def per_item(self, tool: str, field: str) -> float:
        """Seconds per item with start-up removed: (N-item run - one-item run) / (N - 1), both run in one
        process after its imports and a warm-up run (so start-up variance does not drown small per-item costs)."""
        k = 0 if field == "cpu" else 1
        return statistics.median((whole[k] - one[k]) / (self.items - 1) for one, whole in self.inproc[tool])

    def print(self, outputs: dict[str, dict[str, str]], load_start, load_end, notes: list[str]) -> None:
        n = self.items
        tools = list(dict.fromkeys(tool for tool, _ in self.runs))
        print(
            f"{os.cpu_count()} CPUs; load average (1, 5, 15 min) {_load(load_start)} at the start, "
            f"{_load(load_end)} at the end"
        )
        print(
            f"{self.model}, {n} Hateful-Memes-format items, greedy, {self.max_new_tokens} new tokens, "
            f"{self.threads} torch thread(s) per process, {self.device}; medians of {self.rounds} round(s)"
        )
        print(f"{'':22s}{'one item (start-up)':>22s}{f'{n} items':>20s}{'per item, start-up removed':>36s}")
        print(
            f"{'tool (batch size)':22s}{'CPU s':>11s}{'wall s':>11s}{'CPU s':>10s}{'wall s':>10s}"
            f"{'CPU ms':>10s}{'wall ms':>10s}{f'items/{NAMES[self.primary]}-s':>16s}"
        )
        for tool in tools:
            batch = 1 if tool.startswith("lmms") else self.batch_size
            cpu, wall = self.per_item(tool, "cpu"), self.per_item(tool, "wall")
            columns = [
                (self._median(tool, 1, "cpu"), 11),
                (self._median(tool, 1, "wall"), 11),
                (self._median(tool, n, "cpu"), 10),
                (self._median(tool, n, "wall"), 10),
                (1e3 * cpu, 10),
                (1e3 * wall, 10),
            ]
            per = cpu if self.primary == "cpu" else wall
            rate = 1 / per if per > 0 else float("inf")
            print(f"{f'{tool} ({batch})':22s}" + "".join(f"{v:{w}.2f}" for v, w in columns) + f"{rate:16.1f}")
        other = NAMES["wall" if self.primary == "cpu" else "cpu"]
        print(f"ratios, {NAMES[self.primary]} time ({other} time in brackets):")
        lmms = next((t for t in tools if t.startswith("lmms")), None)
        if lmms:
            self._ratio(
                f"whole {n}-item run, lmms-eval / mmsoc",
                "whole",
                *(self._median(lmms, n, f) / self._median("mmsoc", n, f) for f in ("cpu", "wall")),
            )
            self._ratio(
                "  the same for raw generate (a harness that adds nothing)",
                None,
                *(self._median(lmms, n, f) / self._median("raw generate", n, f) for f in ("cpu", "wall")),
            )
            self._ratio(
                "per item, lmms-eval / mmsoc",
                "per_item",
                *(self.per_item(lmms, f) / self.per_item("mmsoc", f) for f in ("cpu", "wall")),
            )
            self._ratio(
                "  the same for raw generate (a harness that adds nothing)",
                None,
                *(self.per_item(lmms, f) / self.per_item("raw generate", f) for f in ("cpu", "wall")),
            )
        self._ratio(
            "harness overhead per item, mmsoc / raw generate",
            "overhead",
            *(self.per_item("mmsoc", f) / self.per_item("raw generate", f) for f in ("cpu", "wall")),
        )
        if ("previous release", 1) in self.runs:
            self._ratio(
                "start-up (one-item run), mmsoc / previous release",
                "startup",
                *(self._median("mmsoc", 1, f) / self._median("previous release", 1, f) for f in ("cpu", "wall")),
            )
            self._ratio(
                "  the same for raw generate (imports + load + 1 item) / previous release",
                None,
                *(self._median("raw generate", 1, f) / self._median("previous release", 1, f) for f in ("cpu", "wall")),
            )
            self._pair_ratios("mmsoc", "startup")
            self._pair_ratios("raw generate", None)
            self._ratio(
                f"whole {n}-item run, previous release / mmsoc",
                None,
                *(self._median("previous release", n, f) / self._median("mmsoc", n, f) for f in ("cpu", "wall")),
            )
        if self.api_runs:
            print(
                "API backend (mmsoc eval --model openai:DIR) against transformers serve on this machine, "
                f"{n} items; transformers serve runs generations one at a time (one inference thread), so "
                "concurrency shows the client's overhead, not server parallelism:"
            )
            for concurrency, run, server_cpu in self.api_runs:
                print(
                    f"  concurrency {concurrency}: {run.wall:6.2f} s wall ({n / run.wall:5.1f} items/s), client "
                    f"{run.cpu:5.2f} CPU s, server {server_cpu:5.2f} CPU s"
                )
        reference = outputs.get("mmsoc", {})
        print(
            "identical generations (after strip()), item by item against mmsoc: "
            + ", ".join(f"{name} {_same(reference, found)}" for name, found in outputs.items() if name != "mmsoc")
        )
        for note in notes:
            print(note)

    def _pair_ratios(self, tool: str, target: str | None) -> None:
        """Start-up of ``tool`` over the previous release's, from one-item runs taken in turn (each pair
        close in time, so a machine's drift over minutes cancels): the median of the pairs' ratios."""
        base = self.pairs.get("previous release", [])
        if not base or not self.pairs.get(tool):
            return
        label = f"  start-up, median of {len(base)} back-to-back pairs, {tool} / previous release"
        cpu, wall = ([getattr(a, f) / getattr(b, f) for a, b in zip(self.pairs[tool], base)] for f in ("cpu", "wall"))
        self._ratio(label, target, statistics.median(cpu), statistics.median(wall))
        shown = cpu if self.primary == "cpu" else wall
        print(f"  {'':72s}(pairs, {NAMES[self.primary]}: {' '.join(f'{r:.2f}' for r in shown)})")

    def _ratio(self, label: str, target: str | None, cpu: float, wall: float) -> None:
        goal = f"   target {TARGETS[target]}" if target else ""
        first, second = (cpu, wall) if self.primary == "cpu" else (wall, cpu)
        print(f"  {label:72s}{first:7.2f}x  [{second:6.2f}x]{goal}")


def _load(values) -> str:
    return " ".join(f"{v:.2f}" for v in values)


def _same(reference: dict[str, str], found: dict[str, str]) -> str:
    return f"{sum(reference.get(k) == v for k, v in found.items())}/{len(found)}"
