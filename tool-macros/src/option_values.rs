//! The values of `#[tool]`'s options, checked at compile time: the safety level, task
//! support, version, timeout and call limit (each error at its token).

use proc_macro2::Span;
use syn::{Expr, Ident, LitStr};
use toolwright_names::did_you_mean;

use crate::errors::Errors;

pub(crate) fn check_safety(lit: Option<&LitStr>, errors: &mut Errors) -> Ident {
    const LEVELS: [(&str, &str); 3] = [
        ("safe", "Safe"),
        ("cautious", "Cautious"),
        ("dangerous", "Dangerous"),
    ];
    let Some(lit) = lit else {
        return Ident::new("Safe", Span::call_site());
    };
    let value = lit.value();
    match LEVELS.iter().find(|(level, _)| *level == value) {
        Some((_, variant)) => Ident::new(variant, lit.span()),
        None => {
            let expected = "expected \"safe\", \"cautious\" or \"dangerous\"";
            let message = match did_you_mean(
                &value.to_lowercase(),
                LEVELS.iter().map(|(level, _)| *level),
            ) {
                Some(close) => format!(
                    "unknown safety level `{value}`: did you mean \"{close}\"? ({expected})"
                ),
                None => format!("unknown safety level `{value}`: {expected}"),
            };
            errors.at(lit, message);
            Ident::new("Safe", Span::call_site())
        }
    }
}

/// `task = "optional"` or `"required"` (or `"forbidden"`, the default, said explicitly).
pub(crate) fn check_task(lit: Option<&LitStr>, errors: &mut Errors) -> Ident {
    const SUPPORTS: [(&str, &str); 3] = [
        ("forbidden", "Forbidden"),
        ("optional", "Optional"),
        ("required", "Required"),
    ];
    let Some(lit) = lit else {
        return Ident::new("Forbidden", Span::call_site());
    };
    let value = lit.value();
    if let Some((_, variant)) = SUPPORTS.iter().find(|(support, _)| *support == value) {
        return Ident::new(variant, lit.span());
    }
    let message = match did_you_mean(
        &value.to_lowercase(),
        SUPPORTS.iter().map(|(support, _)| *support),
    ) {
        Some(close) => format!(
            "unknown task support `{value}`: did you mean \"{close}\"? (expected \"optional\" \
             or \"required\")"
        ),
        None => format!(
            "unknown task support `{value}`: expected \"optional\" (a task when the client \
             supports tasks) or \"required\" (always a task); leave `task` out for a tool that \
             never runs as one"
        ),
    };
    errors.at(lit, message);
    Ident::new("Forbidden", Span::call_site())
}

/// A version is a non-empty string without spaces.
pub(crate) fn check_version(lit: Option<&LitStr>, errors: &mut Errors) -> Option<String> {
    lit.and_then(|lit| {
        let value = lit.value();
        if value.trim().is_empty() || value.chars().any(char::is_whitespace) {
            errors.at(
                lit,
                "a version is a non-empty string without spaces, like \"1.2.0\"",
            );
            None
        } else {
            Some(value)
        }
    })
}

/// The accepted forms of `timeout`, for its errors.
const TIMEOUT_FORMS: &str = "a timeout is a positive whole number followed by `ms`, `s`, `m` or \
                             `h`, without spaces: \"500ms\", \"30s\", \"5m\", \"1h\"";

/// `timeout = "30s"`: the duration in milliseconds, or an error at the literal.
pub(crate) fn check_timeout(lit: &LitStr, errors: &mut Errors) -> Option<u64> {
    match parse_timeout(&lit.value()) {
        Ok(ms) => Some(ms),
        Err(problem) => {
            errors.at(lit, problem);
            None
        }
    }
}

/// `"500ms"`, `"30s"`, `"5m"`, `"1h"` in milliseconds; anything else says what is accepted.
fn parse_timeout(text: &str) -> Result<u64, String> {
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(digits_end);
    if digits.is_empty() {
        return Err(format!("`{text}` is not a timeout: {TIMEOUT_FORMS}"));
    }
    let per_unit: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "" => {
            return Err(format!(
                "`{text}` has no unit: {TIMEOUT_FORMS} (did you mean \"{text}s\"?)"
            ));
        }
        _ => return Err(format!("`{text}` is not a timeout: {TIMEOUT_FORMS}")),
    };
    let too_long = || {
        format!(
            "`{text}` is too long a timeout (at most {} ms): {TIMEOUT_FORMS}",
            u64::MAX
        )
    };
    let count: u64 = digits.parse().map_err(|_| too_long())?;
    if count == 0 {
        return Err(format!(
            "a timeout of `{text}` would stop every call before it starts: give a positive one, \
             like \"30s\", or leave `timeout` out to use the executor's"
        ));
    }
    count.checked_mul(per_unit).ok_or_else(too_long)
}

/// `max_calls = 10`: a positive whole number that fits a `u32`.
pub(crate) fn check_max_calls(expr: &Expr, errors: &mut Errors) -> Option<u32> {
    const FORM: &str = "`max_calls` is a positive whole number literal, like `max_calls = 10`";
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(int),
        ..
    }) = expr
    else {
        errors.at(expr, FORM);
        return None;
    };
    if !matches!(int.suffix(), "" | "u32") {
        errors.at(
            int,
            format!(
                "{FORM} (without a suffix, or with `u32`), not a `{}`",
                int.suffix()
            ),
        );
        return None;
    }
    match int.base10_parse::<u32>() {
        Ok(0) => {
            errors.at(
                int,
                "`max_calls = 0` would refuse every call: give a positive limit, or leave \
                 `max_calls` out for no limit",
            );
            None
        }
        Ok(limit) => Some(limit),
        Err(_) => {
            errors.at(int, format!("{FORM}, at most {}", u32::MAX));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_timeout;

    #[test]
    fn timeouts_in_every_unit() {
        assert_eq!(parse_timeout("500ms"), Ok(500));
        assert_eq!(parse_timeout("30s"), Ok(30_000));
        assert_eq!(parse_timeout("5m"), Ok(300_000));
        assert_eq!(parse_timeout("1h"), Ok(3_600_000));
        assert_eq!(parse_timeout("007s"), Ok(7_000));
    }

    #[test]
    fn anything_else_is_refused() {
        for bad in [
            "",
            "s",
            "ms",
            "0s",
            "0ms",
            "00h",
            "30",
            "30 s",
            " 30s",
            "30s ",
            "-1s",
            "+1s",
            "1.5s",
            "1S",
            "1H",
            "1sec",
            "1d",
            "1us",
            "1e3ms",
            "\u{0663}s",
            "18446744073709551616ms",
            "18446744073709551615s",
        ] {
            assert!(parse_timeout(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_timeout("18446744073709551615ms"), Ok(u64::MAX));
    }

    #[test]
    fn a_missing_unit_suggests_seconds() {
        let message = parse_timeout("30").unwrap_err();
        assert!(message.contains("did you mean \"30s\"?"), "{message}");
    }
}
