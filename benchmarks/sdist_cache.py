"""PyPI source distributions as held-out trees: downloaded once into a cache, pinned by version and sha256.

A held-out tree is code nobody here wrote: the C/C++ projects that Python bindings vendor unmodified
(llama.cpp in llama-cpp-python, whisper.cpp in pywhispercpp, stable-diffusion.cpp in
stable-diffusion-cpp-python). The sdist is found through PyPI's JSON API, its bytes are checked
against the pinned sha256 before anything is extracted, and the tree is unpacked next to it.
"""

from __future__ import annotations

import json
import os
import shutil
import tarfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from rocm_spirv.fsutil import sha256_file

PYPI_JSON = "https://pypi.org/pypi/{name}/json"
TIMEOUT = 60


class Unavailable(Exception):
    """The sdist is neither cached nor downloadable (offline, moved, or not the pinned bytes)."""


@dataclass(frozen=True)
class Sdist:
    name: str  # the PyPI project
    version: str
    filename: str
    sha256: str


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rocm-spirv" / "benchmarks"


def _url(sdist: Sdist) -> str:
    """The sdist's download URL from the project's JSON (a file's url may be relative to it)."""
    index = PYPI_JSON.format(name=sdist.name)
    try:
        with urllib.request.urlopen(index, timeout=TIMEOUT) as resp:
            data = json.load(resp)
    except (urllib.error.URLError, TimeoutError, OSError) as err:
        raise Unavailable(f"{sdist.name} {sdist.version}: PyPI is not reachable ({err}); offline?") from err
    for f in data.get("releases", {}).get(sdist.version, []):
        if f.get("filename") == sdist.filename:
            return urllib.parse.urljoin(index, f["url"])
    raise Unavailable(f"{sdist.name} {sdist.version}: PyPI lists no {sdist.filename}")


def _download(sdist: Sdist, dest: Path) -> None:
    part = dest.with_suffix(dest.suffix + ".part")
    try:
        with urllib.request.urlopen(_url(sdist), timeout=TIMEOUT) as resp, part.open("wb") as out:
            shutil.copyfileobj(resp, out, 1 << 20)
    except (urllib.error.URLError, TimeoutError, OSError) as err:
        part.unlink(missing_ok=True)
        raise Unavailable(f"{sdist.filename}: download failed ({err}); offline?") from err
    got = sha256_file(part)
    if got != sdist.sha256:
        part.unlink()
        raise Unavailable(f"{sdist.filename}: sha256 {got} is not the pinned {sdist.sha256}")
    part.replace(dest)


def fetch(sdist: Sdist, cache: Path) -> Path:
    """The extracted sdist's top folder, downloading and unpacking it on first use."""
    cache.mkdir(parents=True, exist_ok=True)
    archive = cache / sdist.filename
    top = cache / sdist.filename.removesuffix(".tar.gz")
    done = top / ".sha256"
    if done.is_file() and done.read_text().strip() == sdist.sha256:
        return top
    if not archive.is_file() or sha256_file(archive) != sdist.sha256:
        _download(sdist, archive)
    if top.exists():
        shutil.rmtree(top)
    with tarfile.open(archive) as tar:
        tar.extractall(cache, filter="data")  # the data filter refuses links and paths out of the cache
    if not top.is_dir():
        raise Unavailable(f"{sdist.filename} does not unpack to {top.name}/")
    done.write_text(sdist.sha256 + "\n")
    return top
