#!/usr/bin/env bash
# The main job on the bundled demo: mine the demo application's history, prove the approved cases, and score
# two scripted agents on them.
set -euo pipefail
cd "$(dirname "$0")/.."
agents="$PWD/demo/agents"
python demo/build_app.py demo/app --force

# 1. Mine the history: fixes already approved are skipped; new fix commits become candidates for review.
miner scan --repo demo/app --corpus demo/corpus --full

# 2. Check the corpus and prove every approved case (base fails its hidden grader, oracle passes).
runner validate --corpus demo/corpus
runner verify --corpus demo/corpus --jobs 2

# 3. Score two scripted agents, three trials per case: one carries the right fixes, one changes nothing. Each
#    trial runs in its own bubblewrap sandbox, which shows the agents' scripts read-only (--agent-bind).
rm -rf demo/results
runner run --corpus demo/corpus --all --trials 3 --jobs 4 --results-dir demo/results --agent-bind "$agents" --name demo \
  --agent "fixer=python $agents/fixer.py {case_id}" \
  --agent "noop=python $agents/noop.py {prompt_file}"
runner report demo/results/latest --html demo/results/report.html > /dev/null

# 4. Gate the agent that changes nothing against the one that fixes: two variants of the same run. Every case
#    regresses, a critical one among them, so the gate blocks (exit 4), as it must.
gate=0
runner compare --baseline demo/results/demo --baseline-variant fixer --candidate demo/results/demo \
  --candidate-variant noop --html demo/results/compare.html > demo/results/compare.txt || gate=$?
[ "$gate" -eq 4 ] || { echo "demo: the gate should block the noop agent (exit 4), it exited $gate" >&2; exit 1; }
echo "gate, noop against fixer: $(tail -n 1 demo/results/compare.txt)"
echo "html report: demo/results/report.html, comparison: demo/results/compare.html"
echo "review the new candidates with: authoring review --corpus demo/corpus"
