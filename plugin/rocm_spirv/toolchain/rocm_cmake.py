"""ROCm's CMake modules (rocm-cmake): which version is installed and which modules it lacks.

Real ROCm libraries (the primitives, BLAS and sparse libraries) ask for
`find_package(ROCmCMakeBuildTools 0.11.0 CONFIG)`, then `find_package(ROCM 0.11.0)`,
and download rocm-cmake when neither is found, which fails offline. No registry has
0.11 (Debian's rocm-cmake is 0.8.0, PyPI has none), so doctor says what is missing.
"""

from __future__ import annotations

import glob
import re
from dataclasses import dataclass, field
from pathlib import Path

REQUIRED = "0.11.0"
# The modules rocm-cmake >= 0.11 ships (ROCm/rocm-cmake, share/rocmcmakebuildtools/cmake).
MODULES = ("ROCMArchitecture", "ROCMCheckTargetIds", "ROCMChecks", "ROCMClangTidy", "ROCMCppCheck",
           "ROCMCreatePackage", "ROCMDocs", "ROCMFetchContent", "ROCMHeaderWrapper", "ROCMInstallTargets",
           "ROCMPackageConfigHelpers", "ROCMSetupVersion", "ROCMSphinxDoc", "ROCMTest", "ROCMUtilities",
           "ROCMVersionResource")
# The package names, newest first: 0.11 renamed ROCM to ROCmCMakeBuildTools (ROCM stays as a shim).
PACKAGES = ("ROCmCMakeBuildTools", "ROCM")
REMEDY = (f"no registry has rocm-cmake >= {REQUIRED} (Debian's is 0.8.0, PyPI has none): a project that asks "
          f"for find_package(ROCmCMakeBuildTools {REQUIRED}) or find_package(ROCM {REQUIRED}) downloads it, "
          "which fails offline; give it a rocm-cmake >= 0.11 source tree with "
          "-DROCmCMakeBuildTools_DIR=<rocm-cmake>/share/rocmcmakebuildtools/cmake")


@dataclass(frozen=True)
class RocmCmake:
    package: str  # ROCmCMakeBuildTools | ROCM
    directory: str
    version: str | None
    modules: list[str] = field(default_factory=list)

    @property
    def missing(self) -> list[str]:
        return [m for m in MODULES if m not in self.modules]

    @property
    def new_enough(self) -> bool:
        return _key(self.version) >= _key(REQUIRED)


def _key(version: str | None) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", version or "0"))[:3]


def _version(config_version: Path) -> str | None:
    try:
        text = config_version.read_text(errors="replace")
    except OSError:
        return None
    m = re.search(r'set\(PACKAGE_VERSION\s+"([^"]+)"', text)
    return m.group(1) if m else None


def search_dirs(roots: list[Path]) -> list[Path]:
    dirs = []
    for root in [*roots, Path("/opt/rocm"), Path("/usr/local"), Path("/usr")]:
        dirs += [root / "share" / "rocmcmakebuildtools" / "cmake", root / "share" / "rocm" / "cmake",
                 root / "lib" / "cmake" / "ROCmCMakeBuildTools", root / "lib" / "cmake" / "ROCM"]
    dirs += [Path(p) for p in sorted(glob.glob("/opt/rocm-*/share/rocmcmakebuildtools/cmake"), reverse=True)]
    return dirs


def find_rocm_cmake(roots: list[Path]) -> list[RocmCmake]:
    """Every rocm-cmake install found under the given roots (a prefix, ROCM_PATH) and the system's."""
    found: list[RocmCmake] = []
    seen: set[Path] = set()
    for d in search_dirs(roots):
        for package in PACKAGES:
            config = d / f"{package}Config.cmake"
            if not config.is_file() or config.resolve() in seen:
                continue
            seen.add(config.resolve())
            modules = sorted(p.stem for p in d.glob("ROCM*.cmake"))
            found.append(RocmCmake(package, str(d), _version(d / f"{package}ConfigVersion.cmake"), modules))
    return found


def describe(found: list[RocmCmake]) -> tuple[bool, str]:
    """(new enough, one line) for doctor."""
    good = [f for f in found if f.new_enough and not f.missing]
    if good:
        f = good[0]
        return True, f"{f.package} {f.version} in {f.directory}"
    if not found:
        return False, (f"no rocm-cmake: the ROCm CMake modules {', '.join(MODULES)} and the packages "
                       f"{' and '.join(PACKAGES)} >= {REQUIRED} are missing")
    f = max(found, key=lambda r: _key(r.version))
    lacking = [f"modules {', '.join(f.missing)}"] if f.missing else []
    if not any(r.package == PACKAGES[0] for r in found):
        lacking.insert(0, f"the {PACKAGES[0]} package")
    return False, (f"{f.package} {f.version or '(no version)'} in {f.directory} is older than {REQUIRED}"
                   + (f"; missing: {', '.join(lacking)}" if lacking else ""))
