//! Define two tools, collect them, print their OpenAI-style schemas, and call one the way a
//! model would: with JSON arguments, first wrong, then right.
//!
//! Run it with `cargo run --example quickstart`.

use toolwright_core::serde_json::json;
use toolwright_core::{SafetyLevel, ToolError, tool};
use toolwright_formats::schema::{Format, tools_to_schema};
use toolwright_runtime::{ToolFilter, register_all_tools};

/// Get the current weather for a city. Use it when the user asks about the weather.
#[tool(categories(weather), tags("forecast"))]
async fn get_weather(
    /// City name, e.g. "Paris"
    city: String,
    /// Temperature unit: "celsius" or "fahrenheit"
    #[arg(default = String::from("celsius"))]
    unit: String,
) -> Result<String, ToolError> {
    let celsius = 18.0;
    match unit.as_str() {
        "celsius" => Ok(format!("{city}: {celsius:.0} °C, light rain")),
        "fahrenheit" => Ok(format!(
            "{city}: {:.0} °F, light rain",
            celsius * 9.0 / 5.0 + 32.0
        )),
        other => Err(ToolError::new(format!(
            "unknown unit `{other}`: use \"celsius\" or \"fahrenheit\""
        ))),
    }
}

/// Add up a list of numbers.
#[tool(categories(math))]
fn sum(
    /// The numbers to add
    numbers: Vec<f64>,
) -> f64 {
    numbers.iter().sum()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Every #[tool] linked into this binary, with no list kept by hand.
    let registry = register_all_tools()?;
    let tools = registry.list(&ToolFilter::new().max_safety(SafetyLevel::Safe));

    println!("== {} tools, as an OpenAI `tools` array ==", tools.len());
    let schemas = tools_to_schema(&tools, Format::OpenAiChat);
    println!(
        "{}",
        toolwright_core::serde_json::to_string_pretty(&schemas)?
    );

    let weather = registry.get("get_weather").ok_or("get_weather is linked")?;
    for arguments in [
        json!({"cty": "Paris"}),
        json!({"city": "Paris"}),
        json!({"city": "Boston", "unit": "fahrenheit"}),
    ] {
        println!("\n== get_weather({arguments}) ==");
        let arguments = arguments.as_object().cloned().unwrap_or_default();
        match weather.call(arguments).await {
            Ok(output) => println!("ok: {}", output.content),
            Err(error) => println!("error for the model: {error}"),
        }
    }
    // The function is still an ordinary function.
    println!("\nsum(1, 2, 3.5) = {}", sum(vec![1.0, 2.0, 3.5]));
    Ok(())
}
