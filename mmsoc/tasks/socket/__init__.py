"""The SocKET suite (Choi et al., 2023): 58 text tasks of social knowledge in five categories.

One module per category holds its task table as data (``humor_sarcasm``, ``offensiveness``,
``sentiment_emotion``, ``social_factors``, ``trustworthiness``; ``table`` builds the specs), ``data`` reads
the hub layout and declares the dataset, ``sample`` writes the embedded sample, ``answers`` reads answers
as the official evaluation script does (and leniently), ``averages`` computes the paper's Table 2 means.
"""
