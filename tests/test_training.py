"""The shared training loop against hand-written torch loops; resuming; early stopping; pickle-free state."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch
from tiny_models import build_tiny_bert_classifier

from mmsoc.models.text_classifier import fit_sequence_classifier
from mmsoc.runners.training_loop import (
    EarlyStopping,
    LoopSettings,
    LoopState,
    UnsafeCheckpointError,
    load_rng,
    load_state,
    refuse_pickles,
    save_rng,
    save_state,
    train_loop,
)

X = torch.randn(10, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
Y = X @ torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64) + 0.3


def _linear() -> torch.nn.Linear:
    torch.manual_seed(0)
    return torch.nn.Linear(3, 1).double()


def _collate(rows: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    index = torch.tensor(rows)
    return X[index], Y[index]


def _mse(model: torch.nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    x, y = batch
    return ((model(x).squeeze(-1) - y) ** 2).mean()


def test_accumulation_clipping_and_schedule_match_a_hand_written_loop():
    settings = LoopSettings(epochs=2, micro_batch_size=2, accumulation=2, max_grad_norm=0.5, seed=4)
    model = _linear()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 / (1 + step))
    seen: list[tuple[int, int, float, float]] = []
    state = train_loop(
        model,
        optimizer,
        list(range(10)),
        _collate,
        _mse,
        settings,
        scheduler=scheduler,
        on_step=lambda s: seen.append((s.step, s.epoch, s.loss, s.lr)),
    )

    # The same training written out: 10 items in micro-batches of 2 make groups of 2, 2 and 1 micro-batches;
    # each micro-batch loss is divided by 2 (the last, single one too) before its gradient is added.
    reference = _linear()
    expected = []
    step = 0
    for epoch in range(2):
        order = torch.randperm(10, generator=torch.Generator().manual_seed(4 * 1000 + epoch)).tolist()
        micro = [order[i : i + 2] for i in range(0, 10, 2)]
        for group in (micro[0:2], micro[2:4], micro[4:5]):
            reference.zero_grad()
            losses = []
            for rows in group:
                loss = _mse(reference, _collate(rows))
                (loss / 2).backward()
                losses.append(loss.item())
            torch.nn.utils.clip_grad_norm_(reference.parameters(), 0.5)
            lr = 0.1 / (1 + step)
            with torch.no_grad():
                for p in reference.parameters():
                    p -= lr * p.grad
            step += 1
            expected.append((step, epoch, float(np.mean(losses)), lr))
    assert state.step == 6 and [s[:2] for s in seen] == [e[:2] for e in expected]
    for got, want in zip(seen, expected):
        assert got[2:] == pytest.approx(want[2:], rel=1e-12)
    torch.testing.assert_close(model.weight, reference.weight, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(model.bias, reference.bias, rtol=1e-12, atol=1e-12)


def _dropout_net() -> torch.nn.Module:
    torch.manual_seed(1)
    return torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Dropout(0.5), torch.nn.Linear(8, 1)).double()


def _parts(model: torch.nn.Module):
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.05)
    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 0.9**step)


def test_resume_from_a_saved_step_gives_the_uninterrupted_result(tmp_path):
    settings = LoopSettings(epochs=3, micro_batch_size=3, accumulation=2, max_grad_norm=1.0, seed=2)
    items = list(range(10))  # 4 micro-batches an epoch: 2 steps an epoch, 6 in all
    model = _dropout_net()
    optimizer, scheduler = _parts(model)
    losses: dict[int, float] = {}

    def keep(state: LoopState) -> None:
        losses[state.step] = state.loss
        if state.step == 3:  # mid-epoch: epoch 1 has one step done
            save_state(tmp_path, "model", model.state_dict())
            save_state(tmp_path, "optimizer", optimizer.state_dict())
            save_state(tmp_path, "scheduler", scheduler.state_dict())
            save_rng(tmp_path)

    whole = train_loop(model, optimizer, items, _collate, _mse, settings, scheduler=scheduler, on_step=keep)
    assert whole.step == 6

    torch.manual_seed(12345)  # a different global RNG: only the restored one may matter
    again = _dropout_net()
    again.load_state_dict(load_state(tmp_path, "model"))
    optimizer2, scheduler2 = _parts(again)
    optimizer2.load_state_dict(load_state(tmp_path, "optimizer"))
    scheduler2.load_state_dict(load_state(tmp_path, "scheduler"))
    load_rng(tmp_path)
    resumed: dict[int, float] = {}
    state = train_loop(
        again,
        optimizer2,
        items,
        _collate,
        _mse,
        settings,
        scheduler=scheduler2,
        start_step=3,
        on_step=lambda s: resumed.__setitem__(s.step, s.loss),
    )
    assert state.step == 6 and resumed == {k: v for k, v in losses.items() if k > 3}
    for a, b in zip(model.state_dict().values(), again.state_dict().values()):
        assert torch.equal(a, b)


def test_early_stopping_ends_after_patience_epochs_without_improvement():
    scores = iter([0.5, 0.7, 0.6, 0.65, 0.9, 0.95])
    stopper = EarlyStopping(patience=2)
    best: list[int] = []

    def dev_check(state: LoopState) -> None:
        if stopper.update(next(scores), state):
            best.append(state.epoch)

    model = _linear()
    state = train_loop(
        model,
        torch.optim.SGD(model.parameters(), lr=0.01),
        list(range(10)),
        _collate,
        _mse,
        LoopSettings(epochs=6, micro_batch_size=5),
        on_epoch=dev_check,
    )
    assert (state.epoch, state.step, state.stop) == (3, 8, True)  # epochs 0-3 of 2 steps; 2 and 3 were stale
    assert best == [0, 1] and (stopper.best, stopper.best_epoch) == (0.7, 1)


def test_max_steps_ends_mid_epoch_without_an_epoch_callback():
    model = _linear()
    epochs: list[int] = []
    settings = LoopSettings(epochs=3, micro_batch_size=2, max_steps=7)
    state = train_loop(
        model,
        torch.optim.SGD(model.parameters(), lr=0.01),
        list(range(10)),
        _collate,
        _mse,
        settings,
        on_epoch=lambda s: epochs.append(s.epoch),
    )
    assert (state.step, state.epoch, epochs) == (7, 1, [0])


def test_state_dicts_round_trip_with_int_keys_and_tuples(tmp_path):
    model = _linear()
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.1, betas=(0.8, 0.95))
    _mse(model, _collate([0, 1])).backward()
    optimizer.step()
    original = optimizer.state_dict()
    save_state(tmp_path, "optimizer", original)
    loaded = load_state(tmp_path, "optimizer")
    assert sorted(loaded["state"]) == [0, 1] and loaded["param_groups"][0]["betas"] == (0.8, 0.95)
    for key, values in original["state"].items():
        assert all(torch.equal(values[name], loaded["state"][key][name]) for name in values)
    assert loaded["param_groups"] == original["param_groups"]
    with pytest.raises(TypeError, match="without pickling"):
        save_state(tmp_path, "bad", {"what": object()})


class _Marker:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_pickles_are_found_by_name_and_by_content_without_being_loaded(tmp_path):
    save_state(tmp_path, "optimizer", {"x": torch.ones(2)})
    refuse_pickles(tmp_path)  # safetensors and JSON only
    marker = tmp_path.parent / "unpickled"
    (tmp_path / "optimizer.safetensors").write_bytes(pickle.dumps(_Marker(str(marker)), protocol=4))
    with pytest.raises(UnsafeCheckpointError, match=r"optimizer\.safetensors"):
        refuse_pickles(tmp_path)
    torch.save({"x": torch.ones(2)}, tmp_path / "weights.safetensors")  # torch's zip format, pickled inside
    (tmp_path / "random_states_0.pkl").write_bytes(b"(lp0\n.")  # a protocol-0 pickle: found by its name
    with pytest.raises(UnsafeCheckpointError) as err:
        refuse_pickles(tmp_path)
    assert "random_states_0.pkl" in str(err.value) and "weights.safetensors" in str(err.value)
    assert not marker.exists()


def test_fine_tuned_text_classifier_learns_a_separable_task(tmp_path):
    bert = build_tiny_bert_classifier(tmp_path / "bert")
    words = ["cat", "dog", "sun", "moon", "tree", "road"]
    texts = [
        f"{a} {b} good" if i % 2 else f"{a} {b} bad" for i, (a, b) in enumerate((a, b) for a in words for b in words)
    ]
    targets = np.array([i % 2 for i in range(len(texts))])
    before = fit_sequence_classifier(str(bert), texts, targets, 2, seed=0, epochs=0, device="cpu")(texts)
    scores = fit_sequence_classifier(
        str(bert), texts, targets, 2, seed=0, epochs=8, learning_rate=1e-3, batch_size=8, device="cpu"
    )
    after = scores(texts)
    assert (after.argmax(1) == targets).mean() == 1.0 > (before.argmax(1) == targets).mean()
    again = fit_sequence_classifier(
        str(bert), texts, targets, 2, seed=0, epochs=8, learning_rate=1e-3, batch_size=8, device="cpu"
    )(texts)
    assert np.array_equal(after, again)
