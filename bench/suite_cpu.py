"""Where the test suite's CPU goes: reads what ``TEST_CPU_LOG=folder`` made pytest write
(tests/conftest.py: a line per test, its CPU over its process tree and its wall time) and
prints the CPU by folder, by file, and the costliest tests.

    mkdir -p /tmp/cpu && TEST_CPU_LOG=/tmp/cpu make test
    .venv/bin/python bench/suite_cpu.py /tmp/cpu --top 25

On 2 cores the suite's wall time is bound by its CPU (docs/performance.md): a test's CPU
is what it costs the run, whatever its wall time while sharing the cores.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path


def read(folder: Path) -> list[tuple[str, float, float]]:
    rows = []
    for log in sorted(folder.glob("*.tsv")):
        for line in log.read_text().splitlines():
            nodeid, cpu, wall = line.split("\t")
            rows.append((nodeid, float(cpu), float(wall)))
    return rows


def table(title: str, totals: dict[str, list[float]], limit: int) -> None:
    print(f"\n{title:70} {'CPU s':>8} {'wall s':>8} {'tests':>6}")
    for name, (cpu, wall, count) in sorted(totals.items(), key=lambda kv: -kv[1][0])[:limit]:
        print(f"{name[:70]:70} {cpu:8.1f} {wall:8.1f} {count:6.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    rows = read(args.folder)
    by_folder: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    by_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for nodeid, cpu, wall in rows:
        path = nodeid.split("::")[0]
        for key, totals in ((path.rsplit("/", 1)[0], by_folder), (path, by_file)):
            totals[key][0] += cpu
            totals[key][1] += wall
            totals[key][2] += 1
    cpu, wall = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"{len(rows)} tests, {cpu:.0f} s of CPU, {wall:.0f} s of wall summed")
    table("folder", by_folder, 20)
    table("file", by_file, args.top)
    tests = {nodeid: [cpu, wall, 1] for nodeid, cpu, wall in rows}
    table("test", tests, args.top)


if __name__ == "__main__":
    main()
