# The README's Quickstart in a container: install the toolkit, run the bias probe on the sample.
FROM python:3.11-slim
WORKDIR /opt/mmsoc
COPY . .
RUN python3 -m venv .venv && .venv/bin/pip install .
CMD [".venv/bin/desiq", "probe", "--out", "runs/probe-sample"]
