# The homefabric emulator image: `homefabric serve` (Matter bridge + MQTT bridge + HTTP API) started by scripts/up.
# It needs no CHIP SDK and no libnl: the Matter side is our own pure-Python node; only the controller
# (python-matter-server, its own image in docker-compose.yml) links the CHIP stack.
#
# BASE: any Debian bookworm image. Where Docker Hub cannot be reached, scripts/docker-base builds one from
# Debian packages and compose passes it in (HOMEFABRIC_BASE_IMAGE, see docs/docker.md).
ARG BASE=debian:bookworm-slim
FROM ${BASE}
# EXTRAS: optional dependency groups of pyproject.toml to install too, APT_PACKAGES: Debian packages they need
# (docker-compose.ray.yml: "ray training speech" and espeak-ng, for the nodes of a Ray cluster). Empty: the emulator.
ARG EXTRAS=""
ARG APT_PACKAGES=""

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Debian's Python 3.11 (what the tests run on) in a virtual environment; ca-certificates for PyPI.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates ${APT_PACKAGES} \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m venv /opt/venv

WORKDIR /opt/homefabric

# The dependencies first, from pyproject.toml alone: a code change then rebuilds only the layers below. Then those
# of each extra in EXTRAS (its own lines: an extra that names another is not followed).
COPY pyproject.toml README.md ./
RUN python3 -c 'import os, tomllib; project = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
        print("\n".join(project["dependencies"] + [d for e in os.environ["EXTRAS"].split() for d in project["optional-dependencies"][e]]))' \
        >/tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# Only what the package needs (no .venv, tests or runs from the build context); every top-level package of
# pyproject.toml's [tool.setuptools.packages.find] include list is copied (tests/deploy checks it).
COPY clusters ./clusters
COPY emulator ./emulator
COPY bridge ./bridge
COPY agent_tools ./agent_tools
COPY benchmark ./benchmark
COPY homefabric_cli ./homefabric_cli
# Editable: the packages run from /opt/homefabric, so their data files (the dashboard's assets) are there
# whatever pyproject's package-data says.
RUN pip install --no-deps -e .

# Non-root: Matter (UDP 5540), mDNS (5353) and the HTTP API (8080) are all unprivileged ports. The data
# directories exist in the image so that fresh named volumes mounted there are owned by this user (out: the
# outputs of docker-compose.ray.yml's runs).
COPY scripts/up ./scripts/up
RUN useradd --system --uid 10001 --home-dir /var/lib/homefabric --shell /usr/sbin/nologin homefabric \
    && mkdir -p /var/lib/homefabric/state/paa /var/lib/homefabric/out \
    && chown -R homefabric:homefabric /var/lib/homefabric \
    && chmod 755 scripts/up

ENV HOMEFABRIC_DATA=/var/lib/homefabric
USER homefabric
VOLUME ["/var/lib/homefabric"]
EXPOSE 5540/udp 8080/tcp

HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["/opt/homefabric/scripts/up", "health", "emulator"]
ENTRYPOINT ["/opt/homefabric/scripts/up"]
CMD ["emulator"]
