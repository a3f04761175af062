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
runner run --corpus demo/corpus --all --trials 3 --jobs 4 --results-dir demo/results --agent-bind "$agents" \
  --agent "fixer=python $agents/fixer.py {case_id}" \
  --agent "noop=python $agents/noop.py {prompt_file}"
runner report demo/results/*/ --html demo/results/report.html > /dev/null
echo "html report: demo/results/report.html; review the new candidates with: authoring review --corpus demo/corpus"
