"""What stands between `search_tools` and the recall goals on BFCL (BENCHMARKS.md, "Search
recall on BFCL"): reads the per-question dump `bfcl_recall` writes and prints

- the recall@1 ceiling: a question whose ground truth names two functions cannot have both
  first, so recall@1 (every function in the top k) is at most the share of one-function
  questions;
- recall@1 among the one-function questions;
- the misses at 5 where every missing function has a twin in the top 5: a definition whose
  name has the same words once case, separators, numbers, a plural `s` and generic verbs
  (get, find, calculate, ...) are set aside (`stock_price` for `get_stock_price`,
  `weather_get_2` for `Weather_1_GetWeather`). BFCL pools its questions' candidate lists,
  so such twins are other questions' versions of the same function; only one is the
  ground truth, and no ranker can tell which from the question alone.

Usage: python3 benches/bfcl/analyse.py DATA_DIR DUMP_FILE (stdlib only).
"""

import json
import re
import sys

GENERIC = {"get", "find", "calculate", "info", "the", "v", "api"}


def core(name):
    """The words of a name, without case, separators, numbers, plurals or generic verbs."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
    words = [w for w in re.split(r"[_.\d]+", spaced) if w and w not in GENERIC]
    return frozenset(w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words)


def main():
    data, dump_path = sys.argv[1], sys.argv[2]
    with open(f"{data}/tools.jsonl", encoding="utf-8") as f:
        original = {t["name"]: t["original"] for t in map(json.loads, f)}
    with open(dump_path, encoding="utf-8") as f:
        dump = [json.loads(line) for line in f]

    def gold_of(row):
        return {original.get(g, g) for g in row["gold"]}

    multi = [row for row in dump if len(gold_of(row)) > 1]
    single = [row for row in dump if len(gold_of(row)) == 1]
    first = sum(1 for row in single if row["rank"][0] == 1)
    print(f"questions: {len(dump)}; naming two or more functions: {len(multi)}")
    print(f"recall@1 ceiling (one-function questions): {len(single) / len(dump):.3f}")
    print(f"recall@1 among one-function questions: {first / len(single):.3f}")

    misses = twins = 0
    for row in dump:
        top = {original.get(n, n) for n in row["top"][:5]}
        gold = gold_of(row)
        if gold <= top:
            continue
        misses += 1
        cores = {core(n) for n in top}
        if all(g in top or core(g) in cores for g in gold):
            twins += 1
    print(f"misses at 5: {misses}; every missing function has a twin in the top 5: {twins}")
    print(f"recall@5 if twins counted: {(len(dump) - misses + twins) / len(dump):.3f}")


if __name__ == "__main__":
    main()
