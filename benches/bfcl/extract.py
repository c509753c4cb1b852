"""Extracts BFCL's function definitions and questions (from the `bfcl-eval` wheel) for the
search recall benchmark (`benches/bfcl_recall.sh`), and ranks them with rank_bm25 as the
baseline.

Writes, into the output folder:
- `tools.jsonl`: one distinct definition (name and description) a line: `name` (made a valid tool name the way the
  gateway does: snake_case, other characters as `_`, cut at 64, a numeric suffix when two
  come out the same), `original` (BFCL's name), `description`, `schema` (BFCL's parameters
  with its Python type names made JSON Schema's: dict -> object, float -> number, tuple ->
  array, any -> no type).
- `questions.jsonl`: one question a line: `id`, `category`, `query` (the user turns, joined),
  `gold` (the tool names of its ground-truth functions) and `bm25` (rank_bm25's top 10 tool
  names on the same documents the registry indexes: name, description, parameter names and
  descriptions, split on non-word characters and lowercased).
"""

import json
import os
import re
import sys

from rank_bm25 import BM25Okapi

import bfcl_eval

# The categories whose ground truth names the function(s) a question needs: single and
# several calls, among one or several offered functions, the curated (python) and the
# user-contributed (live) sets. Left out: java/javascript (the same questions as simple
# in another syntax), irrelevance/relevance (no ground-truth function), multi_turn,
# memory, web_search and format_sensitivity (state machines and agents, not a retrieval
# question with one answer).
CATEGORIES = [
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
]
TYPES = {"dict": "object", "float": "number", "tuple": "array"}
MAX_NAME_LEN = 64


def to_snake_case(name):
    """tool-names' `to_snake_case`, then anything else invalid as `_`."""
    out = []
    previous_lower = False
    for c in name:
        if c.isascii() and c.isupper():
            if previous_lower:
                out.append("_")
            out.append(c.lower())
            previous_lower = False
        elif c in "-. ":
            out.append("_")
            previous_lower = False
        else:
            out.append(c)
            previous_lower = (c.isascii() and c.islower()) or c.isdigit()
    name = re.sub(r"[^a-z0-9_]", "_", "".join(out))
    if not name or not name[0].isalpha():
        name = "f_" + name
    return name[:MAX_NAME_LEN]


def json_schema(value):
    if isinstance(value, dict):
        out = {}
        for key, inner in value.items():
            if key == "type" and isinstance(inner, str):
                if inner == "any":
                    continue
                out[key] = TYPES.get(inner, inner)
            elif key in ("optional",):
                continue
            else:
                out[key] = json_schema(inner)
        return out
    if isinstance(value, list):
        return [json_schema(v) for v in value]
    return value


def words(text):
    return re.findall(r"\w+", text.lower())


def document(tool):
    parts = [tool["name"].replace("_", " "), tool["description"]]
    for pname, prop in (tool["schema"].get("properties") or {}).items():
        parts.append(pname)
        if isinstance(prop, dict) and isinstance(prop.get("description"), str):
            parts.append(prop["description"])
    return words(" ".join(parts))


def main(out_dir):
    data = os.path.join(os.path.dirname(bfcl_eval.__file__), "data")
    tools = {}  # (name, description) -> tool
    names = set()
    questions = []
    for category in CATEGORIES:
        answers = {}
        with open(os.path.join(data, "possible_answer", f"BFCL_v4_{category}.json")) as f:
            for line in f:
                entry = json.loads(line)
                answers[entry["id"]] = entry["ground_truth"]
        with open(os.path.join(data, f"BFCL_v4_{category}.json")) as f:
            for line in f:
                entry = json.loads(line)
                by_original = {}
                for function in entry["function"]:
                    # Distinct by name and description (the same function with a parameter
                    # more or less in another question is one tool; its first definition).
                    key = (function["name"], function.get("description") or "")
                    if key not in tools:
                        name = to_snake_case(function["name"])
                        base, n = name, 2
                        while name in names:
                            suffix = f"_{n}"
                            name = base[: MAX_NAME_LEN - len(suffix)] + suffix
                            n += 1
                        names.add(name)
                        tools[key] = {
                            "name": name,
                            "original": function["name"],
                            "description": function.get("description") or "",
                            "schema": json_schema(function.get("parameters") or {"type": "object"}),
                        }
                    by_original[function["name"]] = tools[key]["name"]
                gold = []
                for call in answers[entry["id"]]:
                    for original in call:
                        if by_original[original] not in gold:
                            gold.append(by_original[original])
                turns = [
                    message["content"]
                    for turn in entry["question"]
                    for message in turn
                    if message.get("role") == "user"
                ]
                questions.append(
                    {"id": entry["id"], "category": category, "query": " ".join(turns), "gold": gold}
                )
    tool_list = list(tools.values())
    bm25 = BM25Okapi([document(t) for t in tool_list])
    for question in questions:
        scores = bm25.get_scores(words(question["query"]))
        best = sorted(range(len(tool_list)), key=lambda i: (-scores[i], i))[:10]
        question["bm25"] = [tool_list[i]["name"] for i in best if scores[i] > 0]
    with open(os.path.join(out_dir, "tools.jsonl"), "w") as f:
        for tool in tool_list:
            f.write(json.dumps(tool) + "\n")
    with open(os.path.join(out_dir, "questions.jsonl"), "w") as f:
        for question in questions:
            f.write(json.dumps(question) + "\n")
    print(f"{len(tool_list)} distinct definitions, {len(questions)} questions", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
