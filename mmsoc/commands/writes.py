"""What every command of both apps reads and writes, by parameter: the table the output guard
(:mod:`mmsoc.core.outputs`) checks before a command does any work. A command that writes nothing has an
empty row; a command without a row fails ``tests/test_output_guard.py``."""

from __future__ import annotations

from mmsoc.core.outputs import Output, Table, Writes
from mmsoc.core.runfolder import CONFIG, LOCK, METRICS, PREDICTIONS, PROBLEMS, RUNTIME

RUN = (CONFIG, PREDICTIONS, PROBLEMS, METRICS, RUNTIME, LOCK)
"""A run folder's files (:mod:`mmsoc.core.runfolder`)."""
ADAPTER = ("adapter_config.json", "adapter_model.safetensors", "finetune_config.json", "train_log.jsonl", "checkpoints")
"""A fine-tuned adapter's folder (:mod:`mmsoc.runners.finetune.lora_training`)."""
FUSION_MODEL = ("fusion_config.json", "fusion_head.safetensors", "backbone")
"""A T5-fusion model's folder (:mod:`desiq.fusion.runner`)."""
REPORT = Writes(
    runs=("run_dirs",), outputs=(Output("out", "folder", inside=("report.json", "report.md", "report.html")),)
)
CARD = (".card.md",)
"""The data card written beside a QA file."""
QA_FILE = ("data", "schema", "media_root")
NOTHING = Writes()

WRITES = Table(
    rows={
        "mmsoc tasks": NOTHING,
        "mmsoc data sample": Writes(outputs=(Output("out", "replaced"),), overwrite="overwrite"),
        "mmsoc data check": NOTHING,
        "mmsoc eval": Writes(
            reads=("model", "data", "chat_template", "prompts_file"),
            runs=("adapter",),
            outputs=(Output("out", "folder", inside=RUN),),
        ),
        "mmsoc score": Writes(
            reads=("predictions", "data"),
            outputs=(Output("out", "folder", inside=(METRICS, "score_info.json", "averages.json")),),
        ),
        "mmsoc report": REPORT,
        "mmsoc finetune": Writes(
            reads=("model", "data", "prompts_file"),
            runs=("explanations",),
            outputs=(Output("out", "folder", inside=(*ADAPTER, PROBLEMS)),),
        ),
        "mmsoc explain": Writes(
            reads=("model", "data"), runs=("adapter",), outputs=(Output("out", "folder", inside=RUN),)
        ),
        "mmsoc self-improve": Writes(
            reads=("model", "data", "prompts_file", "text_encoder"),
            runs=("adapter",),
            outputs=(Output("out", "folder", inside=(*RUN, "similarity.png")),),
        ),
        "mmsoc merge-adapter": Writes(
            reads=("model",),
            runs=("adapter",),
            outputs=(Output("out", "replaced", inside=(CONFIG, "model.safetensors")),),
        ),
        "mmsoc arena pair": Writes(runs=("runs",), outputs=(Output("out", "file"),)),
        "mmsoc arena invite": NOTHING,  # --db is updated in place, as it is meant to be
        "mmsoc arena serve": Writes(reads=("battles",), outputs=(Output("db", "file"),)),
        "mmsoc arena export": Writes(reads=("db",), outputs=(Output("out", "file"),)),
        "mmsoc arena judge": Writes(reads=("model", "battles"), runs=("run_dir",), outputs=(Output("out", "file"),)),
        "mmsoc arena rate": Writes(
            reads=("votes", "judges"),
            outputs=(
                Output("out", "folder", inside=("ratings.json", "analysis.json", "leaderboard.md", "report.html")),
            ),
        ),
        "mmsoc version": NOTHING,
        "mmsoc list": NOTHING,
        "desiq perturb": Writes(reads=QA_FILE, outputs=(Output("out", "file", beside=CARD),)),
        "desiq build": Writes(reads=QA_FILE, outputs=(Output("out", "file", beside=CARD),)),
        "desiq data sample": Writes(outputs=(Output("out", "folder"),), overwrite="overwrite"),
        "desiq probe": Writes(
            reads=(*QA_FILE, "train", "eval_file", "backbone", "encoder", "text_encoder", "audio_encoder"),
            outputs=(
                Output("out", "folder", inside=("probe.json", "probe.md", "tsne.png", "per_item.jsonl", "sample")),
            ),
        ),
        "desiq subset": Writes(reads=("data", "schema", "blind_proof"), outputs=(Output("out", "file", beside=CARD),)),
        "desiq fusion train": Writes(
            reads=("data", "schema", "backbone", "video_encoder", "video_pretrained", "text_encoder", "audio_encoder"),
            outputs=(Output("out", "replaced", inside=(*FUSION_MODEL, METRICS)),),
        ),
        "desiq fusion eval": Writes(
            reads=("data", "schema"), runs=("model",), outputs=(Output("out", "folder", inside=RUN),)
        ),
        "desiq cache info": NOTHING,
        "desiq cache clear": NOTHING,  # deletes entries of the feature cache, reads nothing
        "desiq eval": Writes(
            reads=("model", "data", "chat_template", "prompts_file", "media_root"),
            runs=("adapter",),
            outputs=(Output("out", "folder", inside=(*RUN, "table.md", "submission.jsonl", "conditions")),),
        ),
        "desiq table": Writes(reads=("subset",), runs=("runs",), outputs=(Output("out", "file"),)),
        "desiq finetune": Writes(
            reads=("model", "data", "chat_template", "prompts_file"),
            runs=("explanations",),
            outputs=(Output("out", "folder", inside=(*ADAPTER, PROBLEMS)),),
        ),
        "desiq report": REPORT,
        "desiq list": NOTHING,
    },
    run_files=frozenset((*RUN, *ADAPTER, *FUSION_MODEL, "ratings.json")),
)
"""Every command, by its command line."""
