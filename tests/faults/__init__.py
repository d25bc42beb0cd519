"""The fault-injection suite: the commands attacked as an attacker or a careless user would.

Real processes only: commands killed with SIGKILL at chosen or random points (``killpoint.py``),
two writers on one run folder, read-only and full folders and unreadable inputs (``places.py``: bind
mounts and a tmpfs where the machine allows, otherwise skipped), hostile files. One module per kind
of fault; the issue items each test reproduces are named in its docstring.

    pytest tests/faults                              # a few random kills (MMSOC_FAULT_KILLS=3)
    MMSOC_FAULT_KILLS=20 pytest tests/faults/test_sigkill_campaign.py -s   # the full campaign
    MMSOC_FAULTS_CODE=DIR pytest tests/faults        # the same attacks on the checkout in DIR
"""
