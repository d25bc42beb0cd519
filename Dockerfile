# The README's Quickstart in a container: the toolkit with every extra (mmsoc[all]) at the exact versions of
# requirements.lock, run as a user without root; by default the bias probe on the embedded sample.
#   docker build -t mmsoc .
#   docker run --rm -v hf-cache:/cache/huggingface -v "$PWD/runs:/home/mmsoc/runs" mmsoc
# The hub cache (HF_HOME) is a volume: models fetched once are found again, offline too.
FROM python:3.11.14-slim-bookworm
ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    HF_HOME=/cache/huggingface \
    MMSOC_CACHE=/cache/mmsoc \
    PIP_NO_CACHE_DIR=1 \
    PYTHONUNBUFFERED=1
RUN useradd --create-home --uid 1000 mmsoc && mkdir -p /cache/huggingface /cache/mmsoc \
    && chown -R mmsoc /cache
WORKDIR /opt/mmsoc
COPY requirements.lock pyproject.toml README.md ./
COPY mmsoc mmsoc
COPY desiq desiq
RUN python3 -m venv /opt/venv && pip install -c requirements.lock ".[all]"
USER mmsoc
WORKDIR /home/mmsoc
VOLUME ["/cache/huggingface"]
CMD ["desiq", "probe", "--out", "runs/probe-sample"]
