"""`migrate --output-format sarif` validates against the SARIF 2.1.0 schema (OASIS, final rtm.5), taken
from the npm registry (`@microsoft/jest-sarif`, which bundles it; pinned by sha256) into a cache once."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import REPO
from rocm_spirv.cli import main

PACKAGE = "@microsoft/jest-sarif@1.0.0-beta.0"
TARBALL = "microsoft-jest-sarif-1.0.0-beta.0.tgz"
SHA256 = "748e2c3d1a842e7bb258416685c7ea3a0da40005b72267b2052c2856d48ad102"
MEMBER = "package/lib/schemas/sarif-2.1.0-rtm.5.json"
TREES = [REPO / "tests" / "data" / "example_collection", REPO / "samples" / "migration", REPO / "tests" / "data"]


@pytest.fixture(scope="module")
def sarif_schema() -> dict[str, Any]:
    cache = Path(os.environ.get("ROCM_SPIRV_TEST_NPM_CACHE", Path.home() / ".cache" / "rocm-spirv-tests" / "npm"))
    tarball = cache / TARBALL
    if not tarball.is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip(f"npm is not on PATH: it fetches the SARIF 2.1.0 schema ({PACKAGE}) once")
        cache.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([npm, "pack", PACKAGE, "--pack-destination", str(cache)], capture_output=True,
                              text=True, check=False, timeout=300)
        if done.returncode != 0:
            pytest.skip(f"npm pack {PACKAGE} failed (no registry?): {done.stderr.strip()[-300:]}")
    data = tarball.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SHA256, f"{tarball} is not the pinned {PACKAGE}"
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        member = tar.extractfile(MEMBER)
        assert member is not None
        schema: dict[str, Any] = json.load(member)
    return schema


@pytest.mark.parametrize("tree", TREES, ids=[t.name for t in TREES])
def test_sarif_validates(tree: Path, sarif_schema: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", str(tree), "--output-format", "sarif"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["runs"][0]["results"], "a tree with findings"
    validator = jsonschema.validators.validator_for(sarif_schema)(sarif_schema)
    assert [e.message for e in validator.iter_errors(doc)] == []
    broken = {**doc, "runs": [{**doc["runs"][0], "results": [{"level": "fatal"}]}]}
    assert list(validator.iter_errors(broken)), "the schema check can fail"
