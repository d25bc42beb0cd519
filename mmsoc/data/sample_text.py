"""Word material of the sample data: texts whose wording carries the label, so a text-only model can
learn it, while the people, groups and outlets named are fictional."""

from __future__ import annotations

import random

GROUPS = ("the hill folk", "people from the valley", "the night shift crowd", "those river people",
          "the east side crowd", "the new neighbours", "the marsh villagers", "people from up north")
HATEFUL = ("{g} are vermin and should be driven out", "nobody wants {g} here, send them all back",
           "{g} are a disease on this country", "{g} are too stupid to be allowed to vote",
           "{g} are filthy animals, keep them away from us")
BENIGN = ("{g} throw the best parties every summer", "when {g} share their secret recipes with you",
          "{g} always wave when they drive past", "thanks to {g} for fixing the old bridge",
          "{g} grow the sweetest apples in the region")

SARCASM = {"sarcastic": ("oh great,", "wow, just what i needed:", "yeah, because", "sure, totally normal:"),
           "not_sarcastic": ("me when", "true story:", "today", "fun fact:")}
SENTIMENT = {"positive": ("my team finally won the cup", "i got the job after ten interviews",
                          "grandma learned to send memes", "the weekend is finally here"),
             "negative": ("my phone died in the middle of the exam", "the printer ate my homework again",
                          "i was stuck in traffic for three hours", "the wifi is down again"),
             "neutral": ("the bus comes at seven", "the meeting moved to room four",
                         "tuesday is laundry day", "the store closes at nine")}
HUMOR = {"humorous": ("lol", "i cant even haha", "send help lmao", "im crying laughing"),
         "not_humorous": ("that is all", "noted", "just saying", "nothing more to add")}
OFFENSIVE = {"offensive": ("shut up you idiots", "what a bunch of morons", "losers, all of you"),
             "not_offensive": ("have a nice day", "stay kind", "be good to each other")}
RAW = {"humorous": ("funny", "very_funny", "hilarious"), "not_humorous": ("not_funny",),
       "sarcastic": ("general", "twisted_meaning", "very_twisted"), "not_sarcastic": ("not_sarcastic",),
       "offensive": ("slight", "very_offensive", "hateful_offensive"), "not_offensive": ("not_offensive",),
       "positive": ("positive", "very_positive"), "negative": ("negative", "very_negative"),
       "neutral": ("neutral",)}
"""MM-Soc label -> the raw Memotion labels that collapse to it."""

POLITICIANS = ("Senator Ana Ruiz", "Governor Tom Baker", "Mayor Lee Chen", "Rep. Dana Ortiz", "Senator Paul Meyer")
POLITI_FAKE = ("SHOCKING: {p} secretly wired millions to an offshore account, insiders say",
               "BREAKING: {p} caught banning the national anthem at schools. Media silent!",
               "You won't believe what {p} did: voted to sell the state parks to a foreign king",
               "EXPOSED: {p} is paid by a secret cabal to rig the election, leaked memo proves")
POLITI_TRUE = ("{p} signs water infrastructure bill after committee review",
               "{p} holds town hall meeting on school funding in Springfield",
               "{p} visits flood-hit county and meets emergency crews",
               "Senate committee advances budget proposal backed by {p}")
CELEBRITIES = ("Mia Stone", "Jake Rivers", "Lola Grant", "Ethan Vale", "Nora Quinn")
GOSSIP_FAKE = ("EXCLUSIVE: {c} and {d} secretly married in Vegas, source claims",
               "{c} pregnant with twins? Insiders reveal the shocking truth",
               "{c} feud explodes: she can't stand {d}, says insider",
               "{c} fired from hit show after secret meltdown on set, sources say")
GOSSIP_TRUE = ("{c} to star in new drama series alongside {d}",
               "{c} releases new album in May and announces world tour",
               "{c} attends film festival premiere with {d}",
               "{c} wins best actress award at annual ceremony")

VIDEO_GROUPS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    (("sport", "tennis"), "{a} vs {b} | Final Set Highlights",
     "Tennis highlights from the open final: every serve, rally and match point."),
    (("association_football", "sport"), "{a} FC vs {b} United 2-1 | All Goals",
     "Football match highlights with all goals, saves and the penalty drama."),
    (("music", "pop_music"), "{a} - Summer Nights (Official Music Video)",
     "Official music video for the new pop single. Stream the album now."),
    (("hip_hop_music", "music"), "{a} ft. {b} - Block Party (Official Audio)",
     "New rap track from the upcoming hip hop mixtape."),
    (("action_game", "video_game_culture"), "Shadow Strike Gameplay Walkthrough Part {n}",
     "Let's play the new action game, boss fight and secret level included."),
    (("food", "lifestyle"), "Easy {dish} Recipe in 15 Minutes",
     "Quick home cooking recipe with simple ingredients from your kitchen."),
    (("pet",), "Funny Cats and Dogs Compilation #{n}",
     "Cute pets doing silly things: kittens, puppies and one very confused parrot."),
    (("politics", "society"), "Debate Night: {a} on Healthcare and Taxes",
     "Full debate coverage and analysis of the election campaign."),
    (("technology",), "Phone X{n} Review: Is It Worth It?",
     "Unboxing and review of the new smartphone: camera, battery and performance tests."),
    (("entertainment", "film"), "Midnight Harbor - Official Trailer",
     "Watch the official movie trailer. In theaters this winter."),
    (("health", "physical_fitness"), "20 Minute Full Body Workout at Home",
     "No equipment fitness workout for strength and cardio. Follow along!"),
    (("vehicle",), "2024 Roadster {n} Test Drive and Review",
     "We take the new car on a test drive: engine, handling and interior."),
)
"""(topics, title template, description) of the sample videos."""
NAMES = ("Alex Moore", "Sam Park", "Rita Lane", "Omar Diaz", "Kim Sato", "Lucas Berg")
DISHES = ("Garlic Noodle", "Banana Bread", "Chicken Curry", "Veggie Taco", "Lemon Pasta")


def hateful_meme(rng: random.Random, hateful: bool) -> tuple[str, str]:
    """(meme text, group named) of a hateful or benign sample meme."""
    group = rng.choice(GROUPS)
    return rng.choice(HATEFUL if hateful else BENIGN).format(g=group), group


def memotion_text(rng: random.Random, labels: dict[str, str]) -> str:
    """Meme text built from one cue per Memotion label (sarcasm, sentiment, humor, offensive)."""
    parts = (rng.choice(SARCASM[labels["sarcasm"]]), rng.choice(SENTIMENT[labels["sentiment"]]),
             rng.choice(HUMOR[labels["humor"]]), rng.choice(OFFENSIVE[labels["offensive"]]))
    return " ".join(parts)


def news_text(rng: random.Random, politics: bool, fake: bool) -> str:
    """A fake or true news headline (PolitiFact-like when ``politics``, GossipCop-like otherwise)."""
    if politics:
        return rng.choice(POLITI_FAKE if fake else POLITI_TRUE).format(p=rng.choice(POLITICIANS))
    first, second = rng.sample(CELEBRITIES, 2)
    return rng.choice(GOSSIP_FAKE if fake else GOSSIP_TRUE).format(c=first, d=second)


def video(rng: random.Random) -> tuple[str, str, tuple[str, ...]]:
    """(title, description, topics) of a sample video."""
    topics, title, description = rng.choice(VIDEO_GROUPS)
    first, second = rng.sample(NAMES, 2)
    return title.format(a=first, b=second, n=rng.randint(2, 40), dish=rng.choice(DISHES)), description, topics


def social_context(hateful: bool, group: str) -> str:
    """Reference social-context description of a sample hateful or benign meme."""
    if hateful:
        return (f"The meme attacks {group} with a demeaning generalisation. Posts like this spread "
                "hostility toward a group of people and are typical of online hate speech.")
    return (f"A lighthearted meme about {group} that plays on shared local experiences; it is the kind "
            "of friendly community humour people share on social media.")
