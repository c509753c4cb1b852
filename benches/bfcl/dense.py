"""Would an embedding ranker earn its place? (BENCHMARKS.md, "Search recall on BFCL"): ranks
BFCL's definitions with WordLlama, the one small embedding model this machine and CI can
reach (its 16 MB, 256-dimension static token embeddings ship inside the `wordllama` wheel
on PyPI; Hugging Face is not reachable here), alone and fused with `search_tools`' ranking
from the dump `bfcl_recall` writes (its `deep` field: the top 200 with scores). Prints
recall@1/5/10 for each ranker on all questions.

Fusions tried: a linear mix of the lexical score (divided by the query's best) and the
cosine, and reciprocal rank fusion (1 / (k + rank), dense weighted by w).

Usage: VENV/bin/python benches/bfcl/dense.py DATA_DIR DUMP_FILE, where VENV has
`wordllama==0.4.0.post1` (benches/bfcl_recall.sh with DENSE=1 makes it).
"""

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import wordllama
from wordllama import WordLlama


def load_model():
    """WordLlama's bundled files, without its download fallback (no network here)."""
    package = Path(wordllama.__file__).parent
    cache = Path(tempfile.mkdtemp(prefix="wordllama-"))
    for folder, name in [
        ("tokenizers", "l2_supercat_tokenizer_config.json"),
        ("weights", "l2_supercat_256.safetensors"),
    ]:
        (cache / folder).mkdir()
        (cache / folder / name).symlink_to(package / folder / name)
    return WordLlama.load(cache_dir=str(cache), disable_download=True)


def document(tool):
    """The text `search_tools` indexes: name, description, parameter names and descriptions."""
    properties = (tool.get("schema") or {}).get("properties") or {}
    params = " ".join(
        f"{name} {spec.get('description', '')}"
        for name, spec in properties.items()
        if isinstance(spec, dict)
    )
    name = tool["original"].replace(".", " ").replace("_", " ")
    return f"{name}. {tool['description']} {params}"


def main():
    data, dump_path = sys.argv[1], sys.argv[2]
    with open(f"{data}/tools.jsonl", encoding="utf-8") as f:
        tools = [json.loads(line) for line in f]
    with open(f"{data}/questions.jsonl", encoding="utf-8") as f:
        questions = [json.loads(line) for line in f]
    with open(dump_path, encoding="utf-8") as f:
        dump = [json.loads(line) for line in f]
    names = [t["name"] for t in tools]
    index = {n: i for i, n in enumerate(names)}
    original = {t["name"]: t["original"] for t in tools}

    model = load_model()
    docs = model.embed([document(t) for t in tools], norm=True)
    queries = model.embed([q["query"] for q in questions], norm=True)
    cosine = queries @ docs.T

    def recall(rank, label):
        found = {1: 0, 5: 0, 10: 0}
        for i, (question, row) in enumerate(zip(questions, dump)):
            top = rank(i, row)
            for k in found:
                functions = {original[n] for n in top[:k]}
                found[k] += all(original.get(g, g) in functions for g in question["gold"])
        cells = "  ".join(f"recall@{k} {v / len(questions):.3f}" for k, v in found.items())
        print(f"{label:<32} {cells}")

    def lexical(i, row):
        return [name for name, _ in row["deep"]]

    def dense(i, row):
        return [names[j] for j in np.argsort(-cosine[i])[:10]]

    def linear(alpha):
        def rank(i, row):
            scores = dict(row["deep"])
            best = max(scores.values(), default=0.0) or 1.0
            candidates = set(scores) | {names[j] for j in np.argsort(-cosine[i])[:50]}
            mixed = {
                n: (1 - alpha) * scores.get(n, 0.0) / best + alpha * cosine[i][index[n]]
                for n in candidates
            }
            return sorted(candidates, key=lambda n: -mixed[n])[:10]

        return rank

    def rrf(k, weight):
        def rank(i, row):
            lexical_rank = {name: r for r, (name, _) in enumerate(row["deep"])}
            dense_rank = {names[j]: r for r, j in enumerate(np.argsort(-cosine[i])[:200])}
            candidates = set(lexical_rank) | set(dense_rank)
            fused = {
                n: (1 / (k + lexical_rank[n]) if n in lexical_rank else 0.0)
                + (weight / (k + dense_rank[n]) if n in dense_rank else 0.0)
                for n in candidates
            }
            return sorted(candidates, key=lambda n: -fused[n])[:10]

        return rank

    recall(lexical, "search_tools (dump, top 200)")
    recall(dense, "wordllama alone")
    for alpha in (0.3, 0.5, 0.6):
        recall(linear(alpha), f"linear mix, dense {alpha}")
    for k, weight in ((10, 0.5), (10, 1.0), (60, 0.5)):
        recall(rrf(k, weight), f"rrf k={k}, dense weight {weight}")


if __name__ == "__main__":
    main()
