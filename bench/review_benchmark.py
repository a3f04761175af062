"""How fast the review screen is over a big queue.

Usage: python bench/review_benchmark.py [--candidates N] [--moves M] [--size WxH] [--keep DIR]

Generates a corpus of N candidates (default 1,000) with realistic oracle patches (a 40-line hunk) and grader
files, written through `corpus.Corpus.write`, then runs the review app headless (Textual's `run_test`) and
reports:

- time to the first rendered queue: from before `make_app` (opening the corpus and reading every queue row
  included) to the end of the first screen refresh after the review screen has filled the queue;
- time to move the selection and render a diff: with the Oracle tab showing, from the cursor-down action to
  the end of the refresh after the next candidate was loaded, validated and its diff laid out (M moves);
- time for the findings to follow a keystroke: from an edit of the prompt to the end of the refresh after the
  leak findings (computed in a worker thread) were shown.

Timings come from `call_after_refresh` callbacks inside the app, not from the test pilot, whose pauses add
idle-detection sleeps. Targets: first queue under 1 s, a move under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.widgets import TextArea

from authoring.app import make_app
from authoring.leaks import Finding
from authoring.screens.review import ReviewScreen
from authoring.verifying import VerifyOutcome
from authoring.widgets.prompt_editor import PromptEditor
from corpus import Case, CaseFiles, Corpus, Grader, Provenance

Mark = Callable[[], None]


def oracle_patch(index: int) -> bytes:
    """A one-hunk diff replacing a 40-line function body."""
    old = "".join(f"-    total_{index} = compute_line_{n}(items, rate)\n" for n in range(20))
    new = "".join(f"+    total_{index} = compute_line_{n}(items, rate, rounding=HALF_UP)\n" for n in range(20))
    return (f"diff --git a/src/app/module_{index}.py b/src/app/module_{index}.py\n"
            f"index 1111111..2222222 100644\n--- a/src/app/module_{index}.py\n+++ b/src/app/module_{index}.py\n"
            f"@@ -10,22 +10,22 @@ def handler_{index}(items, rate):\n     context line\n{old}{new}"
            f"     return total_{index}\n").encode()


def build_corpus(root: Path, count: int) -> Corpus:
    """count candidates, each with an oracle patch, one grader file and miner provenance."""
    corpus = Corpus.init(root, "bench")
    for index in range(count):
        subject = f"Fix rounding of totals in module {index} when the rate changes"
        case = Case(
            id=f"candidate-{index:04d}", title=subject, prompt=f"DRAFT — rewrite before approving:\n{subject}.\n",
            base_commit=f"{index:040x}", fix_commit=f"{index + 1:040x}".replace("0", "a", 1),
            grader=Grader(command=f"python -m pytest -q tests/test_module_{index}.py"),
            mined=Provenance(score=(index * 7919 % 1000) / 1000, evidence=("adds a test", "subject says fix"),
                             subject=subject, message=subject + "\n", authored="2024-01-02T00:00:00+00:00",
                             test_files=(f"tests/test_module_{index}.py",),
                             source_files=(f"src/app/module_{index}.py",)),
        )
        grader = "".join(f"def test_case_{n}():\n    assert handler_{index}([{n}], 0.2) == {n}\n\n" for n in range(30))
        corpus.write(case, CaseFiles.of(oracle_patch(index), {f"tests/test_module_{index}.py": grader.encode()}),
                     "candidates")
    return corpus


def no_verify(*_: Any) -> VerifyOutcome:
    raise AssertionError("the benchmark never verifies")


async def measure(root: Path, moves: int, size: tuple[int, int]) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    rendered: asyncio.Future[float] = loop.create_future()
    original_mount = ReviewScreen.on_mount
    original_select = ReviewScreen.select
    after_select: list[Mark] = []

    def on_mount(screen: ReviewScreen) -> None:
        original_mount(screen)
        screen.call_after_refresh(lambda: rendered.done() or rendered.set_result(time.perf_counter()))

    def select(screen: ReviewScreen, case_id: str | None) -> None:
        original_select(screen, case_id)
        while after_select:
            screen.call_after_refresh(after_select.pop())

    ReviewScreen.on_mount = on_mount  # type: ignore[method-assign]
    ReviewScreen.select = select  # type: ignore[method-assign]
    try:
        start = time.perf_counter()
        app = make_app(root, verifier=no_verify)
        async with app.run_test(size=size) as pilot:
            first_queue = await rendered - start
            screen = app.screen
            assert isinstance(screen, ReviewScreen)
            await pilot.press("2")  # the Oracle tab: every move renders a diff
            await pilot.pause()
            move_times = []
            for _ in range(moves):
                done: asyncio.Future[float] = loop.create_future()
                after_select.append(lambda done=done: done.set_result(time.perf_counter()))  # type: ignore[misc]
                begin = time.perf_counter()
                screen.query_one("#queue").action_cursor_down()  # type: ignore[attr-defined]
                move_times.append(await done - begin)
                await pilot.pause()
            findings_times = await keystrokes(app, screen, pilot)
            rows = len(screen.session.rows)
    finally:
        ReviewScreen.on_mount = original_mount  # type: ignore[method-assign]
        ReviewScreen.select = original_select  # type: ignore[method-assign]
    return {"rows": rows, "first_queue": first_queue, "moves": move_times, "findings": findings_times}


async def keystrokes(app: Any, screen: ReviewScreen, pilot: Any) -> list[float]:
    """Edit the prompt a few times; time until the findings of each edit are on screen."""
    await pilot.press("4")
    area = screen.query_one("#prompt-text", TextArea)
    editor = screen.query_one(PromptEditor)
    show = editor.show_findings
    times = []
    for word in ("Totals ", "drop ", "cents ", "in ", "module ", "seven. "):
        await pilot.pause()
        await asyncio.sleep(0.05)  # let the previous edit's worker finish
        done: asyncio.Future[float] = asyncio.get_running_loop().create_future()

        def shown(findings: list[Finding] | None, done: asyncio.Future[float] = done) -> None:
            show(findings)
            if not done.done():
                screen.call_after_refresh(lambda: done.done() or done.set_result(time.perf_counter()))

        editor.show_findings = shown  # type: ignore[method-assign]
        begin = time.perf_counter()
        area.insert(word)
        times.append(await done - begin)
        editor.show_findings = show  # type: ignore[method-assign]
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidates", type=int, default=1000, help="Candidates in the generated corpus.")
    parser.add_argument("--moves", type=int, default=50, help="Selection moves to time.")
    parser.add_argument("--size", default="80x24", help="Terminal size, WIDTHxHEIGHT.")
    parser.add_argument("--keep", type=Path, help="Build (or reuse) the corpus here instead of a temp dir.")
    args = parser.parse_args(argv)
    width, height = (int(part) for part in args.size.split("x"))
    with tempfile.TemporaryDirectory(prefix="review-bench-") as scratch:
        root = args.keep or Path(scratch) / "evals"
        if not (root / "corpus.yaml").exists():
            began = time.perf_counter()
            build_corpus(root, args.candidates)
            print(f"generated {args.candidates} candidates in {time.perf_counter() - began:.1f} s", file=sys.stderr)
        result = asyncio.run(measure(root, args.moves, (width, height)))
    moves = sorted(result["moves"])
    findings = sorted(result["findings"])
    print(f"review benchmark: {result['rows']} candidates, terminal {width}x{height}, python {sys.version.split()[0]}")
    print(f"  first rendered queue:        {result['first_queue'] * 1000:7.1f} ms   (target < 1000 ms)")
    print(f"  move selection + diff:       median {statistics.median(moves) * 1000:6.1f} ms, "
          f"p90 {moves[int(len(moves) * 0.9) - 1] * 1000:6.1f} ms, max {moves[-1] * 1000:6.1f} ms over "
          f"{len(moves)} moves   (target < 100 ms)")
    print(f"  findings after a keystroke:  median {statistics.median(findings) * 1000:6.1f} ms, "
          f"max {findings[-1] * 1000:6.1f} ms over {len(findings)} edits")
    ok = result["first_queue"] < 1.0 and statistics.median(moves) < 0.1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
