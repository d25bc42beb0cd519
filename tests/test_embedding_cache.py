"""The embedding cache: texts an encoder embedded once are never encoded again, in any later run, and a cached
call loads no model; a corrupt or unsafe shard is recomputed."""

from __future__ import annotations

import numpy as np
import pytest

from mmsoc.media import sentences
from mmsoc.media.sentences import EmbeddingCache, embed_texts, encoder_identity

TEXTS = [
    "I feel so happy today.",
    "What a wonderful day, really.",
    "The meeting was cancelled.",
    "I feel so happy today.",
    "Cats sleep a lot.",
]


class CountingEncoder:
    """The real sentence encoder, counting the texts it is asked to encode."""

    def __init__(self, encoder):
        self.encoder, self.encoded = encoder, []

    def encode(self, texts, **kwargs):
        self.encoded.append(list(texts))
        return self.encoder.encode(texts, **kwargs)

    def get_embedding_dimension(self) -> int:
        return self.encoder.get_embedding_dimension()


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """A fresh cache root; ``load_sentence_encoder`` replaced by one that counts loads and encodes."""
    monkeypatch.setenv("MMSOC_CACHE", str(tmp_path / "cache"))
    real = sentences.load_sentence_encoder(None)
    state = {"loads": 0, "encoder": CountingEncoder(real)}

    def load(name_or_path=None, device=None):
        state["loads"] += 1
        return state["encoder"]

    monkeypatch.setattr(sentences, "load_sentence_encoder", load)
    return state


def test_second_call_encodes_nothing_and_loads_no_model(counted):
    first = embed_texts(TEXTS)
    assert counted["loads"] == 1 and counted["encoder"].encoded == [sorted(set(TEXTS))]
    uncached = counted["encoder"].encoder.encode(TEXTS, convert_to_numpy=True, normalize_embeddings=True)
    np.testing.assert_allclose(first, uncached, atol=1e-6)
    second = embed_texts(list(reversed(TEXTS)))
    assert counted["loads"] == 1 and len(counted["encoder"].encoded) == 1  # no load, no encode
    assert second.dtype == np.float32 and np.array_equal(second, first[::-1])
    third = embed_texts(["Cats sleep a lot.", "A new sentence."])
    assert counted["encoder"].encoded[1:] == [["A new sentence."]]  # only the new text
    assert np.array_equal(third[0], first[4])


def test_normalize_flag_and_encoder_are_part_of_the_key(counted, tmp_path):
    embed_texts(TEXTS[:2])
    embed_texts(TEXTS[:2], normalize=False)
    assert len(counted["encoder"].encoded) == 2  # another normalize flag: another cache folder
    assert len(list((EmbeddingCache("x", True).root).iterdir())) == 2
    folder = tmp_path / "enc"
    folder.mkdir()
    (folder / "weights.bin").write_bytes(b"a")
    before = encoder_identity(str(folder))
    (folder / "weights.bin").write_bytes(b"ab")  # trained again in place: a new encoder
    assert encoder_identity(str(folder)) != before
    assert encoder_identity("some/hub-id") == "some/hub-id"


def test_corrupt_shard_is_recomputed(counted):
    first = embed_texts(TEXTS)
    cache = EmbeddingCache(encoder_identity(None), True)
    (shard,) = cache.shards()
    shard.write_bytes(shard.read_bytes()[:100])  # a torn file
    again = embed_texts(TEXTS)
    assert len(counted["encoder"].encoded) == 2 and np.allclose(again, first, atol=1e-6)
    assert cache.shards() == [shard]  # rewritten whole (same content, same name)
    with np.load(shard, allow_pickle=False) as data:
        assert data["keys"].shape == (4, 32) and data["vectors"].shape == (4, 384)
    assert len(counted["encoder"].encoded) == 2 and np.array_equal(embed_texts(TEXTS), again)


def test_a_shard_that_needs_pickle_is_never_unpickled(counted):
    cache = EmbeddingCache(encoder_identity(None), True)
    cache.folder.mkdir(parents=True)
    np.savez(cache.folder / "evil.npz", keys=np.array([object()], dtype=object), vectors=np.zeros((1, 3)))
    embed_texts(TEXTS[:1])
    assert counted["encoder"].encoded == [TEXTS[:1]]
    assert [p.name for p in cache.shards()] != ["evil.npz"] and not (cache.folder / "evil.npz").exists()


def test_many_shards_are_folded_into_one(counted, monkeypatch):
    monkeypatch.setattr(sentences, "MAX_SHARDS", 3)
    vectors = [embed_texts([text]) for text in dict.fromkeys(TEXTS)]
    cache = EmbeddingCache(encoder_identity(None), True)
    assert len(cache.shards()) <= 3
    encoded = len(counted["encoder"].encoded)
    again = embed_texts(list(dict.fromkeys(TEXTS)))
    assert len(counted["encoder"].encoded) == encoded and np.array_equal(again, np.concatenate(vectors))


def test_empty_input_uses_the_cached_width(counted):
    embed_texts(TEXTS[:1])
    loads = counted["loads"]
    assert embed_texts([]).shape == (0, 384) and counted["loads"] == loads
    assert embed_texts([], cache=False).shape == (0, 384)
