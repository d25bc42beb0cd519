"""The command-line vocabulary of both apps: every option's flag and what it means, written once.

A command declares an option with :func:`option` (the same arguments as ``typer.Option``); the flag must
be one of ``VOCABULARY`` and, without its own ``help``, the option's help is the flag's meaning there. A
command may word the help for itself but never gives a flag another meaning. ARCHITECTURE.md's option
table lists the same flags with the same meanings, and a test holds the two and every command together.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

VOCABULARY: dict[str, str] = {
    # what to run on, where results go
    "--data": "The data: a folder in the suite's layout, a single file where the command reads one, or `sample` "
    "(the embedded sample); MM-Soc also takes `hub` and `hf://OWNER/NAME`",
    "--split": "The split read from a --data folder",
    "--out": "Where the command writes: a run folder (resumed by the same command), a file or a folder",
    "--format": "The format of the file the command reads (default: recognised by its content)",
    "--out-format": "The format written (default: the input's where the --out extension fits it, else the one "
    "the extension names)",
    "--config": "A YAML or JSON file of this command's options (names as flags, without the dashes); flags given "
    "on the command line win",
    "--task": "Task id, comma-separated task ids, or `all`",
    "--suite": "The suite the tasks belong to",
    "--limit": "At most this many items per task (questions, in desiq)",
    "--model": "What answers: a backend (see `mmsoc list models`) or a model folder the command trained",
    "--adapter": "A peft (LoRA) adapter folder applied to --model",
    "--revision": "The hub revision (branch, tag or commit) of --model to load; its commit goes into provenance.json",
    "--seed": "Seed of every random choice (same seed, same bytes)",
    "--seeds": "Comma-separated sampling seeds, one pass each (the paper's: 0,1,2)",
    "--progress/--no-progress": "Show progress on stderr",
    "--min-clusters": "The fewest clusters (videos; items for MM-Soc tasks) an interval and a verdict are drawn "
    "from; with fewer a row says it has too few to tell",
    "--min-effect": "The smallest effect, in accuracy points, a verdict calls more than negligible (against chance, "
    "or between two rows)",
    "--bootstrap": "Bootstrap replicates for the intervals",
    # prompts and decoding
    "--prompt": "Prompt version (see `mmsoc list prompts`)",
    "--prompts": "A JSON or YAML file of prompt overrides",
    "--greedy/--sample": "Greedy decoding, one pass, or nucleus sampling per seed",
    "--max-new-tokens": "Most tokens generated per answer",
    "--top-p": "Nucleus sampling mass (sampling only)",
    "--temperature": "Sampling temperature (sampling only)",
    "--parse": "How a written answer is read",
    # loading and running a model
    "--batch-size": "Items per model call (never changes results), or per optimizer step when training",
    "--micro-batch-size": "Examples per forward pass when training; gradients accumulate up to --batch-size",
    "--dtype": "Model weights dtype: auto (the checkpoint's on a GPU, float16 for bfloat16 where the GPU lacks "
    "it; float32 on the CPU), float32, bfloat16 or float16",
    "--device": "Device (cpu, cuda, cuda:1, ...); auto = this process's",
    "--device-map": "auto: spread one model over this machine's GPUs (accelerate's big-model loading; one "
    "process); none: all of it on --device",
    "--attn-implementation": "Attention kernel: sdpa (the default where the model has it, else eager), "
    "flash_attention_2 (needs the flash_attn package) or eager",
    "--chat-template": "A Jinja chat-template file used instead of the checkpoint's template or the family's "
    "format (its path and sha256 go into config.json)",
    "--generation-config": "neutral: decode with exactly this run's settings; checkpoint: start from the "
    "checkpoint's generation_config.json",
    "--max-context": "Tokens the model may be given (default: its language model's context)",
    "--fit": "A request over the context: drop (frames first, then words of the text) or error (refused, "
    "recorded in problems.jsonl)",
    "--log-prompts": "Write the exact prompt given to the model into each prediction row",
    "--threads": "torch threads per process (default: $OMP_NUM_THREADS if set, else the CPUs this process may "
    "use, shared among the run's processes on this machine, at most 8); in runtime.json",
    "--text-length": "Words of a news text kept (misinformation; MM-Soc's truncate_input with "
    "--text_input_length 128, the paper's default); 0 keeps the whole text",
    "--max-failures": "Items a run may fail (a number, or a percentage of its items: 5%) and still exit 0; with "
    "more it exits 1, as a run in which no item succeeded does",
    "--fast-metrics": "Skip the model-based metrics (BERTScore, embedding similarity)",
    "--text-encoder": "A text encoder (hub id or folder): the sentence model of BERTScore and embedding "
    "similarity, or the frozen text encoder of the paper's T5-fusion",
    # a model on a server
    "--api-base": "URL of an OpenAI-compatible server for --model openai:NAME, e.g. http://localhost:8000/v1 "
    "(vLLM, SGLang); the key comes from $MMSOC_API_KEY or $OPENAI_API_KEY",
    "--concurrency": "Server calls in flight at once, a failed batch's retries too (at most --batch-size are, so "
    "raise both together)",
    "--request-timeout": "Seconds a server call may take, its whole answer read, before it is retried",
    "--retries": "Retries of an item in all when its calls time out, cannot connect or get 408/409/429/5xx "
    "(exponential backoff): an item is sent at most 1 + RETRIES times",
    "--deadline": "Seconds of wall time for all the run's server calls; once passed, the items left are recorded "
    "as problems (deadline), the answers made are kept and the run ends",
    "--max-response-bytes": "Longest answer read from the server, in bytes; a longer one is cut and its item "
    "recorded as a problem",
    # fine-tuning
    "--epochs": "Passes over the training items",
    "--lr": "Peak learning rate",
    "--warmup-ratio": "Share of steps warming up",
    "--weight-decay": "AdamW weight decay",
    "--max-steps": "Stop after this many optimizer steps",
    "--save-every": "Checkpoint every N optimizer steps (0: never)",
    "--resume": "Continue from the newest checkpoint in --out",
    "--precision": "Mixed precision: auto (bf16 where the GPU supports it), bf16 or no",
    "--lora-rank": "LoRA rank r",
    "--lora-alpha": "LoRA scaling alpha",
    "--lora-dropout": "Dropout on the LoRA input",
    "--target-modules": "Layers LoRA adapts: `attention` (the language model's attention projections, whatever "
    "the architecture calls them) or comma-separated names inside the language model",
    "--lora-mlp": "Adapt the language model's MLP projections too",
    "--max-target-tokens": "Longest training target kept (tokens)",
    "--explanations": "Teacher explanations to train on (a run folder of `mmsoc explain`, or a JSONL file)",
    "--rounds": "Answer rounds of self-improvement (the paper's: 6)",
    # multiple-choice questions (desiq)
    "--fields": "Columns of a generic MCQA file: id=COL,question=COL,options=COL|COL|... (or one list column),"
    "answer=COL (0/1-based index, letter or option text; answer_base=0|1 when the data cannot tell),group=COL "
    "(what partners and intervals cluster on; default: each question alone),context=COL (shown as the "
    "transcript),media=COL (a path under --media-root); unset keys are recognised from the columns",
    "--schema": "A small YAML file of the --fields keys (options: a list of columns)",
    "--media-root": "The folder media are found under (a Social-IQ folder, or the folder a media column's paths "
    "lie under; default: the QA file's folder)",
    "--choices": "Which options are asked: AK all K of them (A4 for Social-IQ; AK or the name), A2 the "
    "correct-incorrect pairs",
    "--condition": "Perturbation or condition names (comma-separated where several are run; see `desiq list "
    "conditions`)",
    "--scope": "Where partner questions come from",
    "--variant": "Which DeSIQ split is built",
    "--inputs": "What the model sees: q question, a answer options, t transcript, v video, s audio, joined by +",
    "--answer": "How an answer is chosen: loglik (each option's log-likelihood) or generate (a written answer, parsed)",
    "--prefix-cache": "auto: score and generate the questions that share media from one shared prefix where the "
    "family allows; off: every row whole",
    "--prefix-memory": "GiB the shared prefix path may use for its caches and passes (default: what is free on "
    "the device); a video whose prefix alone does not fit runs whole",
    "--num-frames": "Frames sampled from each video",
    "--fps": "Sample a frame every 1/FPS seconds instead",
    "--video-as": "How video reaches the model: video (the processor's video input), frames (several images) or "
    "grid (one image)",
    "--cache-dir": "Feature cache folder (default: features/ under $MMSOC_CACHE, else ~/.cache/mmsoc)",
    "--modality": "Only this modality",
    "--subset": "Also each run on a subset beside its full set: a per_item.jsonl of `desiq probe --per-item`",
    "--blind-proof": "per_item.jsonl of `desiq probe --per-item`: its blind probes' picks, held at chance on the "
    "subset (dropped, with --method unsolved)",
    "--method": "How the blind-proof subset is chosen: balanced (every shortcut family at chance, options "
    "reordered), aflite (Le Bras et al., 2020) or unsolved (what no flagged probe answers)",
    "--tolerance": "Accuracy points from chance that every family may lie on the subset",
    "--min-keep": "The fewest questions a subset keeps; with no such subset within --tolerance, nothing is written",
    # bias probes and T5-fusion
    "--train": "Training QA file (with --eval, instead of --data)",
    "--eval": "QA file to score",
    "--compare": "Another version of the eval file (a subset, a rebuild made elsewhere), scored beside it and "
    "compared question by question (repeatable)",
    "--probe": "Which bias probe (see `desiq list probes`)",
    "--backbone": "T5 checkpoint id or local folder",
    "--encoder": "Sentence encoder of the embed-linear probe (id or folder; default: the packaged MiniLM)",
    "--architecture": "T5-fusion architecture: paper (the official DeSIQ model) or ours",
    "--audio-encoder": "A wav2vec2-style speech encoder id or folder, or logmel",
    "--video-encoder": "The frozen video frame encoder (id or folder)",
    "--video-pretrained": "open_clip pretrained tag or checkpoint file of the frame encoder",
    "--max-tokens": "Feature positions per modality",
    "--patience": "Stop after more than this many dev decreases in a row",
    "--debiased/--no-debiased": "Also retrain and score on the DeSIQ_d and DeSIQ_s splits",
    "--tsne/--no-tsne": "Draw tsne.png of the eval options",
    "--per-item/--no-per-item": "Also write per_item.jsonl: per question, which blind probes and shortcuts answer it",
    "--media/--no-media": "Also write media files (clips, audio, transcripts)",
    "--overwrite": "Replace the folder's contents if it is not empty",
    # scoring other tools' files
    "--predictions": "The predictions file (or folder) to score",
    "--penalize-missing": "Replace each missing answer by a seeded random label instead of leaving it out",
    # reports and ratings
    "--open": "Open report.html in the web browser",
    "--runs": "A run folder; repeat for each model",
    "--names": "Comma-separated model names for the runs, in order",
    "--per-pair": "Battles per pair of models, a seeded sample",
    "--battles": "Battles file (JSONL)",
    "--db": "Vote database (SQLite)",
    "--name": "Annotator name; repeat where several are invited",
    "--url": "Address annotators open the vote page at",
    "--host": "Address to listen on",
    "--port": "Port to listen on",
    "--hostname": "Another name annotators reach this server by (repeatable)",
    "--run-dir": "Run folder of a model's answers",
    "--votes": "Votes file (battles with votes, JSONL)",
    "--min-annotators": "Votes a battle needs to be rated",
    "--judge": "A judge's votes file (repeatable)",
}
"""Every flag of every command, with its one meaning (ARCHITECTURE.md's option table says the same)."""


def option(*args: Any, **settings: Any) -> Any:
    """``typer.Option(*args, **settings)`` for a flag of ``VOCABULARY``; its meaning there is the help unless
    the command words its own."""
    flags = [arg for arg in args if isinstance(arg, str) and arg.startswith("--")]
    if len(flags) != 1:
        raise ValueError(f"an option names one flag, got {flags}")
    if flags[0] not in VOCABULARY:
        raise ValueError(f"{flags[0]} is not in the command-line vocabulary (mmsoc.core.options.VOCABULARY)")
    settings.setdefault("help", VOCABULARY[flags[0]] + ".")
    return typer.Option(*args, **settings)


# Options shared by commands of both apps (typer copies an Annotated option per use).
Seed = Annotated[int, option("--seed")]
Limit = Annotated[int | None, option("--limit", min=0)]
Progress = Annotated[bool, option("--progress/--no-progress")]
MinClusters = Annotated[int, option("--min-clusters", min=1)]
MinEffect = Annotated[float, option("--min-effect", min=0.0)]
Device = Annotated[str, option("--device")]
Dtype = Annotated[str, option("--dtype")]
Adapter = Annotated[str | None, option("--adapter")]
Revision = Annotated[str | None, option("--revision")]
BatchSize = Annotated[int, option("--batch-size", min=1)]
