#!/usr/bin/env bash
# Gate a candidate run against a frozen baseline run and write the reports a reviewer opens.
#
#   examples/ci/gate.sh BASELINE_RUN CANDIDATE_RUN [OUT_DIR]
#
# Exit 0 when the gate passes or warns (a warning is printed as a GitHub Actions annotation), 4 when it blocks on
# what it measured (the candidate is worse), 3 when it refused to judge (compare's JSON says "refused": fewer than
# 3 non-error trials for a case, runs of different datasets, a run without trials) and anything else when the gate
# could not run (bad input, an unreadable run). With AGENT_SECRET naming the variable that holds the agent's
# secret (AGENT_SECRET=OPENAI_API_KEY), an empty one (a pull request from a fork gets no secrets: no agent could
# run) skips the gate with a notice and exit 0. With TRIAGE_RERUNS=N (N > 0), the regressions of a measured BLOCK
# or WARN are rerun N times first, so the reports label each one reproduced, flaky or not reproduced.
set -uo pipefail
baseline=${1:?usage: gate.sh BASELINE_RUN CANDIDATE_RUN [OUT_DIR]}
candidate=${2:?usage: gate.sh BASELINE_RUN CANDIDATE_RUN [OUT_DIR]}
out=${3:-hindcast-report}
secret=${AGENT_SECRET:-}
if [ -n "$secret" ] && [ -z "${!secret:-}" ]; then
  echo "::notice title=Hindcast gate::skipped: \$$secret is empty (secrets do not reach pull requests from forks), so no agent could run"
  exit 0
fi
mkdir -p "$out"

runner report "$candidate" --html "$out/report.html" > "$out/report.txt" || exit $?
runner compare --baseline "$baseline" --candidate "$candidate" --json > "$out/compare.json"
code=$?
# What compare's JSON says of a BLOCK: refused (could not judge) or measured; the refusals' messages.
refused() {
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print("; ".join(f["message"] for f in d["findings"] if f["rule"] == "refused") if d["refused"] else "")' "$out/compare.json" 2>/dev/null
}
why=""
if [ "$code" -eq 4 ]; then
  why=$(refused)
fi
if { [ "$code" -eq 2 ] || [ "$code" -eq 4 ]; } && [ -z "$why" ] && [ "${TRIAGE_RERUNS:-0}" -gt 0 ]; then
  runner triage --baseline "$baseline" --candidate "$candidate" --reruns "$TRIAGE_RERUNS" > "$out/triage.txt" \
    || echo "::warning title=Hindcast triage::runner triage exited $?; the regressions are not labelled"
fi
runner compare --baseline "$baseline" --candidate "$candidate" --html "$out/compare.html" | tee "$out/compare.txt"
code=${PIPESTATUS[0]}
case $code in
  0) echo "Hindcast gate: PASS" ;;
  2) echo "::warning title=Hindcast gate::WARN: a person should look before merging (compare.html)"; code=0 ;;
  4) if [ -n "$why" ]; then
       echo "::error title=Hindcast gate::REFUSED: the gate could not judge: $why"; code=3
     else
       echo "::error title=Hindcast gate::BLOCK: the candidate is worse than the baseline (compare.html)"
     fi ;;
  *) echo "::error title=Hindcast gate::runner compare could not judge (exit $code)" ;;
esac
exit "$code"
