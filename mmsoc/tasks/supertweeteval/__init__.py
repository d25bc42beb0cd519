"""The SuperTweetEval suite (Antypas et al., 2023): 12 tweet tasks, from classification to generation.

``tasks`` holds the task table as data (labels, the paper's zero-shot prompts, headline metrics), ``data``
reads the hub's JSON Lines layout and declares the dataset, ``sample`` writes the embedded sample,
``answers`` reads predictions as the official scripts read them (and leniently), ``averages`` gives the
unified mean and the paper's clusters.
"""
