#!/usr/bin/env bash
# Search recall on BFCL (BENCHMARKS.md, "Search recall on BFCL"): installs the pinned
# `bfcl-eval` wheel (its data only, no dependencies) and rank_bm25 from PyPI into a venv
# under the target dir, extracts the function definitions and questions
# (benches/bfcl/extract.py), and prints recall@1/5/10 of `ToolRegistry::search` and of
# rank_bm25 on the same documents (benches/src/bin/bfcl_recall.rs), on all questions, on the
# tuning half and on the held-out half. Not run in CI (it needs PyPI and a release build).
#
# Then benches/bfcl/analyse.py reads the dump: the recall@1 ceiling and the misses that are
# twins of the ground truth. With DENSE=1, benches/bfcl/dense.py also ranks with WordLlama
# (pinned, from PyPI, in a venv of its own) alone and fused with the registry's ranking.
#
# Usage: [DENSE=1] bash benches/bfcl_recall.sh [DUMP_FILE]
#   DUMP_FILE  one JSON line per question (query, gold, both top 10s, ranks); default
#              $CARGO_TARGET_DIR/bfcl/dump.jsonl
# Environment: CARGO_TARGET_DIR (default ./target), PYTHON (default python3).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
target="${CARGO_TARGET_DIR:-$here/target}"
work="$target/bfcl"
dump="${1:-$work/dump.jsonl}"
# Pinned: the data changes between releases, and so would the numbers.
BFCL_EVAL=2026.3.23
RANK_BM25=0.2.2
NUMPY=2.4.6
WORDLLAMA=0.4.0.post1

mkdir -p "$work"
if [[ ! -x "$work/venv/bin/python" ]]; then
    "${PYTHON:-python3}" -m venv "$work/venv"
fi
if ! "$work/venv/bin/python" -c "import bfcl_eval, rank_bm25" 2>/dev/null \
    || [[ "$("$work/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("bfcl-eval"))')" != "$BFCL_EVAL" ]]; then
    echo "bfcl_recall.sh: installing bfcl-eval $BFCL_EVAL and rank_bm25 $RANK_BM25" >&2
    # --no-deps: only the wheel's data is used, not its evaluation harness (which pulls in
    # model SDKs).
    "$work/venv/bin/pip" install --quiet --no-deps "bfcl-eval==$BFCL_EVAL" \
        "rank-bm25==$RANK_BM25" "numpy==$NUMPY"
fi
"$work/venv/bin/python" benches/bfcl/extract.py "$work"
echo "bfcl_recall.sh: building" >&2
cargo build --quiet --release -p benches --bin bfcl_recall
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$target/release/bfcl_recall" "$work" "$dump"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "per-question dump: $dump" >&2
"$work/venv/bin/python" benches/bfcl/analyse.py "$work" "$dump"
if [[ "${DENSE:-0}" == 1 ]]; then
    if [[ ! -x "$work/dense-venv/bin/python" ]]; then
        "${PYTHON:-python3}" -m venv "$work/dense-venv"
    fi
    "$work/dense-venv/bin/pip" install --quiet "wordllama==$WORDLLAMA"
    "$work/dense-venv/bin/python" benches/bfcl/dense.py "$work" "$dump"
fi
