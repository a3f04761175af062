#!/usr/bin/env bash
# The main job on the bundled demo: build the demo application repository, then check and prove its corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
python demo/build_app.py demo/app --force
runner validate --corpus demo/corpus
runner verify --corpus demo/corpus --jobs 2
