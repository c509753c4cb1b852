//! Search recall on BFCL's function definitions, run by `bfcl_recall.sh`.
//!
//! Usage: `bfcl_recall DATA_DIR [DUMP_FILE]`, where DATA_DIR holds `tools.jsonl` and
//! `questions.jsonl` from `bfcl/extract.py`. Registers every definition as a runtime tool
//! (`Tool::builder` with its JSON schema, as a new user would), asks `ToolRegistry::search`
//! for each question's top 10, and prints recall@1/5/10 and the share of questions that got
//! no answer at all, for the registry's search and for rank_bm25 (ranked by the extract
//! script on the same documents), on all questions and on each half of a fixed split (the
//! half a change was tuned on and the held-out half). A question counts as found at k when
//! every function its ground truth names is among the top k, by BFCL's name: BFCL has
//! several definitions of one name (a description worded differently in another
//! question), and any of them is that function. For a question that needs two functions,
//! recall@1 cannot count it. DUMP_FILE gets one JSON line per question
//! (query, gold, both rankings) to study the misses.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::time::Instant;

use serde_json::{Value, json};
use toolwright_core::Tool;
use toolwright_runtime::ToolRegistry;

const KS: [usize; 3] = [1, 5, 10];

fn read_lines(path: &str) -> Result<Vec<Value>, String> {
    let file = File::open(path).map_err(|e| format!("{path}: {e}; run bfcl_recall.sh"))?;
    BufReader::new(file)
        .lines()
        .map(|line| {
            let line = line.map_err(|e| format!("{path}: {e}"))?;
            serde_json::from_str(&line).map_err(|e| format!("{path}: {e}"))
        })
        .collect()
}

fn text(value: &Value, key: &str) -> String {
    value[key].as_str().unwrap_or_default().to_owned()
}

fn names(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The half a question falls in, by a fixed hash of its id (FNV-1a): 0 tunes, 1 is held out.
fn half(id: &str) -> usize {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in id.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (hash >> 7) as usize & 1
}

#[derive(Default, Clone, Copy)]
struct Tally {
    questions: usize,
    found: [usize; 3],
    empty: usize,
}

impl Tally {
    fn add(&mut self, gold: &[String], ranked: &[String]) {
        self.questions += 1;
        if ranked.is_empty() {
            self.empty += 1;
        }
        for (i, k) in KS.iter().enumerate() {
            let top = &ranked[..ranked.len().min(*k)];
            if gold.iter().all(|g| top.contains(g)) {
                self.found[i] += 1;
            }
        }
    }

    fn line(&self, label: &str) -> String {
        let share = |n: usize| n as f64 / self.questions.max(1) as f64;
        format!(
            "{label:<28} {:>5} questions  recall@1 {:.3}  recall@5 {:.3}  recall@10 {:.3}  no answer {:.3}",
            self.questions,
            share(self.found[0]),
            share(self.found[1]),
            share(self.found[2]),
            share(self.empty),
        )
    }
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or("usage: bfcl_recall DATA_DIR [DUMP_FILE]")?;
    let dump = args.next();
    let tools = read_lines(&format!("{dir}/tools.jsonl"))?;
    let questions = read_lines(&format!("{dir}/questions.jsonl"))?;

    let original: HashMap<String, String> = tools
        .iter()
        .map(|tool| (text(tool, "name"), text(tool, "original")))
        .collect();
    let originals = |list: &[String]| -> Vec<String> {
        list.iter()
            .map(|name| original.get(name).cloned().unwrap_or_else(|| name.clone()))
            .collect()
    };
    let registry = ToolRegistry::new();
    let mut rejected = Vec::new();
    for tool in &tools {
        let name = text(tool, "name");
        let built = Tool::builder(name.clone())
            .description(text(tool, "description"))
            .input_schema(tool["schema"].clone())
            .handler(|_| async { "ok" })
            .build();
        match built.map_err(|e| e.to_string()).and_then(|tool| {
            registry
                .register(tool)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }) {
            Ok(()) => {}
            Err(error) => rejected.push(format!("{name}: {error}")),
        }
    }
    println!(
        "{} tools registered, {} rejected{}",
        registry.len(),
        rejected.len(),
        rejected
            .first()
            .map(|r| format!(" (first: {r})"))
            .unwrap_or_default()
    );

    // The first search builds the index; keep it out of the per-query time.
    let started = Instant::now();
    let _ = registry.search("warm up", 1);
    let index_time = started.elapsed();

    let mut ours = [Tally::default(); 3];
    let mut baseline = [Tally::default(); 3];
    let mut out = match &dump {
        Some(path) => Some(BufWriter::new(
            File::create(path).map_err(|e| format!("{path}: {e}"))?,
        )),
        None => None,
    };
    let mut search_time = std::time::Duration::ZERO;
    for question in &questions {
        let id = text(question, "id");
        let query = text(question, "query");
        let gold = names(&question["gold"]);
        let bm25 = names(&question["bm25"]);
        let started = Instant::now();
        let hits = registry.search(&query, 10);
        search_time += started.elapsed();
        let ranked: Vec<String> = hits.iter().map(|h| h.tool.name().to_owned()).collect();
        let h = half(&id);
        let (gold_functions, found, bm25_found) =
            (originals(&gold), originals(&ranked), originals(&bm25));
        for slot in [2, h] {
            ours[slot].add(&gold_functions, &found);
            baseline[slot].add(&gold_functions, &bm25_found);
        }
        if let Some(out) = &mut out {
            let rank = |list: &[String]| -> Vec<Option<usize>> {
                gold_functions
                    .iter()
                    .map(|g| list.iter().position(|n| n == g).map(|p| p + 1))
                    .collect()
            };
            let line = json!({
                "id": id, "half": h, "category": text(question, "category"), "query": query,
                "gold": gold, "rank": rank(&found), "bm25_rank": rank(&bm25_found),
                "top": ranked, "bm25": bm25,
                // The top 200 with scores, for fusing with another ranker
                // (benches/bfcl/dense.py).
                "deep": registry.search(&query, 200).iter()
                    .map(|h| json!([h.tool.name(), h.score])).collect::<Vec<_>>(),
            });
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
    }
    for (label, tallies) in [("search_tools", &ours), ("rank_bm25", &baseline)] {
        println!("{}", tallies[2].line(&format!("{label}, all")));
        println!("{}", tallies[0].line(&format!("{label}, tuning half")));
        println!("{}", tallies[1].line(&format!("{label}, held-out half")));
    }
    println!(
        "index built in {:.1} ms; {:.1} µs a query on average ({} queries, {} tools)",
        index_time.as_secs_f64() * 1e3,
        search_time.as_secs_f64() * 1e6 / questions.len().max(1) as f64,
        questions.len(),
        registry.len()
    );
    if let Some(mut out) = out {
        out.flush().map_err(|e| e.to_string())?;
    }
    Ok(())
}
