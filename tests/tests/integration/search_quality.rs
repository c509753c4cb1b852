//! Search quality: a recall floor on a small hand-written corpus, one test per failure
//! class found on BFCL (benches/bfcl_recall.sh), queries in other languages, and the
//! safety ceiling under every kind of query.

use proptest::prelude::*;
use serde_json::json;
use toolwright::runtime::ToolFilter;
use toolwright::{SafetyLevel, Tool, ToolRegistry};

/// A definition: name, description, parameters (name, description), safety.
type Definition = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
    SafetyLevel,
);

/// Definitions written for this test (not BFCL's).
const TOOLS: &[Definition] = &[
    (
        "find_movies",
        "Retrieve a list of movies by genre, director and cast.",
        &[
            ("genre", "A film genre, e.g. comedy"),
            ("cast", "An actor in the movie"),
        ],
        SafetyLevel::Safe,
    ),
    (
        "buy_movie_tickets",
        "Purchase tickets for a movie showing at a theater.",
        &[
            ("show_time", "The showing's start time"),
            ("count", "How many tickets"),
        ],
        SafetyLevel::Cautious,
    ),
    (
        "play_song",
        "Play a music track on a device.",
        &[
            ("track", "The song's title"),
            ("device", "Where to play it"),
        ],
        SafetyLevel::Safe,
    ),
    (
        "lookup_music",
        "Find songs by artist, album, genre or release year.",
        &[
            ("artist", "A singer or band"),
            ("album", "The album's title"),
        ],
        SafetyLevel::Safe,
    ),
    (
        "get_current_weather",
        "Get the current weather conditions (temperature, wind, rain) in a city.",
        &[("city", "The city, e.g. Paris")],
        SafetyLevel::Safe,
    ),
    (
        "weather_forecast",
        "Forecast the weather for the coming days in a location.",
        &[("location", "The place"), ("days", "How many days ahead")],
        SafetyLevel::Safe,
    ),
    (
        "book_flight",
        "Book a flight between two airports on a date.",
        &[
            ("origin", "Departure airport"),
            ("destination", "Arrival airport"),
            ("date", "Travel date"),
        ],
        SafetyLevel::Dangerous,
    ),
    (
        "reserve_hotel",
        "Reserve a hotel room in a city for a number of nights.",
        &[("city", "Where"), ("nights", "How many nights")],
        SafetyLevel::Dangerous,
    ),
    (
        "find_restaurants",
        "Search restaurants by cuisine and city.",
        &[("cuisine", "The kind of food"), ("city", "Where")],
        SafetyLevel::Safe,
    ),
    (
        "convert_currency",
        "Convert an amount of money between currencies using exchange rates.",
        &[
            ("amount", "How much"),
            ("from_currency", "e.g. USD"),
            ("to_currency", "e.g. EUR"),
        ],
        SafetyLevel::Safe,
    ),
    (
        "calculate_compound_interest",
        "Compute compound interest on a principal at an annual rate.",
        &[
            ("principal", "The invested amount"),
            ("rate", "Annual interest rate"),
            ("years", "Duration"),
        ],
        SafetyLevel::Safe,
    ),
    (
        "solve_quadratic_equation",
        "Find the roots of a quadratic equation from its coefficients.",
        &[
            ("a", "Coefficient of x squared"),
            ("b", "Coefficient of x"),
            ("c", "Constant"),
        ],
        SafetyLevel::Safe,
    ),
    (
        "triangle_area",
        "Calculate the area of a triangle from its base and height.",
        &[("base", "Base length"), ("height", "Height")],
        SafetyLevel::Safe,
    ),
    (
        "final_velocity",
        "Calculate the final velocity of an object under constant acceleration.",
        &[
            ("initial_velocity", "Starting speed"),
            ("acceleration", "In m/s^2"),
            ("time", "Seconds"),
        ],
        SafetyLevel::Safe,
    ),
    (
        "list_servers",
        "List the configured database servers, optionally of one type.",
        &[("server_type", "postgres, mysql or all")],
        SafetyLevel::Safe,
    ),
    (
        "add_postgres_server",
        "Add a PostgreSQL server to the configuration with host and credentials.",
        &[("host", "The server's host"), ("password", "The password")],
        SafetyLevel::Dangerous,
    ),
    (
        "get_pods",
        "List the Kubernetes pods of a namespace.",
        &[("namespace", "The namespace")],
        SafetyLevel::Safe,
    ),
    (
        "send_email",
        "Send an email message to a recipient.",
        &[("to", "Recipient address"), ("body", "The message")],
        SafetyLevel::Dangerous,
    ),
    (
        "create_todo",
        "Add a task to the todo list.",
        &[("task", "What to do")],
        SafetyLevel::Cautious,
    ),
    (
        "translate_text",
        "Translate text from one language into another.",
        &[
            ("text", "What to translate"),
            ("target_language", "Into which language"),
        ],
        SafetyLevel::Safe,
    ),
    (
        "get_stock_price",
        "Get the latest price of a stock by its ticker symbol.",
        &[("ticker", "e.g. AAPL")],
        SafetyLevel::Safe,
    ),
    (
        "t_test",
        "Run Student's t-test on two samples.",
        &[("sample_a", "First sample"), ("sample_b", "Second sample")],
        SafetyLevel::Safe,
    ),
    (
        "restart_service",
        "Restart a system service that has stopped.",
        &[("service", "The service's unit name")],
        SafetyLevel::Dangerous,
    ),
    (
        "get_user_profile",
        "Fetch a user's profile by their user id.",
        &[("user_id", "The user's id")],
        SafetyLevel::Safe,
    ),
    (
        "delete_file",
        "Delete a file from the workspace permanently.",
        &[("path", "The file's path")],
        SafetyLevel::Dangerous,
    ),
    (
        "read_file",
        "Read a text file from the workspace.",
        &[("path", "The file's path")],
        SafetyLevel::Safe,
    ),
    (
        "get_player_goals",
        "Fetch the all-time goals a football player scored for a team.",
        &[("player", "The player's name"), ("team", "The club")],
        SafetyLevel::Safe,
    ),
    (
        "recipe_search",
        "Search cooking recipes by a keyword or an ingredient.",
        &[("keyword", "e.g. steak")],
        SafetyLevel::Safe,
    ),
    (
        "web_search",
        "Search the web for up-to-date information with keywords.",
        &[("query", "The keywords")],
        SafetyLevel::Safe,
    ),
    (
        "element_discoverer",
        "Tell who discovered a chemical element.",
        &[("element", "The element's name")],
        SafetyLevel::Safe,
    ),
];

/// Questions written for this test, with the tool each needs.
const QUESTIONS: &[(&str, &str)] = &[
    ("Find me a comedy movie starring Jim Carrey", "find_movies"),
    (
        "I need two tickets for Space Adventure at 7:30 pm",
        "buy_movie_tickets",
    ),
    ("Play Bohemian Rhapsody on the kitchen speaker", "play_song"),
    (
        "What songs did Little Mix put out on the album Get Weird?",
        "lookup_music",
    ),
    (
        "What's the temperature in Bangkok right now?",
        "get_current_weather",
    ),
    (
        "Will it rain in Seattle over the next three days?",
        "weather_forecast",
    ),
    (
        "Book a flight from Seattle to Boston on May 3",
        "book_flight",
    ),
    (
        "I need a hotel room in Boston for 4 nights",
        "reserve_hotel",
    ),
    (
        "Any good sushi restaurants in Santa Clara?",
        "find_restaurants",
    ),
    ("How many euros is 5000 US dollars?", "convert_currency"),
    (
        "I invested $5000 at 5% a year, compounded quarterly: what is it worth after 10 years?",
        "calculate_compound_interest",
    ),
    (
        "What are the roots of 2x^2 + 3x - 4?",
        "solve_quadratic_equation",
    ),
    (
        "Area of a triangle with base 10 and height 5",
        "triangle_area",
    ),
    (
        "An object starts from rest and accelerates at 9.8 m/s^2 for 5 seconds: how fast is it going?",
        "final_velocity",
    ),
    (
        "List all PostgreSQL servers from our environment",
        "list_servers",
    ),
    (
        "Add a new postgres server at db.example.com",
        "add_postgres_server",
    ),
    (
        "can you list my kubernetes pods in the namespace cascade?",
        "get_pods",
    ),
    ("Email my boss that I'll be late", "send_email"),
    (
        "can you create todo for 'go shopping at 9 pm'",
        "create_todo",
    ),
    ("Translate 'good morning' into Japanese", "translate_text"),
    ("What's Apple's stock price today?", "get_stock_price"),
    (
        "Are these two samples significantly different? Run a t-test",
        "t_test",
    ),
    (
        "The nginx service won't start, restart it",
        "restart_service",
    ),
    ("Show the profile of user 7890", "get_user_profile"),
    ("Remove the file notes.txt", "delete_file"),
    ("What's in the file notes.txt?", "read_file"),
    (
        "How many goals has Messi scored for Barcelona?",
        "get_player_goals",
    ),
    ("How do I cook a steak? Find me a recipe", "recipe_search"),
    ("Search the internet for the history of kites", "web_search"),
    ("Who discovered radium?", "element_discoverer"),
];

fn registry() -> ToolRegistry {
    let registry = ToolRegistry::new();
    for (name, description, params, safety) in TOOLS {
        let properties: serde_json::Map<String, serde_json::Value> = params
            .iter()
            .map(|(p, d)| ((*p).to_owned(), json!({"type": "string", "description": d})))
            .collect();
        let tool = Tool::builder(*name)
            .description(*description)
            .input_schema(json!({"type": "object", "properties": properties}))
            .safety(*safety)
            .handler(|_| async { "ok" })
            .build()
            .unwrap();
        registry.register(tool).unwrap();
    }
    registry
}

fn top(registry: &ToolRegistry, query: &str, k: usize) -> Vec<String> {
    registry
        .search(query, k)
        .iter()
        .map(|hit| hit.tool.name().to_owned())
        .collect()
}

#[test]
fn recall_floor_on_a_hand_written_corpus() {
    let registry = registry();
    let (mut at_1, mut at_5) = (0, 0);
    let mut misses = Vec::new();
    for (question, expected) in QUESTIONS {
        let found = top(&registry, question, 5);
        at_1 += usize::from(found.first().is_some_and(|n| n == expected));
        if found.iter().any(|n| n == expected) {
            at_5 += 1;
        } else {
            misses.push(format!("{question} -> {found:?} (wanted {expected})"));
        }
    }
    eprintln!(
        "recall floor: {at_1} first, {at_5} in the top 5 of {}",
        QUESTIONS.len()
    );
    // 30 questions; the one allowed miss is a word no tool has ("euros" and "dollars" for
    // `convert_currency`, which says "currencies"): lexical search cannot bridge it.
    assert!(at_5 >= 29, "only {at_5} in the top 5; missed: {misses:#?}");
    assert!(at_1 >= 26, "only {at_1} first; misses: {misses:#?}");
}

#[test]
fn plural_and_singular_meet() {
    let registry = registry();
    // "movie" and "movies" were "movi" and "movy" before.
    assert_eq!(top(&registry, "recommend a movie", 1), ["find_movies"]);
    assert_eq!(
        top(&registry, "which servers are configured", 1),
        ["list_servers"]
    );
}

#[test]
fn stray_fragments_do_not_match_short_names() {
    let registry = registry();
    // The `t` of "won't" matched `t_test` (name and description) before.
    let found = top(&registry, "the web service won't start", 3);
    assert_eq!(found.first().map(String::as_str), Some("restart_service"));
    assert!(!found.iter().any(|n| n == "t_test"), "{found:?}");
}

#[test]
fn camel_case_and_digits_split() {
    let registry = ToolRegistry::new();
    for (name, param) in [("lookup_ruler", "monarchName"), ("lookup_city", "cityName")] {
        registry
            .register(
                Tool::builder(name)
                    .description("Look a record up.")
                    .input_schema(
                        json!({"type": "object", "properties": {param: {"type": "string"}}}),
                    )
                    .handler(|_| async { "ok" })
                    .build()
                    .unwrap(),
            )
            .unwrap();
    }
    assert_eq!(
        top(&registry, "which monarch ruled in 1800", 1),
        ["lookup_ruler"]
    );
}

#[test]
fn near_copies_wait_behind_distinct_tools() {
    let registry = ToolRegistry::new();
    for (name, description) in [
        ("get_weather", "Get the current weather of a city."),
        ("get_weather_2", "Retrieve the current weather for a city."),
        ("get_weather_v3", "Current weather of a city, fetched now."),
        (
            "github_search_issues",
            "Search the issues of a repository by their text.",
        ),
        (
            "gitlab_search_issues",
            "Search the issues of a repository by their text.",
        ),
        (
            "weather_alerts",
            "Severe weather alerts in force for a region.",
        ),
        (
            "search_code",
            "Search the code of a repository for a pattern.",
        ),
    ] {
        registry
            .register(
                Tool::builder(name)
                    .description(description)
                    .handler(|_| async { "ok" })
                    .build()
                    .unwrap(),
            )
            .unwrap();
    }
    // Three versions of one tool filled the first page before.
    let found = top(&registry, "current weather", 2);
    assert_eq!(found, ["get_weather", "weather_alerts"]);
    assert_eq!(
        top(&registry, "current weather", 4).len(),
        4,
        "copies come later, not never"
    );
    let found = top(&registry, "search repository issues", 2);
    assert!(found.contains(&"search_code".to_owned()), "{found:?}");
}

#[test]
fn queries_in_any_language_get_best_guesses() {
    let registry = registry();
    for query in [
        "Wie wird das Wetter morgen in Paris?",
        "明天巴黎的天气怎么样",
        "스테이크 만드는 법 알려줘",
        "¿Cuál es la temperatura en Madrid?",
        "zyzzyva",
        "the a of",
        "12345",
    ] {
        let hits = registry.search(query, 5);
        assert!(
            !hits.is_empty() && hits.len() <= 5,
            "{query}: {} hits",
            hits.len()
        );
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score), "{query}");
    }
    // A typo or a cognate still finds its word by its letters.
    assert_eq!(top(&registry, "temperatura", 1), ["get_current_weather"]);
    // Nothing asked, nothing found.
    assert!(registry.search("", 5).is_empty());
    assert!(registry.search(" ?! ", 5).is_empty());
    assert!(ToolRegistry::new().search("weather", 5).is_empty());
}

/// Queries of every kind: the words of the tools' own names and descriptions, other
/// scripts, nonsense, punctuation.
fn any_query() -> impl Strategy<Value = String> {
    let words: Vec<String> = TOOLS
        .iter()
        .flat_map(|(name, description, _, _)| {
            name.split('_')
                .chain(description.split(' '))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .chain(["天气", "Wetter", "won't", "t", "2", "", "?"].map(str::to_owned))
        .collect();
    prop_oneof![
        proptest::collection::vec(proptest::sample::select(words), 0..8).prop_map(|w| w.join(" ")),
        "\\PC{0,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whatever the query (and whichever fallback answers it), no tool above the ceiling,
    /// and no disabled tool, is ever returned.
    #[test]
    fn the_ceiling_holds_for_every_query(query in any_query(), limit in 1_usize..40) {
        let registry = registry();
        registry.set_enabled("read_file", false).unwrap();
        for ceiling in [SafetyLevel::Safe, SafetyLevel::Cautious] {
            let filter = ToolFilter::new().max_safety(ceiling);
            let hits = registry.search_filtered(&query, limit, &filter);
            prop_assert!(hits.len() <= limit);
            for hit in &hits {
                prop_assert!(hit.tool.safety() <= ceiling, "{} for {query:?}", hit.tool.name());
                prop_assert!(hit.tool.name() != "read_file");
            }
            if query.chars().any(char::is_alphanumeric) {
                prop_assert!(!hits.is_empty(), "nothing for {query:?}");
            }
        }
    }
}
