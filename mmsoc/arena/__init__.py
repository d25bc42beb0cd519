"""Arena ratings for free-text responses: pairwise battles judged by people (a local web page) or by a
judge model, aggregated to Elo and Bradley-Terry ratings with bootstrap intervals.

- :mod:`records`: the battles / votes JSONL format (typed records, validated on read);
- :mod:`pairing`: battles from eval run folders over the same items;
- :mod:`store` and :mod:`web`: the vote store (SQLite, WAL) and the vote page;
- :mod:`judge`: a model as judge, both orders, through the run folder;
- :mod:`aggregate`, :mod:`ratings`, :mod:`analysis`, :mod:`report`: majority labels, agreement,
  FastChat's rating formulas, bias checks, judge agreement and the written outputs.
"""
