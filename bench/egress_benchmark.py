"""What the agent's egress proxy (--agent-network model) costs a trial, side by side in one run.

    python bench/egress_benchmark.py [--trials N] [--rounds R] [--requests K] [--scratch DIR]

A one-case corpus over a two-commit repository made under --scratch (default: the system temp dir), graded by
`true`. Each round runs, back to back:

1. N trials of a no-op agent (`true`) with `--agent-network none` and with `--agent-network model` (the proxy
   started, handed in, stopped and its network.json written per trial): ms per trial, and model / none.
2. N trials of an agent making K sequential HTTP requests to a server on the host: with `--agent-network host`
   (straight to 127.0.0.1) and with `model` (each request through the proxy, to a host name the proxy's test
   table maps to that server): ms per request over the no-op trial, and the ratio.

Medians over rounds.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from corpus import Case, CaseFiles, Corpus, Grader
from runner.runs.manifest import Variant
from runner.sandbox import egress
from runner.settings import Settings
from runner.trial.plan import RunOptions
from runner.trial.run import run

HOST = "bench.model.test"
CLIENT = ("import sys, urllib.request\n"
          "url, count = sys.argv[1], int(sys.argv[2])\n"
          "for _ in range(count):\n"
          "    urllib.request.urlopen(url, timeout=10).read()\n")


class _Ok(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "3")
        self.end_headers()
        self.wfile.write(b"ok\n")

    def log_message(self, format: str, *args: object) -> None:
        pass


def make_corpus(root: Path) -> Corpus:
    repo = root / "repo"
    repo.mkdir()

    def git(*words: str) -> str:
        return subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *words],
                              cwd=repo, capture_output=True, text=True, check=True).stdout.strip()

    git("init", "-q")
    shas = []
    for text in ("one\n", "two\n"):
        (repo / "file.txt").write_text(text)
        git("add", "file.txt")
        git("commit", "-qm", text.strip())
        shas.append(git("rev-parse", "HEAD"))
    corpus = Corpus.init(root / "evals", "bench", repo=str(repo))
    corpus.write(Case(id="bench", title="benchmark", prompt="Nothing to do.\n", base_commit=shas[0],
                      fix_commit=shas[1], grader=Grader(command="true", timeout=60)), CaseFiles.of(b"", {}))
    return corpus


def per_trial(corpus: Corpus, scratch: Path, trials: int, command: str, settings: Settings) -> float:
    """Seconds per trial of a run of trials trials of command."""
    options = RunOptions(all_cases=True, results_dir=scratch / "results", scratch_root=scratch / "work",
                         agent_timeout=120, trials=trials, variants=(Variant("bench", command),), settings=settings)
    started = time.perf_counter()
    loaded = run(corpus, options)
    elapsed = time.perf_counter() - started
    if {t.outcome for t in loaded.trials} != {"pass"}:
        raise SystemExit(f"benchmark trials did not all pass: {[t.reason for t in loaded.trials][:3]}")
    shutil.rmtree(loaded.directory)
    return elapsed / trials


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=10, help="trials per run (default 10)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--requests", type=int, default=50, help="requests of the second agent (default 50)")
    parser.add_argument("--scratch", type=Path, default=None, help="where to write (default: system temp dir)")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="hindcast-egress-bench-", dir=args.scratch))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = int(server.server_address[1])
    egress.TEST_ADDRESSES[(HOST, 80)] = ("127.0.0.1", port)
    python = shlex.quote(sys.executable)
    client = f"{python} -I -c {shlex.quote(CLIENT)}"
    binds = (Path(sys.prefix), Path(sys.base_prefix))
    try:
        corpus = make_corpus(scratch)
        rows: dict[str, list[float]] = {"noop none": [], "noop model": [], "requests host": [],
                                        "requests model": []}
        for _ in range(args.rounds):
            rows["noop none"].append(per_trial(corpus, scratch, args.trials, "true",
                                               Settings(agent_network="none", agent_binds=binds)))
            rows["noop model"].append(per_trial(corpus, scratch, args.trials, "true",
                                                Settings(agent_binds=binds)))
            rows["requests host"].append(per_trial(
                corpus, scratch, args.trials, f"{client} http://127.0.0.1:{port}/ {args.requests}",
                Settings(agent_network="host", agent_binds=binds)))
            rows["requests model"].append(per_trial(
                corpus, scratch, args.trials, f"{client} http://{HOST}/ {args.requests}",
                Settings(agent_binds=binds, agent_allow_hosts=(HOST,))))
        median = {name: statistics.median(values) for name, values in rows.items()}
        print(f"{args.rounds} rounds of {args.trials} trials; medians")
        print(f"no-op agent: {median['noop none'] * 1000:.0f} ms per trial with network none, "
              f"{median['noop model'] * 1000:.0f} ms with model ({median['noop model'] / median['noop none']:.2f}x)")
        host = (median["requests host"] - median["noop none"]) / args.requests * 1000
        model = (median["requests model"] - median["noop model"]) / args.requests * 1000
        print(f"{args.requests} requests: {host:.2f} ms per request straight (host), {model:.2f} ms through the "
              f"proxy (model){f' ({model / host:.2f}x)' if host > 0 else ''}; per trial "
              f"{median['requests host'] * 1000:.0f} ms and {median['requests model'] * 1000:.0f} ms")
    finally:
        server.shutdown()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
